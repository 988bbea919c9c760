#!/usr/bin/env bash
# Installs OpenACLNN into a fresh prefix and uses it as a user would, with no LD_LIBRARY_PATH:
# every installed program carries a relative RUNPATH to the prefix's lib64; `openaclnn info`
# and an ATK file run from the prefix (the golden script from share/openaclnn); and a program
# using the fused extension's header builds with pkg-config and runs.
# Usage: check_installed_tool.sh BUILD_DIR SOURCE_DIR PYTHON_WITH_TORCH
set -euo pipefail
build=$(realpath "$1")
source=$(realpath "$2")
python=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
unset LD_LIBRARY_PATH

cmake --install "$build" --prefix "$prefix" >/dev/null
cd "$work"  # nothing of the build or source tree on hand

for program in "$prefix"/bin/*; do
  readelf -h "$program" >/dev/null 2>&1 || continue  # scripts
  runpath=$(readelf -d "$program" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
  if [[ $runpath != *'$ORIGIN/../lib64'* ]]; then
    echo "$program: RUNPATH is '$runpath', not \$ORIGIN/../lib64"
    exit 1
  fi
  echo "$(basename "$program"): RUNPATH $runpath"
done

"$prefix/bin/openaclnn" info | tee info.txt
grep -q '^OpenACLNN ' info.txt

"$prefix/bin/openaclnn" atk "$source/tests/atk/cases/atk_aclnnBinaryCrossEntropyWithLogits.json" \
  --cases 0-39 --python "$python" | tail -n 3

export PKG_CONFIG_PATH=$prefix/lib64/pkgconfig
# shellcheck disable=SC2046  # pkg-config's words are meant to split
g++ -std=c++17 "$source/tests/install/fused_sample.cpp" $(pkg-config --cflags --libs openaclnn) \
  -o fused_sample
./fused_sample
echo "the installed tool and the fused extension work from the prefix"

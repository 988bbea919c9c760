#!/usr/bin/env bash
# Installs OpenACLNN into a fresh prefix and uses it as a user would, with no LD_LIBRARY_PATH:
# every installed program carries a relative RUNPATH to the prefix's lib64; `openaclnn info`
# and an ATK file run from the prefix (the golden script from share/openaclnn), also with a
# python3 without numpy first on PATH; and a program using the fused extension's header builds
# with pkg-config and runs.
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

# PATH's first python3 may lack numpy (a pyenv interpreter, on these machines; here Python
# without its site directories): with neither --python nor OPENACLNN_PYTHON the tool runs the
# golden script with the interpreter the build was configured with.
mkdir bare
printf '#!/bin/sh\nexec %s -S "$@"\n' "$python" >bare/python3
chmod +x bare/python3
! bare/python3 -c 'import numpy' 2>/dev/null || { echo "bare/python3 imports numpy"; exit 1; }
env -u OPENACLNN_PYTHON PATH="$work/bare:$PATH" "$prefix/bin/openaclnn" atk \
  "$source/tests/atk/cases/atk_aclnnBinaryCrossEntropyWithLogits.json" --cases 0-9 |
  grep "10/10 cases passed"
# Chosen explicitly, an interpreter without numpy is refused with a message naming it and the
# way to choose another, exit status 2.
status=0
"$prefix/bin/openaclnn" atk "$source/tests/atk/cases/atk_aclnnBinaryCrossEntropyWithLogits.json" \
  --cases 0-9 --python "$work/bare/python3" >bare.out 2>&1 || status=$?
grep -q "$work/bare/python3 (--python) cannot import them" bare.out &&
  grep -q -- "--python EXE or OPENACLNN_PYTHON=EXE" bare.out && [[ $status == 2 ]] ||
  { echo "status $status, output:"; cat bare.out; exit 1; }
echo "an interpreter without numpy: $(grep -o 'the golden script needs.*' bare.out)"

export PKG_CONFIG_PATH=$prefix/lib64/pkgconfig
# shellcheck disable=SC2046  # pkg-config's words are meant to split
g++ -std=c++17 "$source/tests/install/fused_sample.cpp" $(pkg-config --cflags --libs openaclnn) \
  -o fused_sample
./fused_sample
echo "the installed tool and the fused extension work from the prefix"

#!/usr/bin/env bash
# The Python package as its users get it: pip builds a wheel from this tree (offline, through
# the project's CMake build: setup.py), it installs into a fresh virtual environment that sees
# Debian's numpy and torch, imports and computes from elsewhere with no LD_LIBRARY_PATH (the
# wheel carries libopenaclnn beside the extension, found by RUNPATH $ORIGIN), passes the
# package's pytest suites as installed (not from the build tree), and uninstalls completely.
# `pip install .` is checked too. Usage: check_wheel.sh [PYTHON] (default: /usr/bin/python3)
set -euo pipefail
source=$(realpath "$(dirname "$0")/../..")
python=${1:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PYTHONDONTWRITEBYTECODE=1 PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1
unset LD_LIBRARY_PATH PYTHONPATH

cd "$source"
"$python" -m pip wheel -q --no-build-isolation --no-deps -w "$work/dist" .
wheels=("$work"/dist/openaclnn-*.whl)
[[ ${#wheels[@]} == 1 && -f ${wheels[0]} ]] || { echo "expected one wheel: ${wheels[*]}"; exit 1; }
echo "built $(basename "${wheels[0]}")"

"$python" -m venv --system-site-packages "$work/venv"
venv=$work/venv/bin/python
site=$("$venv" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
cd "$work"  # away from the source tree, whose python/openaclnn has no extension

# pip install . (from the source tree) works, and uninstalls.
"$venv" -m pip install -q --no-build-isolation "$source"
"$venv" -c 'import openaclnn, numpy; print(openaclnn.binary_cross_entropy_with_logits(numpy.float32([0]), numpy.float32([1])))'
"$venv" -m pip uninstall -q -y openaclnn

"$venv" -m pip install -q "${wheels[0]}"
extension=$(ls "$site"/openaclnn/_binding*.so)
readelf -d "$extension" | grep -q 'RUNPATH.*\[\$ORIGIN\]' ||
  { echo "the extension's RUNPATH is not \$ORIGIN"; exit 1; }
"$venv" - "$site" <<'PY'
import math, sys
import numpy as np
import openaclnn
assert openaclnn.__file__.startswith(sys.argv[1]), openaclnn.__file__
loss = openaclnn.binary_cross_entropy_with_logits(np.float32([0.0]), np.float32([1.0]))
assert abs(float(loss) - math.log(2)) < 1e-7, loss
PY
"$venv" -m openaclnn | tee info.txt
grep -q "^library: *$site/openaclnn/libopenaclnn.so" info.txt ||
  { echo "the package does not load the library it carries"; exit 1; }

"$venv" -m pytest -q -p no:cacheprovider "$source/python/tests"

"$venv" -m pip uninstall -q -y openaclnn
leftovers=$(ls -d "$site"/openaclnn* 2>/dev/null || true)
[[ -z $leftovers ]] || { echo "pip uninstall left: $leftovers"; exit 1; }
echo "the wheel installs, passes the package's suites and uninstalls"

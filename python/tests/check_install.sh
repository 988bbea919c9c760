#!/usr/bin/env bash
# `cmake --install` puts the package under the prefix's Python directory, and Debian's python3
# imports and runs it from there with no LD_LIBRARY_PATH: the extension finds libopenaclnn
# through its relative RUNPATH, so the prefix can move.
# Usage: check_install.sh BUILD_DIR PYTHON PACKAGE_DIR_IN_PREFIX
set -euo pipefail
build=$(realpath "$1")
python=$2
package_dir=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
mv "$work/prefix" "$work/moved"  # a relative RUNPATH survives this; an absolute one would not
site=$work/moved/$package_dir
extension=$(ls "$site"/openaclnn/_binding*.so)
readelf -d "$extension" | grep -q 'RUNPATH.*\[\$ORIGIN/' ||
  { echo "no \$ORIGIN-relative RUNPATH on $extension"; exit 1; }

cd "$work"  # away from the source and build trees
env -u LD_LIBRARY_PATH PYTHONPATH="$site" "$python" - <<'PY'
import math
import numpy as np
import openaclnn
assert openaclnn.__file__.startswith(__import__("os").getcwd()), openaclnn.__file__
loss = openaclnn.binary_cross_entropy_with_logits(np.float32([0.0]), np.float32([1.0]))
assert abs(float(loss) - math.log(2)) < 1e-7, loss
print("installed package", openaclnn.__version__, "at", openaclnn.__file__)
PY

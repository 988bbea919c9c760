#!/usr/bin/env bash
# Installs OpenACLNN into a fresh prefix, then builds the unchanged CANN sample against it in
# every way a CANN user links (the g++ line of ops-nn's build.sh, CANN's sample CMakeLists,
# find_package, pkg-config) and checks each program's printed losses against fp64 math. The
# find_package and pkg-config builds (and the g++ line with -Wl,-rpath) run without
# LD_LIBRARY_PATH: they carry the prefix's lib64 as an rpath.
# Usage: check_cann_link_lines.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(realpath "$1")
source=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
sample=$source/examples/binary_cross_entropy_with_logits.cpp

cmake --install "$build" --prefix "$prefix" >/dev/null

expected() {  # the sample's [4,2] case, weight = pos_weight = 0.5, reduction none, in fp64
  /usr/bin/python3 - <<'PY'
import math
import numpy
for x, t in zip([.1, .1, .2, .2, .3, .3, .4, .4], [.2, .2, .1, .1, .2, .2, .1, .1]):
    x, t = float(numpy.float32(x)), float(numpy.float32(t))  # the sample's fp32 inputs
    sp_neg = math.log1p(math.exp(-x))
    print(0.5 * (0.5 * t * sp_neg + (1 - t) * (sp_neg + x)))
PY
}

check() {  # check NAME PROGRAM [ENV...]: runs PROGRAM with the ENV settings only
  local name=$1 program=$2
  shift 2
  env -u LD_LIBRARY_PATH "$@" "$program" >"$work/$name.out"
  paste <(grep -o 'is: [-0-9.e]*' "$work/$name.out" | cut -d' ' -f2) <(expected) |
    awk -v name="$name" '{ d = $1 - $2; if (d < 0) d = -d; if (d > 2e-6) bad++ ; n++ }
      END { if (n != 8 || bad) { printf "%s: %d of %d values wrong\n", name, bad, n; exit 1 }
            printf "%s: 8 values match fp64\n", name }'
}

# ops-nn build.sh's eager-mode line.
inc=$prefix/include
g++ "$sample" -I "$inc" -I "$inc/aclnnop" -I "$inc/aclnn" -L "$prefix/lib64" \
  -lopapi_nn -lopapi_math -lascendcl -lnnopbase -o "$work/gxx_line"
check "g++ link line" "$work/gxx_line" LD_LIBRARY_PATH="$prefix/lib64"

# The same line with an rpath: runs without LD_LIBRARY_PATH.
g++ "$sample" -I "$inc" -I "$inc/aclnnop" -I "$inc/aclnn" -L "$prefix/lib64" \
  -Wl,-rpath,"$prefix/lib64" -lopapi_nn -lopapi_math -lascendcl -lnnopbase -o "$work/gxx_rpath"
check "g++ link line with -Wl,-rpath" "$work/gxx_rpath"

# CANN's sample CMakeLists with ASCEND_CUSTOM_PATH (CANN's own build sets no rpath either: its
# users source set_env.sh, which sets LD_LIBRARY_PATH).
ASCEND_CUSTOM_PATH=$prefix cmake -S "$source/tests/install/cann_sample" -B "$work/cann" \
  -DSAMPLE_SOURCE="$sample" -DCMAKE_CXX_COMPILER=g++ -DCMAKE_SKIP_RPATH=TRUE >/dev/null
cmake --build "$work/cann" >/dev/null
check "CANN sample CMakeLists" "$work/cann/opapi_test" LD_LIBRARY_PATH="$prefix/lib64"

cmake -S "$source/tests/install/find_package_sample" -B "$work/fp" -DSAMPLE_SOURCE="$sample" \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/fp" >/dev/null
check "find_package(OpenACLNN)" "$work/fp/sample"

PKG_CONFIG_PATH=$prefix/lib64/pkgconfig
export PKG_CONFIG_PATH
g++ "$sample" $(pkg-config --cflags --libs openaclnn) -o "$work/pkg"
check "pkg-config" "$work/pkg"
echo "all CANN link lines work"

#!/usr/bin/env bash
# Builds OpenACLNN and runs the example program (a CANN sample, unchanged).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh build
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DOPENACLNN_BUILD_TESTS=OFF >/dev/null
cmake --build build --target binary_cross_entropy_with_logits
./build/examples/binary_cross_entropy_with_logits

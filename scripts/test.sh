#!/usr/bin/env bash
# The whole test suite: a release build with every test (C API, units, PyTorch differential
# and accuracy suites, ATK conformance, install + CANN link lines, examples), then the C/C++
# tests again under AddressSanitizer + UndefinedBehaviorSanitizer, and under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh test
jobs=$(nproc)

# The CUDA backend (libopenaclnn_cuda.so) is compiled whenever nvcc is found, so CI proves it
# builds; its tests (label cuda) report "no CUDA device" as skipped where no GPU is. nvcc's usual
# home is not on PATH by default.
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="$PATH:/usr/local/cuda/bin"
fi
command -v nvcc >/dev/null ||
  echo "test.sh: no nvcc found: the CUDA backend is not built (its tests report no CUDA device)"

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DOPENACLNN_BUILD_TESTS=ON
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DOPENACLNN_SANITIZE=address,undefined -DOPENACLNN_BUILD_TESTS=ON
cmake --build build-sanitize -j "$jobs"
# The Python suites load the library into an uninstrumented interpreter and the install check
# links uninstrumented programs; both ran above.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-sanitize --output-on-failure -j "$jobs" -LE "python|install"

# And once more under ThreadSanitizer: streams, events and the kernels' thread pool.
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DOPENACLNN_SANITIZE=thread -DOPENACLNN_BUILD_TESTS=ON -DOPENACLNN_BUILD_EXAMPLES=OFF
cmake --build build-tsan -j "$jobs"
OPENACLNN_NUM_THREADS=8 ctest --test-dir build-tsan --output-on-failure -j "$jobs" -LE "python|install"

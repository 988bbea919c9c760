#!/usr/bin/env bash
# The whole test suite: a release build with every test (C API, units, rounding quality, the
# Python package and the PyTorch differential and accuracy suites, ATK conformance, install +
# CANN link lines, examples, docs), the Python wheel installed into a venv and tested there, the
# CUDA library where nvcc is found, then the C/C++ tests again under AddressSanitizer +
# UndefinedBehaviorSanitizer and under ThreadSanitizer, a bounded libFuzzer run, and an aarch64
# cross-build tested under qemu.
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

# CI compiles the CUDA kernels to PTX only (compute_90; a user's build adds sm_80 and sm_90
# machine code): that proves they compile, and ptxas, which took about four fifths of the kernels'
# compile time, has no GPU here to serve anyway (a driver would compile the PTX where one is).
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DOPENACLNN_BUILD_TESTS=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90-virtual
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

# The Python package as its users get it: pip builds a wheel through the CMake build, it installs
# into a fresh venv (which sees Debian's numpy and torch), and the package's pytest suites run
# against the installed copy; `pip install .` and `pip uninstall` are checked too.
CMAKE_BUILD_PARALLEL_LEVEL=$jobs bash python/tests/check_wheel.sh

# The sanitizer builds optimise with -O1 and keep line tables only (-g1): what the sanitizers'
# reports need (function, file, line), at less than half the compile time of -O2 -g. They leave
# out the Python package, whose suites run against the release build above (an uninstrumented
# interpreter could not load an instrumented extension anyway).
sanitizer_flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DOPENACLNN_BUILD_PYTHON=OFF)
# Each GoogleTest program runs as one test here (OPENACLNN_TEST_WHOLE_PROGRAMS), all its cases in one
# process: about 1900 instrumented processes cost minutes to start.
cmake -S . -B build-sanitize -G Ninja "${sanitizer_flags[@]}" \
  -DOPENACLNN_SANITIZE=address,undefined -DOPENACLNN_BUILD_TESTS=ON -DOPENACLNN_TEST_WHOLE_PROGRAMS=ON
cmake --build build-sanitize -j "$jobs"
# The Python suites load the library into an uninstrumented interpreter and the install check
# links uninstrumented programs; both ran above.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-sanitize --output-on-failure -j "$jobs" -LE "python|install"

# And once more under ThreadSanitizer, the tests of what runs concurrently: streams, events and
# callbacks, the thread pool, fork, many host threads on shared streams (stress), and every
# family's kernels split over 1 to 8 threads (cpu_backend_unit_test's determinism tests; the
# class-axis ones' blocks of positions too, their sums and first faults merged under a lock). The
# families' single-threaded numerical suites, which took most of this stage, are left to the
# stages above; the other test programs are not built here (ctest lists them as *_NOT_BUILT, with
# no label, so the -L selection leaves them out).
cmake -S . -B build-tsan -G Ninja "${sanitizer_flags[@]}" \
  -DOPENACLNN_SANITIZE=thread -DOPENACLNN_BUILD_TESTS=ON -DOPENACLNN_BUILD_EXAMPLES=OFF
cmake --build build-tsan -j "$jobs" --target runtime_unit_test base_unit_test \
  cpu_backend_unit_test runtime_api_test base_api_test stress_api_test fork_api_test \
  safety_api_test
OPENACLNN_NUM_THREADS=8 ctest --test-dir build-tsan --output-on-failure -j "$jobs" -L "unit|api" \
  -LE "python|install|cuda|verbose"

# libFuzzer over the public C API (tests/fuzz/, docs/fuzzing.md): clang builds just the library
# and the target with AddressSanitizer, UndefinedBehaviorSanitizer and LeakSanitizer, then fuzzes
# for a bounded time from the repository's seed corpus (new inputs go to build-fuzz/corpus).
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DOPENACLNN_SANITIZE=fuzzer-no-link,address,undefined -DOPENACLNN_BUILD_FUZZER=ON \
  -DOPENACLNN_BUILD_TESTS=OFF -DOPENACLNN_BUILD_EXAMPLES=OFF
cmake --build build-fuzz -j "$jobs" --target api_fuzzer
mkdir -p build-fuzz/corpus
OPENACLNN_NUM_THREADS=2 build-fuzz/tests/fuzz/api_fuzzer -max_total_time=60 -timeout=30 \
  -rss_limit_mb=4096 -print_final_stats=1 build-fuzz/corpus tests/fuzz/corpus

# aarch64: cross-built with Debian's cross compiler (warnings are errors there too), then the
# C/C++ tests run under qemu-aarch64: the runtime/base/kernel units (SIMD against scalar bit for
# bit, any thread count giving the same bits) and the C API tests; the examples must print
# exactly what the x86 build above printed. Left out, as in the sanitizer stages: the suites that
# need the host's Python or compiler (python, install), and the lint checks, which ran above; and
# the one death test that re-executes its own binary, which cannot start an aarch64 program
# without binfmt_misc (not available in containers). Also left out: the CUDA suites (a cross build
# has no CUDA backend), atk.hostile_files (its script starts the aarch64 tool directly, which
# also needs binfmt_misc), and the refused-threads test (it limits the address space of a child,
# which qemu's own reservation of guest memory already exceeds); and the fork tests (Fork.*):
# qemu-user itself aborts in the child of a multi-threaded guest that starts threads again
# (qemu_plugin_vcpu_init_hook: assertion failed), an emulator limit; they run natively above, under
# ASan and TSan too. Emulated code runs 10-20 times
# slower than native, so a program that outgrows its time limit on a busy machine gets a second
# try. Left out as well, for time (they took 250 of the stage's 740 emulated seconds): the CUDA
# kernels' host steps against the CPU (CudaStepsMatchCpu; no CUDA backend is cross-built) and three
# error-bound sweeps of the shared fp64 formulas against binary128 and MPFR (compiled without
# contraction, they compute the same bits on both ISAs; native runs above). Each GoogleTest program
# runs as one test, as under ASan (qemu takes about 0.1 s to start one); GTEST_FILTER leaves its
# cases out.
bash scripts/install-deps.sh arm64
cmake -S . -B build-aarch64 -G Ninja -DCMAKE_BUILD_TYPE=Release -DOPENACLNN_BUILD_TESTS=ON \
  -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake -DOPENACLNN_TEST_WHOLE_PROGRAMS=ON
cmake --build build-aarch64 -j "$jobs"
left_out=BaseApiTest.DumpOpTensorsLogsShapesAndTypesAtInfoLevel:ThreadPoolLimits.RefusedThreadsAreDoneWithout
left_out+=:Fork.*:*CudaStepsMatchCpu.*:*CudaIntegerStepsMatchCpu.*
left_out+=:BinaryCrossEntropyLossBound.*:BinaryCrossEntropyLog.*:TripleDoubleLog.*
GTEST_FILTER="-$left_out" ctest --test-dir build-aarch64 --output-on-failure -j "$jobs" \
  -LE "python|install|lint|cuda" --repeat after-timeout:2 -E '^atk\.hostile_files$'
for example in build-aarch64/examples/*; do
  [[ -x "$example" && -f "$example" ]] || continue
  name=$(basename "$example")
  diff <(build/examples/"$name") <(qemu-aarch64 "$example") ||
    { echo "aarch64 $name prints other numbers than x86"; exit 1; }
done

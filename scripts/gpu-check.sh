#!/usr/bin/env bash
# The CUDA backend on a GPU machine, in one run of at most 8 minutes: the API, ATK and
# conformance suites with OPENACLNN_DEVICE=cuda, the bitwise CPU == CUDA check, the small-call
# latency, and the benchmark table (scripts/gpu-bench.py) as fractions of the HBM bandwidth
# measured in the same run, beside PyTorch's own CUDA loss and autograd step.
#
# A GPU machine may lack Debian's libraries (Highway) and a network, so the work is split:
#   here:  bash scripts/gpu-check.sh --pack   packs a build made with nvcc on PATH into
#                                            build/gpu-pack/ (a few MB: the libraries, the test
#                                            programs, the openaclnn tool, libhwy)
#   there: bash scripts/gpu-check.sh          runs everything from build/gpu-pack/; it needs
#                                            only the driver, python3 with PyTorch, numpy and
#                                            pytest; nothing is built or fetched.
# With no CUDA device it says so and exits 0. Logs go to $GPU_CHECK_LOGS (default
# build/gpu-check-logs).
set -uo pipefail
cd "$(dirname "$0")/.."
pack=build/gpu-pack
deadline=$((SECONDS + 470))  # 8 minutes, less a margin
bench_reserve=150            # seconds kept back for the benchmark

pack_build() {
  if [ ! -e build/lib64/libopenaclnn_cuda.so ]; then
    echo "gpu-check: build/lib64/libopenaclnn_cuda.so is missing: configure and build with nvcc" \
      "on PATH first (bash scripts/test.sh does)" >&2
    exit 1
  fi
  rm -rf "$pack" && mkdir -p "$pack/lib" "$pack/bin"
  cp -a build/lib64/libopenaclnn*.so* "$pack/lib/"
  # Highway is a Debian library a GPU machine may not have; GoogleTest is linked statically.
  ldd build/lib64/libopenaclnn.so | awk '/libhwy/ {print $3}' | xargs -r -I{} cp -L {} "$pack/lib/"
  cp build/tools/openaclnn build/tools/atk_golden.py "$pack/bin/"
  for program in tests/api/bce_forward_api_test tests/api/bce_backward_api_test \
    tests/api/runtime_api_test tests/api/base_api_test tests/cuda/backend_outputs \
    tests/cuda/small_call_latency; do
    cp "build/$program" "$pack/bin/"
  done
  echo "gpu-check: packed $(du -sh "$pack" | cut -f1) into $pack; carry it and run" \
    "bash scripts/gpu-check.sh there"
}

if [ "${1:-}" = "--pack" ]; then
  pack_build
  exit 0
fi
if [ ! -x "$pack/bin/openaclnn" ]; then
  echo "gpu-check: no $pack: run bash scripts/gpu-check.sh --pack on the build machine first" >&2
  exit 1
fi

export LD_LIBRARY_PATH="$PWD/$pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cli="$pack/bin/openaclnn"
python=${OPENACLNN_PYTHON:-python3}
logs=${GPU_CHECK_LOGS:-build/gpu-check-logs}
mkdir -p "$logs"
info=$(OPENACLNN_DEVICE=cuda "$cli" info 2>&1)
echo "$info"
if echo "$info" | grep -q '^devices: *none'; then
  echo "gpu-check: no CUDA device on this machine; nothing to check"
  exit 0
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total \
  --format=csv,noheader

failures=0
# step NAME CAP COMMAND...: runs COMMAND with at most CAP seconds (less if the run's budget,
# less the benchmark's reserve, is shorter), logs it, and prints one line.
step() {
  local name=$1 cap=$2
  shift 2
  local left=$((deadline - bench_reserve - SECONDS))
  [ "$name" = bench ] && left=$((deadline - SECONDS))
  local limit=$((cap < left ? cap : left))
  if [ "$limit" -le 0 ]; then
    echo "SKIPPED  $name (out of time)"
    failures=$((failures + 1))
    return
  fi
  local start=$SECONDS
  if timeout "$limit" "$@" >"$logs/$name.log" 2>&1; then
    echo "PASSED   $name ($((SECONDS - start)) s)"
  else
    echo "FAILED   $name ($((SECONDS - start)) s; log: $logs/$name.log); its end:"
    tail -n 15 "$logs/$name.log" | sed 's/^/    /'
    failures=$((failures + 1))
  fi
}

export OPENACLNN_DEVICE=cuda
for program in bce_forward_api_test bce_backward_api_test runtime_api_test base_api_test; do
  step "$program" 60 "$pack/bin/$program"
done
step bitwise 60 tests/cuda/compare_backends.sh "$pack/bin/backend_outputs" "$cli"
for file in atk_aclnnBinaryCrossEntropyWithLogits atk_aclnnBinaryCrossEntropyWithLogitsBackward; do
  step "$file" 90 "$cli" atk "tests/atk/cases/$file.json" --python "$python"
done
parallel=$("$python" -c 'import xdist' 2>/dev/null && echo "-n 8")
step conformance 200 env OPENACLNN_LIBRARY="$PWD/$pack/lib/libopenaclnn.so" \
  PYTHONDONTWRITEBYTECODE=1 "$python" -m pytest -q -p no:cacheprovider $parallel tests/conformance
step small_call 30 "$pack/bin/small_call_latency"
cat "$logs/small_call.log" 2>/dev/null
step bench "$bench_reserve" "$python" scripts/gpu-bench.py "$PWD/$pack/lib/libopenaclnn.so"
cat "$logs/bench.log" 2>/dev/null
echo "gpu-check: $failures step(s) failed or skipped, $SECONDS s in all"
[ "$failures" -eq 0 ]

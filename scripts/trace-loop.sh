#!/bin/bash
# The vector instructions of one iteration of a SIMD tile loop, as the CPU runs it, and llvm-mca's
# estimate of its cycles: a count that no neighbour on a shared machine moves, for AVX-512 code,
# which callgrind cannot run (docs/performance.md, issue 16).
#
#   scripts/trace-loop.sh build-perf/bench/tile_bench tile/loss/fp32/noweight/store/ramp \
#       N_AVX38RunStepsILm2ENS0_13Fp64EvaluatorILNS_8LossKindE0ELb0ELb1EEE
#
# The third argument is a substring of the mangled name of the loop's function (nm lists them:
# RunSteps<2, Fp64Evaluator<kind, fused, unweighted>> or RunSteps<2, Fp32LaneEvaluator<kind, fused,
# unweighted, shared type>> of each Highway target). One iteration is 32 elements on AVX-512 (two
# float vectors), 16 on AVX2. MCA_CPU names llvm-mca's CPU model (default icelake-server; znver3
# for a Zen 3). Needs gdb and llvm-mca (Debian: gdb, llvm).
set -euo pipefail
if [ $# -ne 3 ]; then
  sed -n '2,14p' "$0" >&2
  exit 2
fi
binary=$1 case=$2 symbol=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
SYMBOL=$symbol OUT=$work/iteration.s gdb -q -batch -x "$here/trace-loop-gdb.py" \
  --args "$binary" --benchmark_filter="^$case\$" --benchmark_min_time=0.01 >"$work/gdb.log" 2>&1 ||
  { cat "$work/gdb.log" >&2; exit 1; }
# llvm-mca takes straight-line code: branches and stack frame operations out, rip-relative
# constants at one address.
{
  echo ".intel_syntax noprefix"
  sed -E 's/\s+#.*//; s/\s+<[^>]*>//; s/\[rip\+0x[0-9a-f]+\]/[rip+32]/' "$work/iteration.s" |
    grep -Ev '^(j[a-z]+|call|ret|nop|xchg|push|pop|data16|cs)\b' || true
} >"$work/mca.s"
instructions=$(($(wc -l <"$work/mca.s") - 1))
# Vector instructions that occupy an arithmetic port (loads, stores, broadcasts and register moves
# do not count).
vector=$(awk '$1 ~ /^[vk]/ && $1 !~ /^(vmovap[sd]|vmovup[sd]|vmovdq[au]|vmovdqa64|vmovdqu(8|16|32|64)|vbroadcasts[sd]|vpbroadcast[bwdq]|vzeroupper)$/' "$work/mca.s" | wc -l)
cycles=$(llvm-mca -mcpu=${MCA_CPU:-icelake-server} -iterations=200 "$work/mca.s" 2>/dev/null |
  awk '/^Total Cycles:/ {printf "%.0f", $3 / 200}')
echo "$case: $instructions instructions per iteration, $vector vector arithmetic, llvm-mca $cycles cycles"

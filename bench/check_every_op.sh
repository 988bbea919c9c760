#!/usr/bin/env bash
# Runs every case of op_bench once at its sizes up to 1e6 and fails if a call failed: Google
# Benchmark reports such a case as "ERROR OCCURRED" and still exits 0.
# Usage: check_every_op.sh OP_BENCH
set -uo pipefail
output=$(OPENACLNN_NUM_THREADS=2 "$1" --benchmark_filter='/(1000|10000|100000|1000000)/' \
  --benchmark_min_time=0.001 2>&1)
status=$?
printf '%s\n' "$output"
cases=$(grep -c 'items_per_second' <<<"$output")
errors=$(grep -c 'ERROR OCCURRED' <<<"$output")
echo "check_every_op: $cases cases ran, $errors failed, exit status $status"
[[ $status -eq 0 && $errors -eq 0 && $cases -gt 0 ]]

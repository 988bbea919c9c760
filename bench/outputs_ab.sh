#!/usr/bin/env bash
# Bitwise before/after: runs one output_digest binary against two builds' libraries and diffs
# their digest lines (bench/output_digest.cc lists the problems). Exits 1 on any difference.
#   bench/outputs_ab.sh BASE_BUILD NEW_BUILD [DIGEST_BINARY]
# BASE_BUILD and NEW_BUILD are build trees (their lib64/ holds libopenaclnn.so); the binary
# defaults to NEW_BUILD/bench/output_digest (configure with -DOPENACLNN_BUILD_BENCH=ON).
set -euo pipefail
base=$1 new=$2 digest=${3:-$2/bench/output_digest}
out=$(mktemp -d)
for threads in 1 2; do
  OPENACLNN_NUM_THREADS=$threads LD_LIBRARY_PATH="$base/lib64" "$digest" >"$out/base.$threads"
  OPENACLNN_NUM_THREADS=$threads LD_LIBRARY_PATH="$new/lib64" "$digest" >"$out/new.$threads"
done
lines=$(wc -l <"$out/base.1")
failed=$(grep -vc ' 0$' "$out/new.1" || true)
if cmp -s "$out/base.1" "$out/new.1" && cmp -s "$out/base.2" "$out/new.2" &&
  cmp -s "$out/new.1" "$out/new.2"; then
  echo "outputs_ab: $lines problems, every output bitwise equal (1 and 2 threads; $failed rejected alike)"
  rm -r "$out"
else
  diff "$out/base.1" "$out/new.1" | head -20 || true
  diff "$out/new.1" "$out/new.2" | head -5 || true
  echo "outputs_ab: outputs differ (digests kept in $out)"
  exit 1
fi

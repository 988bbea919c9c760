#!/usr/bin/env bash
# The bitwise CPU == CUDA check: backend_outputs must print the same lines on both backends.
# Usage: compare_backends.sh BACKEND_OUTPUTS OPENACLNN_CLI. Exits 77 (skipped) when there is no
# CUDA device, for that reason alone.
set -euo pipefail
program=$1
cli=$2
if OPENACLNN_DEVICE=cuda "$cli" info | grep -q '^devices: *none'; then
  echo "SKIPPED: no CUDA device"
  exit 77
fi
cpu=$(OPENACLNN_DEVICE=cpu "$program")
cuda=$(OPENACLNN_DEVICE=cuda "$program")
if [ "$cpu" != "$cuda" ]; then
  diff <(echo "$cpu") <(echo "$cuda") || true
  echo "CPU and CUDA results differ (lines above: < cpu, > cuda)"
  exit 1
fi
echo "CPU == CUDA bit for bit: $(echo "$cpu" | wc -l) op calls"

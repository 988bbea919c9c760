#!/usr/bin/env bash
# Runs a test command with OPENACLNN_DEVICE=cuda, or reports it skipped (exit 77) with the reason
# "no CUDA device" when the CUDA backend has none. Usage: run_on_cuda.sh OPENACLNN_CLI COMMAND...
set -euo pipefail
cli=$1
shift
export OPENACLNN_DEVICE=cuda
if "$cli" info | grep -q '^devices: *none'; then
  echo "SKIPPED: no CUDA device"
  exit 77
fi
exec "$@"

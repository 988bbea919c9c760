#!/usr/bin/env bash
# Runs a command and passes only if it exits with STATUS and its output matches REGEX (grep -E):
# for a test whose command is meant to fail, in a stated way.
# Usage: expect_exit.sh STATUS REGEX COMMAND [ARG...]
set -uo pipefail
want_status=$1 regex=$2
shift 2
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [[ $status -ne $want_status ]]; then
  echo "expect_exit: exit status $status, expected $want_status"
  exit 1
fi
if ! grep -Eq -- "$regex" <<<"$output"; then
  echo "expect_exit: output does not match: $regex"
  exit 1
fi

#!/usr/bin/env bash
# commanalyzer_budget_test: fails when the predicted bytes for N processes
# exceed the budget. Usage: budget_check.sh ESTIMATE_JSON PROCS MAX_BYTES
set -euo pipefail
json="$1" procs="$2" budget="$3"
bytes=$(grep -oE "\{\"n\": $procs, \"total_bytes\": [0-9]+" "$json" | grep -oE '[0-9]+$' || true)
if [ -z "$bytes" ]; then
  echo "FAIL: $json has no estimate for $procs processes (estimate it with procs including $procs)" >&2
  exit 1
fi
if [ "$bytes" -gt "$budget" ]; then
  echo "FAIL: predicted $bytes bytes on $procs processes exceeds the budget of $budget bytes" >&2
  exit 1
fi
echo "ok: predicted $bytes bytes on $procs processes, within the budget of $budget bytes"

#!/usr/bin/env bash
# self_checks.sh PROGRAM: runs `PROGRAM check` (the application's own
# consistency checks) and expects every check to pass.
set -uo pipefail
out=$("$1" check 2>&1); code=$?
echo "$out"
[ "$code" -eq 0 ] || { echo "FAIL: $1 check exited $code"; exit 1; }
grep -q "^0 failure(s)$" <<<"$out" || { echo "FAIL: no '0 failure(s)' line"; exit 1; }

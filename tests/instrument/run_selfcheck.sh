#!/usr/bin/env bash
# Runs a self-checking program built with the pass and the real runtime.
set -uo pipefail
export COMMANALYZER_PROFILE="${TEST_TMPDIR:-/tmp}/selfcheck.profile"
out=$("$1" 2>&1); code=$?
echo "$out"
[ "$code" -eq 0 ] || { echo "FAIL: $1 exited $code"; exit 1; }
grep -q "all expectations met" <<<"$out" || { echo "FAIL: no result line"; exit 1; }
[ -s "$COMMANALYZER_PROFILE" ] || { echo "FAIL: no profile written"; exit 1; }

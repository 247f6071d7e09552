#!/usr/bin/env bash
# The instrumented program behaves exactly as the native one.
set -uo pipefail
native="$1" instrumented="$2"; shift 2
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
"$native" "$@" >"$tmp/n.out" 2>"$tmp/n.err"; n=$?
COMMANALYZER_PROFILE="$tmp/p" "$instrumented" "$@" >"$tmp/i.out" 2>"$tmp/i.err"; i=$?
diff "$tmp/n.out" "$tmp/i.out" || { echo "FAIL: stdout differs"; exit 1; }
diff "$tmp/n.err" "$tmp/i.err" || { echo "FAIL: stderr differs"; exit 1; }
[ "$n" -eq "$i" ] || { echo "FAIL: exit status $n native vs $i instrumented"; exit 1; }
[ -s "$tmp/p" ] || { echo "FAIL: no profile"; exit 1; }
echo "same stdout, stderr and exit status ($n)"

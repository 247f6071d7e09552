#!/usr/bin/env bash
# The command-line front end: output, files, and errors on bad input.
set -uo pipefail
tool="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$tool" demo --n 32 --steps 3 --procs 2,4 --json "$tmp/e.json" --out "$tmp/report") || fail "demo exited $?"
grep -qE '^ +2 +[0-9]+' <<<"$out" || fail "no row for 2 processes in: $out"
grep -qE '^ +4 +[0-9]+' <<<"$out" || fail "no row for 4 processes"
grep -q '"n": 4' "$tmp/e.json" || fail "JSON lacks the 4-process estimate"
grep -q '"matrix": \[\[' "$tmp/e.json" || fail "JSON lacks the matrix"
[ -s "$tmp/report/matrix_4.csv" ] || fail "no CSV matrix"
grep -q '<svg' "$tmp/report/matrix_4.svg" || fail "no SVG heatmap"
[ "$(head -1 "$tmp/report/matrix_2.csv")" = 'from\to,0,1' ] || fail "CSV header"
ls "$tmp/report" | grep -q partial && fail "partial files left behind"

# 3 iterations: the table reports bytes per iteration = total / 3.
total=$(awk '$1 == 4 {print $2}' <<<"$out"); per=$(awk '$1 == 4 {print $7}' <<<"$out")
[ "$(( total / 3 ))" -eq "$per" ] || [ "$(( (total + 1) / 3 ))" -eq "$per" ] || fail "per-iteration $per vs total $total"

for bad in "0" "2,x" "-4" ""; do
  err=$("$tool" demo --procs "$bad" 2>&1 >/dev/null); code=$?
  [ "$code" -eq 2 ] || fail "--procs '$bad' exited $code, want 2"
  grep -q -- "--procs" <<<"$err" || fail "error for --procs '$bad' does not name the flag: $err"
done
err=$("$tool" frobnicate 2>&1); [ $? -eq 2 ] && grep -q "unknown command 'frobnicate'" <<<"$err" || fail "unknown command: $err"
"$tool" help | grep -q "Usage:" || fail "help text"
echo "cli_test: all passed"

#!/usr/bin/env bash
# model_test.sh TOOL HEAT2D_SOURCE
#
# `commanalyzer model` fits Heat2D's communication per iteration at sizes
# 16..48 and predicts 8 times the largest (384) within 10 % of an analysis
# at that size, on 4, 16 and 64 processes; the Extra-P input it writes
# holds every analysis; bad requests end with exit 2 before any build.
set -uo pipefail
tool=$(realpath "$1"); src=$(realpath "$2")
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$tool" model "$src" --sizes 16,24,32,48 --procs 4,16,64 --predict 384 --extrap "$tmp/extrap.txt" -- {n} 4 2>&1) ||
  fail "model exited $?: $out"
echo "$out" | sed -n '/^communication per iteration/,$p'
grep -q "^  bytes *= .*n" <<<"$out" || fail "no bytes formula in n"
json=$("$tool" analyze "$src" --procs 4,16,64 --json "$tmp/e.json" -- 384 4 2>&1) || fail "analyze at 384: $json"
iterations=$(grep -oE '"iterations": [0-9]+' "$tmp/e.json" | head -1 | grep -oE '[0-9]+$')
[ "${iterations:-0}" -gt 0 ] || fail "no iterations in the analysis"
for p in 4 16 64; do
  actual=$(grep -oE "\{\"n\": $p, \"total_bytes\": [0-9]+" "$tmp/e.json" | grep -oE '[0-9]+$')
  predicted=$(sed -n '/^predicted/,$p' <<<"$out" | awk -v p=$p '$1 == 384 && $2 == p {print $3}')
  [ -n "$actual" ] && [ -n "$predicted" ] || fail "P=$p: predicted '$predicted', analysed '$actual'"
  awk -v a="$actual" -v it="$iterations" -v m="$predicted" -v p=$p 'BEGIN {
    per = a / it; err = (m - per) / per; if (err < 0) err = -err
    printf "n=384 P=%d: predicted %.1f B/iteration, analysed %.1f (%.1f %%)\n", p, m, per, 100 * err
    exit err <= 0.10 ? 0 : 1 }' || fail "P=$p: the model misses the analysis at n=384 by more than 10 %"
done

grep -qx "PARAMETER n" "$tmp/extrap.txt" && grep -qx "PARAMETER p" "$tmp/extrap.txt" || fail "Extra-P parameters"
points=$(grep '^POINTS' "$tmp/extrap.txt" | grep -o '(' | wc -l)
[ "$points" -eq 12 ] || fail "Extra-P: $points points, want 12"
[ "$(grep -c '^METRIC' "$tmp/extrap.txt")" -eq 3 ] && [ "$(grep -c '^DATA' "$tmp/extrap.txt")" -eq 36 ] ||
  fail "Extra-P: want 3 metrics of 12 values: $(cat "$tmp/extrap.txt")"

expect_error() {  # expect_error CODE PATTERN CMD...
  local code="$1" pattern="$2"; shift 2
  local err; err=$("$@" 2>&1 >/dev/null); local got=$?
  [ "$got" -eq "$code" ] || fail "'$*' exited $got, want $code: $err"
  grep -q -- "$pattern" <<<"$err" || fail "'$*': no '$pattern' in: $err"
  grep -q "compiling" <<<"$err" && fail "'$*' built before refusing: $err"
  return 0
}
expect_error 2 "--sizes: give at least 3 different sizes" "$tool" model "$src" --sizes 16,32 -- {n} 4
expect_error 2 "--sizes: 'x' is not a positive whole size" "$tool" model "$src" --sizes 16,x,32 -- {n} 4
expect_error 2 "write {n} in the program's arguments" "$tool" model "$src" --sizes 16,24,32 -- 32 4
expect_error 2 "write the size as {n} or {n\*K}" "$tool" model "$src" --sizes 16,24,32 -- {n*x} 4
expect_error 2 "model: --json is for analyze, estimate and demo" "$tool" model "$src" --sizes 16,24,32 --json "$tmp/m.json" -- {n} 4
expect_error 2 "--extrap: '$src' is" "$tool" model "$src" --sizes 16,24,32 --extrap "$src" -- {n} 4
echo "model_test: all passed"

#!/usr/bin/env bash
# The command-line front end: output, files, and errors on bad input.
set -uo pipefail
tool="$1" jacobi="${2:-}"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$tool" demo --n 32 --steps 3 --procs 2,4 --json "$tmp/e.json" --out "$tmp/report") || fail "demo exited $?"
grep -qE '^ +2 +[0-9]+' <<<"$out" || fail "no row for 2 processes in: $out"
grep -qE '^ +4 +[0-9]+' <<<"$out" || fail "no row for 4 processes"
grep -q '"n": 4' "$tmp/e.json" || fail "JSON lacks the 4-process estimate"
grep -q '"matrix": \[\[' "$tmp/e.json" || fail "JSON lacks the matrix"
[ -s "$tmp/report/matrix_4.csv" ] || fail "no CSV matrix"
grep -q '<svg' "$tmp/report/matrix_4.svg" || fail "no SVG heatmap"
# The built-in Heat2D's grid is cut 2 x 2 at 4 processes: its owner map is drawn.
grep -q 'cartesian' "$tmp/report/owners_4_array1.svg" || fail "no owner map SVG"
[ "$(grep -o 'fill="hsl([^"]*"' "$tmp/report/owners_4_array1.svg" | sort -u | wc -l)" -eq 4 ] || fail "owner map: not 4 processes"
grep -q '"owner_map": \[\[1,' "$tmp/e.json" || fail "JSON lacks the owner map"
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
# A count given twice is estimated once.
out=$("$tool" demo --n 16 --steps 2 --procs 4,2,4) || fail "demo --procs 4,2,4 exited $?"
[ "$(grep -cE '^ +4 +[0-9]+' <<<"$out")" -eq 1 ] || fail "--procs 4,2,4: 4 processes not reported once: $out"
err=$("$tool" frobnicate 2>&1); [ $? -eq 2 ] && grep -q "unknown command 'frobnicate'" <<<"$err" || fail "unknown command: $err"
help=$("$tool" help) || fail "help exited $?"
grep -q "Usage:" <<<"$help" || fail "help text"

# analyze / estimate: every failure names its cause and exits non-zero.
expect_error() {  # expect_error CODE PATTERN CMD...
  local code="$1" pattern="$2"; shift 2
  local err; err=$("$@" 2>&1 >/dev/null); local got=$?
  [ "$got" -eq "$code" ] || fail "'$*' exited $got, want $code: $err"
  grep -q -- "$pattern" <<<"$err" || fail "'$*': no '$pattern' in: $err"
}
expect_error 1 "source file '$tmp/missing.c' not found" "$tool" analyze "$tmp/missing.c"
printf 'int main( {\n' > "$tmp/bad.c"
expect_error 1 "compiling $tmp/bad.c failed" "$tool" analyze "$tmp/bad.c"
expect_error 1 "error:" "$tool" analyze "$tmp/bad.c"   # clang's own diagnostics pass through
printf '#include <stdlib.h>\nint main(void) { abort(); }\n' > "$tmp/crash.c"
expect_error 1 "killed by signal 6" "$tool" analyze "$tmp/crash.c"
printf 'int main(void) { return 3; }\n' > "$tmp/fails.c"
expect_error 1 "exited with status 3" "$tool" analyze "$tmp/fails.c"
expect_error 2 "unknown option '-Z'" "$tool" analyze "$tmp/fails.c" -Z
echo "not a profile" > "$tmp/junk.profile"
expect_error 1 "not a CommAnalyzer profile" "$tool" estimate "$tmp/junk.profile"
expect_error 1 "cannot read profile" "$tool" estimate "$tmp/none.profile"
expect_error 2 "--partitioner" "$tool" demo --partitioner nope
expect_error 2 "'connectivity' is not auto, metis-volume, metis-cut or parmetis" "$tool" demo --partitioner connectivity
# By value, auto is METIS's communication volume: the same estimates.
"$tool" demo --n 32 --steps 3 --procs 2,4 --ownership=value --json "$tmp/value_auto.json" >/dev/null 2>&1 ||
  fail "demo --ownership=value exited $?"
"$tool" demo --n 32 --steps 3 --procs 2,4 --ownership=value --partitioner metis-volume --json "$tmp/value_metis.json" \
  >/dev/null 2>&1 || fail "demo --ownership=value --partitioner metis-volume exited $?"
python3 - "$tmp/value_auto.json" "$tmp/value_metis.json" <<'PY' || fail "--ownership=value: auto is not METIS's volume"
import json, sys
auto, metis = (json.load(open(f))["procs"] for f in sys.argv[1:])
assert [e["total_bytes"] for e in auto] == [e["total_bytes"] for e in metis], (auto, metis)
assert all(e["total_bytes"] > 0 for e in auto)
PY

# A good run: analyze, then re-estimate the kept profile for other counts.
printf '#include "commanalyzer/annotate.h"\ndouble a[256], b[256];\nint main(void) {\n  for (int i = 0; i < 256; ++i) a[i] = i;\n  CA_REGION_BEGIN();\n  for (int t = 0; t < 3; ++t) {\n    for (int i = 1; i < 255; ++i) b[i] = a[i - 1] + a[i + 1];\n    for (int i = 1; i < 255; ++i) a[i] = b[i];\n    CA_ITERATION();\n  }\n  CA_REGION_END();\n  return 0;\n}\n' > "$tmp/ok.c"
out=$("$tool" analyze "$tmp/ok.c" --procs 2 --out "$tmp/ok") || fail "analyze of a good program failed: $out"
[ -s "$tmp/ok/build/program.profile" ] || fail "no profile kept under --out"
grep -qE '^ +2 +[0-9]+' <<<"$out" || fail "no estimate row: $out"
out=$("$tool" estimate "$tmp/ok/build/program.profile" --procs 4) || fail "estimate failed"
grep -qE '^ +4 +[0-9]+' <<<"$out" || fail "no re-estimate row for 4: $out"
# The run's analysis memory, and its parts, which add up to it.
memory=$(grep -o 'analysis_memory_bytes=[0-9]*' <<<"$out" | cut -d= -f2)
parts=$(grep -oE '(shadow|label|value|flow|vertex_table)_bytes=[0-9]+' <<<"$out" | awk -F= '{ s += $2; n++ } END { if (n == 5) print s }')
[ -n "$memory" ] && [ "$memory" -gt 0 ] && [ "$parts" = "$memory" ] ||
  fail "the analysis memory ($memory) is not the sum of its five parts ($parts): $(grep '^profile:' <<<"$out")"
# A relative --out: the partitioner's MPI runtime (zoltan_phg) finds the
# temporary directory under it, from any working directory.
tool_path=$(realpath "$tool")
out=$(cd "$tmp" && "$tool_path" estimate ok/build/program.profile --procs 4 --distribution hypergraph --out rel 2>&1) ||
  fail "estimate with a relative --out: $out"
! grep -qE 'PMIX ERROR|ORTE_ERROR|Impossible to open' <<<"$out" || fail "relative --out: MPI's temporary files failed: $out"
grep -qE '^ +4 +[0-9]+' <<<"$out" || fail "no estimate row with a relative --out: $out"
[ -s "$tmp/rel/estimate.json" ] || fail "no estimate.json under a relative --out"
# trace's CSV: six fields per row, the site quoted where its path has a comma.
mkdir -p "$tmp/a,b" && cp "$tmp/ok.c" "$tmp/a,b/ok.c"
"$tool" analyze "$tmp/a,b/ok.c" --procs 2 --out "$tmp/comma" >/dev/null 2>&1 || fail "analyze in a folder with a comma"
"$tool" trace "$tmp/comma/build/program.profile" --procs 2 --csv "$tmp/comma.csv" 2>/dev/null || fail "trace exited $?"
python3 - "$tmp/comma.csv" <<'PY' || fail "trace CSV: $(head -3 "$tmp/comma.csv")"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0] == ["iteration", "src", "dst", "bytes", "kind", "site"], rows[0]
assert len(rows) > 1 and all(len(r) == 6 for r in rows), [r for r in rows if len(r) != 6][:3]
assert any("a,b/ok.c:" in r[5] for r in rows[1:]), rows[1]
PY
# A source path that is not UTF-8 still gives valid JSON (U+FFFD for the byte).
bad="$tmp/$(printf 'latin\xe9')"; mkdir -p "$bad" && cp "$tmp/ok.c" "$bad/ok.c"
"$tool" analyze "$bad/ok.c" --procs 2 --json "$tmp/latin.json" >/dev/null 2>&1 || fail "analyze in a non-UTF-8 folder"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1], encoding="utf-8")); assert "\ufffd" in json.dumps(d, ensure_ascii=False)' \
  "$tmp/latin.json" || fail "--json with a non-UTF-8 path is not valid JSON"
# Without --out, the temporary build keeps the profile it names and nothing
# else; a build or run that failed leaves nothing.
mkdir -p "$tmp/t"
for failing in bad.c crash.c fails.c; do TMPDIR="$tmp/t" "$tool" analyze "$tmp/$failing" >/dev/null 2>&1; done
[ -z "$(ls -A "$tmp/t")" ] || fail "failed analyses left files: $(find "$tmp/t")"
out=$(TMPDIR="$tmp/t" "$tool" analyze "$tmp/ok.c" --procs 2 2>&1) || fail "analyze without --out: $out"
left=$(find "$tmp/t" -type f)
[ "$left" = "$(sed -n 's/^profile kept at \([^ ]*\) .*/\1/p' <<<"$out")" ] || fail "left behind: $left; said: $out"
# No output may overwrite an input: the source, the profile, a map.
cp "$tmp/ok.c" "$tmp/ok.c.orig"; cp "$tmp/ok/build/program.profile" "$tmp/profile.orig"
expect_error 2 "--json: '$tmp/ok.c' is an input of this run" "$tool" analyze "$tmp/ok.c" --procs 2 --json "$tmp/ok.c"
expect_error 2 "--json: '$tmp/ok/build/../build/program.profile' is an input" \
  "$tool" estimate "$tmp/ok/build/program.profile" --json "$tmp/ok/build/../build/program.profile"
expect_error 2 "--csv: .* is an input" "$tool" trace "$tmp/ok/build/program.profile" --procs 2 --csv "$tmp/ok/build/program.profile"
# trace, benchgen and place write no report: a report output given to them
# is refused, not silently ignored.
expect_error 2 "trace: --json is for analyze, estimate and demo" \
  "$tool" trace "$tmp/ok/build/program.profile" --procs 2 --json "$tmp/t.json"
expect_error 2 "place: --html, --out are for analyze, estimate and demo" \
  "$tool" place "$tmp/ok/build/program.profile" --procs 2 --html "$tmp/p.html" --out "$tmp/p"
expect_error 2 "benchgen: --json is for analyze, estimate and demo; benchgen writes its program to --out" \
  "$tool" benchgen "$tmp/ok/build/program.profile" --procs 2 --json "$tmp/b.json"
[ -e "$tmp/t.json" ] || [ -e "$tmp/p.html" ] || [ -e "$tmp/b.json" ] && fail "a refused run wrote a file"
# A map that does not fit the array (256 elements) is refused, not costed.
printf 'array 1 0 999 0\n' > "$tmp/past_end.map"
expect_error 2 "range 0..999 goes past the end: array 1 has 256 elements" \
  "$tool" estimate "$tmp/ok/build/program.profile" --procs 2 --distribution "$tmp/past_end.map"
cmp -s "$tmp/ok.c" "$tmp/ok.c.orig" && cmp -s "$tmp/ok/build/program.profile" "$tmp/profile.orig" || fail "an input was overwritten"

# Ownership by location: global arrays are distributed; a 1-D stencil on 2
# processes sends one halo value each way per step (3 steps, 8 bytes).
out=$("$tool" estimate "$tmp/ok/build/program.profile" --procs 2 --distribution block) || fail "block failed"
[ "$(awk '$1 == 2 {print $3}' <<<"$out")" = 48 ] || fail "block distribution of the stencil: $out"
grep -q "arrays (allocation order): #1 a (ok.c:2) 2048 B, #2 b (ok.c:2) 2048 B" <<<"$out" || fail "arrays not listed: $out"
# A user's map: the two halves of a (and of b, aligned with it) on ranks 0 and 1.
printf '# a and b (aligned)\narray 1 0 127 0\narray 1 128 255 1\n' > "$tmp/half.map"
out=$("$tool" estimate "$tmp/ok/build/program.profile" --procs 2 --distribution "$tmp/half.map") || fail "map failed"
grep -qE '^ +2 +48 .*user map' <<<"$out" || fail "user map estimate: $out"
printf 'array 1 0 127 0\narray 1 128 255 5\n' > "$tmp/rank5.map"
expect_error 2 "distribution uses rank 5, but only 2 processes are estimated" \
  "$tool" estimate "$tmp/ok/build/program.profile" --procs 2 --distribution "$tmp/rank5.map"
printf 'array 7 0 1 0\n' > "$tmp/array7.map"
expect_error 2 "distribution names array 7, but the profile has 2 arrays" \
  "$tool" estimate "$tmp/ok/build/program.profile" --procs 2 --distribution "$tmp/array7.map"
printf 'array 1 0\n' > "$tmp/short.map"
expect_error 2 "short.map:1: expected 'array ID FIRST LAST RANK'" \
  "$tool" estimate "$tmp/ok/build/program.profile" --procs 2 --distribution "$tmp/short.map"
expect_error 2 "is not auto, block, cartesian, metis, hypergraph or a readable distribution file" \
  "$tool" estimate "$tmp/ok/build/program.profile" --distribution "$tmp/none.map"
expect_error 2 "--ownership: 'both' is not location or value" "$tool" demo --ownership both

# Every subcommand that estimates reads its flags the same way, before any
# work: one message and one exit status for one mistake.
profile="$tmp/ok/build/program.profile"
for cmd in estimate trace benchgen place; do
  out=(); [ "$cmd" = benchgen ] || [ "$cmd" = estimate ] && out=(--out "$tmp/bad_out")  # trace and place take no --out
  expect_error 2 "--procs: '0' is not a process count between 1 and 65536" \
    "$tool" "$cmd" "$profile" --procs 0 "${out[@]}" --nodes 1 --cores-per-node 2
  expect_error 2 "--latency: -1 is not a latency" \
    "$tool" "$cmd" "$profile" --procs 2 --latency -1 "${out[@]}" --nodes 1 --cores-per-node 2
  expect_error 2 "distribution uses rank 5, but only 2 processes are estimated" \
    "$tool" "$cmd" "$profile" --procs 2 --distribution "$tmp/rank5.map" "${out[@]}" --nodes 1 --cores-per-node 2
  expect_error 1 "cannot read profile" "$tool" "$cmd" "$tmp/none.profile" --procs 2 "${out[@]/bad_out/out_$cmd}" --nodes 1 \
    --cores-per-node 2
done
for cmd in trace benchgen place; do
  expect_error 2 "--procs: give one process count for $cmd" \
    "$tool" "$cmd" "$profile" --procs 2,4 --out "$tmp/bad_out" --nodes 1 --cores-per-node 2
  expect_error 2 "--ownership: $cmd estimates with ownership by location (the default) only" \
    "$tool" "$cmd" "$profile" --procs 2 --ownership value --out "$tmp/bad_out" --nodes 1 --cores-per-node 2
done
[ ! -e "$tmp/bad_out" ] || fail "a bad flag let a subcommand create its --out folder"

# A write that fails half-way (a file-size limit of 0, SIGXFSZ ignored so
# that write(2) fails instead of killing the tool) names the file, exits 1
# and leaves neither the file nor FILE.partial, for every kind of output.
mkdir -p "$tmp/full"
no_room() { (trap '' XFSZ; ulimit -f 0; "$@"); }
expect_error 1 "error while writing $tmp/full/e.json.partial" \
  no_room "$tool" estimate "$profile" --procs 2 --json "$tmp/full/e.json"
expect_error 1 "error while writing $tmp/full/report/matrix_2.csv.partial" \
  no_room "$tool" estimate "$profile" --procs 2 --out "$tmp/full/report"
expect_error 1 "error while writing $tmp/full/t.csv.partial" \
  no_room "$tool" trace "$profile" --procs 2 --csv "$tmp/full/t.csv"
expect_error 1 "error while writing $tmp/full/bench/bench.h.partial" \
  no_room "$tool" benchgen "$profile" --procs 2 --out "$tmp/full/bench"
expect_error 1 "error while writing $tmp/full/rf.partial" \
  no_room "$tool" place "$profile" --procs 2 --nodes 1 --cores-per-node 2 --rankfile "$tmp/full/rf"
[ -z "$(find "$tmp/full" -type f)" ] || fail "a failed write left files: $(find "$tmp/full" -type f)"
# A bad map is found before the program is built and run.
expect_error 2 "rank 5" "$tool" analyze "$tmp/ok.c" --procs 2 --distribution "$tmp/rank5.map"
# The textbook pointer-swap Jacobi (n = 24, 4 steps) under the MPI code's
# 2 x 2 blocks: 2 cuts x 2 directions x (n - 2) points x 8 bytes per step,
# the same at every -O level (and found by the default portfolio too).
if [ -n "$jacobi" ]; then
  printf 'grid 1 24x24 2x2\n' > "$tmp/grid.map"
  for opt in -O0 -O1 -O2 -O3; do
    out=$("$tool" analyze "$jacobi" "$opt" --procs 4 --distribution "$tmp/grid.map" -- 24 4 2>&1) ||
      fail "jacobi_swap at $opt: $out"
    [ "$(awk '$1 == 4 {print $3}' <<<"$out")" = $(( 2 * 2 * 22 * 8 * 4 )) ] || fail "jacobi_swap at $opt: $out"
    out=$("$tool" analyze "$jacobi" "$opt" --procs 4 -- 24 4 2>&1) || fail "jacobi_swap at $opt: $out"
    grep -qE "^ +4 +$(( 2 * 2 * 22 * 8 * 4 )) .*cartesian" <<<"$out" || fail "jacobi_swap auto at $opt: $out"
  done
  # A recording window: 3 of 12 steps costed (a fourth recorded to look
  # ahead), the other 9 counted as the third; the steps repeat, so the
  # bytes are the whole run's.
  out=$("$tool" analyze "$jacobi" -O2 --procs 4 --record-iterations 3 --json "$tmp/window.json" -- 24 12 2>&1) ||
    fail "jacobi_swap --record-iterations 3: $out"
  grep -qE "^ +4 +$(( 2 * 2 * 22 * 8 * 12 )) " <<<"$out" || fail "jacobi_swap, 3 of 12 steps costed: $out"
  grep -q "12 iterations (the first 3 costed, the other 9 counted as the last of them" <<<"$out" ||
    fail "the report does not say what was costed: $out"
  grep -q '"projected_iterations": 9' "$tmp/window.json" || fail "JSON lacks the projected iterations"
  # A window as long as the run: said, and the whole run analysed.
  out=$("$tool" analyze "$jacobi" -O2 --procs 4 --record-iterations 3 -- 24 4 2>&1) || fail "a window past the run: $out"
  grep -q "warning: --record-iterations 3: the region marked 4 iterations (CA_ITERATION), no more than the window" \
    <<<"$out" || fail "no warning for a window past the run: $out"
  grep -qE "^ +4 +$(( 2 * 2 * 22 * 8 * 4 )) " <<<"$out" || fail "a window past the run: $out"
  grep -q "costed, the other" <<<"$out" && fail "a window past the run reported as one: $out"
  expect_error 2 "--record-iterations: 1 iterations cannot stand for the rest" \
    "$tool" analyze "$jacobi" --record-iterations 1 -- 24 12
fi
echo "cli_test: all passed"

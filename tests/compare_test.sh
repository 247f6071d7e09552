#!/usr/bin/env bash
# compare_test.sh COMMANALYZER VALIDATION_TABLE_PY RUN_REFERENCE_SH HEAT2D_SEQ_C FIXTURES_DIR
#
# `commanalyzer compare` end to end:
#   * Heat2D (48 x 48, 10 steps) analysed at 2 and 4 processes and its MPI
#     reference run under the PMPI counter (examples/run_reference.sh):
#     compare's accuracy, d p2p and d coll are those tools/validation_table.py
#     computes from the same files (docs/VALIDATION.md's numbers), and the
#     estimate differs from the measurement (the comparison is not of a
#     thing with itself);
#   * --baseline: with the one-step run's estimate and measurement, both
#     sides are compared less it;
#   * the fixtures (tests/compare/): a pair off by 9 % is marked at the
#     default tolerance and not at --tolerance 10; an mpiP report is read;
#   * bad input ends with status 2 and a message naming it, and no output.
set -euo pipefail
[ $# -eq 5 ] || { echo "usage: $0 COMMANALYZER VALIDATION_TABLE_PY RUN_REFERENCE_SH HEAT2D_SEQ_C FIXTURES_DIR" >&2; exit 2; }
tool="$1"; table="$2"; reference="$3"; heat2d="$4"; fixtures="$5"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
export TMPDIR="$tmp" HOME="${HOME:-$tmp}"   # Open MPI session directory, mpicc temporaries
fail() { echo "FAIL: $*" >&2; exit 1; }

# --- Heat2D: the estimate beside its MPI reference, as the validation compares them.
"$tool" analyze "$heat2d" --procs 2,4 --json "$tmp/estimate.json" -- 48 10 > "$tmp/analyze.log" 2>&1 ||
  { cat "$tmp/analyze.log"; fail "analyze heat2d"; }
for p in 2 4; do
  CA_BUILD_DIR="$tmp/reference" CA_PMPI_OUT="$tmp/measured_p$p.json" "$reference" heat2d "$p" 48 10 \
    > "$tmp/reference_p$p.log" 2>&1 || { cat "$tmp/reference_p$p.log"; fail "MPI reference heat2d P=$p"; }
done
"$tool" compare "$tmp/estimate.json" "$tmp/measured_p4.json" "$tmp/measured_p2.json" --json "$tmp/comparison.json" \
  > "$tmp/compare.txt" 2> "$tmp/compare.err" || { cat "$tmp/compare.err"; fail "compare heat2d"; }
cat "$tmp/compare.txt"
python3 - "$table" "$tmp/estimate.json" "$tmp/comparison.json" "$tmp/measured_p2.json" "$tmp/measured_p4.json" <<'PY'
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("validation_table", sys.argv[1])
table = importlib.util.module_from_spec(spec)
spec.loader.exec_module(table)
estimate = {e["n"]: e for e in json.load(open(sys.argv[2]))["procs"]}
runs = {r["procs"]: r for r in json.load(open(sys.argv[3]))["runs"]}
errors = []
if sorted(runs) != [2, 4]:
    errors.append("compared counts %s, want [2, 4]" % sorted(runs))
for path in sys.argv[4:]:
    measured = json.load(open(path))
    p = measured["procs"]
    want = table.compare(p, estimate[p], measured)
    got = runs[p]
    for key in ("accuracy", "d_p2p", "d_coll"):
        if got[key] != want[key]:
            errors.append("P=%d %s: compare %r, validation_table.py %r" % (p, key, got[key], want[key]))
    if got["total_bytes"]["measured"] != want["meas"] or got["total_bytes"]["estimated"] != want["est"]:
        errors.append("P=%d total bytes: compare %s, validation_table.py %s / %s" % (p, got["total_bytes"], want["meas"], want["est"]))
    if got["messages"]["measured"] != want["meas_msgs"] or got["messages"]["estimated"] != want["est_msgs"]:
        errors.append("P=%d messages: compare %s, validation_table.py %s / %s" % (p, got["messages"], want["meas_msgs"], want["est_msgs"]))
    if not 0.5 < want["accuracy"] < 1.0:
        errors.append("P=%d: accuracy %r; the test needs an estimate that differs from the measurement" % (p, want["accuracy"]))
    if len(got["pairs"]) == 0 or len(got["iterations"]) != measured["iterations"]:
        errors.append("P=%d: %d pairs, %d iterations compared" % (p, len(got["pairs"]), len(got["iterations"])))
for e in errors:
    print("FAIL", e)
sys.exit(1 if errors else 0)
PY
grep -q "^average accuracy" "$tmp/compare.txt" || fail "no average accuracy line"

# --baseline: the same program with one step, estimated and measured at 2
# processes; each side is compared less its baseline.
"$tool" analyze "$heat2d" --procs 2 --json "$tmp/estimate_1.json" -- 48 1 > "$tmp/analyze_1.log" 2>&1 ||
  { cat "$tmp/analyze_1.log"; fail "analyze heat2d, one step"; }
CA_BUILD_DIR="$tmp/reference" CA_PMPI_OUT="$tmp/measured_1_p2.json" "$reference" heat2d 2 48 1 \
  > "$tmp/reference_1.log" 2>&1 || { cat "$tmp/reference_1.log"; fail "MPI reference heat2d, one step"; }
"$tool" compare "$tmp/estimate.json" "$tmp/measured_p2.json" --baseline "$tmp/estimate_1.json,$tmp/measured_1_p2.json" \
  --json "$tmp/kernel.json" > "$tmp/kernel.txt" || fail "compare --baseline"
cat "$tmp/kernel.txt"
python3 - "$tmp/kernel.json" "$tmp/estimate.json" "$tmp/estimate_1.json" "$tmp/measured_p2.json" "$tmp/measured_1_p2.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
est, est_1 = (json.load(open(f))["procs"][0] for f in sys.argv[2:4])
meas, meas_1 = (json.load(open(f)) for f in sys.argv[4:6])
want = {"measured": meas["total_bytes"] - meas_1["total_bytes"], "estimated": est["total_bytes"] - est_1["total_bytes"]}
got = {k: run["total_bytes"][k] for k in want}
errors = []
if got != want:
    errors.append("total bytes less the baseline: %s, want %s" % (got, want))
if len(run["iterations"]) != meas["iterations"] - meas_1["iterations"]:
    errors.append("%d iterations compared, want %d" % (len(run["iterations"]), meas["iterations"] - meas_1["iterations"]))
if run["accuracy"] != 1 - abs(want["estimated"] - want["measured"]) / want["measured"]:
    errors.append("accuracy %r" % run["accuracy"])
for e in errors:
    print("FAIL --baseline:", e)
sys.exit(1 if errors else 0)
PY

# --- Fixtures: marks at the default tolerance (8 %) and at 10 %.
"$tool" compare "$fixtures/estimate_p3.json" "$fixtures/pmpi_p3.json" > "$tmp/p3.txt" || fail "compare fixtures"
cat "$tmp/p3.txt"
grep -qE '^  ! +1 -> 2 ' "$tmp/p3.txt" || fail "1 -> 2 (1100 / 1000 B) not marked at 8 %"
grep -qE '^  !! +2 -> 1 ' "$tmp/p3.txt" || fail "2 -> 1 (measured only) not marked"
grep -qE '^    +0 -> 1 ' "$tmp/p3.txt" || fail "0 -> 1 (equal) marked or missing"
grep -qE '^    +2 -> 0 ' "$tmp/p3.txt" || fail "2 -> 0 (6.5 % off) marked or missing"
grep -q "accuracy = 1 - |est - meas| / meas" "$tmp/p3.txt" || fail "the accuracy formula is not stated"
grep -qE '^ +3 +3284 +3064 +93\.3%' "$tmp/p3.txt" || fail "the totals row is not 3284 / 3064 B, 93.3 %"
"$tool" compare "$fixtures/estimate_p3.json" "$fixtures/pmpi_p3.json" --tolerance 10 > "$tmp/p3_10.txt" || fail "--tolerance 10"
grep -qE '^    +1 -> 2 ' "$tmp/p3_10.txt" || fail "1 -> 2 (9.1 % off) marked at --tolerance 10"
grep -qE '^  !! +2 -> 1 ' "$tmp/p3_10.txt" || fail "2 -> 1 not marked at --tolerance 10"

# mpiP's report beside the Heat2D estimate for 4 processes: per process, no pairs.
"$tool" compare "$tmp/estimate.json" "$fixtures/mpip_p4.txt" > "$tmp/mpip.txt" || fail "compare an mpiP report"
cat "$tmp/mpip.txt"
grep -q "mpiP ($fixtures/mpip_p4.txt)" "$tmp/mpip.txt" || fail "the mpiP run is not named"
grep -q "note: not counted .*Scatter" "$tmp/mpip.txt" || fail "the uncounted Scatter is not noted"
grep -q "measured  Isend      site 1    heat2d_mpi.c:61" "$tmp/mpip.txt" || fail "mpiP's call sites are not listed"
grep -q "pairs (" "$tmp/mpip.txt" && fail "pairs listed without a measured matrix"

# --- Bad input: status 2, the problem named, no output file.
expect_error() {  # expect_error PATTERN CMD...
  local pattern="$1"; shift
  local err code; err=$("$@" 2>&1 >/dev/null); code=$?
  [ "$code" -eq 2 ] || fail "'$*' exited $code, want 2: $err"
  grep -q -- "$pattern" <<<"$err" || fail "'$*': no '$pattern' in: $err"
}
printf 'iteration,src,dst,bytes,kind,site\n0,0,1,8,p2p,\n' > "$tmp/trace.csv"
set +e
expect_error "is not a file" "$tool" compare "$tmp/estimate.json" "$tmp/missing.json" --json "$tmp/bad.json"
expect_error "neither the PMPI counter's JSON" "$tool" compare "$tmp/estimate.json" "$tmp/trace.csv" --json "$tmp/bad.json"
expect_error "measured on 3 processes; the estimate .* has 2, 4" "$tool" compare "$tmp/estimate.json" "$fixtures/pmpi_p3.json" --json "$tmp/bad.json"
expect_error "not an estimate" "$tool" compare "$tmp/measured_p2.json" "$tmp/measured_p4.json" --json "$tmp/bad.json"
expect_error "both measured 2 processes" "$tool" compare "$tmp/estimate.json" "$tmp/measured_p2.json" "$tmp/measured_p2.json"
expect_error "at least one measured run" "$tool" compare "$tmp/estimate.json"
expect_error "the baseline has more" "$tool" compare "$tmp/estimate_1.json" "$tmp/measured_1_p2.json" \
  --baseline "$tmp/estimate.json,$tmp/measured_p2.json" --json "$tmp/bad.json"
expect_error "no measurement on 4 processes" "$tool" compare "$tmp/estimate.json" "$tmp/measured_p4.json" \
  --baseline "$tmp/estimate_1.json,$tmp/measured_1_p2.json" --json "$tmp/bad.json"
expect_error "--tolerance" "$tool" compare "$tmp/estimate.json" "$tmp/measured_p2.json" --tolerance -1
expect_error "--json" "$tool" compare "$tmp/estimate.json" "$tmp/measured_p2.json" --json "$tmp/measured_p2.json"
expect_error "unknown flag '--bogus'" "$tool" compare "$tmp/estimate.json" "$tmp/measured_p2.json" --bogus
set -e
[ ! -e "$tmp/bad.json" ] && [ ! -e "$tmp/bad.json.partial" ] || fail "a failed compare left its --json"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/measured_p2.json" || fail "--json overwrote an input"
help=$("$tool" help) || fail "help exited $?"
grep -q "commanalyzer compare ESTIMATE.json MEASURED" <<<"$help" || fail "help does not describe compare"
grep -q -- "--tolerance (default: 8)" <<<"$help" || fail "help does not list --tolerance"
echo PASS

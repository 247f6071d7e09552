#!/usr/bin/env bash
# benchgen_mpi_test.sh COMMANALYZER PMPI_COUNTER_C HEAT2D_SEQ_C MATMUL_SEQ_C
#
# The generated benchmark, built with mpicc and run under mpirun with the
# PMPI counter (examples/measure), performs exactly the predicted
# communication: point-to-point bytes and messages per pair, collective
# bytes and calls, bytes per iteration, for heat2d and matmul at 4 and 8
# processes; and the bytes and messages per iteration it prints of itself
# are the estimate's. And a stencil's benchmark does not grow with the process or
# iteration count. `trace` gives one record per predicted message.
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: $0 COMMANALYZER PMPI_COUNTER_C HEAT2D_SEQ_C MATMUL_SEQ_C" >&2; exit 2; }
tool="$1"; counter_c="$2"; heat2d="$3"; matmul="$4"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
export TMPDIR="$tmp" HOME="${HOME:-$tmp}"   # Open MPI session directory, mpicc temporaries
fail() { echo "FAIL: $*" >&2; exit 1; }
mpi_flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && mpi_flags+=(--allow-run-as-root)

mpicc -O2 -shared -fPIC -o "$tmp/libpmpi_counter.so" "$counter_c"

profile_of() {  # profile_of NAME SOURCE ARGS...: analyse, print the kept profile's path
  local name="$1" src="$2"; shift 2
  "$tool" analyze "$src" --procs 4 --out "$tmp/$name" -- "$@" > "$tmp/$name.log" 2>&1 || { cat "$tmp/$name.log"; fail "analyze $name"; }
  echo "$tmp/$name/build/program.profile"
}

# check NAME PROFILE P: generate, build, run under the counter, compare.
check() {
  local name="$1" profile="$2" np="$3" dir="$tmp/$1_p$3"
  "$tool" estimate "$profile" --procs "$np" --json "$dir.estimate.json" > /dev/null 2>&1 || fail "estimate $name $np"
  "$tool" benchgen "$profile" --procs "$np" --out "$dir" > "$dir.log" 2>&1 || { cat "$dir.log"; fail "benchgen $name $np"; }
  mpicc -O2 -Wall -Werror "$dir"/*.c -I"$dir" -o "$dir/bench" || fail "mpicc $name $np"
  mpirun "${mpi_flags[@]}" -np "$np" -x LD_PRELOAD="$tmp/libpmpi_counter.so" -x CA_PMPI_OUT="$dir.measured.json" \
    "$dir/bench" > "$dir.run.log" || { cat "$dir.run.log"; fail "mpirun $name $np"; }
  cat "$dir.run.log"
  "$tool" trace "$profile" --procs "$np" --csv "$dir.trace.csv" > /dev/null 2>&1 || fail "trace $name $np"
  python3 - "$dir.estimate.json" "$dir.measured.json" "$dir.trace.csv" "$name P=$np" "$dir.run.log" <<'PY'
import csv, json, re, sys
est = json.load(open(sys.argv[1]))["procs"][0]
meas = json.load(open(sys.argv[2]))
rows = list(csv.DictReader(open(sys.argv[3])))
what = sys.argv[4]
errors = []
# The benchmark's own account: per iteration and in all, as the estimate has them.
printed = re.findall(r"^bench: (\d+) processes, (\d+) iterations; per iteration (\S+) bytes, (\S+) messages, "
                     r"(\S+) seconds \(in all (\d+) bytes, (\d+) messages, (\S+) seconds\)$",
                     open(sys.argv[5]).read(), re.M)
if len(printed) != 1:
    errors.append("the benchmark printed %d summary lines, want 1" % len(printed))
else:
    procs, iterations, bytes_it, msgs_it, secs_it, all_bytes, all_msgs, all_secs = printed[0]
    est_iterations = len(est["phase_bytes"]) - 1
    if int(procs) != est["n"] or int(iterations) != est_iterations:
        errors.append("benchmark: %s processes, %s iterations; estimate %d, %d" % (procs, iterations, est["n"], est_iterations))
    if int(all_bytes) != est["total_bytes"] or int(all_msgs) != est["messages"]:
        errors.append("benchmark in all: %s bytes, %s messages; estimate %d, %d" % (
            all_bytes, all_msgs, est["total_bytes"], est["messages"]))
    n = max(est_iterations, 1)
    if abs(float(bytes_it) - est["per_iteration_bytes"]) > 0.051 or abs(float(bytes_it) * n - est["total_bytes"]) > 1e-6 * n:
        errors.append("benchmark per iteration: %s bytes; estimate %.1f" % (bytes_it, est["per_iteration_bytes"]))
    if abs(float(msgs_it) * n - est["messages"]) > 1e-6 * n:
        errors.append("benchmark per iteration: %s messages; estimate %d / %d" % (msgs_it, est["messages"], n))
    if not 0 < float(secs_it) <= float(all_secs):
        errors.append("benchmark seconds per iteration %s, in all %s" % (secs_it, all_secs))
def same(label, predicted, measured):
    if predicted != measured:
        errors.append("%s: predicted %s, measured %s" % (label, predicted, measured))
n = est["n"]
same("procs", n, meas["procs"])
same("p2p bytes per pair", est["matrix"], meas["matrix"])
same("p2p messages per pair", est["messages_matrix"], meas["messages_matrix"])
same("p2p bytes", est["p2p_bytes"], meas["p2p_bytes"])
same("collective bytes", est["collective_bytes"], meas["collective_bytes"])
same("collective calls", est["collective_calls"], meas["collective_calls"])
iterations = len(est["phase_bytes"]) - 1
same("iterations", iterations, meas["iterations"])
same("bytes per iteration", est["phase_bytes"][:iterations], [it["total_bytes"] for it in meas["per_iteration"]])
same("trace records", est["p2p_messages"] + est["collective_calls"], len(rows))
same("trace p2p bytes", est["p2p_bytes"], sum(int(r["bytes"]) for r in rows if r["kind"] == "p2p"))
if est["p2p_messages"] == 0 and est["collective_calls"] == 0:
    errors.append("nothing to compare: the estimate predicts no communication")
for e in errors:
    print("FAIL %s: %s" % (what, e))
print("%s: %d p2p bytes in %d messages, %d collective bytes in %d calls, %d iterations: %s" % (
    what, meas["p2p_bytes"], meas["p2p_messages"], meas["collective_bytes"], meas["collective_calls"],
    meas["iterations"], "exact" if not errors else "DIFFERENT"))
sys.exit(1 if errors else 0)
PY
}

heat_short=$(profile_of heat2d_short "$heat2d" 64 4)
heat_long=$(profile_of heat2d_long "$heat2d" 64 12)
matmul_profile=$(profile_of matmul "$matmul" 16)
for np in 4 8; do
  check heat2d "$heat_long" "$np"
  check matmul "$matmul_profile" "$np"
done

# Compute delays from the work per iteration: in the program, and it still runs.
"$tool" benchgen "$heat_long" --procs 4 --out "$tmp/compute" --compute_ns 10 > /dev/null 2>&1 || fail "benchgen --compute_ns"
grep -q 'bench_compute(' "$tmp/compute/bench.c" || fail "no compute delay in: $(cat "$tmp/compute/bench.c")"
mpicc -O2 -Wall -Werror "$tmp/compute/bench.c" -I"$tmp/compute" -o "$tmp/compute/bench" || fail "mpicc --compute_ns"
mpirun "${mpi_flags[@]}" -np 4 "$tmp/compute/bench" || fail "mpirun --compute_ns"

# A stencil's benchmark: as many lines for 4 steps as for 12, at 16 as at
# 64 processes (4 x 4 and 8 x 8 grids; a 2 x 2 or 4 x 2 grid has fewer
# kinds of blocks, so fewer calls).
size() { cat "$1"/bench.c "$1"/bench.h | wc -l; }
for steps in short long; do
  for np in 16 64; do
    profile=$heat_short; [ $steps = long ] && profile=$heat_long
    "$tool" benchgen "$profile" --procs $np --out "$tmp/size_${steps}_$np" > /dev/null 2>&1 || fail "benchgen $steps $np"
  done
done
lines=$(size "$tmp/size_long_16")
for d in size_long_64 size_short_16 size_short_64; do
  [ "$(size "$tmp/$d")" -eq "$lines" ] || fail "$d: $(size "$tmp/$d") lines, 12 steps at 16 processes: $lines"
done
grep -q 'i < 12' "$tmp/size_long_64/bench.c" || fail "12 steps are not one loop: $(cat "$tmp/size_long_64/bench.c")"
echo "heat2d benchmark: $lines lines at 16 and 64 processes, 4 and 12 steps"

# Bad input: status 2, a message naming the problem, no output files.
expect_error() {  # expect_error PATTERN CMD...
  local pattern="$1"; shift
  local err code; err=$("$@" 2>&1 >/dev/null); code=$?
  [ "$code" -eq 2 ] || fail "'$*' exited $code, want 2: $err"
  grep -q -- "$pattern" <<<"$err" || fail "'$*': no '$pattern' in: $err"
}
set +e
expect_error "--procs" "$tool" trace "$heat_short" --procs 2,4
expect_error "--procs" "$tool" benchgen "$heat_short" --procs 0 --out "$tmp/bad1"
expect_error "--out" "$tool" benchgen "$heat_short" --procs 4
expect_error "--compute_ns" "$tool" benchgen "$heat_short" --procs 4 --out "$tmp/bad2" --compute_ns -3
expect_error "--latency" "$tool" trace "$heat_short" --procs 4 --latency -1
expect_error "--bandwidth" "$tool" estimate "$heat_short" --procs 4 --bandwidth 0
expect_error "exactly one profile" "$tool" trace --procs 4
touch "$tmp/a_file"
expect_error "not a directory" "$tool" benchgen "$heat_short" --procs 4 --out "$tmp/a_file"
set -e
[ ! -e "$tmp/bad1" ] && [ ! -e "$tmp/bad2" ] || fail "a failed benchgen left a directory"
[ ! -s "$tmp/a_file" ] || fail "a failed benchgen wrote into $tmp/a_file"
"$tool" trace "$tmp/missing.profile" --procs 4 --csv "$tmp/missing.csv" 2>/dev/null && fail "trace of a missing profile succeeded"
[ ! -e "$tmp/missing.csv" ] && [ ! -e "$tmp/missing.csv.partial" ] || fail "a failed trace left a CSV"
echo PASS

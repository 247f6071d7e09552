#!/usr/bin/env bash
# What a new user meets: threads, deep recursion, signals, a program that
# never ends, memory past the limit, too many processes, bad flags and
# paths, fork, an empty source, and `help` listing every flag.
set -uo pipefail
tool="$1" programs="$(dirname "$2")" sources=("${@:3}")  # the .cc files defining the flags
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_error() {  # expect_error CODE PATTERN CMD...
  local code="$1" pattern="$2"; shift 2
  local err; err=$("$@" 2>&1 >/dev/null); local got=$?
  [ "$got" -eq "$code" ] || fail "'$*' exited $got, want $code: $err"
  grep -q -- "$pattern" <<<"$err" || fail "'$*': no '$pattern' in: $err"
}

# Threads: refused at the first pthread_create, the same every run.
for run in 1 2 3; do
  expect_error 2 "starts a thread (pthread_create); the analysis follows one thread only" \
    "$tool" analyze "$programs/threads.c" --procs 2
done

# 100,000 nested calls at -O0: the instrumented program prints what the
# plain build prints.
clang-16 -O0 "$programs/deep_recursion.c" -o "$tmp/deep_plain" || fail "plain build of deep_recursion.c"
plain=$("$tmp/deep_plain" 100000) || fail "plain deep recursion exited $?"
out=$("$tool" analyze "$programs/deep_recursion.c" -O0 --procs 2 -- 100000 2>&1) || fail "instrumented deep recursion: $out"
[ "$(head -1 <<<"$out" | grep -v '^\[')" = "$plain" ] || grep -qx -- "$plain" <<<"$out" || fail "output differs from '$plain': $out"
grep -qE '^ +2 +[0-9]+' <<<"$out" || fail "no estimate for the deep recursion: $out"

# A program that never ends: --timeout stops it, exit 3.
start=$SECONDS
expect_error 3 "--timeout 2 s reached while running the instrumented program; stopped program (pid" \
  "$tool" analyze "$programs/forever.c" --timeout 2
[ $(( SECONDS - start )) -lt 60 ] || fail "--timeout 2 took $(( SECONDS - start )) s"
expect_error 2 "--timeout" "$tool" analyze "$programs/forever.c" --timeout -1

# SIGTERM and SIGINT to the tool reach the program, which ends with it.
for sig in TERM INT; do
  rm -rf "$tmp/sig"
  "$tool" analyze "$programs/forever.c" --procs 2 --out "$tmp/sig" 2>"$tmp/sig.err" &
  pid=$!
  for _ in $(seq 300); do grep -q '^running' "$tmp/sig.err" 2>/dev/null && break; sleep 0.1; done
  grep -q '^running' "$tmp/sig.err" || fail "forever.c did not start: $(cat "$tmp/sig.err")"
  pgrep -f "$tmp/sig/build/program" >/dev/null || fail "no instrumented program running"
  kill -s "$sig" "$pid"
  wait "$pid"; code=$?
  [ "$code" -eq $(( 128 + $(kill -l "$sig") )) ] || fail "SIG$sig: the tool exited $code"
  sleep 0.5
  pgrep -f "$tmp/sig/build/program" >/dev/null && fail "SIG$sig: the instrumented program still runs"
done

# No orphans: what the program forks ends with --timeout and with a stop
# signal, and the program dies when the tool is killed outright.
count_alive() { pgrep -f "$1" | wc -l; }
expect_error 3 "--timeout 2 s reached while running the instrumented program" \
  "$tool" analyze "$programs/orphans.c" --out "$tmp/orphans" --timeout 2
sleep 0.5
[ "$(count_alive "$tmp/orphans/build/program")" = 0 ] || fail "--timeout left the program's child running"
for sig in TERM KILL; do
  rm -rf "$tmp/orphans" "$tmp/orphans.err"
  "$tool" analyze "$programs/orphans.c" --procs 2 --out "$tmp/orphans" 2>"$tmp/orphans.err" &
  pid=$!
  for _ in $(seq 300); do grep -q '^running' "$tmp/orphans.err" 2>/dev/null && break; sleep 0.1; done
  [ "$(count_alive "$tmp/orphans/build/program")" = 2 ] || fail "orphans.c: not parent and child running"
  kill -s "$sig" "$pid"
  wait "$pid"; code=$?
  [ "$code" -eq $(( 128 + $(kill -l "$sig") )) ] || fail "SIG$sig: the tool exited $code"
  sleep 0.5
  if [ "$sig" = KILL ]; then
    # The program dies with the tool; the child it forked is the system's
    # then (no tool is left to stop it).
    [ "$(count_alive "$tmp/orphans/build/program")" -le 1 ] || fail "SIGKILL: the program outlived the tool"
    pkill -f "$tmp/orphans/build/program" 2>/dev/null
  else
    grep -q "while running the instrumented program; stopped" "$tmp/orphans.err" ||
      fail "SIG$sig: no word of what was stopped: $(cat "$tmp/orphans.err")"
    [ "$(count_alive "$tmp/orphans/build/program")" = 0 ] || fail "SIG$sig: the program or its child still runs"
  fi
done

# The run's peak resident set is reported, and it is the program's: at
# least the 96 MiB it holds (the compiler's or the tool's would not be).
out=$("$tool" analyze "$programs/holds.c" --procs 2 2>&1) || fail "holds.c: $out"
peak=$(sed -n 's/^\[commanalyzer\] program finished in [0-9.]*s (peak \([0-9.]*\) MiB); estimating$/\1/p' <<<"$out")
[ -n "$peak" ] || fail "no run peak in MiB reported: $out"
awk -v p="$peak" 'BEGIN { exit !(p >= 96 && p < 1024) }' || fail "run peak $peak MiB, want 96 MiB to 1 GiB: $out"

# The tool's own variables win over stale exported ones.
out=$(COMMANALYZER_PROFILE="$tmp/elsewhere.profile" "$tool" analyze "$programs/forks.c" --procs 2 2>&1) ||
  fail "an exported COMMANALYZER_PROFILE broke the run: $out"
[ -e "$tmp/elsewhere.profile" ] && fail "the profile went to the exported COMMANALYZER_PROFILE"

# The tool's huge-page tunable stays the tool's: the program sees the user's.
out=$(env -u GLIBC_TUNABLES "$tool" analyze "$programs/environment.c" --procs 2 2>&1) || fail "environment.c: $out"
grep -qx "GLIBC_TUNABLES=(unset)" <<<"$out" || fail "the program saw the tool's tunables: $out"
# (environment.c computes nothing from data: nothing to send at any count.)
grep -qE '^ +2 +0 +0 +0 ' <<<"$out" || fail "no zero estimate for a program with nothing to distribute: $out"
out=$(GLIBC_TUNABLES=glibc.malloc.check=0 "$tool" analyze "$programs/environment.c" --procs 2 2>&1) || fail "environment.c: $out"
grep -qx "GLIBC_TUNABLES=glibc.malloc.check=0" <<<"$out" || fail "the program did not see the user's tunables: $out"

# Two runs cannot share --out: the second is refused before it builds.
rm -rf "$tmp/shared" "$tmp/shared.err"
"$tool" analyze "$programs/forever.c" --procs 2 --out "$tmp/shared" 2>"$tmp/shared.err" &
pid=$!
for _ in $(seq 300); do grep -q '^running' "$tmp/shared.err" 2>/dev/null && break; sleep 0.1; done
expect_error 2 "--out: another commanalyzer is writing in '$tmp/shared'" "$tool" analyze "$programs/forks.c" --out "$tmp/shared"
kill "$pid"; wait "$pid"

# Memory: past --max-memory the run stops, naming what grew; bad sizes are
# named; the default is below the machine's memory.
expect_error 3 "passed --max-memory (200 MiB); the largest part is" "$tool" analyze "$programs/grows.c" --max-memory 200M
expect_error 3 "slice labels (label DAG)" "$tool" analyze "$programs/grows.c" --max-memory=200M
# A time loop that passes it after some iterations is told how to record
# only its first ones, and so analysed within the same memory.
expect_error 3 "the region had completed [0-9]*, and --record-iterations K (K < [0-9]*) costs its first K" \
  "$tool" analyze "$programs/grows_by_step.c" --max-memory 300M
out=$("$tool" analyze "$programs/grows_by_step.c" --procs 2 --max-memory 300M --record-iterations 3 2>&1) ||
  fail "grows_by_step with --record-iterations 3 under 300M: $out"
grep -q "200 iterations (the first 3 costed, the other 197 counted" <<<"$out" || fail "no recording window: $out"
expect_error 2 "--max-memory: 'lots' is not a size" "$tool" demo --max-memory lots
total_kib=$(awk '$1 == "MemTotal:" {print $2}' /proc/meminfo)
default_mib=$("$tool" help | sed -n 's/.*--max_memory (default: \([0-9]*\)M).*/\1/p')
[ -n "$default_mib" ] && [ "$default_mib" -lt $(( total_kib / 1024 )) ] || fail "default --max-memory '$default_mib' MiB"
# The estimate's own memory: the per-pair matrices of 16384 processes (4 GiB).
expect_error 3 "the per-pair matrices alone need 4.0 GiB, past --max-memory 1.0 GiB" \
  "$tool" demo --n 160 --steps 1 --procs 16384 --max-memory 1G

# The processes the tool starts count too: a stand-in for zoltan_phg that
# grows without end, or never answers, is stopped and named (exit 3).
mkdir -p "$tmp/home/tools" "$tmp/sys"
clang-16 -O1 "$programs/helper.c" -o "$tmp/home/tools/zoltan_phg" || fail "build of helper.c"
with_helper() { env COMMANALYZER_HOME="$tmp/home" TMPDIR="$tmp/sys" "$@"; }
expect_error 3 "past --max-memory 300.0 MiB, while estimating: zoltan_phg (pid [0-9]*) [0-9.]* MiB" \
  with_helper HELPER_MODE=grow "$tool" demo --n 32 --steps 2 --procs 4 --distribution hypergraph --max-memory 300M
expect_error 3 "--timeout 2 s reached while estimating; stopped zoltan_phg (pid" \
  with_helper HELPER_MODE=sleep "$tool" demo --n 32 --steps 2 --procs 4 --distribution hypergraph --timeout 2
pgrep -f "$tmp/home/tools/zoltan_phg" >/dev/null && fail "a stopped helper still runs"
# Its input lies in the tool's temporary folder under --out, gone at the
# end; nothing is left in TMPDIR.
out=$(with_helper HELPER_LOG="$tmp/hypergraph_at" "$tool" demo --n 32 --steps 2 --procs 4 --distribution hypergraph \
  --out "$tmp/helper_out" 2>&1) || fail "demo with the stand-in helper: $out"
grep -q "^$tmp/helper_out/.commanalyzer-tmp-" "$tmp/hypergraph_at" || fail "hypergraph written at $(cat "$tmp/hypergraph_at")"
ls -A "$tmp/helper_out" | grep -q commanalyzer-tmp && fail "temporary folder left in --out"
[ -z "$(ls -A "$tmp/sys")" ] || fail "files left in TMPDIR: $(ls -A "$tmp/sys")"
with_helper HELPER_LOG="$tmp/hypergraph_at" "$tool" demo --n 32 --steps 2 --procs 4 --distribution hypergraph >/dev/null 2>&1 ||
  fail "demo without --out"
grep -q "^$tmp/sys/.commanalyzer-tmp-" "$tmp/hypergraph_at" || fail "hypergraph written at $(cat "$tmp/hypergraph_at")"
[ -z "$(ls -A "$tmp/sys")" ] || fail "files left in TMPDIR: $(ls -A "$tmp/sys")"

# More processes than the profile has locations (the built-in 32 x 32
# Heat2D distributes 1020 elements): that count is left out with a
# warning and the others estimated; a clear error, exit 2, when none fits.
out=$("$tool" demo --n 32 --steps 1 --procs 4,65536 2>&1) || fail "a count too large failed the run: $out"
grep -q "warning: left out --procs 65536: the profile has 1020 array elements (locations) to distribute" <<<"$out" ||
  fail "no warning for the count left out: $out"
grep -qE '^ +4 +[0-9]+' <<<"$out" || fail "no row for 4 processes: $out"
grep -qE '^ +65536 ' <<<"$out" && fail "a row for 65536 processes: $out"
expect_error 2 "--procs 65536: the profile has 1020 array elements (locations) to distribute, so at most 1020" \
  "$tool" demo --n 32 --steps 1 --procs 65536
expect_error 2 "--procs: '-4' is not a process count" "$tool" analyze "$programs/forks.c" --procs -4
expect_error 2 "--procs: '-4' is not a process count" "$tool" demo --procs -4

# Output paths: checked before anything is built, no partial file.
mkdir -p "$tmp/paths"; : > "$tmp/paths/afile"
expect_error 2 "--json: '$tmp/paths' is a folder" "$tool" analyze "$programs/forks.c" --json "$tmp/paths"
expect_error 2 "--json: folder '$tmp/paths/missing' does not exist" \
  "$tool" analyze "$programs/forks.c" --json "$tmp/paths/missing/e.json"
expect_error 2 "--out: cannot create folder '$tmp/paths/afile/report'" \
  "$tool" analyze "$programs/forks.c" --out "$tmp/paths/afile/report"
expect_error 2 "--out: cannot create folder '/proc/commanalyzer'" "$tool" demo --out /proc/commanalyzer
err=$("$tool" analyze "$programs/forks.c" --json "$tmp/paths/missing/e.json" 2>&1)
grep -q "compiling" <<<"$err" && fail "--json checked after the build: $err"
# A late failure (the program removes the folder --json goes to) says where
# the profile is, and leaves no partial file.
mkdir -p "$tmp/late"
expect_error 1 "profile kept at $tmp/late_out/build/program.profile" \
  "$tool" analyze "$programs/removes.c" --procs 2 --out "$tmp/late_out" --json "$tmp/late/e.json" -- "$tmp/late"
[ -s "$tmp/late_out/build/program.profile" ] || fail "the kept profile is not there"
ls "$tmp" | grep -q partial && fail "partial file left"

# fork: a warning naming the limitation; the parent's estimate.
out=$("$tool" analyze "$programs/forks.c" --procs 2 2>&1) || fail "forks.c: $out"
grep -q "warning: the program forked; only the parent process is analysed" <<<"$out" || fail "no fork warning: $out"
grep -qE '^ +2 +[0-9]+' <<<"$out" || fail "no estimate for forks.c: $out"

# An empty source: no main().
expect_error 2 "no main() in the sources" "$tool" analyze "$programs/empty.c"
err=$("$tool" analyze "$programs/empty.c" 2>&1); grep -q "undefined reference" <<<"$err" && fail "linker error shown: $err"

# Flags Abseil cannot take are bad input (2), named; --help anywhere helps.
expect_error 2 "unknown flag '--bogus'" "$tool" demo --bogus
expect_error 2 "unknown flag '--bogus'" "$tool" analyze "$programs/forks.c" --bogus
expect_error 2 "--n: 'x': Illegal value" "$tool" demo --n x
expect_error 2 "--json needs a value" "$tool" demo --json
help_out=$("$tool" demo --n 16 --help) && grep -q "^Usage:" <<<"$help_out" || fail "demo --help: no help"
# A device is written in place, never replaced; a full one is an error.
expect_error 1 "error while writing /dev/full: No space left on device" \
  "$tool" demo --n 16 --steps 1 --procs 2 --json /dev/full
[ -c /dev/full ] || fail "/dev/full is no longer a device"
json_out=$("$tool" demo --n 16 --steps 1 --procs 2 --json /dev/stdout 2>/dev/null) &&
  grep -q '"format": "commanalyzer-estimate' <<<"$json_out" || fail "--json /dev/stdout wrote no JSON"

# help: every flag the tool defines, with its default.
help=$("$tool" help) || fail "help exited $?"
flags=$(sed -n 's/^ABSL_FLAG([^,]*, *\([a-z_0-9]*\),.*/\1/p' "${sources[@]}")
[ "$(wc -l <<<"$flags")" -ge 15 ] || fail "found only these flags in ${sources[*]}: $flags"
for flag in $flags; do
  grep -q -- "^    --$flag (default: " <<<"$help" || fail "help does not list --$flag with its default"
done
grep -q -- "--partitioner (default: auto)" <<<"$help" || fail "help: --partitioner default"
grep -q -- "--timeout (default: 0)" <<<"$help" || fail "help: --timeout default"
echo "limits_test: all passed"

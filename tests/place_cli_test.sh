#!/usr/bin/env bash
# `commanalyzer place`: a profile from a real run, placed on nodes; the
# rankfile, the comparison with the naive placements, and errors.
set -uo pipefail
tool="$1" jacobi="$2"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*" >&2; exit 1; }


"$tool" analyze "$jacobi" --procs 4 --out "$tmp/run" -- 34 3 >/dev/null 2>&1 || fail "analyze exited $?"
profile="$tmp/run/build/program.profile"
[ -s "$profile" ] || fail "no profile"

out=$("$tool" place "$profile" --procs 16 --nodes 4 --cores-per-node 4 --rankfile "$tmp/rf" 2>/dev/null) ||
  fail "place exited $?: $out"
share() { awk -v name="$1" 'index($0, name) == 3 {print $(NF-1)}' <<<"$out"; }
graph=$(share "graph") by_rank=$(share "by-rank") rr=$(share "round-robin") random=$(share "random")
[ -n "$graph" ] && [ -n "$by_rank" ] && [ -n "$rr" ] && [ -n "$random" ] || fail "missing rows in: $out"
awk -v g="$graph" -v b="$by_rank" -v r="$rr" 'BEGIN { exit !(g >= b && g >= r) }' || fail "graph $graph below by-rank $by_rank or round-robin $rr"
# A 2-D Jacobi on 16 processes has a 4 x 4 grid of blocks: 2 x 2 blocks per node keep 16 of its 24 halo pairs.
[ "$graph" = "66.7" ] || fail "graph placement keeps $graph %, want 66.7 % (2 x 2 blocks per node)"
# Random: two processes share a node with probability 3/15.
awk -v x="$random" 'BEGIN { exit !(x > 18 && x < 22) }' || fail "random mean $random % is not near 20 %"

# The rankfile: every rank once, at most 4 per node, distinct slots below 4.
[ "$(wc -l < "$tmp/rf")" -eq 16 ] || fail "rankfile has $(wc -l < "$tmp/rf") lines"
grep -vqE '^rank [0-9]+=node[0-3] slot=[0-3]$' "$tmp/rf" && fail "malformed rankfile line: $(grep -vE '^rank [0-9]+=node[0-3] slot=[0-3]$' "$tmp/rf" | head -1)"
[ "$(sed -E 's/rank ([0-9]+)=.*/\1/' "$tmp/rf" | sort -n | uniq | tr '\n' ' ')" = "$(seq 0 15 | tr '\n' ' ')" ] || fail "ranks not 0..15 once each"
[ "$(sed -E 's/rank [0-9]+=//' "$tmp/rf" | sort -u | wc -l)" -eq 16 ] || fail "two ranks share a slot"
# The placement printed per node is the rankfile's.
for k in 0 1 2 3; do
  listed=$(awk -v n="node$k:" '$1 == n { $1 = ""; print }' <<<"$out" | tr ' ' '\n' | sed '/^$/d' | sort -n | tr '\n' ' ')
  in_file=$(grep "=node$k " "$tmp/rf" | sed -E 's/rank ([0-9]+)=.*/\1/' | sort -n | tr '\n' ' ')
  [ "$listed" = "$in_file" ] || fail "node$k: printed '$listed', rankfile '$in_file'"
done
"$tool" place "$profile" --procs 6 --nodes 2 --cores-per-node 4 --hosts alpha,beta --rankfile "$tmp/rf2" >/dev/null 2>&1 ||
  fail "place on named hosts exited $?"
[ "$(grep -cE '=(alpha|beta) slot=[0-3]$' "$tmp/rf2")" -eq 6 ] || fail "hosts not used: $(cat "$tmp/rf2")"

# Bad input: exit 2 (bad flags) or 1 (a profile that cannot be read, as for
# every subcommand), the problem named, no rankfile.
expect_error() {  # expect_error CODE PATTERN ARGS...
  local code="$1" pattern="$2"; shift 2
  rm -f "$tmp/bad_rf"
  local err; err=$("$tool" place "$@" --rankfile "$tmp/bad_rf" 2>&1 >/dev/null); local got=$?
  [ "$got" -eq "$code" ] || fail "place $* exited $got, want $code: $err"
  grep -q -- "$pattern" <<<"$err" || fail "place $*: no '$pattern' in: $err"
  [ ! -e "$tmp/bad_rf" ] && [ ! -e "$tmp/bad_rf.partial" ] || fail "place $*: wrote a rankfile"
}
expect_error 2 "15 slots, fewer than the 16 processes" "$profile" --procs 16 --nodes 3 --cores-per-node 5
expect_error 2 "--cores-per-node" "$profile" --procs 4 --nodes 2
expect_error 2 "--procs: give one process count" "$profile" --nodes 2 --cores-per-node 2
expect_error 2 "--hosts: 3 names for 2 nodes" "$profile" --procs 4 --nodes 2 --cores-per-node 2 --hosts a,b,c
expect_error 1 "no-such.profile" "$tmp/no-such.profile" --procs 4 --nodes 2 --cores-per-node 2
printf 'not a profile' > "$tmp/junk.profile"
expect_error 1 "not a CommAnalyzer profile" "$tmp/junk.profile" --procs 4 --nodes 2 --cores-per-node 2
help=$("$tool" help)
grep -q "commanalyzer place PROFILE" <<< "$help" || fail "help lacks place"
echo PASS

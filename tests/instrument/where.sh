#!/usr/bin/env bash
# Source attribution end to end (where.c): the halo exchange is consumed by
# the gather statement, inside the gather loop; the Allreduce is the
# reduction statement's, after the reduction loop; the scatter loop
# communicates nothing. Every byte is attributed to a site.
set -uo pipefail
tool=$(realpath "$1"); src=$(realpath "$2")
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*" >&2; exit 1; }
line_of() { grep -n "// $1\$" "$src" | cut -d: -f1; }
gather=$(line_of GATHER) gather_loop=$(line_of "GATHER LOOP") reduction=$(line_of REDUCTION)
reduction_loop=$(line_of "REDUCTION LOOP")
[ -n "$gather" ] && [ -n "$reduction_loop" ] || fail "markers not found in $src"
cd "$tmp"
for opt in -O0 -O2; do
  out=$("$tool" analyze "$src" "$opt" --procs 4 --json "$tmp/e.json" -- 4096 5 2>&1) || fail "analyze $opt: $out"
  echo "$out" | sed -n '/^where/,$p'
  python3 - "$tmp/e.json" "$gather" "$gather_loop" "$reduction" "$reduction_loop" "$opt" <<'PY' || exit 1
import json, sys
est = json.load(open(sys.argv[1]))["procs"][0]
gather, gather_loop, reduction, reduction_loop = map(int, sys.argv[2:6])
opt = sys.argv[6]
def fail(msg):
    print("FAIL (%s): %s\nsites: %s" % (opt, msg, json.dumps(est["sites"], indent=1)))
    sys.exit(1)
p2p = [s for s in est["sites"] if s["p2p_bytes"] > 0]
red = [s for s in est["sites"] if s["allreduces"] > 0]
if len(p2p) != 1: fail("want one site with a halo exchange, got %d" % len(p2p))
if (p2p[0]["line"], p2p[0]["loop_line"]) != (gather, gather_loop):
    fail("halo at line %d, loop %d; want %d, loop %d" % (p2p[0]["line"], p2p[0]["loop_line"], gather, gather_loop))
if not p2p[0]["file"].endswith("where.c"): fail("halo in file " + p2p[0]["file"])
# 1-D blocks: an inner process receives from both neighbours.
if p2p[0]["partners"] != 2: fail("halo partners %d, want 2" % p2p[0]["partners"])
if len(red) != 1: fail("want one site with an Allreduce, got %d" % len(red))
if (red[0]["line"], red[0]["loop_line"]) != (reduction, reduction_loop):
    fail("reduction at line %d, loop %d; want %d, loop %d" % (red[0]["line"], red[0]["loop_line"], reduction, reduction_loop))
if red[0]["allreduces"] != 5: fail("%d allreduces, want one per step (5)" % red[0]["allreduces"])
if sum(s["p2p_bytes"] for s in est["sites"]) != est["p2p_bytes"]: fail("p2p bytes not all attributed")
if sum(s["allreduce_bytes"] for s in est["sites"]) != est["allreduce_bytes"]: fail("allreduce bytes not all attributed")
if sum(s["p2p_messages"] for s in est["sites"]) != est["p2p_messages"]: fail("messages not all attributed")
print("where (%s): halo %d B at line %d (loop %d), allreduce %d B at line %d (loop %d)" % (
    opt, p2p[0]["p2p_bytes"], gather, gather_loop, red[0]["allreduce_bytes"], reduction, reduction_loop))
PY
  grep -q "before the loop at where.c:$gather_loop (line $gather): exchange values of array #[12][ a-z_]* with up to 2 neighbours" <<<"$out" ||
    fail "report lacks the halo line: $out"
  grep -q "after the loop at where.c:$reduction_loop (line $reduction): allreduce" <<<"$out" ||
    fail "report lacks the reduction line: $out"
  # 1-D blocks of a 1-D array: every process computes and owns a quarter.
  grep -q "^balance (4 processes): work 1\.00\.\.1\.00x the mean, array bytes owned 1\.00\.\.1\.00x the mean" <<<"$out" ||
    fail "report lacks the balance line: $out"
  # The trace names the consuming line of every point-to-point message.
  profile=$(sed -n 's/^profile kept at \([^ ]*\) .*/\1/p' <<<"$out")
  "$tool" trace "$profile" --procs 4 --csv "$tmp/trace.csv" >/dev/null 2>&1 || fail "trace $opt"
  sites=$(awk -F, '$5 == "p2p" { print $6 }' "$tmp/trace.csv" | sort -u)
  [ "$sites" = "where.c:$gather" ] || [ "$(basename "${sites%%:*}"):${sites##*:}" = "where.c:$gather" ] ||
    fail "trace sites of p2p messages: '$sites', want where.c:$gather"
done
echo PASS

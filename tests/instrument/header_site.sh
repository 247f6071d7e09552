#!/usr/bin/env bash
# header_site.sh TOOL SOURCE (header_site.c; header_site.h beside it)
#
# At -O0 and -O2 on 4 processes: the halo is consumed by the header's
# statement, and its site names that statement's file and line and the
# loop's own file and line, in the JSON and in the report (before, the
# report printed the statement's file with the loop's line). The
# header's statement and the loop's own are one sweep: one exchange per
# neighbour and step, 2 (P - 1) messages a step.
set -uo pipefail
tool=$(realpath "$1"); src=$(realpath "$2"); hdr="$(dirname "$src")/header_site.h"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*" >&2; exit 1; }
line_of() { grep -n "// $1\$" "$2" | cut -d: -f1; }
statement=$(line_of STATEMENT "$hdr") loop=$(line_of LOOP "$src")
[ -n "$statement" ] && [ -n "$loop" ] || fail "markers not found in $src, $hdr"
procs=4 steps=5
cd "$tmp"
for opt in -O0 -O2; do
  out=$("$tool" analyze "$src" -I"$(dirname "$src")" "$opt" --procs $procs --json "$tmp/e.json" -- 4096 $steps 2>&1) ||
    fail "analyze $opt: $out"
  echo "$out" | sed -n '/^where/,$p'
  python3 - "$tmp/e.json" "$statement" "$loop" "$procs" "$steps" "$opt" <<'PY' || exit 1
import json, os, sys
est = json.load(open(sys.argv[1]))["procs"][0]
statement, loop, procs, steps = map(int, sys.argv[2:6])
opt = sys.argv[6]
def fail(msg):
    print("FAIL (%s): %s\nsites: %s" % (opt, msg, json.dumps(est["sites"], indent=1)))
    sys.exit(1)
p2p = [s for s in est["sites"] if s["p2p_bytes"] > 0]
if len(p2p) != 1: fail("want one site with a halo exchange, got %d" % len(p2p))
s = p2p[0]
got = (os.path.basename(s["file"]), s["line"], os.path.basename(s.get("loop_file", "")), s["loop_line"])
want = ("header_site.h", statement, "header_site.c", loop)
if got != want: fail("site %s:%d in the loop at %s:%d; want %s:%d in the loop at %s:%d" % (got + want))
if est["p2p_messages"] != 2 * (procs - 1) * steps:
    fail("%d messages, want one exchange per neighbour and step (%d)" % (est["p2p_messages"], 2 * (procs - 1) * steps))
print("header_site (%s): %s:%d in the loop at %s:%d, %d messages" % ((opt,) + got + (est["p2p_messages"],)))
PY
  grep -q "before the loop at header_site.c:$loop (header_site.h:$statement): exchange values" <<<"$out" ||
    fail "report lacks the loop's file and the statement's: $out"
done
echo PASS

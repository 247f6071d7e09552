#!/usr/bin/env bash
# array_names.sh TOOL C_SOURCE CXX_SOURCE
#
# Arrays are named by their variable and allocation site, the same at -O0
# and -O2, and a library's own buffers are not numbered:
#   array_names.c prints before it allocates (stdout's buffer first), yet u
#   and v are arrays 1 and 2, named with their lines; the table of rows t
#   and the 2-D array its rows make are named t at the table's line; z,
#   from a helper, is named by the helper's variable p and line; g's
#   arrays, stored into g[k], are g[]; a
#   --distribution map may name t by its variable;
#   array_names.cpp's std::vectors w, x (allocated in new_allocator.h,
#   inlined) and y (resize: a header function's call) are named at the
#   user's lines, not the header's.
set -uo pipefail
tool=$(realpath "$1"); csrc=$(realpath "$2"); cxxsrc=$(realpath "$3")
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
line_of() { grep -n "// $1\$" "$2" | cut -d: -f1; }
U=$(line_of U "$csrc") V=$(line_of V "$csrc") T=$(line_of T "$csrc") P=$(line_of P "$csrc") G=$(line_of G "$csrc")
W=$(line_of W "$cxxsrc") X=$(line_of X "$cxxsrc") Y=$(line_of Y "$cxxsrc")
[ -n "$U" ] && [ -n "$V" ] && [ -n "$T" ] && [ -n "$P" ] && [ -n "$G" ] && [ -n "$W" ] && [ -n "$X" ] && [ -n "$Y" ] || fail "markers not found"
# The JSON's names of the arrays holding data: "number name" per line.
names() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = d.get("array_names", [])
for k, (size, _) in enumerate(d["arrays"]):
    if size: print(k + 1, names[k] if k < len(names) else "")' "$1"
}
for O in -O0 -O2; do
  out=$("$tool" analyze "$csrc" $O --procs 4 --json "c$O.json" --out "c$O" -- 4096 3 2>&1) || { echo "$out"; fail "analyze array_names.c $O"; }
  facts=$(echo "$out" | grep '^arrays')
  echo "array_names.c $O: $facts"
  want="arrays (allocation order): #1 u (array_names.c:$U) 32768 B, #2 v (array_names.c:$V) 32768 B, #3 t (array_names.c:$T) 1024 B (table of rows), #4 t (array_names.c:$T) 262144 B, #132 p (array_names.c:$P) 32768 B, #133 g[] (array_names.c:$G) 32768 B, #134 g[] (array_names.c:$G) 32768 B; 127 more: rows of tables of rows, each part of its table's first row's array"
  [ "$facts" = "$want" ] || fail "$O: the text report's arrays are
  $facts
want
  $want"
  names "c$O.json" >"c$O.names"
  printf '1 u (array_names.c:%s)\n2 v (array_names.c:%s)\n3 t (array_names.c:%s)\n4 t (array_names.c:%s)\n132 p (array_names.c:%s)\n133 g[] (array_names.c:%s)\n134 g[] (array_names.c:%s)\n' \
    "$U" "$V" "$T" "$T" "$P" "$G" "$G" >want.names
  cmp -s want.names "c$O.names" || { diff want.names "c$O.names"; fail "$O: the JSON's array_names"; }
  grep -q "\"array_names\": \[\"u (array_names.c:$U)\"" "c$O/index.html" ||
    fail "$O: the HTML report has no array names"

  out=$("$tool" analyze "$cxxsrc" $O --procs 4 --json "x$O.json" -- 4096 3 2>&1) || { echo "$out"; fail "analyze array_names.cpp $O"; }
  echo "array_names.cpp $O: $(echo "$out" | grep '^arrays')"
  names "x$O.json" >"x$O.names"
  printf '1 w (array_names.cpp:%s)\n2 x (array_names.cpp:%s)\n3 y (array_names.cpp:%s)\n' "$W" "$X" "$Y" >want.names
  cmp -s want.names "x$O.names" || { diff want.names "x$O.names"; fail "$O: the std::vectors' names"; }
done
# A map may name the 2-D array by its number or by its variable: one estimate.
summary() {
  python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["procs"]:
    print(r["n"], r["total_bytes"], r["p2p_messages"], r["distribution"])' "$1"
}
printf 'grid 4 128x256 2x2\n' >by_number.txt
printf 'grid t 128x256 2x2\n' >by_name.txt
for map in by_number by_name; do
  "$tool" estimate c-O2/build/program.profile --procs 4 --distribution $map.txt --json $map.json >$map.log 2>&1 ||
    { cat $map.log; fail "the map $(cat $map.txt) was refused"; }
done
[ "$(summary by_number.json)" = "$(summary by_name.json)" ] || fail "a map naming t gives another estimate than one numbering it"
printf 'grid nothing 128x256 2x2\n' >unknown.txt
"$tool" estimate c-O2/build/program.profile --procs 4 --distribution unknown.txt >unknown.log 2>&1 && fail "a map naming no array was accepted"
grep -q "no array" unknown.log || { cat unknown.log; fail "no reason given for the unknown name"; }
echo "PASS: arrays named at -O0 and -O2; a map names t: $(summary by_name.json)"

#!/usr/bin/env bash
# row_tables.sh TOOL SOURCE
#
# row_tables.cpp's Jacobi sweep on a 128 x 128 grid kept as one block, as
# rows behind a table of pointers, and as a std::vector<std::vector<double>>,
# at -O0 and -O2 on 4 and 16 processes: the rows of a table are one array
# (record/row_tables.h), so all three are distributed as a 2-D grid and
# send the same bytes and messages (before, the rows were aligned element by
# element and could only be cut by columns: 2.5x the bytes at 16). A
# --distribution map then applies to the table's array, and one naming a
# row, which holds no data of its own, is refused (exit 2).
set -uo pipefail
tool=$(realpath "$1"); src=$(realpath "$2")
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"
summary() {
  python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["procs"]:
    print(r["n"], r["total_bytes"], r["p2p_messages"], r["distribution"])' "$1"
}
for O in 0 2; do
  for mode in block pointers vectors; do
    out=$("$tool" analyze "$src" -O$O --procs 4,16 --json "$mode$O.json" --out "$mode$O" -- $mode 128 128 3 2>&1) ||
      { echo "$out"; echo "FAIL: analyze $mode -O$O"; exit 1; }
    summary "$mode$O.json" >"$mode$O.txt"
    echo "-O$O $mode: $(tr '\n' ';' <"$mode$O.txt")"
  done
  grep -q "^16 .* cartesian 4x4$" "block$O.txt" || { echo "FAIL: -O$O: the block is not cut 4x4 at 16"; exit 1; }
  for mode in pointers vectors; do
    cmp -s "block$O.txt" "$mode$O.txt" || { echo "FAIL: -O$O: $mode estimates differ from the block's"; exit 1; }
  done
done
# The table of u's rows is array 1, u's first row array 3 (pointers).
printf 'grid 3 128x128 2x2\n' >grid.txt
"$tool" estimate pointers2/build/program.profile --procs 4 --distribution grid.txt --json map.json >map.log 2>&1 ||
  { cat map.log; echo "FAIL: a grid map of the rows' array was refused"; exit 1; }
[ "$(summary map.json)" = "4 12096 24 user map" ] || { summary map.json; echo "FAIL: the 2x2 map gives other bytes than the 2x2 cut"; exit 1; }
printf 'grid 5 1x128 1x4\n' >row.txt
"$tool" estimate pointers2/build/program.profile --procs 4 --distribution row.txt >row.log 2>&1; code=$?
[ "$code" = 2 ] && grep -q "array 5, which holds no data" row.log ||
  { cat row.log; echo "FAIL: a map naming a fused row: exit $code, want 2 and a message"; exit 1; }
echo "row_tables: tables of rows are distributed as the block they stand for"

#!/usr/bin/env bash
# scan_linear.sh TOOL SOURCE N
#
# opt_scan.c's `a[i] += a[i - 1] * c` at -O1 and -O2 (where a[i - 1] comes
# from a register, not a reload): the value-flow graph must be linear in n
# (each new value reads a[i] and a[i - 1]: at most 2n edges). Carrying the
# whole slice gave n^2/2 edges (12.5 M for n = 5,000).
set -uo pipefail
tool=$(realpath "$1"); src=$(realpath "$2"); n="$3"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"
for O in 1 2; do
  out=$("$tool" analyze "$src" -O$O --procs 4 --partitioner metis-volume -- "$n" 2>&1); code=$?
  [ "$code" -eq 0 ] || { echo "$out"; echo "FAIL: analyze -O$O exited $code"; exit 1; }
  edges=$(grep -oE 'graph [0-9]+ vertices / [0-9]+ edges' <<<"$out" | grep -oE '[0-9]+ edges' | grep -oE '[0-9]+')
  chains=$(grep -oE 'value-flow chains [0-9]+' <<<"$out" | grep -oE '[0-9]+$')
  [ -n "$edges" ] || { echo "$out"; echo "FAIL: -O$O: no graph statistics"; exit 1; }
  echo "-O$O: n=$n, $chains value-flow chains, $edges edges"
  [ "$edges" -le $((2 * n)) ] || { echo "FAIL: -O$O: $edges edges > 2n = $((2 * n))"; exit 1; }
  [ "$chains" -eq $((n - 1)) ] || { echo "FAIL: -O$O: $chains value-flow chains, want n - 1 = $((n - 1))"; exit 1; }
done
echo "scan_linear: edges linear in n"

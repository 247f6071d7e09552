#!/usr/bin/env bash
# indirect_index.sh TOOL SOURCE
#
# The pass marks the arrays accessed at an index read from an array
# (indirect_index.c says which), the same at every optimisation level.
set -uo pipefail
tool=$(realpath "$1"); src=$(realpath "$2")
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"
want="x"
for O in 0 1 2 3; do
  out=$("$tool" analyze "$src" -I"$(dirname "$src")" -O$O --procs 2 -- 256 2>&1); code=$?
  [ "$code" -eq 0 ] || { echo "$out"; echo "FAIL: analyze -O$O exited $code"; exit 1; }
  line=$(grep '^arrays (allocation order):' <<<"$out")
  marked=$(grep -oE '#[0-9]+[^,]* [0-9]+ B \(indexed indirectly\)' <<<"$line" | grep -oE '^#[0-9]+' | tr '\n' ' ')
  echo "-O$O: $marked"
  [ "$marked" = "#1 #6 #8 " ] || { echo "$line"; echo "FAIL: -O$O marks '$marked', want x, z and w (#1 #6 #8)"; exit 1; }
done
echo "indirect_index: x[col[k]], z[perm[i]] and w[entry(perm, i)] marked, nothing else"

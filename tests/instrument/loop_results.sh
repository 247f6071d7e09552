#!/usr/bin/env bash
# loop_results.sh TOOL SOURCE
#
# loop_results.c at -O0..-O3 on 4 processes: two Allreduces of 8 bytes per
# step for 3 steps, 2 * (4 - 1) * 8 * 2 * 3 = 288 collective bytes, no
# point-to-point bytes. Were a loop result a label of its sources, every
# y[i] would read the whole slice of the dot product: an all-gather of x
# and a run quadratic in n. n = 512: the set-up makes 4 n^2 values, as
# many as the squared sources (2 n)^2 of the dot product after it, so a
# rule comparing them with the values made so far would take that dot
# product for a local computation.
set -uo pipefail
tool=$(realpath "$1"); src=$(realpath "$2")
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"
for O in 0 1 2 3; do
  out=$("$tool" analyze "$src" -I"$(dirname "$src")" -O$O --procs 4 -- 512 2>&1); code=$?
  [ "$code" -eq 0 ] || { echo "$out"; echo "FAIL: analyze -O$O exited $code"; exit 1; }
  row=$(awk '$1 == 4 && NF > 5' <<<"$out")
  echo "-O$O: $row"
  [ "$(awk '{print $3}' <<<"$row")" = 0 ] || { echo "FAIL: -O$O: point-to-point bytes, want 0"; exit 1; }
  [ "$(awk '{print $4}' <<<"$row")" = 288 ] || { echo "FAIL: -O$O: collective bytes, want 288"; exit 1; }
done
echo "loop_results: two Allreduces per step at every -O level"

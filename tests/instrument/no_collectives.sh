#!/usr/bin/env bash
# no_collectives.sh TOOL SOURCE
#
# A loop with no global value predicts no collective (no_collectives.c: a
# cell sweep with a scratch array, a quadrature matrix every process holds
# and asserts on indices): at -O0 and -O2, on 4, 8 and 16 processes, no
# collective bytes or calls, and p2p only the halo of one value each way
# across every block boundary, every step.
set -uo pipefail
tool=$(realpath "$1"); src=$(realpath "$2")
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"
cells=4096 steps=2
for O in 0 2; do
  out=$("$tool" analyze "$src" -O$O --procs 4,8,16 -- $cells $steps 2>&1); code=$?
  [ "$code" -eq 0 ] || { echo "$out"; echo "FAIL: analyze -O$O exited $code"; exit 1; }
  for p in 4 8 16; do
    row=$(awk -v p=$p '$1 == p && NF >= 8' <<<"$out")
    read -r _ total p2p collective messages collectives _ <<<"$row"
    halo=$(( 2 * (p - 1) * 8 * steps ))
    echo "-O$O P=$p: p2p $p2p (halo $halo), collective $collective B in $collectives calls"
    [ "$collective" = 0 ] && [ "$collectives" = 0 ] || { echo "$out"; echo "FAIL: -O$O P=$p predicts collectives"; exit 1; }
    [ "$p2p" = "$halo" ] || { echo "$out"; echo "FAIL: -O$O P=$p p2p $p2p, want $halo"; exit 1; }
  done
done
echo "no_collectives: halos only, no collective, at -O0 and -O2"

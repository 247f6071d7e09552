#!/usr/bin/env bash
# no_collectives.sh TOOL SOURCE
#
# A loop with no global value predicts no collective (no_collectives.c: a
# cell sweep with a scratch array, a quadrature matrix every process holds
# and asserts on indices): at -O0 and -O2, on 4, 8 and 16 processes, no
# collective bytes or calls, and p2p only the halo of one value each way
# across every block boundary, every step.
# shellcheck source=tests/instrument/common.sh
source "$(dirname "$0")/common.sh"
cells=4096 steps=2
for O in 0 2; do
  analyze_at $O 4,8,16 $cells $steps
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

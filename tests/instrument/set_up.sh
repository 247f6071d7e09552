#!/usr/bin/env bash
# set_up.sh TOOL SOURCE
#
# A program that marks its region runs its set-up without recording its
# flows (Analyzer::expect_region) and keeps only the set-up values the
# region reads (record/unread_set_up.h). set_up.c computes its data in
# place before a 1-D relaxation: at -O0 and -O2, on 4 and 8 processes,
# the estimate is the relaxation's two halo exchanges per step and
# nothing else, 4 (P - 1) values of 8 bytes a step. Told not to reach its
# region, the run records nothing, and the tool stops with an error
# naming it, writing no result; so do estimate, trace and benchgen of the
# profile it kept.
# shellcheck source=tests/instrument/common.sh
source "$(dirname "$0")/common.sh"
n=4096 steps=3
for O in 0 2; do
  analyze_at $O 4,8 $n $steps
  for p in 4 8; do
    read -r _ total p2p collective messages collectives _ <<<"$(awk -v p=$p '$1 == p && NF >= 8' <<<"$out")"
    want=$(( 4 * (p - 1) * 8 * steps ))
    echo "-O$O P=$p: $total B ($p2p p2p, $collective collective), want $want"
    [ "$total" = "$want" ] && [ "$p2p" = "$want" ] || { echo "$out"; echo "FAIL: -O$O P=$p"; exit 1; }
  done
done
out=$("$tool" analyze "$src" -O2 --procs 4 --json never.json -- $n $steps 0 2>&1); code=$?
never="did not reach it in this run: nothing was recorded"
[ "$code" -ne 0 ] && grep -q "$never" <<<"$out" && [ ! -e never.json ] ||
  { echo "$out"; echo "FAIL: a region never reached gave status $code, not an error"; exit 1; }
# Every command that reads the profile kept says so too, writing nothing.
profile=$(sed -n 's/.*profile kept at \([^ ]*\) .*/\1/p' <<<"$out" | head -n 1)
[ -f "$profile" ] || { echo "$out"; echo "FAIL: no profile kept"; exit 1; }
for command in "estimate --procs 4" "trace --procs 4 --csv never.csv" "benchgen --procs 4 --out never_bench"; do
  read -r -a words <<<"$command"
  out=$("$tool" "${words[0]}" "$profile" "${words[@]:1}" 2>&1); code=$?
  [ "$code" -ne 0 ] && grep -q "$never" <<<"$out" && [ ! -e never.csv ] && [ ! -e never_bench/bench.c ] ||
    { echo "$out"; echo "FAIL: ${words[0]} of a region never reached gave status $code, not an error"; exit 1; }
done
rm -f "$profile"
echo "set_up: the region's halos only, at -O0 and -O2; a region never reached is an error"

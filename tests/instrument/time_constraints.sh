#!/usr/bin/env bash
# time_constraints.sh TOOL SOURCE
#
# time_constraints.cpp (LULESH 2.0's time constraints in its own code
# shape) at -O0..-O3 on 8 processes, 6 cycles: an MPI code makes one
# MPI_Allreduce of one value a cycle from the second on (the first keeps
# the initial time step), min(dtcourant / 2, dthydro * 2 / 3), and sends
# nothing else. Checked at every level: no point-to-point byte, no
# broadcast, one collective call a cycle from the second on, and no
# region's partial minimum reduced on its own (at -O1 the test whether a
# region had its minimum's element, `if (elem != -1)`, is a phi of the
# loop-skipped constant and the comparison): at most the two constraints'
# minima a cycle (the estimate reduces both, in one call, where the MPI
# code reduces the smaller). Each minimum is taken over the elements a
# filter passes (vdov != 0, the few the shock has reached): a reduction
# over every element tested, whether the filter is a branch around the
# update (-O0, and the hydro constraint at every level) or part of a
# select (the Courant constraint above -O0).
set -uo pipefail
tool=$(realpath "$1"); src=$(realpath "$2")
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"
cycles=6
for O in 0 1 2 3; do
  out=$("$tool" analyze "$src" -O$O --procs 8 --json "t$O.json" -- 1728 $cycles 2>&1); code=$?
  [ "$code" -eq 0 ] || { echo "$out"; echo "FAIL: analyze -O$O exited $code"; exit 1; }
  read -r p2p calls bcasts allreduces < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["procs"][0]
print(r["p2p_bytes"], r["collective_calls"], r["broadcasts"], r["allreduces"])' "t$O.json")
  echo "-O$O: p2p $p2p B, $calls collective calls, $allreduces Allreduce values, $bcasts broadcasts"
  [ "$p2p" = 0 ] || { echo "FAIL: -O$O: $p2p point-to-point bytes, want 0"; exit 1; }
  [ "$calls" = $((cycles - 1)) ] || { echo "FAIL: -O$O: $calls collective calls, want $((cycles - 1))"; exit 1; }
  [ "$allreduces" -le $((2 * cycles)) ] || { echo "FAIL: -O$O: $allreduces Allreduced values, want at most two a cycle"; exit 1; }
  [ "$bcasts" = 0 ] || { echo "FAIL: -O$O: $bcasts broadcasts, want 0"; exit 1; }
done
echo "time_constraints: one Allreduce call a cycle from the second on and no broadcast, at every -O level"

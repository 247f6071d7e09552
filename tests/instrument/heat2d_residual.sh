#!/usr/bin/env bash
# End to end through the CLI: Heat2D's residual, a maximum over the grid
# reduced in a register, only decides the time loop (`t < steps && !done`),
# never reaching memory. It is the step loop's result, one value from every
# point (Analyzer::loop_result), which every process reads: the Allreduce
# the MPI version makes every step. 48x48, 10 steps, 4 processes:
# 10 x 2(4-1) x 8 = 480 collective bytes, as measured from heat2d_mpi.
set -uo pipefail
tool=$(realpath "$1"); src=$(realpath "$2")
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"  # the profile and build files go here
out=$("$tool" analyze "$src" --procs 4 --out "$tmp/report" -- 48 10 2>&1); code=$?
[ "$code" -eq 0 ] || { echo "$out"; echo "FAIL: analyze exited $code"; exit 1; }
echo "$out"
collective=$(awk '$1 == 4 && NF >= 4 {print $4}' <<<"$out")
[ -n "$collective" ] || { echo "FAIL: no row for 4 processes"; exit 1; }
[ "$collective" -eq 480 ] || { echo "FAIL: collective bytes $collective, want 480 (the residual's Allreduce every step)"; exit 1; }
echo "heat2d_residual: collective bytes $collective"

#!/usr/bin/env bash
# End to end through the CLI: Heat2D's residual is reduced in a register and
# only decides the time loop (`t < steps && !done`), never reaching memory.
# The branch consumes it (runtime_abi.h __ca_use), so the estimate predicts
# the Allreduce the MPI version makes every step: collective bytes > 0.
# (48x48, 10 steps, 4 processes: 9 decisions read the residual -- the 10th
# test stops at t < steps -- so 9 x 2(4-1) x 8 = 432 bytes; the MPI code
# reduces every step, 480.)
set -uo pipefail
tool=$(realpath "$1"); src=$(realpath "$2")
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"  # the profile and build files go here
out=$("$tool" analyze "$src" --procs 4 --out "$tmp/report" -- 48 10 2>&1); code=$?
[ "$code" -eq 0 ] || { echo "$out"; echo "FAIL: analyze exited $code"; exit 1; }
echo "$out"
collective=$(awk '$1 == 4 && NF >= 4 {print $4}' <<<"$out")
[ -n "$collective" ] || { echo "FAIL: no row for 4 processes"; exit 1; }
[ "$collective" -gt 0 ] || { echo "FAIL: collective bytes $collective, want > 0 (the residual Allreduce)"; exit 1; }
grep -qE 'uses=[1-9]' <<<"$out" || { echo "FAIL: the profile records no branch uses"; exit 1; }
echo "heat2d_residual: collective bytes $collective"

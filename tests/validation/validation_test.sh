#!/usr/bin/env bash
# validation_test.sh COMMANALYZER 'APP|ARGS|P1,P2,...' 'BOUNDS'
#
# Bazel test: a small slice of the paper's validation (tools/validate.sh with
# one app at a tiny size): analyse the sequential example, run its MPI
# reference under the PMPI counter for each process count, and fail if a
# bound (validation_table.py options, e.g. --min-accuracy 0.85) is violated.
# The table goes to the test's undeclared outputs (VALIDATION.md).
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 COMMANALYZER 'APP|ARGS|PROCS' 'BOUNDS'" >&2; exit 2; }
tool="$1"; case_="$2"; bounds="$3"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
export TMPDIR="$tmp"                     # Open MPI session directory, mpicc temporaries
export HOME="${HOME:-$tmp}"
doc="${TEST_UNDECLARED_OUTPUTS_DIR:-$tmp}/VALIDATION.md"
exec tools/validate.sh --tool "$tool" --case "$case_" --check "$bounds" \
  --out "$tmp/validation" --doc "$doc" --no-profiles

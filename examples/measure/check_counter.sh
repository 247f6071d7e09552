#!/usr/bin/env bash
# Builds libpmpi_counter.so and counter_selftest, runs the self-test on a few
# process counts and checks every number of the JSON exactly.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${CA_BUILD_DIR:-/tmp/commanalyzer-examples-build}"
mkdir -p "$build"
mpicc -O2 -Wall -shared -fPIC -o "$build/libpmpi_counter.so" "$here/pmpi_counter.c"
mpicc -O2 -Wall -o "$build/counter_selftest" "$here/counter_selftest.c"
mpirun_flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && mpirun_flags+=(--allow-run-as-root)
status=0
for n in ${CA_SELFTEST_NPROCS:-3 4 7}; do
  out="$build/selftest_$n.json"
  rm -f "$out"
  mpirun "${mpirun_flags[@]}" -np "$n" -x LD_PRELOAD="$build/libpmpi_counter.so" \
    -x CA_PMPI_OUT="$out" "$build/counter_selftest"
  python3 "$here/check_counter.py" "$n" "$out" || status=1
done
exit $status

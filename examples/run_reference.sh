#!/usr/bin/env bash
# run_reference.sh APP NPROCS [app args...]
#
# Builds the PMPI counter and the MPI reference version of APP (matmul, spmv,
# heat2d, minighost, lulesh, redblack) into $CA_BUILD_DIR (default
# /tmp/commanalyzer-examples-build), runs it on NPROCS ranks under the
# counter and prints the application's output followed, on the last line, by
# the path of the JSON counts ($CA_PMPI_OUT, default
# $CA_BUILD_DIR/<app>_p<NPROCS>.json).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 APP NPROCS [args...]   (APP: matmul spmv heat2d minighost lulesh redblack)" >&2
  exit 2
fi
app="$1"; np="$2"; shift 2
here="$(cd "$(dirname "$0")" && pwd)"
build="${CA_BUILD_DIR:-/tmp/commanalyzer-examples-build}"
src="$here/$app/${app}_mpi.c"
[ -f "$src" ] || { echo "unknown app '$app' ($src not found)" >&2; exit 2; }
mkdir -p "$build"

lib="$build/libpmpi_counter.so"
if [ ! -f "$lib" ] || [ "$here/measure/pmpi_counter.c" -nt "$lib" ]; then
  mpicc -O2 -Wall -shared -fPIC -o "$lib.tmp.$$" "$here/measure/pmpi_counter.c"
  mv -f "$lib.tmp.$$" "$lib"
fi
bin="$build/${app}_mpi"
if [ ! -f "$bin" ] || [ "$src" -nt "$bin" ]; then
  mpicc -O2 -Wall -std=c11 -o "$bin.tmp.$$" "$src" -lm
  mv -f "$bin.tmp.$$" "$bin"
fi

out="${CA_PMPI_OUT:-$build/${app}_p${np}.json}"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
rm -f "$out"
flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
mpirun "${flags[@]}" -np "$np" -x LD_PRELOAD="$lib" -x CA_PMPI_OUT="$out" "$bin" "$@"
[ -f "$out" ] || { echo "no counts written to $out" >&2; exit 1; }
echo "$out"

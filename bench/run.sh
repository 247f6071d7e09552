#!/usr/bin/env bash
# Builds the benchmarks optimised and runs them all: console table on stdout,
# JSON in bench/results/latest.json. Extra arguments go to the benchmark
# binary, e.g.  bench/run.sh --benchmark_filter=small
# The binary is run directly (not via `bazel run`) so the Bazel server is
# free for other commands while the benchmarks run.
set -euo pipefail
cd "$(dirname "$0")/.."
bazel build -c opt //bench:core_bench
mkdir -p bench/results
bazel-bin/bench/core_bench \
  --benchmark_format=console \
  --benchmark_out=bench/results/latest.json \
  --benchmark_out_format=json \
  "$@"

#!/usr/bin/env bash
# The main job on a built-in example, on a fresh machine: installs what is
# missing, builds the tool, and analyses the sequential Heat2D in
# examples/heat2d/heat2d_seq.c (128 x 128 grid, 20 time steps): compile with
# the pass, run, predict the communication on 2..64 processes. Extra
# arguments go to `commanalyzer analyze` (e.g. --procs 4,16 --out /tmp/report).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
bazel build //tools:commanalyzer
exec bazel-bin/tools/commanalyzer analyze examples/heat2d/heat2d_seq.c "$@" -- 128 20

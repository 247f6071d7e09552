#!/usr/bin/env bash
# The main job on a built-in example, on a fresh machine: installs what is
# missing, builds the command-line tool and runs it. Extra arguments go to
# the tool (e.g. --procs 4,16 --out /tmp/report).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
bazel build //tools:commanalyzer
exec bazel-bin/tools/commanalyzer demo "$@"

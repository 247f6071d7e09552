#!/usr/bin/env bash
# running_max.sh TOOL SOURCE
#
# running_max.c at -O2: a maximum over n elements, a select on its own
# comparison, both stored and tested. The decision on it reads the label
# its value has (the union of the two compared), so the run builds one
# chain of labels, a node per element, not a second one for the decision.
# Collection off, so label_nodes counts every node made; the test is still
# recorded as the one decision it is.
set -uo pipefail
tool=$(realpath "$1"); src=$(realpath "$2")
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"
n=100000
"$tool" build "$src" -O2 -lm --output running_max >build.log 2>&1 || { cat build.log; echo "FAIL: build"; exit 1; }
COMMANALYZER_LABEL_GC=0 COMMANALYZER_PROFILE=running_max.profile ./running_max $n >run.out 2>&1 ||
  { cat run.out; echo "FAIL: run"; exit 1; }
nodes=$(grep -ao "label_nodes=[0-9]*" running_max.profile | cut -d= -f2)
uses=$(grep -ao " uses=[0-9]*" running_max.profile | cut -d= -f2)
echo "n=$n: $nodes label nodes, $uses decision(s) recorded"
[ -n "$nodes" ] && [ "$nodes" -lt $((3 * n / 2)) ] || { echo "FAIL: $nodes label nodes for $n elements, want one chain (< 1.5 n)"; exit 1; }
[ "$uses" = 1 ] || { echo "FAIL: $uses decisions recorded, want the one test of the maximum"; exit 1; }
echo "running_max: one label chain for the maximum's value and its test"

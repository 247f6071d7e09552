#!/usr/bin/env bash
# Two builds of the instrumentation side by side: the instrumented Jacobi
# (Heat2D 1024^2 x 40) and MatMul n=256 from checkout A and checkout B, run
# alternately ROUNDS times each, A first in odd rounds and B first in even
# ones (on these VMs the first of two back-to-back runs is 15-20 % slower
# even for identical binaries), best task-clock of each; then the two
# profiles are compared (they must hold the same values and flows).
# Usage: bench/ab_overhead.sh DIR_A DIR_B [ROUNDS=6]
#   e.g. git worktree add /tmp/before HEAD~1 && bench/ab_overhead.sh /tmp/before .
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 DIR_A DIR_B [ROUNDS]" >&2; exit 2; }
A=$(cd "$1" && pwd); B=$(cd "$2" && pwd); rounds=${3:-6}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for side in A B; do
  dir=${!side}
  (cd "$dir" && bazel build //tools:commanalyzer >/dev/null 2>&1)
  "$dir/bazel-bin/tools/commanalyzer" build "$dir/examples/heat2d/heat2d_seq.c" --output "$work/heat_$side"
  "$dir/bazel-bin/tools/commanalyzer" build "$dir/examples/matmul/matmul_seq.c" --output "$work/matmul_$side"
done
(cd "$B" && bazel build //tests:profile_compare >/dev/null 2>&1)

task_ms() {  # task_ms PROFILE CMD...: task-clock milliseconds of one run
  COMMANALYZER_PROFILE="$1" perf stat -e task-clock -x, "${@:2}" 2>&1 >/dev/null | tail -1 | cut -d, -f1
}
smaller() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }

for program in "heat 1024 40" "matmul 256"; do
  read -r name args <<<"$program"
  best_A=""; best_B=""
  for round in $(seq "$rounds"); do
    if (( round % 2 )); then order="A B"; else order="B A"; fi
    for side in $order; do
      ms=$(task_ms "$work/${name}_$side.profile" "$work/${name}_$side" $args)
      if [ "$side" = A ]; then best_A=$(smaller "$best_A" "$ms"); else best_B=$(smaller "$best_B" "$ms"); fi
    done
  done
  awk -v n="$name" -v a="$best_A" -v b="$best_B" 'BEGIN { printf "%s: A %.0f ms, B %.0f ms, B/A %.3f\n", n, a, b, b / a }'
  "$B/bazel-bin/tests/profile_compare" "$work/${name}_A.profile" "$work/${name}_B.profile"
done

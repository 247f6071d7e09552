#!/usr/bin/env bash
# Two builds of the instrumentation side by side: the instrumented Jacobi
# (Heat2D 1024^2 x 40) and MatMul n=256 from checkout A and checkout B, run
# alternately ROUNDS times each, A first in odd rounds and B first in even
# ones (on these VMs the first of two back-to-back runs is 15-20 % slower
# even for identical binaries), best task-clock of each; then the two
# profiles are compared (they must hold the same values and flows).
# With --lulesh2 CHECKOUT (an LLNL/LULESH checkout), LULESH 2.0 -s 12 -i 10
# too (its serial build as tools/validate_public.sh prepares it, -O2): a
# code whose labels are large shared DAGs, unlike the two kernels.
# Usage: bench/ab_overhead.sh DIR_A DIR_B [ROUNDS=6] [--lulesh2 CHECKOUT]
#   e.g. git worktree add /tmp/before HEAD~1 && bench/ab_overhead.sh /tmp/before .
set -euo pipefail
lulesh2=""
positional=()
while [ $# -gt 0 ]; do
  case "$1" in
    --lulesh2) lulesh2="${2:?--lulesh2 needs a LULESH checkout}"; shift ;;
    *) positional+=("$1") ;;
  esac
  shift
done
set -- "${positional[@]}"
[ $# -ge 2 ] || { echo "usage: $0 DIR_A DIR_B [ROUNDS] [--lulesh2 CHECKOUT]" >&2; exit 2; }
A=$(cd "$1" && pwd); B=$(cd "$2" && pwd); rounds=${3:-6}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
programs=("heat 1024 40" "matmul 256")
if [ -n "$lulesh2" ]; then
  "$B/tools/validate_public.sh" --code lulesh2 "$lulesh2" --prepare-only --out "$work/lulesh2" >/dev/null
  # shellcheck disable=SC1091
  source "$work/lulesh2/program.sh"  # serial, incs, defs
  programs+=("lulesh2 -s 12 -i 10 -q")
fi
for side in A B; do
  dir=${!side}
  (cd "$dir" && bazel build //tools:commanalyzer >/dev/null 2>&1)
  "$dir/bazel-bin/tools/commanalyzer" build "$dir/examples/heat2d/heat2d_seq.c" --output "$work/heat_$side"
  "$dir/bazel-bin/tools/commanalyzer" build "$dir/examples/matmul/matmul_seq.c" --output "$work/matmul_$side"
  if [ -n "$lulesh2" ]; then
    "$dir/bazel-bin/tools/commanalyzer" build "${serial[@]}" "${incs[@]}" "${defs[@]}" -O2 --output "$work/lulesh2_$side"
  fi
done
(cd "$B" && bazel build //tests:profile_compare >/dev/null 2>&1)

task_ms() {  # task_ms PROFILE CMD...: task-clock milliseconds of one run
  COMMANALYZER_PROFILE="$1" perf stat -e task-clock -x, "${@:2}" 2>&1 >/dev/null | tail -1 | cut -d, -f1
}
smaller() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }

for program in "${programs[@]}"; do
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

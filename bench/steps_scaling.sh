#!/usr/bin/env bash
# How the analysis grows with the number of time steps: the Heat2D example
# (examples/heat2d/heat2d_seq.c, -O2) at one grid and 25, 50, 100 and 200
# steps. Per step count: the instrumented run, the profile's size, and
# `commanalyzer estimate PROFILE --procs 16` (its progress lines split the
# time into building the graphs and partitioning + costing), and the peak
# resident set of each. One run each; seconds of wall time. Ends with what
# doubling the steps from 100 to 200 does to the analysis (the run and the
# estimate): its time at most doubles, its peak (the larger of the two)
# stays within 5 % (the real-size issue's bounds).
#
# Usage: bench/steps_scaling.sh [--quick] [--record-iterations K]
#   --quick: a 128^2 grid (default 512^2). Writes bench/results/steps_scaling.md
#   (quick: bench/results/steps_scaling_quick.md).
#   --record-iterations K: the instrumented run costs the first K steps and
#   records one more, as `analyze --record-iterations K` runs it (a
#   recording window). Writes bench/results/steps_scaling_window.md.
set -euo pipefail
command="bench/steps_scaling.sh${*:+ $*}"
window=""  # steps costed by a recording window (none: every step)
options=("$@")
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) ;;
    --record-iterations) window="${2:?--record-iterations needs a count}"; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "steps_scaling.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
source "$(dirname "$0")/programs.sh" "${options[@]}"
# The runtime records one step beyond the ones costed (it looks ahead).
record=()
[ -z "$window" ] || record=(env COMMANALYZER_RECORD_ITERATIONS=$((window + 1)))
side=512
$quick && side=128
out=bench/results/steps_scaling.md
$quick && out=bench/results/steps_scaling_quick.md
[ -z "$window" ] || out=bench/results/steps_scaling_window.md
"$tool" build -O2 examples/heat2d/heat2d_seq.c --output "$work/instrumented" 2>"$work/err" ||
  { tail -20 "$work/err" >&2; exit 1; }
{
  echo "# Time steps: what grows with them"
  echo
  echo "Command: \`$command\`; $(date -u '+%Y-%m-%d %H:%M UTC'), 2 cores (shared), commit $(git rev-parse --short HEAD)."
  [ -z "$window" ] || echo "A recording window: the first $window steps costed, one more recorded, the rest counted."
  echo "Heat2D ${side}^2, -O2; one run per row, seconds of wall time. graph: reading the profile and building the"
  echo "value and location graphs; costing: partitioning and costing the candidates for 16 processes."
  echo
  echo "| steps | instrumented s | run peak MiB | profile MiB | estimate s | graph s | costing s | estimate peak MiB |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
} >"$work/report"
for steps in 25 50 100 200; do
  echo "[steps_scaling] $steps steps" >&2
  COMMANALYZER_PROFILE="$work/p.profile" measure "$work/m_run" 1 ${record[@]+"${record[@]}"} "$work/instrumented" \
    "$side" "$steps"
  measure "$work/m_estimate" 1 "$tool" estimate "$work/p.profile" --procs 16
  # measure leaves the estimate's progress lines in $work/err.
  graph=$(sed -n 's/.*graph built in \([0-9.]*\)s.*/\1/p' "$work/err")
  estimated=$(sed -n 's/.*estimated in \([0-9.]*\)s.*/\1/p' "$work/err")
  read -r total kib <"$work/m_estimate"
  read -r run run_kib <"$work/m_run"
  awk -v steps="$steps" -v run="$run" -v run_kib="$run_kib" -v bytes="$(stat -c %s "$work/p.profile")" \
      -v total="$total" -v graph="$graph" -v estimated="$estimated" -v kib="$kib" \
      'BEGIN { printf "| %d | %.2f | %.1f | %.1f | %.2f | %.1f | %.1f | %.1f |\n",
               steps, run, run_kib / 1024, bytes / 1048576, total, total - (estimated - graph), estimated - graph, kib / 1024 }' \
    >>"$work/report"
  echo "$steps $run $run_kib $total $kib" >>"$work/rows"
done
# Doubling 100 -> 200 steps: the analysis's time (run + estimate) and peak.
awk '$1 == 100 { t1 = $2 + $4; p1 = ($3 > $5 ? $3 : $5) } $1 == 200 { t2 = $2 + $4; p2 = ($3 > $5 ? $3 : $5) }
     END { growth = 100 * (p2 / p1 - 1)
           printf "\nDoubling the steps (100 -> 200): the analysis (run + estimate) takes %.2fx the time (at most 2x: %s), ", t2 / t1, t2 <= 2 * t1 ? "met" : "not met"
           printf "its peak (the larger of the run'"'"'s and the estimate'"'"'s) grows by %.1f %% (at most 5 %%: %s).\n", growth, growth <= 5 ? "met" : "not met" }' \
  "$work/rows" >>"$work/report"
mv "$work/report" "$out"
cat "$out"

#!/usr/bin/env bash
# How long `commanalyzer estimate` takes, and its peak memory, on the
# profiles of the overhead benchmark's programs (bench/shim_overhead.sh):
# the re-estimate a user runs after one `analyze`, for the default process
# counts (2, 4, ..., 64, two at a time on this machine's two cores).
# Usage: bench/estimate_speed.sh [--quick]   (writes bench/results/estimate_speed.md)
source "$(dirname "$0")/programs.sh"
procs=2,4,8,16,32,64
if $quick; then procs=4,16; fi

{
  echo "# Re-estimating from a saved profile"
  echo
  echo "Command: \`bench/estimate_speed.sh $*\`; $(date -u +%Y-%m-%d), $(nproc) cores, one run each."
  echo "\`commanalyzer estimate PROFILE --procs LIST\` (defaults otherwise: connectivity partitioner),"
  echo "wall time and peak memory (/usr/bin/time), on the profile of one instrumented run."
  echo
  echo "| program | profile MiB | graph vertices | graph edges | procs | seconds | peak GiB |"
  echo "|---|---:|---:|---:|---|---:|---:|"
} >"$work/report"
for c in "${programs[@]}"; do
  IFS='|' read -r name src args <<<"$c"
  "$tool" build "$src" --output "$work/instrumented"
  COMMANALYZER_PROFILE="$work/p.profile" "$work/instrumented" $args >/dev/null
  /usr/bin/time -f "%e %M" -o "$work/t" "$tool" estimate "$work/p.profile" --procs "$procs" >"$work/out" 2>"$work/err" ||
    { cat "$work/err" >&2; exit 1; }
  read -r secs kib <"$work/t"
  graph=$(grep -o 'graph [0-9]* vertices / [0-9]* edges' "$work/out")
  read -r _ vertices _ _ edges _ <<<"$graph"
  mib=$(awk -v b="$(stat -c %s "$work/p.profile")" 'BEGIN { printf "%.1f", b / 1048576 }')
  awk -v name="$name" -v mib="$mib" -v v="$vertices" -v e="$edges" -v p="$procs" -v s="$secs" -v k="$kib" \
    'BEGIN { printf "| %s | %s | %d | %d | %s | %.0f | %.1f |\n", name, mib, v, e, p, s, k / 1048576 }' >>"$work/report"
done
mkdir -p bench/results
cp "$work/report" bench/results/estimate_speed.md
cat bench/results/estimate_speed.md

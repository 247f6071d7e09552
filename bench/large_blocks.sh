#!/usr/bin/env bash
# What returning large blocks to the system (tools/large_blocks.h) buys:
# `commanalyzer estimate PROFILE --procs LIST` on the examples' profiles at
# their validation sizes (-O2; tools/validate.sh --list-cases), run
# alternately with the tool's default (glibc's mmap threshold fixed at one
# transparent huge page) and with GLIBC_TUNABLES=glibc.malloc.mmap_threshold=
# 33554432, glibc's ceiling, which its own threshold climbs toward as the
# tables are freed. Three runs each; the median wall time and peak
# resident set of each, side by side.
#
# Usage: bench/large_blocks.sh [--quick]   (writes bench/results/large_blocks.md;
#   --quick: Heat2D and MiniGhost only, bench/results/large_blocks_quick.md)
set -euo pipefail
command="bench/large_blocks.sh${*:+ $*}"
for arg in "$@"; do
  case "$arg" in
    --quick) ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "large_blocks.sh: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done
source "$(dirname "$0")/programs.sh" "$@"
out=bench/results/large_blocks.md
cases=(heat2d minighost lulesh spmv)
$quick && out=bench/results/large_blocks_quick.md cases=(heat2d minighost)
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
{
  echo "# Large blocks returned when freed: what they buy the estimate"
  echo
  echo "Command: \`$command\`; $(date -u '+%Y-%m-%d %H:%M UTC'), 2 cores (shared), commit $(git rev-parse --short HEAD)."
  echo "\`commanalyzer estimate PROFILE --procs LIST\`, the examples at their validation sizes, -O2; runs alternate,"
  echo "median of 3: wall seconds and peak resident set (/usr/bin/time)."
  echo
  echo "| example | procs | default s | peak GiB | threshold 32 MiB s | peak GiB | peak ratio | time ratio |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|"
} >"$work/report"
while IFS='|' read -r name args procs; do
  [[ " ${cases[*]} " == *" $name "* ]] || continue
  source_file=$(ls examples/"$name"/"$name"_seq.c*)
  "$tool" build -O2 "$source_file" --output "$work/$name" 2>"$work/err" || { tail -20 "$work/err" >&2; exit 1; }
  # shellcheck disable=SC2086
  COMMANALYZER_PROFILE="$work/$name.profile" "$work/$name" $args >/dev/null
  : >"$work/with" && : >"$work/without"
  for run in 1 2 3; do
    echo "[large_blocks] $name run $run" >&2
    measure "$work/m" 1 "$tool" estimate "$work/$name.profile" --procs "$procs" && cat "$work/m" >>"$work/with"
    GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432 measure "$work/m" 1 "$tool" estimate "$work/$name.profile" \
      --procs "$procs" && cat "$work/m" >>"$work/without"
  done
  with_s=$(cut -d' ' -f1 "$work/with" | median) with_kib=$(cut -d' ' -f2 "$work/with" | median)
  without_s=$(cut -d' ' -f1 "$work/without" | median) without_kib=$(cut -d' ' -f2 "$work/without" | median)
  awk -v n="$name $args" -v p="$procs" -v a="$with_s" -v b="$with_kib" -v c="$without_s" -v d="$without_kib" \
    'BEGIN { printf "| %s | %s | %.2f | %.3f | %.2f | %.3f | %.2f | %.2f |\n", n, p, a, b / 1048576, c, d / 1048576, b / d, a / c }' \
    >>"$work/report"
done < <(tools/validate.sh --list-cases)
mv "$work/report" "$out"
cat "$out"

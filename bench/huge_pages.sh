#!/usr/bin/env bash
# What the tool's huge pages (tools/huge_pages.h) buy: `commanalyzer
# estimate PROFILE --procs 16` on the Heat2D example's profile (512^2 x 100
# steps, -O2; --quick: 256^2 x 50), run alternately with the default
# (glibc.malloc.hugetlb=1, set by the tool) and with GLIBC_TUNABLES=
# glibc.malloc.hugetlb=0, three times each: wall time and peak memory of
# every run, side by side.
#
# Usage: bench/huge_pages.sh [--quick]   (writes bench/results/huge_pages.md,
#   quick: bench/results/huge_pages_quick.md)
set -euo pipefail
command="bench/huge_pages.sh${*:+ $*}"
for arg in "$@"; do
  case "$arg" in
    --quick) ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "huge_pages.sh: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done
source "$(dirname "$0")/programs.sh" "$@"
args="512 100" out=bench/results/huge_pages.md
$quick && args="256 50" out=bench/results/huge_pages_quick.md
"$tool" build -O2 examples/heat2d/heat2d_seq.c --output "$work/instrumented" 2>"$work/err" ||
  { tail -20 "$work/err" >&2; exit 1; }
# shellcheck disable=SC2086
COMMANALYZER_PROFILE="$work/p.profile" "$work/instrumented" $args >/dev/null
{
  echo "# Huge pages: what they buy the estimate"
  echo
  echo "Command: \`$command\`; $(date -u '+%Y-%m-%d %H:%M UTC'), 2 cores (shared), commit $(git rev-parse --short HEAD)."
  echo "\`commanalyzer estimate PROFILE --procs 16\` on Heat2D $args (steps), -O2; runs alternate, seconds of wall time."
  echo
  echo "| run | with huge pages s | peak GiB | without (hugetlb=0) s | peak GiB |"
  echo "|---:|---:|---:|---:|---:|"
} >"$work/report"
for run in 1 2 3; do
  echo "[huge_pages] run $run" >&2
  measure "$work/m_with" 1 "$tool" estimate "$work/p.profile" --procs 16
  GLIBC_TUNABLES=glibc.malloc.hugetlb=0 measure "$work/m_without" 1 "$tool" estimate "$work/p.profile" --procs 16
  read -r with_s with_kib <"$work/m_with"
  read -r without_s without_kib <"$work/m_without"
  awk -v r="$run" -v a="$with_s" -v b="$with_kib" -v c="$without_s" -v d="$without_kib" \
    'BEGIN { printf "| %d | %.2f | %.2f | %.2f | %.2f |\n", r, a, b / 1048576, c, d / 1048576 }' >>"$work/report"
done
mv "$work/report" "$out"
cat "$out"

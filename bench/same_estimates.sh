#!/usr/bin/env bash
# Guard for changes to the instrumentation (instrument/, the slicer, the
# analyzer): the five examples at their validation sizes are built with the
# pass, run, and re-estimated for P = 2,4,8,16; the estimate tables (totals,
# p2p and collective bytes, messages, collectives per process count, without
# the predicted times' last digits, which do not depend on the run either)
# must be byte-identical to those recorded before the change.
#   bench/same_estimates.sh --record DIR   # with the tool before the change
#   bench/same_estimates.sh --check DIR    # after: exit 1 and a diff if any differ
# --tool FILE uses that commanalyzer binary (default: builds //tools:commanalyzer).
# --apps a,b limits the examples (default: all five).
set -euo pipefail
cd "$(dirname "$0")/.."
mode="" dir="" tool="" apps=""
while [ $# -gt 0 ]; do
  case "$1" in
    --record|--check) mode="${1#--}"; dir="$2"; shift ;;
    --tool) tool="$2"; shift ;;
    --apps) apps="$2"; shift ;;
    *) echo "usage: $0 --record|--check DIR [--tool FILE] [--apps a,b]" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$mode" ] || { echo "usage: $0 --record|--check DIR [--tool FILE] [--apps a,b]" >&2; exit 2; }
if [ -z "$tool" ]; then
  bazel build //tools:commanalyzer >/dev/null 2>&1
  tool="$PWD/bazel-bin/tools/commanalyzer"
fi
# The validation sizes of tools/validate.sh.
cases=("heat2d|512 100" "matmul|128" "spmv|1024 6 1024" "minighost|48 48 48 4 10" "lulesh|24 5")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$dir"
status=0
for c in "${cases[@]}"; do
  IFS='|' read -r app args <<<"$c"
  if [ -n "$apps" ] && [[ ",$apps," != *",$app,"* ]]; then continue; fi
  "$tool" build "examples/$app/${app}_seq.c" --output "$work/$app" >/dev/null
  # shellcheck disable=SC2086
  COMMANALYZER_PROFILE="$work/$app.profile" "$work/$app" $args >/dev/null
  # Columns 1-6: procs, total, p2p, collective bytes, messages, collectives.
  "$tool" estimate "$work/$app.profile" --procs 2,4,8,16 |
    awk '$1 == "procs" { table = 1; print $1, $2, $3, $4, $5, $6; next }
         table && $1 ~ /^[0-9]+$/ { print $1, $2, $3, $4, $5, $6; next }
         table { table = 0 }' >"$work/$app.estimate"
  [ -s "$work/$app.estimate" ] || { echo "$app: no estimate table" >&2; exit 1; }
  if [ "$mode" = record ]; then
    cp "$work/$app.estimate" "$dir/$app.estimate"
    echo "$app: recorded"
  elif cmp -s "$dir/$app.estimate" "$work/$app.estimate"; then
    echo "$app: same estimate"
  else
    echo "$app: ESTIMATE CHANGED"
    diff "$dir/$app.estimate" "$work/$app.estimate" || true
    status=1
  fi
done
exit $status

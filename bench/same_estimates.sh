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
# --corpus VALDIR: the public codes instead, from the profiles
#   tools/validate_public.sh kept (VALDIR/CODE/analysis-OX/build/program.profile,
#   one --out directory per code), each re-estimated at the process counts
#   of its estimate-OX.json; the whole table and the "where" lines are
#   compared, not the candidates' predicted times.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="" dir="" tool="" apps="" corpus=""
while [ $# -gt 0 ]; do
  case "$1" in
    --record|--check) mode="${1#--}"; dir="$2"; shift ;;
    --tool) tool="$2"; shift ;;
    --apps) apps="$2"; shift ;;
    --corpus) corpus="$2"; shift ;;
    *) echo "usage: $0 --record|--check DIR [--tool FILE] [--apps a,b | --corpus VALDIR]" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$mode" ] || { echo "usage: $0 --record|--check DIR [--tool FILE] [--apps a,b | --corpus VALDIR]" >&2; exit 2; }
if [ -z "$tool" ]; then
  bazel build //tools:commanalyzer >/dev/null 2>&1
  tool="$PWD/bazel-bin/tools/commanalyzer"
fi
# One result: recorded, or compared with the record (exit status 1 if any differs).
status=0
settle() {  # NAME FILE
  if [ "$mode" = record ]; then
    cp "$2" "$dir/$1.estimate"
    echo "$1: recorded"
  elif cmp -s "$dir/$1.estimate" "$2"; then
    echo "$1: same estimate"
  else
    echo "$1: ESTIMATE CHANGED"
    diff "$dir/$1.estimate" "$2" || true
    status=1
  fi
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$dir"
if [ -n "$corpus" ]; then
  found=0
  for profile in "$corpus"/*/analysis-O*/build/program.profile; do
    [ -f "$profile" ] || continue
    analysis=$(dirname "$(dirname "$profile")")
    code=$(basename "$(dirname "$analysis")") level=${analysis##*analysis-}
    procs=$(python3 -c 'import json, sys; print(",".join(str(e["n"]) for e in json.load(open(sys.argv[1]))["procs"]))' \
      "$(dirname "$analysis")/estimate-$level.json")
    # Everything but the predicted times (the candidates' and the table's).
    "$tool" estimate "$profile" --procs "$procs" 2>/dev/null |
      sed -E 's|/ [0-9.]+\)|)|g; s|/ [0-9.]+,|,|g' |
      awk '$1 == "procs" { table = 1; next } table && $1 ~ /^[0-9]+$/ { $8 = $9 = ""; print; next }
           { table = 0; print }' >"$work/est"
    [ -s "$work/est" ] || { echo "$code $level: no estimate" >&2; exit 1; }
    settle "$code-$level" "$work/est"
    found=$((found + 1))
  done
  [ "$found" -gt 0 ] || { echo "no profiles under $corpus/*/analysis-O*/build" >&2; exit 2; }
  exit $status
fi
# The validation sizes of tools/validate.sh.
cases=("heat2d|512 100" "matmul|128" "spmv|1024 6 1024" "minighost|48 48 48 4 10" "lulesh|24 5")
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
  settle "$app" "$work/$app.estimate"
done
exit $status

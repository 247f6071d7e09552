#!/usr/bin/env bash
# opt_levels.sh TOOL PROCS SOURCE [PROGRAM ARGS...]
#
# The estimate must not depend on the -O level (DESIGN.md, "Optimizer
# independence"): analyses SOURCE at -O0, -O1, -O2 and -O3 (METIS volume
# partitioner, PROCS processes) and requires one answer: the same counts of
# value instances, value-flow chains, graph vertices and edges, branch
# decisions, and the same total bytes. (Before: -O0 tracked every local as
# memory, -O2/-O3 vectorised, forwarded stored values with their whole
# slice and folded constant tables.)
#
# opt_levels.sh --report TOOL PROCS SOURCE [PROGRAM ARGS...] instead compares
# what a user reads under the default ownership and distribution: every
# estimate row (bytes, messages, collectives, the kept distribution) and the
# kind and size of every collective.
set -uo pipefail
report=0
if [ "$1" = "--report" ]; then report=1; shift; fi
tool=$(realpath "$1"); procs="$2"; src=$(realpath "$3"); shift 3
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"
first=""
for O in 0 1 2 3; do
  if [ "$report" = 1 ]; then
    out=$("$tool" analyze "$src" -O$O --procs "$procs" -- "$@" 2>&1); code=$?
    [ "$code" -eq 0 ] || { echo "$out"; echo "FAIL: analyze -O$O exited $code"; exit 1; }
    rows=$(awk '$1 ~ /^[0-9]+$/ && NF >= 8 {print $1, $2, $3, $4, $5, $6, $10}' <<<"$out")
    collectives=$(grep -oE '(allreduce|broadcast|gather|reduce)[a-z]*, [0-9]+ B in [0-9]+ calls?' <<<"$out" | sort)
    [ -n "$rows" ] || { echo "$out"; echo "FAIL: -O$O: no estimate rows"; exit 1; }
    line="$rows / $collectives"
    echo "-O$O: $line" | tr '\n' ' '; echo
    if [ -z "$first" ]; then first="$line"; elif [ "$line" != "$first" ]; then echo "FAIL: -O$O differs from -O0"; exit 1; fi
    continue
  fi
  out=$("$tool" analyze "$src" -O$O --procs "$procs" --partitioner metis-volume -- "$@" 2>&1); code=$?
  [ "$code" -eq 0 ] || { echo "$out"; echo "FAIL: analyze -O$O exited $code"; exit 1; }
  stats=$(grep -oE 'value instances [0-9]+, value-flow chains [0-9]+, graph [0-9]+ vertices / [0-9]+ edges' <<<"$out")
  uses=$(grep -oE 'uses=[0-9]+' <<<"$out")
  total=$(awk -v p="$procs" '$1 == p && NF >= 8 {print $2}' <<<"$out" | tail -1)
  [ -n "$stats" ] && [ -n "$total" ] || { echo "$out"; echo "FAIL: -O$O: no statistics or no row for $procs processes"; exit 1; }
  line="$stats, $uses, total bytes $total"
  echo "-O$O: $line"
  if [ -z "$first" ]; then
    first="$line"
  elif [ "$line" != "$first" ]; then
    echo "FAIL: -O$O differs from -O0 ($first)"; exit 1
  fi
done
echo "opt_levels: one answer at -O0..-O3 for $(basename "$src")"

#!/usr/bin/env bash
# Label-DAG collection in the real runtime (instrument/runtime.cpp scans the
# stack for labels). With a tiny arena -- a collection every few nodes --
# the self-checking programs still see exactly their value flows, and a
# program's profile estimates exactly as one recorded without collection.
# Usage: label_gc.sh COMMANALYZER SELFCHECK... -- APP APP_ARGS...
set -uo pipefail
tool=$(realpath "$1"); shift
selfchecks=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do selfchecks+=("$1"); shift; done
shift
app=$(realpath "$1"); shift
app_args=("$@")
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
export COMMANALYZER_LABEL_GC_NODES=4
for prog in "${selfchecks[@]}"; do
  out=$(COMMANALYZER_PROFILE="$tmp/selfcheck.profile" "$prog" 2>&1) || { echo "$out"; echo "FAIL: $prog exited $?"; exit 1; }
  grep -q "all expectations met" <<<"$out" || { echo "$out"; echo "FAIL: $prog"; exit 1; }
  echo "$(basename "$prog"): all expectations met with label collection every 4 nodes"
done
COMMANALYZER_LABEL_GC=0 COMMANALYZER_PROFILE="$tmp/off.profile" "$app" "${app_args[@]}" >/dev/null || { echo "FAIL: $app (collection off)"; exit 1; }
COMMANALYZER_PROFILE="$tmp/on.profile" "$app" "${app_args[@]}" >/dev/null || { echo "FAIL: $app (collection on)"; exit 1; }
collections_off=$(grep -ao "label_collections=[0-9]*" "$tmp/off.profile" | cut -d= -f2)
[ "$collections_off" = 0 ] || { echo "FAIL: $collections_off collections although COMMANALYZER_LABEL_GC=0"; exit 1; }
collections=$(grep -ao "label_collections=[0-9]*" "$tmp/on.profile" | cut -d= -f2)
[ "${collections:-0}" -gt 0 ] || { echo "FAIL: no collection ran"; exit 1; }
for p in off on; do
  "$tool" estimate "$tmp/$p.profile" --procs 2,4 --json "$tmp/$p.json" >/dev/null || { echo "FAIL: estimate $p"; exit 1; }
done
cmp "$tmp/off.json" "$tmp/on.json" || { echo "FAIL: the estimates differ with label collection"; exit 1; }
echo "label_gc: $collections collections, same estimate as without collection"

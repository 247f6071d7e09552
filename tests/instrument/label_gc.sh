#!/usr/bin/env bash
# Label-DAG collection in the real runtime (instrument/runtime.cpp scans the
# stack for labels). With a tiny arena -- a collection every few nodes --
# the self-checking programs still see exactly their value flows, and a
# program records the same profile (tests/profile_compare.cc: values,
# flows, vertices) as without collection -- or, for `-- estimate APP`, the
# same estimate: in a big C++ program a few words read before the region
# (argv, fresh stack) can hold a value or not depending on where the
# runtime's own allocations put things, which shifts value ids by one
# without changing any flow.
# Usage: label_gc.sh PROFILE_COMPARE COMMANALYZER SELFCHECK... [-- profile|estimate APP APP_ARGS...]...
set -uo pipefail
compare=$(realpath "$1"); shift
tool=$(realpath "$1"); shift
selfchecks=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do selfchecks+=("$1"); shift; done
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
export COMMANALYZER_LABEL_GC_NODES=4
for prog in "${selfchecks[@]}"; do
  out=$(COMMANALYZER_PROFILE="$tmp/selfcheck.profile" "$prog" 2>&1) || { echo "$out"; echo "FAIL: $prog exited $?"; exit 1; }
  grep -q "all expectations met" <<<"$out" || { echo "$out"; echo "FAIL: $prog"; exit 1; }
  echo "$(basename "$prog"): all expectations met with label collection every 4 nodes"
done
while [ $# -gt 0 ]; do
  shift  # --
  mode="$1"; shift
  app=$(realpath "$1"); shift
  app_args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do app_args+=("$1"); shift; done
  name=$(basename "$app")
  COMMANALYZER_LABEL_GC=0 COMMANALYZER_PROFILE="$tmp/off.profile" "$app" "${app_args[@]}" >"$tmp/off.out" 2>&1 ||
    { echo "FAIL: $name (collection off)"; exit 1; }
  COMMANALYZER_PROFILE="$tmp/on.profile" "$app" "${app_args[@]}" >"$tmp/on.out" 2>&1 ||
    { echo "FAIL: $name (collection on)"; exit 1; }
  cmp "$tmp/off.out" "$tmp/on.out" || { echo "FAIL: $name's output differs with label collection"; exit 1; }
  collections_off=$(grep -ao "label_collections=[0-9]*" "$tmp/off.profile" | cut -d= -f2)
  [ "$collections_off" = 0 ] || { echo "FAIL: $collections_off collections although COMMANALYZER_LABEL_GC=0"; exit 1; }
  collections=$(grep -ao "label_collections=[0-9]*" "$tmp/on.profile" | cut -d= -f2)
  [ "${collections:-0}" -gt 0 ] || { echo "FAIL: $name: no collection ran"; exit 1; }
  if [ "$mode" = profile ]; then
    same=$("$compare" "$tmp/off.profile" "$tmp/on.profile") || { echo "$same"; echo "FAIL: $name: label collection changed the profile"; exit 1; }
  else
    "$tool" estimate "$tmp/off.profile" --procs 2,3,4 --json "$tmp/off.json" >/dev/null 2>&1 || { echo "FAIL: estimate"; exit 1; }
    "$tool" estimate "$tmp/on.profile" --procs 2,3,4 --json "$tmp/on.json" >/dev/null 2>&1 || { echo "FAIL: estimate"; exit 1; }
    # Everything but the count of value instances (see above).
    sed -E 's/"values": [0-9]+//' "$tmp/off.json" >"$tmp/off.cmp"
    sed -E 's/"values": [0-9]+//' "$tmp/on.json" >"$tmp/on.cmp"
    cmp "$tmp/off.cmp" "$tmp/on.cmp" || { echo "FAIL: $name: label collection changed the estimate"; exit 1; }
    same="same estimate for 2, 3 and 4 processes"
  fi
  echo "$name: $collections collections; $same"
done

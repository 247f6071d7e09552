#!/usr/bin/env bash
# A program built with store trees (store_trees.h) and without them
# (COMMANALYZER_STORE_TREES=0 at compile time) records the same profile
# (tests/profile_compare.cc: values, flows, vertices), and the store trees
# were used: the first build calls __ca_store_union.
# Usage: store_trees.sh PROFILE_COMPARE WITH_TREES WITHOUT_TREES [ARGS...]
set -uo pipefail
compare=$(realpath "$1"); with=$(realpath "$2"); without=$(realpath "$3"); shift 3
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
# (Through files: grep -q ending a pipe early would fail it under pipefail.)
objdump -d "$with" >"$tmp/with.s"
objdump -d "$without" >"$tmp/without.s"
grep -q "call.*<__ca_store_union>" "$tmp/with.s" || { echo "FAIL: no store tree in $(basename "$with")"; exit 1; }
if grep -q "call.*<__ca_store_union>" "$tmp/without.s"; then
  echo "FAIL: store trees although COMMANALYZER_STORE_TREES=0"; exit 1
fi
COMMANALYZER_PROFILE="$tmp/with.profile" "$with" "$@" >"$tmp/with.out" 2>&1 || { cat "$tmp/with.out"; echo "FAIL: $with"; exit 1; }
COMMANALYZER_PROFILE="$tmp/without.profile" "$without" "$@" >"$tmp/without.out" 2>&1 || { cat "$tmp/without.out"; echo "FAIL: $without"; exit 1; }
cmp "$tmp/with.out" "$tmp/without.out" || { echo "FAIL: the outputs differ"; exit 1; }
"$compare" "$tmp/without.profile" "$tmp/with.profile" || { echo "FAIL: store trees changed the profile"; exit 1; }

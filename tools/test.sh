#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: installs what is missing,
# then `bazel test //...`. Ends with one "tests: N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh || { echo "tools/setup.sh failed: cannot install the build dependencies" >&2; exit 1; }

log=$(mktemp)
bazel test //... "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log")
failed=$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|FLAKY)|^//[^ ]+ +FAILED TO BUILD' "$log")
rm -f "$log"
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi  # a build error
echo "tests: $passed passed, $failed failed"
exit "$status"

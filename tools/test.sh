#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: installs what is missing,
# then `bazel test //...`, then the library's unit tests under ASan + UBSan.
# Ends with one "tests: N passed, N failed; under ASan+UBSan: ..." line.
set -uo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh || { echo "tools/setup.sh failed: cannot install the build dependencies" >&2; exit 1; }

count() {  # count LOG -> "N passed, N failed" of a bazel test run
  local passed failed
  passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$1")
  failed=$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|FLAKY)|^//[^ ]+ +FAILED TO BUILD' "$1")
  if [ "$2" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi  # a build error
  echo "$passed passed, $failed failed"
}

log=$(mktemp)
bazel test //... "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
summary=$(count "$log" "$status")

# The library's GoogleTest targets again under AddressSanitizer and
# UndefinedBehaviorSanitizer (.bazelrc, --config=asan); the tests that run
# instrumented programs stay out (the runtime interposes malloc).
asan_log=$(mktemp)
asan_targets=$(bazel query 'kind(cc_test, //tests:all)' 2>/dev/null)
start=$SECONDS
bazel test --config=asan $asan_targets "$@" 2>&1 | tee "$asan_log"
asan_status=${PIPESTATUS[0]}
asan_summary=$(count "$asan_log" "$asan_status")
rm -f "$log" "$asan_log"
echo "tests: $summary; under ASan+UBSan: $asan_summary ($(( SECONDS - start )) s)"
[ "$status" -ne 0 ] && exit "$status"
exit "$asan_status"

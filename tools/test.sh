#!/usr/bin/env bash
# Runs every test of the project on a fresh machine: installs what is missing,
# then `bazel test //...`, then the library's unit tests under ASan + UBSan,
# then tests/bazel_consumer_test.sh (the Bazel macros from another workspace).
# Ends with one "tests: N passed, N failed" line, all three together.
set -uo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh || { echo "tools/setup.sh failed: cannot install the build dependencies" >&2; exit 1; }

count() {  # count LOG STATUS -> "PASSED FAILED" of a bazel test run
  local passed failed
  passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$1")
  failed=$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|FLAKY)|^//[^ ]+ +FAILED TO BUILD' "$1")
  if [ "$2" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi  # a build error
  echo "$passed $failed"
}

log=$(mktemp)
bazel test //... "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
read -r passed failed < <(count "$log" "$status")

# The library's GoogleTest targets again under AddressSanitizer and
# UndefinedBehaviorSanitizer (.bazelrc, --config=asan); the tests that run
# instrumented programs stay out (the runtime interposes malloc), and so does
# the one that runs Zoltan and MPI, whose own allocations LeakSanitizer reports.
asan_log=$(mktemp)
asan_targets=$(bazel query 'kind(cc_test, //tests:all) except //tests:hypergraph_test' 2>/dev/null)
start=$SECONDS
bazel test --config=asan $asan_targets "$@" 2>&1 | tee "$asan_log"
asan_status=${PIPESTATUS[0]}
read -r asan_passed asan_failed < <(count "$asan_log" "$asan_status")
rm -f "$log" "$asan_log"
echo "under ASan+UBSan: $asan_passed passed, $asan_failed failed ($(( SECONDS - start )) s)"

# tools/defs.bzl from a workspace of its own (README, "From another Bazel
# workspace"): it runs a Bazel of its own, so it is no target of `bazel test`.
start=$SECONDS
tests/bazel_consumer_test.sh
consumer_status=$?
consumer_passed=$(( consumer_status == 0 )) consumer_failed=$(( consumer_status != 0 ))
echo "from another workspace: $consumer_passed passed, $consumer_failed failed ($(( SECONDS - start )) s)"
echo "tests: $(( passed + asan_passed + consumer_passed )) passed, $(( failed + asan_failed + consumer_failed )) failed"
[ "$status" -ne 0 ] && exit "$status"
[ "$asan_status" -ne 0 ] && exit "$asan_status"
exit "$consumer_status"

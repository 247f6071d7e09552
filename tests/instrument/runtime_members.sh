#!/usr/bin/env bash
# The runtime's test queries (and the estimator they run) are linked only
# into programs that call them: PLAIN, an instrumented program that does
# not, has none of their symbols; SELFCHECK, one that does, has them.
set -uo pipefail
plain="$1" selfcheck="$2"
fail() { echo "FAIL: $*"; exit 1; }
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
nm -C "$plain" > "$tmp/plain.nm" || fail "nm $plain"
nm -C "$selfcheck" > "$tmp/selfcheck.nm" || fail "nm $selfcheck"
grep -q "__ca_store" "$tmp/plain.nm" || fail "$plain has no runtime at all"
! grep -q "__ca_debug_" "$tmp/plain.nm" || fail "$plain carries the test queries"
! grep -q "commanalyzer::LogicalVolumeCostModel" "$tmp/plain.nm" || fail "$plain carries the estimator (its cost model)"
grep -q "__ca_debug_value_at" "$tmp/selfcheck.nm" || fail "$selfcheck lacks the test queries"
grep -q "commanalyzer::LogicalVolumeCostModel" "$tmp/selfcheck.nm" || fail "$selfcheck lacks the estimator its p2p query runs"
echo "test queries and estimator only where called"

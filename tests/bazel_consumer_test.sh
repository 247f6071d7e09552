#!/usr/bin/env bash
# The macros of tools/defs.bzl from another workspace, set up as README.md's
# "From another Bazel workspace" says: a copy of tests/bazel_consumer/ in a
# temporary folder, with README's WORKSPACE (its path pointing here) and
# .bazelrc lines, built by a Bazel of its own (--output_user_root in the
# folder, removed at the end). halo.c predicts 192 bytes on 4 processes: the
# analysis writes its JSON, report and report folder, the budget of 192
# passes and the budget of 191 fails; the tool built there lists its flags. Run by tools/test.sh after the Bazel
# runs (Bazel inside `bazel test` would nest output bases and sandboxes).
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
ws="$tmp/consumer"
bazel_in_ws() { (cd "$ws" && bazel --output_user_root="$tmp/root" --max_idle_secs=120 "$@"); }
cleanup() {
  bazel_in_ws shutdown >/dev/null 2>&1
  chmod -R u+w "$tmp" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The N-th fenced block (of any language) under README's heading.
readme_block() {
  awk -v n="$1" '/^### From another Bazel workspace$/ { under = 1; next }
                 under && /^##/ { exit }
                 under && inside && /^```$/ { inside = 0; if (++seen == n) exit; next }
                 under && !inside && /^```/ { inside = 1; next }
                 inside && seen == n - 1 { print }' "$repo/README.md"
}

mkdir -p "$ws"
cp "$repo/tests/bazel_consumer/halo.c" "$ws/"
cp "$repo/tests/bazel_consumer/BUILD.consumer" "$ws/BUILD"
readme_block 1 | sed "s|/path/to/commanalyzer|$repo|" > "$ws/WORKSPACE"
readme_block 2 > "$ws/.bazelrc"
echo "build --nosandbox_debug" >> "$ws/.bazelrc"  # /etc/bazel/bazelrc's flood of sandbox output
grep -q "path = \"$repo\"" "$ws/WORKSPACE" && grep -q commanalyzer_dependencies "$ws/WORKSPACE" ||
  fail "README.md has no WORKSPACE block with /path/to/commanalyzer and commanalyzer_dependencies(): $(cat "$ws/WORKSPACE")"
grep -q -- "--host_cxxopt=-std=c++20" "$ws/.bazelrc" || fail "README.md has no .bazelrc block: $(cat "$ws/.bazelrc")"

start=$SECONDS
bazel_in_ws build //:halo_comm > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; fail "bazel build //:halo_comm"; }
echo "bazel_consumer_test: built the tool and the analysis in the consumer workspace in $(( SECONDS - start )) s"
bin="$ws/bazel-bin"
grep -q '{"n": 4, "total_bytes": 192' "$bin/halo_comm.json" || fail "halo_comm.json: not 192 bytes on 4 processes: $(head -c 600 "$bin/halo_comm.json")"
grep -qE '^ +4 +192 ' "$bin/halo_comm.txt" || fail "halo_comm.txt has no row of 192 bytes on 4 processes: $(cat "$bin/halo_comm.txt")"
for f in matrix_4.csv matrix_4.svg estimate.json build/program.profile; do
  [ -s "$bin/halo_comm.report/$f" ] || fail "the report folder halo_comm.report has no $f: $(ls -R "$bin/halo_comm.report" 2>&1)"
done
# The tool built here (for the host, under external/commanalyzer) lists its flags.
tool=$(ls "$ws"/bazel-out/*/bin/external/commanalyzer/tools/commanalyzer 2>/dev/null | head -1)
[ -x "$tool" ] || fail "no tool under bazel-out/*/bin/external/commanalyzer/tools"
help=$("$tool" help) || fail "help of the tool built in the consumer workspace exited $?"
grep -q -- "--procs (default: " <<<"$help" || fail "help of the tool built in the consumer workspace lists no flags"

bazel_in_ws test //:halo_within_budget > "$tmp/within.log" 2>&1 ||
  { cat "$tmp/within.log" >&2; fail "the budget of 192 bytes (the estimate) failed"; }
bazel_in_ws test //:halo_over_budget > "$tmp/over.log" 2>&1
status=$?
[ "$status" -eq 3 ] || { cat "$tmp/over.log" >&2; fail "the budget of 191 bytes: bazel test exited $status, not 3 (a test failed)"; }
grep -q "predicted 192 bytes on 4 processes exceeds the budget of 191 bytes" "$ws/bazel-testlogs/halo_over_budget/test.log" ||
  fail "halo_over_budget failed for another reason: $(cat "$ws/bazel-testlogs/halo_over_budget/test.log")"
echo "bazel_consumer_test: passed ($(( SECONDS - start )) s)"

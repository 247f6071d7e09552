#!/usr/bin/env bash
# `commanalyzer help` says what the code does. Usage: help_test.sh TOOL
# HEAT2D_SEQ_C SOURCES... (the command's sources, tools/*.cc).
#  - every flag the sources define is listed with its default;
#  - a flag whose description names its subcommand ("trace: ...") is listed
#    under that subcommand alone and in its usage lines;
#  - the subcommands with usage lines are those the code runs, and each
#    that estimates (kSubcommands) takes --procs there and in the flags list;
#  - trace's CSV has the columns help lists, and its rows are as described
#    (Heat2D on 4 processes: halo messages with their source line, an
#    allreduce per step).
set -uo pipefail
tool="$1" heat2d="$2"
shift 2
fail() { echo "FAIL: $*" >&2; exit 1; }
main_cc=""
for f in "$@"; do [ "$(basename "$f")" = commanalyzer.cc ] && main_cc="$f"; done
[ -n "$main_cc" ] || fail "commanalyzer.cc is not among the sources: $*"

help=$("$tool" help) || fail "help exited $?"
usage=$(sed -n '/^Usage:/,/^  commanalyzer help/p' <<<"$help")

# The "  a, b, c:" header above FLAG's entry in the flags list.
group_of() {
  awk -v entry="    --$1 (default: " '/^  [a-z][a-z, ]*:$/ { group = $0 } index($0, entry) == 1 { print group; exit }' <<<"$help"
}
# The usage lines of one subcommand, up to the next subcommand's.
usage_of() {
  awk -v start="  commanalyzer $1 " '/^  commanalyzer / { inside = index($0 " ", start) == 1 } inside' <<<"$usage"
}

subcommands=$(sed -nE 's/^  commanalyzer ([a-z]+).*/\1/p' <<<"$usage" | sort -u)
# What the code runs: the subcommands that estimate (kSubcommands), those
# run() dispatches by name, and help.
estimating=$(grep -oE '\{"([a-z]+)", \{"\1",' "$main_cc" | sed -E 's/^\{"([a-z]+)".*/\1/' | sort -u)
[ "$(wc -w <<<"$estimating")" -ge 5 ] || fail "kSubcommands not found in $main_cc: '$estimating'"
runs=$( (echo "$estimating"; echo help; grep -oE 'command == "[a-z]+"' "$main_cc" | cut -d'"' -f2) | sort -u)
grep -qx build <<<"$runs" || fail "no 'command == \"build\"' in $main_cc"
for command in $runs; do
  grep -qx "$command" <<<"$subcommands" || fail "help has no usage line for '$command'"
done
for command in $subcommands; do
  grep -qx "$command" <<<"$runs" || fail "help documents '$command', which the code does not run"
done

flags=$(sed -nE 's/^ABSL_FLAG\([^,]+, *([a-z0-9_]+),.*/\1/p' "$@" | sort -u)
[ "$(wc -w <<<"$flags")" -ge 25 ] || fail "only $(wc -w <<<"$flags") flags found in the sources"
for flag in $flags; do
  group=$(group_of "$flag")
  [ -n "$group" ] || fail "help does not list --$flag"
  owner=$(sed -nE "s/^ABSL_FLAG\([^,]+, *$flag, .*, *\"([a-z]+): .*/\1/p" "$@")
  if [ -n "$owner" ] && grep -qx "$owner" <<<"$subcommands"; then
    [ "$group" = "  $owner:" ] || fail "--$flag is $owner's, but help lists it under '$group'"
    grep -qE -- "--(${flag}|${flag//_/-})\b" <<<"$(usage_of "$owner")" || fail "$owner's usage lines do not mention --$flag"
  fi
done
procs_group=$(group_of procs)
for command in $estimating; do
  grep -qE "[ ,]$command(,|:$)" <<<"$procs_group" || fail "--procs is listed under '$procs_group', without $command"
  grep -q -- "--procs" <<<"$(usage_of "$command")" || fail "$command's usage lines do not mention --procs"
done
[ "$(group_of output)" = "  build:" ] || fail "build's one flag, --output, is listed under '$(group_of output)'"

# trace: the columns as documented, and rows as described.
columns=$(grep -A1 "with the columns" <<<"$usage" | tail -1 | tr -d ' ')
[ "$columns" = "iteration,src,dst,bytes,kind,site" ] || fail "help's trace columns: '$columns'"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tool" analyze "$heat2d" --procs 4 --out "$work/out" -- 16 3 > "$work/analyze.log" 2>&1 ||
  fail "analyze exited $?: $(cat "$work/analyze.log")"
"$tool" trace "$work/out/build/program.profile" --procs 4 --csv "$work/trace.csv" > "$work/trace.log" 2>&1 ||
  fail "trace exited $?: $(cat "$work/trace.log")"
[ "$(head -1 "$work/trace.csv")" = "$columns" ] || fail "trace wrote the header '$(head -1 "$work/trace.csv")', help says '$columns'"
grep -qE '^0,[0-3],[0-3],[0-9]+,p2p,.*heat2d_seq\.c:[0-9]+$' "$work/trace.csv" ||
  fail "no point-to-point row with its source line: $(head -5 "$work/trace.csv")"
[ "$(grep -cE '^[0-9]+,-1,-1,8,allreduce,$' "$work/trace.csv")" -eq 3 ] ||
  fail "not one allreduce row (src -1, dst -1, one double, no site) per step: $(grep -v p2p "$work/trace.csv")"
bad=$(grep -vE '^[0-9]+,([0-3],[0-3],[0-9]+,p2p,.+|-1,-1,[0-9]+,allreduce,|[0-3],-1,[0-9]+,bcast,)$' "$work/trace.csv" | tail -n +2)
[ -z "$bad" ] || fail "rows help does not describe: $bad"
echo "help_test: passed ($(wc -w <<<"$flags") flags, $(wc -w <<<"$subcommands") subcommands)"

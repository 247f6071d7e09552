#!/usr/bin/env bash
# checks.sh TOOL SOURCE (checks.c)
#
# At -O0 and -O2 on 4 processes, checks.c with its checks (an assert, an
# exit and a noreturn function, each on values other processes compute)
# has the estimate it has without them (-DNDEBUG): the same value
# instances, flows, graph, branch decisions (uses=) and row of bytes,
# messages and time. (Before, each check's test was a decision consumed
# where it is made: 312 B in 33 messages instead of 240 B in 30.)
set -uo pipefail
tool=$(realpath "$1"); src=$(realpath "$2")
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"
summary() {  # summary ANALYZE-OUTPUT: what must not depend on the checks
  grep -oE 'uses=[0-9]+' <<<"$1"
  grep -oE 'value instances [0-9]+, value-flow chains [0-9]+, graph [0-9]+ vertices / [0-9]+ edges' <<<"$1"
  awk '$1 == 4 && NF >= 8' <<<"$1"
}
for O in -O0 -O2; do
  for checks in with without; do
    flags=()
    [ "$checks" = without ] && flags=(-DNDEBUG)
    out=$("$tool" analyze "$src" "$O" "${flags[@]}" --procs 4 -- 4096 5 2>&1); code=$?
    [ "$code" -eq 0 ] || { echo "$out"; echo "FAIL: analyze $O, $checks checks, exited $code"; exit 1; }
    summary "$out" > "$tmp/$checks"
    [ "$(wc -l < "$tmp/$checks")" -eq 3 ] || { echo "$out"; echo "FAIL: $O: no statistics or no row for 4 processes"; exit 1; }
  done
  echo "$O with the checks:"; cat "$tmp/with"
  diff "$tmp/without" "$tmp/with" || { echo "FAIL: $O: the checks change the estimate (< without, > with)"; exit 1; }
done
echo "checks: the estimate is the same with and without the checks at -O0 and -O2"

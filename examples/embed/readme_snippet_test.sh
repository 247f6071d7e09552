#!/usr/bin/env bash
# The README's embedding example, as written: c[i] = a[i] + b[i] needs no
# communication on 16 processes. Reading a[i + 1] instead needs one double
# across each of the 15 block boundaries.
set -uo pipefail
snippet="$1" shifted="$2"
out=$("$snippet") || { echo "FAIL: the README example exited $?: $out" >&2; exit 1; }
[ "$out" = "0 bytes on 16 processes" ] || { echo "FAIL: the README example printed '$out', not 0 bytes" >&2; exit 1; }
out=$("$shifted") || { echo "FAIL: the shifted README example exited $?: $out" >&2; exit 1; }
[ "$out" = "120 bytes on 16 processes" ] ||
  { echo "FAIL: c[i] = a[i + 1] + b[i] printed '$out', not 120 bytes (15 boundaries x 8 B)" >&2; exit 1; }
echo "readme_snippet_test: passed"

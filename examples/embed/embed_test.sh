#!/usr/bin/env bash
# 1-D Jacobi, 1024 points, 5 steps, 4 processes in blocks: 3 cuts x 2
# directions x 8 bytes x 5 steps = 240 bytes in 30 messages.
set -uo pipefail
out=$("$1") || { echo "FAIL: embed exited $?: $out" >&2; exit 1; }
grep -qx "4 processes, block distribution: 240 bytes point-to-point in 30 messages, 240 bytes in all" <<<"$out" ||
  { echo "FAIL: unexpected estimate: $out" >&2; exit 1; }
echo "embed_test: passed"

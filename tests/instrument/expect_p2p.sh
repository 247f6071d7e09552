#!/usr/bin/env bash
# The estimate of a stencil program has point-to-point traffic on 2 and 4
# processes, and more on 4 than on 2.
set -euo pipefail
p2p() { grep -oE "\{\"n\": $1, \"total_bytes\": [0-9]+, \"p2p_bytes\": [0-9]+" "$2" | grep -oE '[0-9]+$'; }
two=$(p2p 2 "$1"); four=$(p2p 4 "$1")
[ "${two:-0}" -gt 0 ] || { echo "FAIL: no p2p bytes on 2 processes"; exit 1; }
[ "$four" -gt "$two" ] || { echo "FAIL: 4 processes ($four) do not exceed 2 ($two)"; exit 1; }
echo "ok: p2p $two bytes on 2 processes, $four on 4"

#!/usr/bin/env bash
# region_minima.sh TOOL SOURCE
#
# region_minima.c at -O0..-O3 on 8 processes, 4 steps: the minimum over
# regions of 2048 elements down to a few is a reduction however small the
# region (a region's minimum read by fewer than sqrt(D) values is one too):
# no point-to-point bytes (a process gathering the regions' elements), and
# one collective call per step. Each step's regions reduce into one
# Allreduce call of one value (the minimum's element index, only tested
# for whether a region had one, is not reduced); every message is that
# call.
set -uo pipefail
tool=$(realpath "$1"); src=$(realpath "$2")
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"
steps=4
for O in 0 1 2 3; do
  out=$("$tool" analyze "$src" -O$O --procs 8 --json "r$O.json" -- 4096 $steps 2>&1); code=$?
  [ "$code" -eq 0 ] || { echo "$out"; echo "FAIL: analyze -O$O exited $code"; exit 1; }
  read -r p2p calls bcasts allreduces < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["procs"][0]
print(r["p2p_bytes"], r["collective_calls"], r["broadcasts"], r["allreduces"])' "r$O.json")
  echo "-O$O: p2p $p2p B, $calls collective calls, $allreduces Allreduce values, $bcasts broadcasts"
  [ "$p2p" = 0 ] || { echo "FAIL: -O$O: $p2p point-to-point bytes, want 0"; exit 1; }
  [ "$calls" = $steps ] || { echo "FAIL: -O$O: $calls collective calls, want $steps"; exit 1; }
  [ "$bcasts" = 0 ] && [ "$allreduces" = $steps ] || { echo "FAIL: -O$O: want $steps Allreduced values, one a step, and no broadcast"; exit 1; }
done
echo "region_minima: one Allreduce of one value per step at every -O level"

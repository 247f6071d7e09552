#!/usr/bin/env bash
# md_images.sh TOOL SOURCE
#
# Image atoms kept in the same arrays as the real atoms (md_images.c): block
# puts the images apart from the atoms they copy, and sends every image and
# its force back each step. The distribution kept follows use (the graph
# partition of the location graph, offered because the force loop reads
# atoms through a pair list): at most what the MPI code sends, 3 atoms'
# positions and forces across each of the P slab ends, each step.
set -uo pipefail
tool=$(realpath "$1"); src=$(realpath "$2")
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$tmp"
atoms=1024 steps=4
out=$("$tool" analyze "$src" -O2 --procs 4,8 -- $atoms $steps 2>&1); code=$?
[ "$code" -eq 0 ] || { echo "$out"; echo "FAIL: analyze exited $code"; exit 1; }
for p in 4 8; do
  row=$(awk -v p=$p '$1 == p && NF >= 8' <<<"$out")
  total=$(awk '{print $2}' <<<"$row")
  kept=$(awk '{print $10}' <<<"$row")
  bound=$(( p * 2 * 3 * 8 * 2 * steps ))
  block=$(grep -oE 'block [0-9]+' <<<"$row" | head -1 | awk '{print $2}')
  echo "P=$p: $kept keeps $total B (block $block B, MPI slabs at most $bound B)"
  [ "$kept" != block ] || { echo "$out"; echo "FAIL: P=$p keeps block"; exit 1; }
  [ "$total" -le "$bound" ] || { echo "$out"; echo "FAIL: P=$p: $total B, more than the MPI slabs' $bound B"; exit 1; }
done
echo "md_images: the kept distribution keeps images with the atoms they copy"

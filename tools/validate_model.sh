#!/usr/bin/env bash
# validate_model.sh --code CODE CHECKOUT --sizes N1,N2,N3[,...] --at N --procs P1,P2,...
#                   [--iterations T] [--out DIR] [--tool PATH]
# `commanalyzer model` against a measured MPI run at a size the model was
# not fitted to. The serial code (patched and built as
# tools/validate_public.sh does, -O2) is analysed at --sizes and modelled in
# n and p; its MPI build runs under the PMPI counter at --at. Prints, per
# process count, the model's bytes per iteration at --at, the measured
# bytes per iteration, and the error. CODE: hpccg (size n: an n x n x 4n
# grid) or lulesh2 (size n: n^3 elements).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
code="" src="" sizes="" at="" procs="" iters=10 out="" tool=""
while [ $# -gt 0 ]; do
  case "$1" in
    --code) code="$2" src="$3"; shift 3 ;;
    --sizes) sizes="$2"; shift 2 ;;
    --at) at="$2"; shift 2 ;;
    --procs) procs="$2"; shift 2 ;;
    --iterations) iters="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --tool) tool="$2"; shift 2 ;;
    *) echo "validate_model.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$code" ] && [ -n "$src" ] && [ -n "$sizes" ] && [ -n "$at" ] && [ -n "$procs" ] ||
  { echo "usage: validate_model.sh --code CODE CHECKOUT --sizes N1,N2,N3 --at N --procs P1,P2,..." >&2; exit 2; }
case "$code" in
  hpccg) size_args=("{n}" "{n}" "{n*4}") ;;
  lulesh2) size_args=(-s "{n}" -i "$iters" -q) ;;
  *) echo "validate_model.sh: --code hpccg or lulesh2" >&2; exit 2 ;;
esac
out="${out:-$(mktemp -d)}"
mkdir -p "$out"
if [ -z "$tool" ]; then
  "$root/tools/setup.sh"
  (cd "$root" && bazel build -c opt //tools:commanalyzer >/dev/null 2>&1) || { echo "building the tool failed" >&2; exit 1; }
  tool="$root/bazel-bin/tools/commanalyzer"
fi

# The measurement at --at, a size the model was not fitted to.
"$root/tools/validate_public.sh" --code "$code" "$src" --size "$at" --iterations "$iters" --procs "$procs" \
  --measure-only --out "$out/measured" > "$out/measured.log" 2>&1 ||
  { echo "validate_model.sh: the measurement failed; see $out/measured.log" >&2; exit 1; }

# The model of the serial code, fitted at --sizes.
"$root/tools/validate_public.sh" --code "$code" "$src" --iterations "$iters" --prepare-only --out "$out/serial" >/dev/null
# shellcheck source=/dev/null
source "$out/serial/program.sh"
"$tool" model "${serial[@]}" -I"$out/serial/src" -I"$include_dir" "${defs[@]}" -O2 --sizes "$sizes" --procs "$procs" \
  --predict "$at" --extrap "$out/extrap.txt" -- "${size_args[@]}" > "$out/model.txt" 2> "$out/model.log" ||
  { echo "validate_model.sh: commanalyzer model failed; see $out/model.log" >&2; exit 1; }
sed -n '/^communication per iteration/,/^$/p' "$out/model.txt"

echo "$code at n = $at (fitted at n = $sizes), bytes per iteration:"
printf '%6s %14s %14s %8s\n' P model measured error
for p in ${procs//,/ }; do
  measured=$(python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); print(m["total_bytes"] / max(m["iterations"], 1))' \
    "$out/measured/measured_p$p.json")
  predicted=$(sed -n '/^predicted/,$p' "$out/model.txt" | awk -v n="$at" -v p="$p" '$1 == n && $2 == p {print $3}')
  awk -v p="$p" -v m="$predicted" -v a="$measured" 'BEGIN {
    e = (m - a) / a; if (e < 0) e = -e; printf "%6d %14.1f %14.1f %7.1f%%\n", p, m, a, 100 * e }'
done

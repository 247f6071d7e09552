#!/usr/bin/env bash
# opt_spread.sh [--tool COMMANALYZER] [--doc FILE]
#
# Does the estimate depend on the optimizer? Analyses each example's
# sequential version at -O0, -O1, -O2 and -O3 (`commanalyzer analyze`,
# default options otherwise) and prints, per process count, the total
# bytes at each level and their spread, (max - min) / min. The target is
# at most 2 % (docs/DESIGN.md: values independent of the optimizer).
# Sizes are a quarter to a half of tools/validate.sh's per side, so the
# twenty-four analyses take minutes; -O0 runs the slowest.
# --tool: use this commanalyzer binary (default: build //tools:commanalyzer).
# --doc: also append the table, with this command, to FILE.
# Public codes: tools/validate_public.sh --opt -O0,-O1,-O2,-O3.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tool="" doc=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tool) tool="$2"; shift ;;
    --doc) doc="$2"; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "opt_spread.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$tool" ]; then
  "$root/tools/setup.sh"
  (cd "$root" && bazel build //tools:commanalyzer >/dev/null 2>&1) || { echo "building the tool failed" >&2; exit 1; }
  tool="$root/bazel-bin/tools/commanalyzer"
fi
[ -x "$tool" ] || { echo "opt_spread.sh: no commanalyzer at '$tool'" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cases=(
  "matmul|64|4,16"
  "spmv|512 4 512|2,8,32"
  "heat2d|128 20|2,8,32"
  "minighost|24 24 24 2 5|8,27"
  "lulesh|12 4|8,27"
  "redblack|64 10|2,8,32"
)
levels=(-O0 -O1 -O2 -O3)
rows=""
for c in "${cases[@]}"; do
  IFS='|' read -r app args procs <<< "$c"
  for level in "${levels[@]}"; do
    echo "[opt_spread] $app $args at $level" >&2
    # shellcheck disable=SC2086  # args are the program's words
    "$tool" analyze "$root/examples/$app/${app}_seq.c" "$level" --procs "$procs" --json "$work/$app$level.json" \
      --out "$work/$app$level" -- $args > "$work/$app$level.log" 2>&1 ||
      { tail -20 "$work/$app$level.log" >&2; echo "opt_spread.sh: $app at $level failed" >&2; exit 1; }
  done
  rows+=$(python3 - "$work" "$app" "$args" "${levels[@]}" <<'EOF'
import json, sys
work, app, args, levels = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
est = {l: {e["n"]: e["total_bytes"] for e in json.load(open(f"{work}/{app}{l}.json"))["procs"]} for l in levels}
for p in sorted(est[levels[0]]):
    totals = [est[l][p] for l in levels]
    spread = (max(totals) - min(totals)) / min(totals) if min(totals) else 0.0
    print(f"| {app} | `{args}` | {p} | " + " | ".join(f"{t:,}" for t in totals) + f" | {100 * spread:.2f} % |")
EOF
)$'\n'
done
table="| app | arguments | P | $(printf '%s B | ' "${levels[@]}")spread |
|---|---|---:|---:|---:|---:|---:|---:|
${rows%$'\n'}"
echo "$table"
if [ -n "$doc" ]; then
  {
    echo
    echo "## Optimizer independence"
    echo
    echo "\`tools/opt_spread.sh\` ($(date -u +%Y-%m-%d)): estimated total bytes of each example analysed at"
    echo "four -O levels; spread = (max - min) / min."
    echo
    echo "$table"
  } >> "$doc"
fi

#!/usr/bin/env bash
# The recording window against the whole run: each program analysed twice
# at -O2, `commanalyzer analyze` of the whole run and with
# `--record-iterations K`, and per process count the two estimates' total
# bytes, messages and collective calls (Allreduces and Bcasts, each call)
# side by side, with the window's difference and whether the window said
# its iterations were steady (JSON window_steady; "-" where the window
# covered the whole run).
#
# Programs: the examples at their validation sizes (tools/validate.sh
# --list-cases) and, given checkouts, the public codes at the sizes of the
# `tools/validate_public.sh` commands docs/VALIDATION.md lists (patched and
# built as that script does; nothing of them enters the repository).
#
# Usage: tools/compare_window.sh [--record-iterations K] [--only NAME,...]
#          [--prk KERNELS_CHECKOUT] [--hpccg HPCCG_CHECKOUT]
#          [--lulesh2 LULESH_CHECKOUT] [--minife MINIFE_CHECKOUT]
#          [--out DIR] [--doc FILE] [--tool PATH]
#   K defaults to 3. --only: these examples or public codes (e.g.
#   heat2d,hpccg). --out keeps the analyses (default: a temporary
#   directory). --doc FILE: the table is appended to FILE too. --tool:
#   that commanalyzer binary (its runfiles beside it) instead of building.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
command="tools/compare_window.sh${*:+ $*}"
record=3 only="" out="" doc="" tool=""
declare -A checkout=()
while [ $# -gt 0 ]; do
  case "$1" in
    --record-iterations) record="${2:?--record-iterations needs a count}"; shift ;;
    --only) only="${2:?--only needs names}"; shift ;;
    --prk) checkout[prk]="$(cd "${2:?--prk needs a directory}" && pwd)"; shift ;;
    --hpccg|--lulesh2|--minife)
      checkout[${1#--}]="$(cd "${2:?$1 needs a directory}" && pwd)"; shift ;;
    --out) out="${2:?--out needs a directory}"; shift ;;
    --doc) doc="${2:?--doc needs a file}"; shift ;;
    --tool) tool="${2:?--tool needs a path}"; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "compare_window.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[[ "$record" =~ ^[0-9]+$ ]] && [ "$record" -ge 2 ] ||
  { echo "compare_window.sh: --record-iterations $record: the window needs 2 or more iterations" >&2; exit 2; }
if [ -z "$out" ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out" && out="$(cd "$out" && pwd)"
if [ -z "$tool" ]; then
  "$root/tools/setup.sh"
  (cd "$root" && bazel build -c opt //tools:commanalyzer >/dev/null 2>&1) || { echo "building the tool failed" >&2; exit 1; }
  cp -L "$root/bazel-bin/tools/commanalyzer" "$out/commanalyzer"
  cp -rL "$root/bazel-bin/tools/commanalyzer.runfiles" "$out/commanalyzer.runfiles"
  tool="$out/commanalyzer"
fi
wanted() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }

table="$out/table.md"
{
  echo "Command: \`$command\` (commit $(cd "$root" && git rev-parse --short HEAD))."
  echo "Whole run against \`--record-iterations $record\`, -O2: total bytes, messages and collective calls"
  echo "(Allreduces and Bcasts, each call);"
  echo "diff = window / whole - 1; steady: the window's window_steady (- where it covered the whole run)."
  echo
  echo "| program | P | whole bytes | window bytes | diff | whole messages | window messages | whole collectives | window collectives | steady |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
} >"$table"

# compare NAME PROCS DIR: both analyses of the build "${build[@]}" run with
# "${program_args[@]}", in DIR (the working directory: programs that write
# files write them there), a row per count.
compare() {
  local name="$1" procs="$2" dir="$3"; shift 3
  mkdir -p "$dir"
  local variant
  for variant in whole window; do
    local flags=()
    [ $variant = window ] && flags=(--record-iterations "$record")
    echo "[compare_window] $name: $variant" >&2
    (cd "$dir" && "$tool" analyze "${build[@]}" -O2 --procs "$procs" ${flags[@]+"${flags[@]}"} --json "$dir/$variant.json" \
      --out "$dir/$variant" -- ${program_args[@]+"${program_args[@]}"} 2>"$dir/$variant.log" >/dev/null) ||
      { tail -20 "$dir/$variant.log" >&2; echo "compare_window.sh: $name ($variant) failed" >&2; exit 1; }
  done
  python3 - "$name" "$dir/whole.json" "$dir/window.json" >>"$table" <<'EOF'
import json, sys
name, whole, window = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
calls = lambda e: e["allreduces"] + e["broadcasts"]  # each call, not fused per iteration
for a, b in zip(whole["procs"], window["procs"]):
    diff = b["total_bytes"] / a["total_bytes"] - 1 if a["total_bytes"] else 0.0
    steady = ("yes" if b["window_steady"] else "no") if b.get("projected_iterations") else "-"
    print(f"| {name} | {a['n']} | {a['total_bytes']:,} | {b['total_bytes']:,} | {diff:+.1%} | {a['messages']:,} "
          f"| {b['messages']:,} | {calls(a):,} | {calls(b):,} | {steady} |")
EOF
}

while IFS='|' read -r name args procs; do
  wanted "$name" || continue
  build=("$root"/examples/"$name"/"$name"_seq.c*)
  read -ra program_args <<<"$args"
  compare "$name $args" "$procs" "$out/$name"
done < <("$root/tools/validate.sh" --list-cases)

# The public codes, at the sizes of docs/VALIDATION.md's commands.
grep -o '^- `tools/validate_public.sh --code [^`]*`' "$root/docs/VALIDATION.md" | sed 's/^- `//; s/`$//' | sort -u |
  while read -r line; do
    read -ra words <<<"$line"
    code="${words[2]}" size=() iterations=() procs=""
    for ((i = 4; i < ${#words[@]}; ++i)); do
      case "${words[i]}" in
        --size) size=(--size "${words[i + 1]}") ;;
        --iterations) iterations=(--iterations "${words[i + 1]}") ;;
        --procs) procs="${words[i + 1]}" ;;
      esac
    done
    source_checkout="${checkout[${code%%_*}]:-}"
    [ -n "$source_checkout" ] && wanted "$code" || continue
    dir="$out/$code"
    "$root/tools/validate_public.sh" --code "$code" "$source_checkout" ${size[@]+"${size[@]}"} \
      ${iterations[@]+"${iterations[@]}"} --procs "$procs" --out "$dir" --prepare-only
    (
      # shellcheck disable=SC1091
      source "$dir/program.sh"
      build=("${serial[@]}" "${incs[@]}" ${defs[@]+"${defs[@]}"})
      program_args=("${args[@]}")
      compare "$code" "$procs" "$dir"
    ) </dev/null
  done

if [ "$(grep -c '^| ' "$table")" -le 1 ]; then  # the header only
  echo "compare_window.sh: no program analysed (--only '$only'; public codes need their checkouts)" >&2
  exit 1
fi
cat "$table"
if [ -n "$doc" ]; then cat "$table" >>"$doc"; fi

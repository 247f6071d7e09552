#!/usr/bin/env bash
# What a user waits for, end to end, one row per program: the examples
# at their validation sizes (`tools/validate.sh --list-cases`) and, given
# checkouts, the public codes of tools/validate_public.sh at its validation
# sizes (PRK stencil 256^2 x 10, HPCCG 16x16x64 x 10). All built at -O2.
#
#   native        the program, clang-16 -O2 (best of 3)
#   DFSan         the same source and arguments, clang-16 -O2
#                 -fsanitize=dataflow (best of 3): the cost of a shadow label
#                 per byte without any recording
#   instrumented  the program `commanalyzer build -O2` made, writing its
#                 profile at exit (one run)
#   estimate      `commanalyzer estimate PROFILE --procs LIST`, LIST the
#                 validation process counts
#   new N         `commanalyzer estimate PROFILE --procs 16`: re-estimating
#                 for one new process count
#   analyze       `commanalyzer analyze SOURCES -O2 --procs LIST -- ARGS`:
#                 compile with the pass, run, estimate, all of it
#   peak          the largest maximum resident set size (/usr/bin/time %M)
#                 of the tool's runs above: the instrumented program, both
#                 estimates and analyze (which covers the compiler, the
#                 program and the zoltan_phg processes it waits for, and its
#                 own estimate). Processes run one at a time, so this is
#                 also the most memory the analysis holds at once.
#
# Usage: bench/end_to_end.sh [--quick | --real [--time-limit S]] [--prk KERNELS_CHECKOUT]
#                            [--hpccg HPCCG_CHECKOUT] [--lulesh2 LULESH_CHECKOUT] [--minife MINIFE_CHECKOUT]
#   --quick: the examples at tools/validate.sh's quick sizes, the public
#   codes at small ones. Writes bench/results/end_to_end.md (quick:
#   bench/results/end_to_end_quick.md).
#   --real: the sizes a user analyses instead: Heat2D 2048^2 x 200 and,
#   given checkouts, LULESH 2.0 -s 30 -i 50, HPCCG 64^3 x 50 and miniFE
#   nx=64 x 50 CG iterations. Native and DFSan (one run each), then one
#   analyze for six process counts under the tool's memory limit and
#   --timeout S (default 1200). Each row states the bounds, 30x native +
#   10 s and 4x native's peak + 0.5 GiB, and whether analyze met them or
#   where it stopped. Writes bench/results/end_to_end_real.md.
#   --record-iterations K (with --real): analyze records the region's first
#   K iterations and counts the later ones as the K-th (a recording
#   window). Writes bench/results/end_to_end_real_window.md.
set -euo pipefail
command="bench/end_to_end.sh${*:+ $*}"
options=("$@")
prk="" hpccg="" lulesh2="" minife="" real=false time_limit=1200 record=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) ;;
    --real) real=true ;;
    --time-limit) time_limit="${2:?--time-limit needs seconds}"; shift ;;
    --record-iterations) record=(--record-iterations "${2:?--record-iterations needs a count}"); shift ;;
    --prk) prk="$(cd "${2:?--prk needs a directory}" && pwd)"; shift ;;
    --hpccg) hpccg="$(cd "${2:?--hpccg needs a directory}" && pwd)"; shift ;;
    --lulesh2) lulesh2="$(cd "${2:?--lulesh2 needs a directory}" && pwd)"; shift ;;
    --minife) minife="$(cd "${2:?--minife needs a directory}" && pwd)"; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "end_to_end.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
source "$(dirname "$0")/programs.sh" "${options[@]}"
root="$PWD"
new_procs=16

# dfsan_build OUT LANG SOURCES_AND_FLAGS...: the DataFlowSanitizer build.
# C++ links the uninstrumented libstdc++, so the C++ library functions the
# program calls are listed as uninstrumented (their results unlabelled), as
# DFSan's documentation does for any uninstrumented library.
dfsan_build() {
  local out="$1" lang="$2"; shift 2
  if [ "$lang" = c ]; then
    clang-16 -O2 -fsanitize=dataflow "$@" -o "$out" -lm
    return
  fi
  local objects="$work/dfsan-objects"
  rm -rf "$objects" && mkdir -p "$objects"
  (cd "$objects" && clang++-16 -O2 -fsanitize=dataflow -c "$@")
  nm "$objects"/*.o | awk '$1 == "U" && $2 ~ /\.dfsan$/ { sub(/\.dfsan$/, "", $2); u[$2] = 1 }
                           $2 ~ /^[TtWw]$/ { d[$3] = 1 }
                           END { for (s in u) if (!((s ".dfsan") in d)) print "fun:" s "=uninstrumented\nfun:" s "=discard" }' \
    >"$work/abilist.txt"
  (cd "$objects" && clang++-16 -O2 -fsanitize=dataflow -fsanitize-ignorelist="$work/abilist.txt" -c "$@")
  clang++-16 -fsanitize=dataflow "$objects"/*.o -o "$out" -lm
}

# build_native_and_dfsan LANG SOURCES_AND_FLAGS...: $work/native (-O2) and
# $work/dfsan, leaving the working directory at a fresh $work/run, where the
# runs start (HPCCG writes a file). Compiler warnings are the public codes'
# own: shown only when a build fails.
build_native_and_dfsan() {
  local lang="$1"; shift
  local cc=clang-16
  [ "$lang" = c ] || cc=clang++-16
  rm -rf "$work/run" && mkdir -p "$work/run"
  cd "$work/run"
  { $cc -O2 "$@" -o "$work/native" -lm && dfsan_build "$work/dfsan" "$lang" "$@"; } 2>"$work/err" ||
    { tail -20 "$work/err" >&2; exit 1; }
}

# row NAME LANG "ARGS" PROCS SOURCES_AND_FLAGS...: measures one program and
# appends its row to the report.
row() {
  local name="$1" lang="$2" args="$3" procs="$4"; shift 4
  echo "[end_to_end] $name: building" >&2
  build_native_and_dfsan "$lang" "$@"
  "$tool" build -O2 "$@" --output "$work/instrumented" 2>"$work/err" || { tail -20 "$work/err" >&2; exit 1; }
  echo "[end_to_end] $name: native, DFSan, instrumented runs" >&2
  # shellcheck disable=SC2086
  measure "$work/m_native" 3 "$work/native" $args
  # shellcheck disable=SC2086
  measure "$work/m_dfsan" 3 "$work/dfsan" $args
  # shellcheck disable=SC2086
  COMMANALYZER_PROFILE="$work/p.profile" measure "$work/m_instrumented" 1 "$work/instrumented" $args
  echo "[end_to_end] $name: estimate --procs $procs, --procs $new_procs" >&2
  measure "$work/m_estimate" 1 "$tool" estimate "$work/p.profile" --procs "$procs"
  measure "$work/m_new" 1 "$tool" estimate "$work/p.profile" --procs "$new_procs"
  echo "[end_to_end] $name: analyze" >&2
  # analyze keeps its build and profile in a temporary folder: $work's.
  rm -rf "$work/tmp" && mkdir -p "$work/tmp"
  # shellcheck disable=SC2086
  TMPDIR="$work/tmp" measure "$work/m_analyze" 1 "$tool" analyze "$@" -O2 --procs "$procs" -- $args
  cd "$root"
  local profile_mib
  profile_mib=$(awk -v b="$(stat -c %s "$work/p.profile")" 'BEGIN { printf "%.1f", b / 1048576 }')
  cat "$work/m_native" "$work/m_dfsan" "$work/m_instrumented" "$work/m_estimate" "$work/m_new" "$work/m_analyze" |
    awk -v name="$name" -v procs="$procs" -v mib="$profile_mib" '
      { s[NR] = $1; k[NR] = $2 }
      END {
        peak = 0; for (i = 3; i <= 6; ++i) if (k[i] > peak) peak = k[i];
        printf "| %s | %s | %.3f | %.3f | %.2f | %.1fx | %.1fx | %s | %.1f | %.1f | %.1f | %.2f |\n",
          name, procs, s[1], s[2], s[3], s[3] / s[2], s[3] / s[1], mib, s[4], s[5], s[6], peak / 1048576 }' \
    >>"$work/report"
}

# real_row NAME LANG "ARGS" PROCS SOURCES_AND_FLAGS...: a program at a real
# size: native and DFSan once each, then analyze under the limits; appends
# its row to the report.
real_row() {
  local name="$1" lang="$2" args="$3" procs="$4"; shift 4
  echo "[end_to_end] $name: building native and DFSan" >&2
  build_native_and_dfsan "$lang" "$@"
  echo "[end_to_end] $name: native and DFSan runs" >&2
  # shellcheck disable=SC2086
  measure "$work/m_native" 1 "$work/native" $args
  # shellcheck disable=SC2086
  measure "$work/m_dfsan" 1 "$work/dfsan" $args
  echo "[end_to_end] $name: analyze --procs $procs (at most $time_limit s)" >&2
  rm -rf "$work/tmp" && mkdir -p "$work/tmp"
  local start=$EPOCHREALTIME status=0
  # shellcheck disable=SC2086
  TMPDIR="$work/tmp" /usr/bin/time -f "%M" -o "$work/t" "$tool" analyze "$@" -O2 --procs "$procs" \
    --timeout "$time_limit" ${record[@]+"${record[@]}"} -- $args >/dev/null 2>"$work/analyze.err" || status=$?
  local seconds peak_kib why=""
  seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  peak_kib=$(tail -1 "$work/t")
  if [ "$status" != 0 ]; then  # the tool's own last word on why it stopped
    why=$(grep -v '^\[commanalyzer\]' "$work/analyze.err" | grep . | tail -1 | sed 's/ (profile kept at .*//' |
      cut -c1-220 | tr '|' '/')
    why="stopped (status $status) after $seconds s: ${why:-no message}"
  fi
  # Where the time went, from analyze's progress lines (- where it stopped
  # before), and the profile's size (analyze keeps it under TMPDIR).
  local run_s run_peak graph_s estimate_s profile_bytes
  run_s=$(sed -n 's/^\[commanalyzer\] program finished in \([0-9.]*\)s.*/\1/p' "$work/analyze.err" | tail -1)
  run_peak=$(sed -n 's/^\[commanalyzer\] program finished in .*(peak \([0-9.]*\) \([KMG]\)iB).*/\1 \2/p' \
    "$work/analyze.err" | tail -1 | awk '{ printf "%.2f", $1 / ($2 == "G" ? 1 : $2 == "M" ? 1024 : 1048576) }')
  graph_s=$(sed -n 's/^\[commanalyzer\] graph built in \([0-9.]*\)s.*/\1/p' "$work/analyze.err" | tail -1)
  estimate_s=$(sed -n 's/^\[commanalyzer\] estimated in \([0-9.]*\)s.*/\1/p' "$work/analyze.err" | tail -1)
  profile_bytes=$(find "$work/tmp" -name '*.profile' -printf '%s\n' 2>/dev/null | sort -n | tail -1)
  rm -rf "$work/tmp"
  cd "$root"
  read -r ns nk <"$work/m_native"
  read -r ds _ <"$work/m_dfsan"
  awk -v name="$name" -v procs="$procs" -v ns="$ns" -v nk="$nk" -v ds="$ds" -v as="$seconds" -v ak="$peak_kib" \
    -v why="$why" -v rs="${run_s:--}" -v rp="${run_peak:--}" -v gs="${graph_s:--}" -v es="${estimate_s:--}" -v pb="${profile_bytes:-}" \
    'BEGIN {
      tb = 30 * ns + 10; mb = (4 * nk + 0.5 * 1048576) / 1048576; ag = ak / 1048576;
      if (why != "") outcome = why;
      else if (as <= tb && ag <= mb) outcome = "met";
      else outcome = sprintf("over: %.1fx the time bound, %.1fx the memory bound", as / tb, ag / mb);
      rd = rs == "-" ? "-" : sprintf("%.1fx", rs / ds);
      pg = pb == "" ? "-" : sprintf("%.2f", pb / 1073741824);
      printf "| %s | %s | %.2f | %.0f | %.1f | %s | %s | %s | %s | %s | %s | %.1f | %.2f | %.1f | %.2f | %s |\n",
        name, procs, ns, nk / 1024, ds, rs, rd, rp, pg, gs, es, as, ag, tb, mb, outcome }' >>"$work/report"
}

if $real; then
  {
    echo "# End to end at real sizes"
    echo
    echo "Command: \`$command\`; $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores (shared), commit $(git rev-parse --short HEAD)."
    echo "Native (clang-16 -O2) and DFSan: one run each, wall seconds and peak resident MiB. analyze:"
    echo "\`commanalyzer analyze SOURCES -O2 --procs LIST --timeout $time_limit${record[*]:+ ${record[*]}} -- ARGS\` (the tool's default"
    echo "memory limit, 3/4 of the machine), wall seconds and the peak resident set of it and its children."
    echo "Bounds: 30x native + 10 s; 4x native's peak + 0.5 GiB. From analyze's progress lines: the"
    echo "instrumented run (run s, over DFSan, its peak resident set), the graph built and the whole estimate"
    echo "(seconds since the estimate began; - where it stopped before); profile: the size of the profile it wrote."
    echo
    echo "| program | procs | native s | native MiB | DFSan s | run s | run / DFSan | run peak GiB | profile GiB | graph s | estimate s | analyze s | analyze peak GiB | time bound s | memory bound GiB | outcome |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
  } >"$work/report"
  real_row "heat2d 2048 200" c "2048 200" 2,4,8,16,32,64 "$root/examples/heat2d/heat2d_seq.c" -I"$root/include"
  # real_public CODE CHECKOUT SIZE ITERATIONS PROCS [ARGS]: a public code as
  # tools/validate_public.sh prepares it; ARGS replaces its program arguments.
  real_public() {
    local code="$1" checkout="$2" size="$3" iterations="$4" procs="$5" own_args="${6:-}"
    tools/validate_public.sh --code "$code" "$checkout" --size "$size" --iterations "$iterations" \
      --procs "$procs" --out "$work/$code" --prepare-only
    # shellcheck source=/dev/null
    source "$work/$code/program.sh"  # lang, serial, defs, args, what, incs (and its environment)
    [ -z "$own_args" ] || { read -r -a args <<<"$own_args"; what="run as \`${args[*]}\`, $iterations iterations"; }
    real_row "$code ($what)" "$lang" "${args[*]}" "$procs" "${serial[@]}" -I"$root/include" "${incs[@]}" \
      ${defs[@]+"${defs[@]}"}
  }
  # LULESH needs cubes whose root divides the edge (30: 2, 3, 5, 6, 10, 15).
  [ -z "$lulesh2" ] || real_public lulesh2 "$lulesh2" 30 50 8,27,125,216,1000,3375
  [ -z "$hpccg" ] || real_public hpccg "$hpccg" 64 50 2,4,8,16,32,64 "64 64 64"
  [ -z "$minife" ] || real_public minife "$minife" 64 50 2,4,8,16,32,64
  mkdir -p bench/results
  result=bench/results/end_to_end_real${record[*]:+_window}.md
  cp "$work/report" "$result"
  cat "$result"
  exit 0
fi

{
  echo "# End to end: what a user waits for"
  echo
  echo "Command: \`$command\`; $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores (shared), commit $(git rev-parse --short HEAD)."
  echo "Seconds of wall time; native and DFSan best of 3, the rest one run. Peak: the largest maximum resident"
  echo "set size of the tool's processes (the instrumented program, both estimates, analyze with its children)."
  echo "estimate: \`commanalyzer estimate PROFILE --procs LIST\`; new N: the same with \`--procs $new_procs\`;"
  echo "analyze: build with the pass, run, estimate LIST (what \`commanalyzer analyze\` does in all)."
  echo
  echo "| program | procs (LIST) | native s | DFSan s | instrumented s | instrumented / DFSan | instrumented / native | profile MiB | estimate s | new N s | analyze s | peak GiB |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} >"$work/report"

mode=()
if $quick; then mode=(--quick); fi
while IFS='|' read -r app args procs; do
  row "$app $args" c "$args" "$procs" "$root/examples/$app/${app}_seq.c" -I"$root/include"
done < <(tools/validate.sh --list-cases "${mode[@]}")

# public CODE CHECKOUT SIZE ITERATIONS PROCS: a public code, copied and
# patched as tools/validate_public.sh validates it.
public() {
  local code="$1" checkout="$2" size="$3" iterations="$4" procs="$5"
  tools/validate_public.sh --code "$code" "$checkout" --size "$size" --iterations "$iterations" \
    --out "$work/$code" --prepare-only
  # shellcheck source=/dev/null
  source "$work/$code/program.sh"  # lang, serial, defs, args, what, incs (and its environment)
  row "$code ($what)" "$lang" "${args[*]}" "$procs" "${serial[@]}" -I"$root/include" "${incs[@]}" \
    ${defs[@]+"${defs[@]}"}
}
if [ -n "$prk" ]; then
  if $quick; then public prk_stencil "$prk" 64 3 4,9; else public prk_stencil "$prk" 256 10 4,9,16; fi
fi
if [ -n "$hpccg" ]; then
  if $quick; then public hpccg "$hpccg" 8 3 2,4; else public hpccg "$hpccg" 16 10 2,4,8; fi
fi

report=bench/results/end_to_end.md
if $quick; then report=bench/results/end_to_end_quick.md; fi
mkdir -p bench/results
cp "$work/report" "$report"
cat "$report"

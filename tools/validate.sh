#!/usr/bin/env bash
# validate.sh [--quick] [--apps a,b,...] [--out DIR] [--doc FILE | --no-doc] [--no-profiles]
#             [--analyze-flags 'FLAGS'] [--tool COMMANALYZER --case 'APP|ARGS|P1,...' ... --check 'BOUNDS']
# validate.sh --list-cases [--quick]
#
# The paper's validation (Section 5, Table 2) on this machine, in one command:
#   1. tools/setup.sh and `bazel build //tools:commanalyzer` (the built tool and
#      its runfiles are copied into DIR/tool, so a concurrent rebuild of the
#      workspace cannot change the tool half-way through);
#   2. per app, `commanalyzer analyze` of the sequential version ONCE, with all
#      its process counts (the profile is kept in DIR/<app>/ so that
#      `commanalyzer estimate DIR/<app>/program.profile --procs ...` re-estimates
#      without re-running);
#   3. per app and process count, the MPI reference under the PMPI counter
#      (examples/run_reference.sh, MPI binaries built into DIR/mpi-build);
#   4. tools/validation_table.py: the table on stdout and in docs/VALIDATION.md
#      (full mode) or DIR/VALIDATION.md (--quick, unless --doc is given).
#
# --quick: tiny sizes and fewer process counts for CI (well under 2 minutes).
# --apps: subset, e.g. --apps heat2d,minighost (default: all six).
# --analyze-flags: extra options for `commanalyzer analyze`, e.g.
#   --analyze-flags '--partitioner metis-volume' (default: the tool's defaults).
# --tool: use this commanalyzer binary, skip set-up and build (Bazel tests).
# --case: replaces the built-in sizes (repeatable), e.g. --case 'heat2d|48 10|2,4'.
# --list-cases: print the cases of the mode as APP|ARGS|P1,... lines and stop
#   (bench/end_to_end.sh runs the examples at these sizes).
# --check: bound options for validation_table.py (e.g. '--min-accuracy 0.9');
#   a violated bound makes the exit status 1.
# DIR defaults to /tmp/commanalyzer-validation[-quick]. Every step is timed;
# the times go into the table. Exit status: 0 if every step ran (accuracy
# misses are reported, not failures); non-zero if a step failed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

mode=full
apps_sel=""
out=""
doc=""
nodoc=0
keep_profiles=1
tool=""
check=""
analyze_flags=""
list_cases=0
custom_cases=()
cmdline="tools/validate.sh${*:+ $*}"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) mode=quick ;;
    --apps) apps_sel="$2"; shift ;;
    --apps=*) apps_sel="${1#--apps=}" ;;
    --out) out="$2"; shift ;;
    --out=*) out="${1#--out=}" ;;
    --doc) doc="$2"; shift ;;
    --doc=*) doc="${1#--doc=}" ;;
    --no-doc) nodoc=1 ;;
    --no-profiles) keep_profiles=0 ;;
    --keep-profiles) keep_profiles=1 ;;
    --tool) tool="$2"; shift ;;
    --case) custom_cases+=("$2"); shift ;;
    --check) check="$2"; shift ;;
    --analyze-flags) analyze_flags="$2"; shift ;;
    --list-cases) list_cases=1 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "validate.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

# app | program arguments | process counts
# Full sizes: as large as this 2-core machine allows with the whole run under
# ~15 minutes (see docs/VALIDATION.md for the per-step times). Sizes divide
# evenly by the process grids where the decomposition allows it (matmul q=2,4,8;
# heat2d and redblack 2-D grids up to 8x8; minighost 3-D grids 2x1x1 .. 4x4x4;
# lulesh q=2,3,4).
# Analysis time and peak memory measured on 2026-11-21 (2 cores, 24 GiB):
# matmul n=160 142 s / 0.9 GB (n=128: 53 s), spmv 2^18 x 20 56 s / 2.8 GB,
# heat2d 768^2 x 100 ~60 s (1024^2: 129 s / 11 GB), minighost 60^3 x 4 x 10
# ~25 s (64^3: 31 s / 3.1 GB), lulesh s=24 x 5 72 s (x 8: 138 s / 12 GB); with
# the default partitioner and its aligned start, lulesh s=24 at P = 8,27,64 takes
# ~270 s in all (2026-11-22).
full_cases=(
  "matmul|128|4,16,64"
  "spmv|1024 6 1024|2,4,8,16,32,64"
  "heat2d|512 100|2,4,8,16,32,64"
  "minighost|48 48 48 4 10|2,4,8,16,27,64"
  "lulesh|24 5|8,27,64"
  "redblack|256 50|2,4,8,16,32,64"
)
quick_cases=(
  "matmul|24|4,16"
  "spmv|256 3 256|2,4,8"
  "heat2d|48 10|2,4,8"
  "minighost|12 12 12 2 3|8,27"
  "lulesh|6 3|8,27"
  "redblack|48 10|2,4,8"
)
if [ ${#custom_cases[@]} -gt 0 ]; then
  cases=("${custom_cases[@]}")
  mode=custom
elif [ $mode = quick ]; then
  cases=("${quick_cases[@]}")
else
  cases=("${full_cases[@]}")
fi
if [ $list_cases = 1 ]; then
  printf '%s\n' "${cases[@]}"
  exit 0
fi
if [ -z "$out" ]; then
  out=/tmp/commanalyzer-validation
  [ $mode = full ] || out="$out-$mode"
fi
if [ -z "$doc" ] && [ $nodoc = 0 ]; then
  if [ $mode = full ] && [ -z "$apps_sel" ]; then doc="$root/docs/VALIDATION.md"; else doc="$out/VALIDATION.md"; fi
fi

now() { date +%s.%N; }
secs() { python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$2"; }
log() { printf '[validate %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

t_start=$(now)
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# ---------------------------------------------------------- 1. set-up, build
if [ -n "$tool" ]; then
  ca="$(cd "$(dirname "$tool")" && pwd)/$(basename "$tool")"
else
  log "set-up and build"
  tools/setup.sh
  bazel build //tools:commanalyzer >&2
  rm -rf "$out/tool"
  mkdir -p "$out/tool"
  cp -L bazel-bin/tools/commanalyzer "$out/tool/commanalyzer"
  cp -rL bazel-bin/tools/commanalyzer.runfiles "$out/tool/commanalyzer.runfiles"
  ca="$out/tool/commanalyzer"
fi
t_built=$(now)
log "tool ready ($(secs "$t_start" "$t_built") s): $ca"

manifest="$out/manifest.tsv"
{
  printf 'run\tcommand\t%s\n' "$cmdline"
  printf 'run\tmode\t%s\n' "$mode"
  printf 'run\tdate\t%s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
  printf 'run\troot\t%s\n' "$root"
  printf 'run\tmpi\t%s\n' "$(mpirun --version 2>/dev/null | head -1)"
  printf 'run\tbuild_seconds\t%s\n' "$(secs "$t_start" "$t_built")"
  # the source the tool was built from (others may commit during the run)
  printf 'run\tgit_head\t%s\n' "$(git rev-parse --short=12 HEAD 2>/dev/null || true)"
  printf 'run\tgit_dirty\t%s\n' "$(git status --porcelain --untracked-files=no -- include instrument tools \
    examples WORKSPACE BUILD third_party 2>/dev/null | cut -c4- | tr '\n' ' ' || true)"
} > "$manifest.part"

export CA_BUILD_DIR="$out/mpi-build"
mkdir -p "$CA_BUILD_DIR"

for c in "${cases[@]}"; do
  IFS='|' read -r app args procs <<<"$c"
  if [ -n "$apps_sel" ] && [[ ",$apps_sel," != *",$app,"* ]]; then continue; fi
  dir="$out/$app"
  rm -rf "$dir"
  mkdir -p "$dir"

  # ------------------------------------------------ 2. analyse the sequential code
  log "$app: analyse ${app}_seq.c ($args) for P = $procs"
  t0=$(now)
  # shellcheck disable=SC2086
  if ! "$ca" analyze "examples/$app/${app}_seq.c" --procs "$procs" --json "$dir/estimate.json" $analyze_flags \
        -- $args > "$dir/analysis.log" 2>&1; then
    tail -20 "$dir/analysis.log" >&2
    log "$app: analysis FAILED (log: $dir/analysis.log)"
    exit 1
  fi
  t1=$(now)
  log "$app: analysis $(secs "$t0" "$t1") s"
  prof_dir=$(sed -n 's/^profile kept at \([^ ]*\)\/program\.profile .*/\1/p' "$dir/analysis.log" | tail -1)
  if [ -n "$prof_dir" ] && [ -d "$prof_dir" ]; then
    [ $keep_profiles = 1 ] && mv -f "$prof_dir/program.profile" "$dir/program.profile"
    rm -rf "$prof_dir"   # the instrumented binary and objects (a temp dir of this run)
  fi
  printf 'app\t%s\t%s\t%s\t%s\t%s\t%s\n' "$app" "$args" "$procs" "$app/estimate.json" \
    "$(secs "$t0" "$t1")" "$app/analysis.log" >> "$manifest.part"

  # ------------------------------------------------ 3. measured MPI runs
  for np in ${procs//,/ }; do
    t0=$(now)
    # shellcheck disable=SC2086
    if ! CA_PMPI_OUT="$dir/measured_p$np.json" examples/run_reference.sh "$app" "$np" $args \
          > "$dir/mpi_p$np.log" 2>&1; then
      tail -20 "$dir/mpi_p$np.log" >&2
      log "$app: MPI run on $np processes FAILED (log: $dir/mpi_p$np.log)"
      exit 1
    fi
    t1=$(now)
    log "$app: MPI P=$np $(secs "$t0" "$t1") s"
    printf 'meas\t%s\t%s\t%s\t%s\n' "$app" "$np" "$app/measured_p$np.json" "$(secs "$t0" "$t1")" \
      >> "$manifest.part"
  done
done

printf 'run\twall_seconds\t%s\n' "$(secs "$t_start" "$(now)")" >> "$manifest.part"
mv -f "$manifest.part" "$manifest"

# ------------------------------------------------------------ 4. the table
table_args=("$manifest" --json "$out/validation.json")
if [ -n "$doc" ]; then
  mkdir -p "$(dirname "$doc")"
  table_args+=(--markdown "$doc")
fi
# shellcheck disable=SC2206
[ -n "$check" ] && table_args+=($check)
/usr/bin/python3 tools/validation_table.py "${table_args[@]}"
log "done in $(secs "$t_start" "$(now)") s; results in $out${doc:+, table in $doc}"

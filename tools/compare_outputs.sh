#!/usr/bin/env bash
# Do two builds of the tool give the same results? For a change to the
# front end (tools/) that must not change any estimate: runs every
# subcommand that estimates (demo, analyze, estimate, trace, benchgen,
# place) with both tools on the same inputs and compares what they write
# (JSON, CSV, SVG, dot, bench.c/h, rankfiles) byte for byte, and their
# standard output (the tables) line for line.
#
#   tools/compare_outputs.sh OLD_TOOL NEW_TOOL [--keep DIR] [--quick]
#
# A tool is a built `commanalyzer` with its runfiles beside it (e.g. a copy
# made with `cp -L bazel-bin/tools/commanalyzer old/ && cp -rL
# bazel-bin/tools/commanalyzer.runfiles old/`). Inputs: the built-in demo
# (ownership by location and by value), the five examples at
# tools/validate.sh's quick sizes and tests/distribution/jacobi_swap.c
# (34 3). The profile each re-estimate reads is OLD_TOOL's, so the
# estimate paths are compared on one input; analyze's own outputs are
# compared too. Standard error (progress, timings) is not compared, nor the
# instrumented build. --quick: the demo and Jacobi only.
# Exit status 0 when everything is identical, 1 with a diff otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
[ $# -ge 2 ] || { echo "usage: $0 OLD_TOOL NEW_TOOL [--keep DIR] [--quick]" >&2; exit 2; }
old=$(realpath "$1") new=$(realpath "$2"); shift 2
work="" quick=false
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) work="$2"; shift ;;
    --quick) quick=true ;;
    *) echo "usage: $0 OLD_TOOL NEW_TOOL [--keep DIR] [--quick]" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$work" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
work=$(realpath "$work")
log() { printf '[compare] %s\n' "$*" >&2; }

# name|source|program arguments|process counts (tools/validate.sh's quick cases)
cases=("jacobi|tests/distribution/jacobi_swap.c|34 3|2,4,8")
if ! $quick; then
  cases+=("matmul|examples/matmul/matmul_seq.c|24|4,16"
          "spmv|examples/spmv/spmv_seq.c|256 3 256|2,4,8"
          "heat2d|examples/heat2d/heat2d_seq.c|48 10|2,4,8"
          "minighost|examples/minighost/minighost_seq.c|12 12 12 2 3|8,27"
          "lulesh|examples/lulesh/lulesh_seq.c|6 3|8,27")
fi

# run SIDE NAME TOOL ARGS...: the tool's stdout to SIDE/NAME.stdout, its
# stderr to SIDE/NAME.stderr, the exit status to SIDE/NAME.status; run in
# SIDE so relative output paths land there.
# Zoltan's zoltan_phg (the hypergraph candidate) now and then fails to
# start MPI on this machine ("orte_session_dir failed") and the tool then
# costs the other candidates only, saying so on stderr: such a run is
# repeated (up to three times), as it says nothing about the tool.
run() {
  local side="$1" name="$2" tool="$3"; shift 3
  for _ in 1 2 3; do
    (cd "$work/$side" && "$tool" "$@" >"$name.stdout" 2>"$name.stderr"; echo $? >"$name.status")
    grep -q "candidate for .* left out" "$work/$side/$name.stderr" || return 0
    log "$side $name: a candidate was left out (stderr below); running again"
    grep "left out" "$work/$side/$name.stderr" >&2
  done
}

# both NAME ARGS...: the same command with each tool.
both() {
  local name="$1"; shift
  log "$name: $*"
  run old "$name" "$old" "$@"
  run new "$name" "$new" "$@"
}

mkdir -p "$work/old" "$work/new"
both demo demo --procs 2,4,8 --json demo.json --out demo_out
both demo_value demo --n 32 --steps 3 --procs 2,4 --ownership=value --json demo_value.json
both demo_metis demo --n 32 --steps 3 --procs 2,4 --ownership=value --partitioner metis-volume --json demo_metis.json

for c in "${cases[@]}"; do
  IFS='|' read -r name source args procs <<<"$c"
  first=${procs%%,*}
  # shellcheck disable=SC2086
  both "$name.analyze" analyze "$root/$source" --procs "$procs" --json "$name.analyze.json" --out "$name.out" -- $args
  profile="$work/old/$name.out/build/program.profile"
  [ -s "$profile" ] || { log "$name: the old tool wrote no profile"; exit 1; }
  both "$name.estimate" estimate "$profile" --procs "$procs" --json "$name.estimate.json"
  both "$name.block" estimate "$profile" --procs "$procs" --distribution block --json "$name.block.json"
  both "$name.trace" trace "$profile" --procs "$first" --csv "$name.trace.csv"
  both "$name.trace_stdout" trace "$profile" --procs "$first"
  both "$name.benchgen" benchgen "$profile" --procs "$first" --out "$name.bench"
  both "$name.place" place "$profile" --procs "$first" --nodes 2 --cores-per-node $(( (first + 1) / 2 )) \
    --rankfile "$name.rankfile"
done
# A user's map: the first array's two halves of Jacobi's 34 x 34 grid on
# ranks 0 and 1.
printf '# rows 0-16 and 17-33\narray 1 0 577 0\narray 1 578 1155 1\n' >"$work/halves.map"
both jacobi.map estimate "$work/old/jacobi.out/build/program.profile" --procs 2,4,8 \
  --distribution "$work/halves.map" --json jacobi.map.json
both jacobi.map_trace trace "$work/old/jacobi.out/build/program.profile" --procs 4 \
  --distribution "$work/halves.map" --csv jacobi.map.trace.csv

# Compare every file either side wrote, but the instrumented builds. The
# differences allowed: the run directories' names, and two facts of the
# instrumented run that analyze prints with the profile's metadata
# (runtime_loads and the analysis' memory, analysis_memory_bytes and its
# parts: they vary from run to run of one tool, the recorded values and
# flows do not).
status=0
normalize() {
  sed -E -e "s#$work/old#RUN#g" -e "s#$work/new#RUN#g" \
    -e 's/(runtime_loads|analysis_memory_bytes|shadow_bytes|label_bytes|value_bytes|flow_bytes|vertex_table_bytes)=[0-9]+/\1=N/g' "$1"
}
compared=0
while IFS= read -r file; do
  case "$file" in */build/*|*.stderr) continue ;; esac
  compared=$((compared + 1))
  if [ ! -e "$work/new/$file" ]; then
    echo "only the old tool wrote $file"; status=1; continue
  fi
  if ! cmp -s "$work/old/$file" "$work/new/$file" &&
     ! diff -q <(normalize "$work/old/$file") <(normalize "$work/new/$file") >/dev/null; then
    echo "DIFFERENT: $file"
    diff <(normalize "$work/old/$file") <(normalize "$work/new/$file") | head -20
    status=1
  fi
done < <(cd "$work/old" && find . -type f | sed 's#^\./##' | sort)
while IFS= read -r file; do
  case "$file" in */build/*|*.stderr) continue ;; esac
  [ -e "$work/old/$file" ] || { echo "only the new tool wrote $file"; status=1; }
done < <(cd "$work/new" && find . -type f | sed 's#^\./##' | sort)
if [ $status -eq 0 ]; then
  echo "identical: $compared files (outputs, standard output, exit statuses) in $work"
else
  echo "differences found (outputs in $work)"
fi
exit $status

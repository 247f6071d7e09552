# Sourced by the scripted benchmarks (shim_overhead.sh, estimate_speed.sh,
# end_to_end.sh): the repository root as working directory, the tool built
# and copied ($tool), a scratch directory ($work, removed at exit), $quick
# (true when --quick is among the arguments), `measure`, and issue 3's two
# benchmark programs as "name|source|arguments" ($programs; smaller ones
# with --quick).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
bazel build //tools:commanalyzer >/dev/null 2>&1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A copy, with its runfiles (the pass and runtime): a rebuild of the
# workspace during a long run cannot change the tool half-way through.
cp -L bazel-bin/tools/commanalyzer "$work/commanalyzer"
cp -rL bazel-bin/tools/commanalyzer.runfiles "$work/commanalyzer.runfiles"
tool="$work/commanalyzer"
quick=false
for arg in "$@"; do [ "$arg" != --quick ] || quick=true; done
programs=("MatMul n=256|examples/matmul/matmul_seq.c|256"
          "Jacobi 2-D 1024x1024, 100 steps|examples/heat2d/heat2d_seq.c|1024 100")
if $quick; then
  programs=("MatMul n=96|examples/matmul/matmul_seq.c|96" "Jacobi 2-D 256x256, 10 steps|examples/heat2d/heat2d_seq.c|256 10")
fi

# measure OUT RUNS CMD...: writes "seconds peak_kib" of the fastest of RUNS
# runs of CMD to OUT. Wall time to the microsecond (/usr/bin/time gives
# 0.01 s: MatMul's native run is 0.02 s); peak memory is /usr/bin/time's
# maximum resident set size, the largest of CMD and every child it waited
# for. CMD's standard output is discarded; a failing CMD stops the script
# with its standard error.
measure() {
  local out="$1" runs="$2"; shift 2
  local best=""
  for _ in $(seq "$runs"); do
    local start=$EPOCHREALTIME
    /usr/bin/time -f "%M" -o "$work/t" "$@" >/dev/null 2>"$work/err" || { tail -20 "$work/err" >&2; exit 1; }
    local t; t="$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.4f", b - a }') $(tail -1 "$work/t")"
    if [ -z "$best" ] || awk -v a="${t%% *}" -v b="${best%% *}" 'BEGIN{exit !(a<b)}'; then best="$t"; fi
  done
  echo "$best" >"$out"
}

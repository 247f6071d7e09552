#!/usr/bin/env bash
# Instrumented vs native and vs DataFlowSanitizer (issue 17's yardstick),
# side by side in one run: wall time and peak memory of the sequential
# program (the instrumented run includes writing the profile). The
# estimate's own speed: bench/run.sh, bench/estimate_speed.sh; two builds
# of the instrumentation against each other: bench/ab_overhead.sh.
# Where perf can sample, one more instrumented run splits its time: the
# program's own functions (its code with the pass's inline label code) and
# the rest (the runtime's hooks, libc, the kernel). The first, as a ratio to
# native, is what no change to the runtime alone can go below.
# Usage: bench/shim_overhead.sh [--quick]   (writes bench/results/shim_overhead.md)
source "$(dirname "$0")/programs.sh"

# program_share NATIVE INSTRUMENTED ARGS...: the fraction of the instrumented
# run's samples in functions the native program also defines (its own code
# and the inline instrumentation in it); empty if perf cannot sample here.
program_share() {
  local native="$1" instrumented="$2"; shift 2
  perf record -q -o "$work/perf.data" "$instrumented" "$@" >/dev/null 2>&1 || return 0
  nm --defined-only "$native" | awk '$2 ~ /^[tT]$/ {print $3}' >"$work/own"
  perf report -i "$work/perf.data" --no-children --sort dso,sym --stdio -q 2>/dev/null |
    awk -v exe="$(basename "$instrumented")" 'NR == FNR { own[$1] = 1; next }
      $2 == exe && ($4 in own) { s += $1 } END { if (s > 0) printf "%.4f", s / 100 }' "$work/own" -
}

report="bench/results/shim_overhead.md"
mkdir -p bench/results
{
  echo "# Instrumentation overhead (measured side by side)"
  echo
  echo "Command: \`bench/shim_overhead.sh $*\`; $(date -u +%Y-%m-%d), $(nproc) cores, best of 3 runs each."
  echo "Native: clang-16 -O1 -fno-vectorize -fno-slp-vectorize (the flags analyze uses, without the pass)."
  echo "DataFlowSanitizer: clang-16 -O2 -fsanitize=dataflow (issue 17's yardstick: a label per byte, inline shadow code)."
  echo "Instrumented: the same with the CommAnalyzer pass and runtime, writing its profile at exit."
  echo "Program code: perf samples of one more instrumented run in functions the native program defines"
  echo "(its own code with the pass's inline label code), and that time over native: the floor for runtime-only changes."
  echo
  echo "| program | native s | native MiB | DFSan s | instrumented s | instrumented MiB | time ratio | instrumented / DFSan | memory ratio | profile MiB | program code share | program code ratio |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} >"$work/report"
for c in "${programs[@]}"; do
  IFS='|' read -r name src args <<<"$c"
  clang-16 -O1 -fno-vectorize -fno-slp-vectorize -Iinclude "$src" -o "$work/native" -lm
  clang-16 -O2 -fsanitize=dataflow -Iinclude "$src" -o "$work/dfsan" -lm
  "$tool" build "$src" --output "$work/instrumented"
  measure "$work/n" 3 "$work/native" $args
  measure "$work/d" 3 "$work/dfsan" $args
  export COMMANALYZER_PROFILE="$work/p.profile"
  measure "$work/i" 3 "$work/instrumented" $args
  read -r ns nk <"$work/n"; read -r ds _ <"$work/d"; read -r is ik <"$work/i"
  pk=$(( $(stat -c %s "$work/p.profile") / 1024 ))
  share=$(program_share "$work/native" "$work/instrumented" $args)
  awk -v name="$name" -v ns="$ns" -v nk="$nk" -v ds="$ds" -v is="$is" -v ik="$ik" -v pk="$pk" -v share="$share" 'BEGIN {
    split_cols = share == "" ? "| n/a | n/a |" : sprintf("| %.0f %% | %.1fx |", 100 * share, share * is / ns);
    printf "| %s | %.3f | %.1f | %.3f | %.2f | %.1f | %.0fx | %.1fx | %.0fx | %.1f %s\n", name, ns, nk/1024, ds, is, ik/1024, is/ns, is/ds, ik/nk, pk/1024, split_cols }' >>"$work/report"
done
cp "$work/report" "$report"
cat "$report"

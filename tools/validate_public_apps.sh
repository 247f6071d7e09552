#!/usr/bin/env bash
# validate_public_apps.sh --code CODE CHECKOUT [--size N] [--iterations T] [--procs P1,P2,...]
#                         [--opt -O2] [--tool PATH] [--out DIR] [--doc FILE]
#
# Estimated against measured communication on two public mini-apps nobody
# on the team wrote (the companion of tools/validate_public.sh, which has
# the PRK kernels and HPCCG). CHECKOUT is a checkout of the code: it is
# copied, never changed, and none of it goes into this repository. Our own
# annotation patch, tools/public/<code>.patch, marks the time-step (or CG
# iteration) loop in the serial version with include/commanalyzer/annotate.h
# (CA_REGION_BEGIN / CA_ITERATION / CA_REGION_END) and the same loop in the
# MPI version with MPI_Pcontrol (0 after MPI_Init, 1 before the loop, 2 at
# the end of each step, 0 after it), which examples/measure/pmpi_counter.c
# obeys: only the loop is counted on both sides. Then:
#   1. `commanalyzer analyze` of the serial build, all process counts from
#      one profile, per --opt level;
#   2. the MPI build of the same code (-O2) under the PMPI counter per count;
#   3. a row per count and level: iterations (measured / marked), measured and
#      estimated bytes, accuracy = 1 - |est - meas| / meas, the p2p /
#      collective split, point-to-point messages and collective calls
#      (measured / estimated, with the kinds; "fused" is the tool's
#      collective_calls, one per kind and iteration, which its message count
#      uses), bytes per iteration and the distribution the tool kept. Printed and, with --doc, appended to FILE.
#      The largest count's busiest estimated sites (the tool's "where", from
#      --json) go to DIR/sites<level>.txt.
#
# Codes:
#   lulesh2  github.com/LLNL/LULESH (2.0): serial build -DUSE_MPI=0, MPI build
#            -DUSE_MPI=1, no OpenMP. --size is the GLOBAL edge (default 12):
#            serial -s N, MPI -s N/cbrt(P) per rank, so P must be a cube whose
#            root divides N (defaults --procs 8,27,64). -i T cycles (default 10).
#   minife   github.com/Mantevo/miniFE, its ref/ version: one source, serial
#            and -DHAVE_MPI, CSR matrix. nx = ny = nz = N (default 10); at most
#            T CG iterations (default 31, where 10^3 converges;
#            MINIFE_MAX_ITER, added by the patch). Defaults --procs 2,4,8.
#
# --tool PATH: the commanalyzer binary (default bazel-bin/tools/commanalyzer
#   of this repository; this script never builds it).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
me=validate_public_apps.sh
code="" src="" size="" iters="" procs="" opt="-O2" out="" doc="" tool=""
while [ $# -gt 0 ]; do
  case "$1" in
    --code) code="$2"; shift ;;
    --size) size="$2"; shift ;;
    --iterations) iters="$2"; shift ;;
    --procs) procs="$2"; shift ;;
    --opt) opt="$2"; shift ;;
    --tool) tool="$2"; shift ;;
    --out) out="$2"; shift ;;
    --doc) doc="$2"; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) echo "$me: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) src="$1" ;;
  esac
  shift
done
[ -n "$code" ] || { echo "$me: give --code (see --help)" >&2; exit 2; }
[ -f "$root/tools/public/$code.patch" ] || { echo "$me: no patch for code '$code'" >&2; exit 2; }
[ -n "$src" ] && [ -d "$src" ] || { echo "$me: give the checkout directory of $code" >&2; exit 2; }
src="$(cd "$src" && pwd)"
tool="${tool:-$root/bazel-bin/tools/commanalyzer}"
[ -x "$tool" ] || { echo "$me: no commanalyzer at $tool (build //tools:commanalyzer or pass --tool PATH)" >&2; exit 2; }
tool="$(cd "$(dirname "$tool")" && pwd)/$(basename "$tool")"
IFS=, read -r -a levels <<< "$opt"
for level in "${levels[@]}"; do
  [[ "$level" =~ ^-O[0-3s]$ ]] || { echo "$me: --opt: '$level' is not -O0 .. -O3 or -Os" >&2; exit 2; }
done
out="${out:-$(mktemp -d /tmp/commanalyzer-apps-XXXXXX)}"
mkdir -p "$out" && out="$(cd "$out" && pwd)"

work="$out/src"
rm -rf "$work"
mkdir -p "$work"
# mpi_args P: the MPI program's arguments on P processes (default: the serial ones).
mpi_args() { echo "${args[@]}"; }
case "$code" in
  lulesh2)
    size=${size:-12} iters=${iters:-10} procs=${procs:-8,27,64}
    [ -f "$src/lulesh.cc" ] && [ -f "$src/lulesh-comm.cc" ] ||
      { echo "$me: $src has no lulesh.cc / lulesh-comm.cc (not an LLNL/LULESH checkout?)" >&2; exit 2; }
    cp -r "$src/." "$work/"
    rm -rf "$work/.git"
    serial=("$work/lulesh.cc" "$work/lulesh-comm.cc" "$work/lulesh-viz.cc" "$work/lulesh-util.cc" "$work/lulesh-init.cc")
    mpi=("${serial[@]}")
    incs=(-I"$work")
    defs=(-DUSE_MPI=0)
    mpi_defs=(-DUSE_MPI=1)  # the MPI build's -D (instead of defs); no -fopenmp: _OPENMP stays undefined
    args=(-s "$size" -i "$iters" -q)
    IFS=, read -r -a counts <<< "$procs"
    for p in "${counts[@]}"; do
      c=1
      while [ $((c * c * c)) -lt "$p" ]; do c=$((c + 1)); done
      [ $((c * c * c)) -eq "$p" ] || { echo "$me: lulesh2: P=$p is not a cube" >&2; exit 2; }
      [ $((size % c)) -eq 0 ] || { echo "$me: lulesh2: cbrt(P)=$c does not divide the global edge $size" >&2; exit 2; }
    done
    mpi_args() {
      local c=1
      while [ $((c * c * c)) -lt "$1" ]; do c=$((c + 1)); done
      echo "-s $((size / c)) -i $iters -q"
    }
    what="LULESH 2.0, ${size}^3 elements global, $iters cycles"
    ;;
  minife)
    size=${size:-10} iters=${iters:-31} procs=${procs:-2,4,8}
    [ -f "$src/ref/src/cg_solve.hpp" ] ||
      { echo "$me: $src has no ref/src/cg_solve.hpp (not a Mantevo/miniFE checkout?)" >&2; exit 2; }
    cp -r "$src/ref/." "$work/"
    sources=(src/main.cpp src/YAML_Doc.cpp src/YAML_Element.cpp utils/BoxPartition.cpp utils/param_utils.cpp
             utils/utils.cpp utils/mytimer.cpp)
    serial=("${sources[@]/#/$work/}")
    mpi=("${serial[@]}")
    incs=(-I"$work/src" -I"$work/utils" -I"$work/fem")
    defs=(-DMINIFE_SCALAR=double -DMINIFE_LOCAL_ORDINAL=int -DMINIFE_GLOBAL_ORDINAL=int -DMINIFE_CSR_MATRIX
          -DMINIFE_INFO=0 -DMINIFE_KERNELS=0)
    mpi_defs=("${defs[@]}" -DHAVE_MPI -DMPICH_IGNORE_CXX_SEEK)
    export MINIFE_MAX_ITER=$iters
    args=("nx=$size" "ny=$size" "nz=$size")
    what="miniFE ref, CSR, ${size}^3, at most $iters CG iterations"
    ;;
  *) echo "$me: unknown code '$code'" >&2; exit 2 ;;
esac
(cd "$work" && patch -s -p1 < "$root/tools/public/$code.patch") ||
  { echo "$me: tools/public/$code.patch does not apply to this checkout" >&2; exit 1; }

for level in "${levels[@]}"; do
  echo "[public] analysing the serial $code ($what) at $level for P = $procs" >&2
  start=$(date +%s)
  # Both runs start in $out: programs that write files (miniFE's yaml) write them there.
  (cd "$out" && "$tool" analyze "${serial[@]}" -I"$root/include" "${incs[@]}" "${defs[@]}" "$level" --procs "$procs" \
    --json "$out/estimate$level.json" --out "$out/analysis$level" -- "${args[@]}") > "$out/analysis$level.log" 2>&1 ||
    { tail -20 "$out/analysis$level.log" >&2; echo "$me: analysis at $level failed" >&2; exit 1; }
  echo "[public] analysis at $level took $(( $(date +%s) - start )) s" >&2
done

lib="$out/libpmpi_counter.so"
mpicc -O2 -shared -fPIC -o "$lib" "$root/examples/measure/pmpi_counter.c"
mpicxx -O2 "${incs[@]}" "${mpi_defs[@]}" -o "$out/mpi_program" "${mpi[@]}" -lm
flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
IFS=, read -r -a counts <<< "$procs"
for p in "${counts[@]}"; do
  echo "[public] MPI run on $p processes: $(mpi_args "$p")" >&2
  (cd "$out" && mpirun "${flags[@]}" -np "$p" -x LD_PRELOAD="$lib" -x CA_PMPI_OUT="$out/measured_p$p.json" \
    ${MINIFE_MAX_ITER:+-x MINIFE_MAX_ITER} "$out/mpi_program" $(mpi_args "$p")) > "$out/mpi_p$p.log" 2>&1 ||
    { tail -5 "$out/mpi_p$p.log" >&2; echo "$me: MPI run failed" >&2; exit 1; }
done

rows=$(python3 - "$out" "$code" "$what" "$opt" "${counts[@]}" <<'EOF'
import json, sys
out, code, what, opt, counts = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
levels = opt.split(",")
doc = {l: json.load(open(f"{out}/estimate{l}.json")) for l in levels}
est = {l: {e["n"]: e for e in doc[l]["procs"]} for l in levels}
short = {"MPI_Allreduce": "Allreduce", "MPI_Bcast": "Bcast", "MPI_Reduce": "Reduce", "MPI_Barrier": "Barrier",
         "MPI_Allgather": "Allgather", "MPI_Allgatherv": "Allgatherv", "MPI_Gather": "Gather",
         "MPI_Scatter": "Scatter", "MPI_Alltoall": "Alltoall", "MPI_Alltoallv": "Alltoallv"}
for p in counts:
    m = json.load(open(f"{out}/measured_p{p}.json"))
    mit = m.get("iterations", 0)
    mcoll = ", ".join(f"{short.get(k, k)} {v['calls']}" for k, v in sorted(m.get("collectives", {}).items())) or "none"
    per = [r["total_bytes"] for r in m.get("per_iteration", [])]
    mper = f"{sum(per) / len(per):,.0f}" if per else "-"
    for l in levels:
        e = est[l][int(p)]
        eit = doc[l].get("iterations", 0)
        ekinds = [f"Allreduce {e['allreduces']}" if e.get("allreduces") else "",
                  f"Bcast {e['broadcasts']}" if e.get("broadcasts") else ""]
        ecoll = ", ".join(k for k in ekinds if k) or "none"
        acc = 1 - abs(e["total_bytes"] - m["total_bytes"]) / m["total_bytes"] if m["total_bytes"] else float("nan")
        print(f"| {code} | {what} | {l} | {p} | {mit} / {eit} | {m['total_bytes']:,} | {e['total_bytes']:,} "
              f"| {100 * acc:.1f}% "
              f"| {m['p2p_bytes']:,} / {m['collective_bytes']:,} | {e['p2p_bytes']:,} / {e['collective_bytes']:,} "
              f"| {m['p2p_messages']:,} / {e['p2p_messages']:,} "
              f"| {m['collective_calls']:,} ({mcoll}) / {e['allreduces'] + e['broadcasts']:,} ({ecoll}; "
              f"{e['collective_calls']:,} fused) "
              f"| {mper} / {e['per_iteration_bytes']:,.0f} | {e.get('distribution', '')} |")
if len(levels) > 1:
    # (max - min) / min of the estimates over the levels, the largest over P
    spread = max((max(t) - min(t)) / min(t) if min(t) else 0.0
                 for t in ([est[l][int(p)]["total_bytes"] for l in levels] for p in counts))
    print(f"SPREAD {100 * spread:.2f}")
# The busiest estimated sites at the largest count, per level (the tool's "where").
big = max(int(p) for p in counts)
for l in levels:
    e = est[l][big]
    sites = sorted(e.get("sites", []), key=lambda s: -(s["p2p_bytes"] + s.get("allreduce_bytes", 0)
                                                         + s.get("broadcast_bytes", 0)))
    total = e["total_bytes"] or 1
    with open(f"{out}/sites{l}.txt", "w") as f:
        f.write(f"{code} {l}, P = {big}: {len(sites)} sites, {e['total_bytes']:,} B in all\n")
        for s in sites:
            b = s["p2p_bytes"] + s.get("allreduce_bytes", 0) + s.get("broadcast_bytes", 0)
            arrays = s.get("arrays", [])
            names = ", ".join(f"#{a}" if not isinstance(a, dict) else f"#{a.get('id', a)}" for a in arrays[:8])
            more = f" +{len(arrays) - 8}" if len(arrays) > 8 else ""
            f.write(f"  {s['file'].split('/')[-1]}:{s['line']} (loop {s.get('loop_line', '?')}): {b:,} B "
                    f"({100 * b / total:.1f}%), {s['p2p_messages']} msgs, {s.get('partners', 0)} partners, "
                    f"{s.get('allreduces', 0)} allreduces, {s.get('broadcasts', 0)} bcasts; arrays {names}{more}\n")
EOF
)
spread=$(sed -n 's/^SPREAD //p' <<< "$rows")
rows=$(grep -v '^SPREAD ' <<< "$rows")
header="| code | problem | build | P | iterations meas / est | measured B | estimated B | accuracy | meas p2p / coll B | est p2p / coll B | p2p messages meas / est | collective calls meas / est | B per iteration meas / est | distribution |
|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|"
echo "$header"
echo "$rows"
[ -z "$spread" ] || echo "estimates over $opt differ by at most $spread % (largest over P of (max - min) / min)"
if [ -n "$doc" ]; then
  {
    echo
    echo "- \`tools/validate_public_apps.sh --code $code CHECKOUT --size $size --iterations $iters --procs $procs --opt $opt\`"
    echo "  (checkout: $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u +%Y-%m-%d))"
    echo
    echo "$header"
    echo "$rows"
    if [ -n "$spread" ]; then
      echo
      echo "Over $opt the estimates differ by at most $spread % (largest over P of (max - min) / min)."
    fi
  } >> "$doc"
fi
echo "[public] results in $out (busiest estimated sites: $out/sites*.txt)" >&2

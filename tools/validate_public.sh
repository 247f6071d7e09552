#!/usr/bin/env bash
# validate_public.sh --code CODE CHECKOUT [--size N] [--iterations T] [--procs P1,P2,...]
#                    [--opt -O2] [--out DIR] [--doc FILE] [--tool PATH] [--prepare-only]
#                    [--measure-only] [--analyze-flags 'FLAGS']
#
# Estimated against measured communication on public code nobody on the
# team wrote. CHECKOUT is a checkout of the code (it is copied, never
# changed, and none of it goes into this repository); our own annotation
# patch, tools/public/<code>.patch, marks the region and iterations in the
# serial version (include/commanalyzer/annotate.h) and the same region in
# the MPI version (MPI_Pcontrol, which the PMPI counter obeys). Then:
#   1. `commanalyzer analyze` of the serial build, all process counts from
#      one profile;
#   2. the MPI build under the PMPI counter (examples/measure) per count;
#   3. a row per count: iterations (measured / marked), measured and
#      estimated bytes, accuracy = 1 - |est - meas| / meas (nothing
#      measured: 100.0 % if nothing is estimated either, else n/a),
#      point-to-point and collective bytes, point-to-point messages,
#      collective calls with their kinds (measured: the PMPI counter's, a
#      Barrier counting as a call of 0 bytes; estimated: Allreduces and
#      Bcasts, and "fused", the tool's collective_calls, one per kind and
#      iteration, which its message count uses), bytes per iteration, the
#      distribution the tool kept, and a note ("not counted: why" where the
#      MPI code's algorithm is not owner-computes, so the row is measured but
#      no measure of the estimate), printed and, with --doc, appended to
#      FILE. The largest count's busiest estimated sites (the tool's
#      "where") go to DIR/sites<level>.txt.
# --opt takes one level or a list (--opt -O0,-O1,-O2,-O3): one analysis
# and one row per count for each, against the same MPI runs, and the
# spread of the estimates over the levels.
# --analyze-flags: extra options for `commanalyzer analyze` (e.g.
# '--record-iterations 3': the rows then measure the recording window).
#
# Codes (CHECKOUT = a checkout of github.com/ParRes/Kernels):
#   prk_stencil   SERIAL/Stencil and MPI1/Stencil: 2-D star stencil of
#                 radius 2, n x n grid, T + 1 iterations (defaults n=256, T=10)
#   prk_transpose SERIAL/Transpose and MPI1/Transpose: B += A^T, A += 1,
#                 n x n, untiled, T + 1 iterations
#   prk_synch_p2p SERIAL/Synch_p2p and MPI1/Synch_p2p: pipelined wavefront
#                 on an n x n grid (MPI: 1-D slabs of columns, one value
#                 per row sent on, group factor 1), T + 1 iterations
#                 (defaults n=256, T=10; P < n)
#   prk_dgemm     SERIAL/DGEMM and MPI1/DGEMM: C += A B of order n, serial
#                 untiled (tile size 0), MPI SUMMA on its most nearly square
#                 P grid with panel width n and no local blocking, T + 1
#                 iterations (defaults n=64, T=10; P <= n)
#   prk_nstream   SERIAL/Nstream and MPI1/Nstream: triad a += b + s c on
#                 vectors of length n, offset 0, T + 1 iterations (defaults
#                 n=65536, T=10; P must divide n)
#   prk_reduce    SERIAL/Reduce and MPI1/Reduce: vector += ones, length n,
#                 T + 1 iterations (defaults n=65536, T=10); the MPI code
#                 gives each rank a whole vector and MPI_Reduces the P
#                 copies: measured, rows "not counted"
#   prk_sparse    SERIAL/Sparse and MPI1/Sparse: SpMV of the scrambled
#                 radius-2 star stencil on a 2^n x 2^n grid, T + 1
#                 iterations (defaults n=6, T=10; P must divide 2^n); the
#                 MPI code Allgathers the whole vector every iteration:
#                 measured, rows "not counted"
#   prk_random    SERIAL/Random and MPI1/Random: Table[r & (2^n - 1)] ^= r
#                 on a table of 2^n words, 16 x 2^n updates from 1024 random
#                 streams (serial; MPI: LOOKAHEAD = 1024 per rank, sent to
#                 the table's owner by MPI_Alltoallv after an MPI_Alltoall
#                 of the counts), the code's 2 rounds as its iterations
#                 (defaults n=14, --iterations 2 only; P a power of two,
#                 16 x 2^n >= 2048 P)
#   prk_pic       SERIAL/PIC and MPI1/PIC-static: particles in a fixed
#                 L x L grid of charges, L^2/4 particles (SINUSOIDAL, k=0,
#                 m=1), T + 1 steps (defaults L=64, T=10; L even); the MPI
#                 code migrates particles between ranks: measured, rows
#                 "not counted"
# (CHECKOUT = a checkout of github.com/Mantevo/HPCCG)
#   hpccg         the CG mini-app, one source built serially and with
#                 -DUSING_MPI: 27-point operator on an n x n x 4n grid,
#                 z-slabs of n x n x 4n/P on P processes; T CG iterations
#                 (defaults n=16, T=10; P must divide 4n)
# (CHECKOUT = a checkout of github.com/LLNL/LULESH, 2.0)
#   lulesh2       serial build -DUSE_MPI=0, MPI build -DUSE_MPI=1, no
#                 OpenMP; n is the GLOBAL edge: serial -s n, MPI -s n/cbrt(P)
#                 per rank, so P must be a cube whose root divides n; -i T
#                 cycles (defaults n=12, T=10, P=8,27,64); also measured
#                 with the code's option SEDOV_SYNC_POS_VEL_NONE (rows
#                 "lulesh2 (SEDOV_SYNC_POS_VEL_NONE)", not counted)
# (CHECKOUT = a checkout of github.com/Mantevo/miniFE)
#   minife        its ref/ version, one source serial and -DHAVE_MPI, CSR
#                 matrix; nx = ny = nz = n; at most T CG iterations
#                 (MINIFE_MAX_ITER, added by the patch; defaults n=10,
#                 T=31, where 10^3 converges, P=2,4,8)
# Process counts default to 4,16 where not given above.
# --tool PATH: use that commanalyzer binary (with its runfiles beside it)
#   instead of building //tools:commanalyzer with bazel.
# --prepare-only: only copy and patch the code into DIR/src and write
#   DIR/program.sh, which a script sources for the serial build (bash arrays
#   lang, serial, defs, args, incs (the -I options); its environment
#   exported): bench/end_to_end.sh.
# --measure-only: only the MPI runs (DIR/measured_pP.json), no analysis: a
#   size too large to analyse (tools/validate_model.sh).
# A full tools/validate.sh run rewrites docs/VALIDATION.md: run this after
# it, with --doc docs/VALIDATION.md, to add the public codes' rows.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
code="" src="" size="" iters="" procs="" opt="-O2" out="" doc="" tool="" prepare_only=0 measure_only=0
analyze_flags=""  # extra options for `commanalyzer analyze`, e.g. '--record-iterations 3'
while [ $# -gt 0 ]; do
  case "$1" in
    --code) code="$2"; shift ;;
    --size) size="$2"; shift ;;
    --iterations) iters="$2"; shift ;;
    --procs) procs="$2"; shift ;;
    --opt) opt="$2"; shift ;;
    --out) out="$2"; shift ;;
    --doc) doc="$2"; shift ;;
    --tool) tool="$2"; shift ;;
    --prepare-only) prepare_only=1 ;;
    --measure-only) measure_only=1 ;;
    --analyze-flags) analyze_flags="$2"; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) echo "validate_public.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) src="$1" ;;
  esac
  shift
done
[ -n "$code" ] || { echo "validate_public.sh: give --code (see --help)" >&2; exit 2; }
[ -f "$root/tools/public/$code.patch" ] || { echo "validate_public.sh: no patch for code '$code'" >&2; exit 2; }
[ -n "$src" ] && [ -d "$src" ] || { echo "validate_public.sh: give the checkout directory of $code" >&2; exit 2; }
src="$(cd "$src" && pwd)"
IFS=, read -r -a levels <<< "$opt"
for level in "${levels[@]}"; do
  [[ "$level" =~ ^-O[0-3s]$ ]] || { echo "validate_public.sh: --opt: '$level' is not -O0 .. -O3 or -Os" >&2; exit 2; }
done
if [ -n "$tool" ]; then
  [ -f "$tool" ] && [ -x "$tool" ] || { echo "validate_public.sh: --tool: '$tool' is not an executable file" >&2; exit 2; }
  tool="$(cd "$(dirname "$tool")" && pwd)/$(basename "$tool")"
fi
out="${out:-$(mktemp -d /tmp/commanalyzer-public-XXXXXX)}"
mkdir -p "$out" && out="$(cd "$out" && pwd)"

work="$out/src"
rm -rf "$work"
mkdir -p "$work"
case "$code" in
  lulesh2) iters=${iters:-10} procs=${procs:-8,27,64} ;;
  minife) iters=${iters:-31} procs=${procs:-2,4,8} ;;
  prk_random) iters=${iters:-2} procs=${procs:-4,16} ;;
  *) iters=${iters:-10} procs=${procs:-4,16} ;;
esac
IFS=, read -r -a counts <<< "$procs"
# check_counts CONDITION WHY: every process count P meets CONDITION (bash
# arithmetic in P), else WHY is the error.
check_counts() {
  local P
  for P in "${counts[@]}"; do
    (( $1 )) || { echo "validate_public.sh: $code: P=$P $2" >&2; exit 2; }
  done
}
cube_root() { local c=1; while ((c * c * c < $1)); do c=$((c + 1)); done; echo "$c"; }
# copy_tree DIR: DIR of the checkout ("" for all of it) as the work tree.
copy_tree() {
  cp -r "$src/$1." "$work/"
  rm -rf "$work/.git"
}
# copy_prk KERNEL FILE [MPIKERNEL]: the serial and MPI1 versions of a PRK
# kernel (MPI1/MPIKERNEL if named) and what they include; serial and mpi,
# the sources of each build.
# mpi_args P: the MPI program's arguments on P processes (default: the serial ones).
mpi_args() { echo "${args[@]}"; }
copy_prk() {
  local d m="${3:-$1}"
  for d in "SERIAL/$1" "MPI1/$m" include common; do
    [ -e "$src/$d" ] || { echo "validate_public.sh: $src has no $d (not a ParRes/Kernels checkout?)" >&2; exit 2; }
    mkdir -p "$work/$(dirname "$d")"
    cp -r "$src/$d" "$work/$d"
  done
  serial=("$work/SERIAL/$1/$2" "$work/common/wtime.c")
  mpi=("$work/MPI1/$m/$2" "$work/common/wtime.c" "$work/common/MPI_bail_out.c")
}
cxx=mpicc
incs=(-I"$work/include")
mpi_env=()  # mpirun -x NAME: the environment the MPI program needs
note=""  # "not counted: REASON" for a row that does not measure the estimate
# A second MPI build, measured beside the code as shipped and shown as a
# reference row (not counted): the code's own compile-time option in
# variant_file, changed by the sed expression variant_edit.
variant="" variant_file="" variant_edit="" variant_note=""
case "$code" in
  prk_stencil)
    size=${size:-256}
    copy_prk Stencil stencil.c
    defs=(-DRADIUS=2 -DSTAR=1 -DDOUBLE=1 -DLOOPGEN=0)
    args=("$iters" "$size")
    what="2-D star stencil, radius 2, ${size}^2, $((iters + 1)) iterations"
    ;;
  prk_transpose)
    size=${size:-256}
    copy_prk Transpose transpose.c
    defs=()
    args=("$iters" "$size" "$size")  # untiled (tile size = order)
    what="transpose B += A^T, ${size}^2, $((iters + 1)) iterations"
    ;;
  prk_synch_p2p)
    size=${size:-256}
    copy_prk Synch_p2p p2p.c
    defs=(-DRESTRICT_KEYWORD=0 -DVERBOSE=0)
    args=("$iters" "$size" "$size")  # m = n; the MPI code's group factor stays 1
    check_counts "P < size" "must be < m=$size"
    what="pipelined wavefront, ${size}^2, $((iters + 1)) iterations"
    ;;
  prk_dgemm)
    size=${size:-64}
    copy_prk DGEMM dgemm.c
    defs=(-DMKL=0 -DDEFAULTBLOCK=32 -DBOFFSET=12 -DRESTRICT_KEYWORD=0 -DVERBOSE=0)
    args=("$iters" "$size" 0)  # tile size 0: the untiled triple loop
    check_counts "P <= size" "must be <= order=$size"
    # SUMMA on the code's nprow x npcol grid (nprow the largest divisor of P
    # <= sqrt(P)); panel width nb = order, so each step is one whole block
    # column / row, and no local blocking: the serial untiled loop.
    mpi_args() { echo "$iters $size $size 0"; }
    what="C += A B, order $size, untiled (MPI: SUMMA, nb = order), $((iters + 1)) iterations"
    ;;
  prk_nstream)
    size=${size:-65536}
    copy_prk Nstream nstream.c
    defs=(-DMAXLENGTH=2000000 -DSTATIC_ALLOCATION=0 -DRESTRICT_KEYWORD=0 -DVERBOSE=0)
    args=("$iters" "$size" 0)  # offset 0 between the vectors
    check_counts "size % P == 0" "does not divide length=$size"
    what="triad a += b + s c, length $size, $((iters + 1)) iterations"
    ;;
  prk_reduce)
    size=${size:-65536}
    copy_prk Reduce reduce.c
    defs=(-DRESTRICT_KEYWORD=0 -DVERBOSE=0)
    args=("$iters" "$size")
    what="vector += ones then MPI_Reduce, length $size, $((iters + 1)) iterations"
    note="not counted: each MPI rank holds its own whole vector and MPI_Reduces all P of them, a sum over P copies the serial code (one vector, no reduction) does not contain"
    ;;
  prk_random)
    size=${size:-14}
    [ "$iters" = 2 ] || { echo "validate_public.sh: prk_random: its iterations are the code's two rounds (--iterations 2)" >&2; exit 2; }
    copy_prk Random random.c
    # The Makefiles' defaults; the serial vector length = the MPI LOOKAHEAD.
    defs=(-DRESTRICT_KEYWORD=0 -DVERBOSE=0 -DLONG_IS_64BITS=0 -DHPCC=1 -DERRORPERCENT=1 -DLOOKAHEAD=1024)
    ratio=16
    args=("$ratio" "$size" 1024)  # update ratio, log2 table size, vector length
    mpi_args() { echo "$ratio $size"; }
    # MPI: P a power of two, and each rank's 2^size/P * ratio updates at
    # least one step of 2 rounds x LOOKAHEAD.
    check_counts "(P & (P - 1)) == 0 && ratio * (1 << size) >= 2 * 1024 * P" \
      "must be a power of two with $ratio * 2^$size >= 2048 P"
    what="random access Table[r & (2^${size}-1)] ^= r, $ratio x 2^${size} updates, 2 rounds"
    ;;
  prk_sparse)
    size=${size:-6}
    copy_prk Sparse sparse.c
    defs=(-DSCRAMBLE=1 -DTESTDENSE=0 -DRESTRICT_KEYWORD=0 -DVERBOSE=0)
    args=("$iters" "$size" 2)  # 2^size x 2^size grid, radius 2, scrambled
    check_counts "(1 << size) % P == 0" "does not divide 2^$size"
    what="SpMV, scrambled radius-2 star on a 2^${size} x 2^${size} grid, $((iters + 1)) iterations"
    note="not counted: the MPI code Allgathers the whole vector every iteration, which no owner-computes code needs"
    ;;
  prk_pic)
    size=${size:-64}
    copy_prk PIC pic.c PIC-static
    serial+=("$work/common/random_draw.c")
    mpi+=("$work/common/random_draw.c")
    defs=(-DRESTRICT_KEYWORD=0 -DVERBOSE=0)
    # T + 1 steps, an L x L grid, particles = L^2 / 4 requested, k = 0
    # (one cell a step in x), m = 1 (one cell a step in y), spread
    # sinusoidally over the grid.
    npart=$((size * size / 4))
    args=("$iters" "$size" "$npart" 0 1 SINUSOIDAL)
    check_counts "size % 2 == 0" "needs an even grid size (L=$size)"
    what="PIC, ${size}^2 grid, $npart particles requested (SINUSOIDAL, k=0, m=1), $((iters + 1)) steps"
    note="not counted: PIC-static sends the particles themselves (80-byte particle_t) to the rank that owns the grid tile they moved into, after an 8-byte count to each of 8 neighbours, every step; an owner-computes code keeps each particle's location on one process and moves the grid charges it reads instead"
    ;;
  hpccg)
    size=${size:-16}
    [ -f "$src/HPCCG.cpp" ] || { echo "validate_public.sh: $src has no HPCCG.cpp (not a Mantevo/HPCCG checkout?)" >&2; exit 2; }
    copy_tree ""
    mkdir -p "$work/include"  # nothing of ours: -I for the PRK layout
    sources=(main.cpp generate_matrix.cpp read_HPC_row.cpp compute_residual.cpp mytimer.cpp dump_matlab_matrix.cpp
             HPC_sparsemv.cpp HPCCG.cpp waxpby.cpp ddot.cpp make_local_matrix.cpp exchange_externals.cpp
             YAML_Element.cpp YAML_Doc.cpp)
    serial=("${sources[@]/#/$work/}")
    mpi=("${serial[@]}")
    defs=()
    mpi_defs=(-DUSING_MPI)
    cxx=mpicxx
    export HPCCG_MAX_ITER=$((iters + 1))  # iterations k = 1 .. T, each marked
    nz=$((4 * size))
    args=("$size" "$size" "$nz")
    check_counts "nz % P == 0" "does not divide nz=$nz"
    mpi_args() { echo "$size $size $((nz / $1))"; }
    what="CG, 27-point, ${size}x${size}x${nz}, z-slabs, $iters iterations"
    ;;
  lulesh2)
    size=${size:-12}
    [ -f "$src/lulesh.cc" ] && [ -f "$src/lulesh-comm.cc" ] ||
      { echo "validate_public.sh: $src has no lulesh.cc / lulesh-comm.cc (not an LLNL/LULESH checkout?)" >&2; exit 2; }
    copy_tree ""
    serial=("$work/lulesh.cc" "$work/lulesh-comm.cc" "$work/lulesh-viz.cc" "$work/lulesh-util.cc" "$work/lulesh-init.cc")
    mpi=("${serial[@]}")
    incs=(-I"$work")
    defs=(-DUSE_MPI=0)
    mpi_defs=(-DUSE_MPI=1)  # no -fopenmp: _OPENMP stays undefined
    cxx=mpicxx
    args=(-s "$size" -i "$iters" -q)
    for p in "${counts[@]}"; do
      c=$(cube_root "$p")
      ((c * c * c == p && size % c == 0)) ||
        { echo "validate_public.sh: lulesh2: P=$p is not a cube whose root divides the global edge $size" >&2; exit 2; }
    done
    mpi_args() { echo "-s $((size / $(cube_root "$1"))) -i $iters -q"; }
    what="LULESH 2.0, ${size}^3 elements global, $iters cycles"
    # As shipped (SEDOV_SYNC_POS_VEL_EARLY), each rank keeps the nodes its
    # elements touch, sums their forces on both sides of a boundary, and
    # then still sends positions and velocities from one side: 20 % more
    # than one owner per node needs. Its option _NONE leaves out that
    # resend.
    variant=SEDOV_SYNC_POS_VEL_NONE variant_file=lulesh.h
    variant_edit='s/^#define SEDOV_SYNC_POS_VEL_EARLY 1$/#define SEDOV_SYNC_POS_VEL_NONE 1/'
    variant_note="not counted: the code's own option, forces summed on both sides of a boundary and positions not resent"
    ;;
  minife)
    size=${size:-10}
    [ -f "$src/ref/src/cg_solve.hpp" ] ||
      { echo "validate_public.sh: $src has no ref/src/cg_solve.hpp (not a Mantevo/miniFE checkout?)" >&2; exit 2; }
    copy_tree "ref/"
    sources=(src/main.cpp src/YAML_Doc.cpp src/YAML_Element.cpp utils/BoxPartition.cpp utils/param_utils.cpp
             utils/utils.cpp utils/mytimer.cpp)
    serial=("${sources[@]/#/$work/}")
    mpi=("${serial[@]}")
    incs=(-I"$work/src" -I"$work/utils" -I"$work/fem")
    defs=(-DMINIFE_SCALAR=double -DMINIFE_LOCAL_ORDINAL=int -DMINIFE_GLOBAL_ORDINAL=int -DMINIFE_CSR_MATRIX
          -DMINIFE_INFO=0 -DMINIFE_KERNELS=0)
    mpi_defs=("${defs[@]}" -DHAVE_MPI -DMPICH_IGNORE_CXX_SEEK)
    cxx=mpicxx
    export MINIFE_MAX_ITER=$iters
    mpi_env=(-x MINIFE_MAX_ITER)
    args=("nx=$size" "ny=$size" "nz=$size")
    what="miniFE ref, CSR, ${size}^3, at most $iters CG iterations"
    ;;
  *) echo "validate_public.sh: unknown code '$code'" >&2; exit 2 ;;
esac
(cd "$work" && patch -s -p1 < "$root/tools/public/$code.patch") ||
  { echo "validate_public.sh: tools/public/$code.patch does not apply to this checkout" >&2; exit 1; }
if [ $prepare_only = 1 ]; then
  lang=c
  [ $cxx = mpicxx ] && lang=c++
  include_dir="$work/include"
  { declare -p lang serial defs args what include_dir incs
    if [ -n "${HPCCG_MAX_ITER:-}" ]; then echo "export HPCCG_MAX_ITER=$HPCCG_MAX_ITER"; fi
    if [ -n "${MINIFE_MAX_ITER:-}" ]; then echo "export MINIFE_MAX_ITER=$MINIFE_MAX_ITER"; fi
  } > "$out/program.sh"
  exit 0
fi

if [ -z "$tool" ] && [ $measure_only = 0 ]; then
  "$root/tools/setup.sh"
  (cd "$root" && bazel build -c opt //tools:commanalyzer >/dev/null 2>&1) || { echo "building the tool failed" >&2; exit 1; }
  tool="$root/bazel-bin/tools/commanalyzer"
fi

for level in "${levels[@]}"; do
  [ $measure_only = 0 ] || break
  echo "[public] analysing the serial $code ($what) at $level for P = $procs" >&2
  # Both runs start in $out: programs that write files (HPCCG's yaml) write them there.
  (cd "$out" && "$tool" analyze "${serial[@]}" "${incs[@]}" ${defs[@]+"${defs[@]}"} "$level" --procs "$procs" \
    $analyze_flags --json "$out/estimate$level.json" --out "$out/analysis$level" -- "${args[@]}") > "$out/analysis$level.log" 2>&1 ||
    { tail -20 "$out/analysis$level.log" >&2; echo "validate_public.sh: analysis at $level failed" >&2; exit 1; }
done

lib="$out/libpmpi_counter.so"
mpicc -O2 -shared -fPIC -o "$lib" "$root/examples/measure/pmpi_counter.c"
# The MPI build's defines: the serial build's unless the code names its own.
[ -n "${mpi_defs+set}" ] || mpi_defs=(${defs[@]+"${defs[@]}"})
$cxx -O2 "${incs[@]}" ${mpi_defs[@]+"${mpi_defs[@]}"} -o "$out/mpi_program" "${mpi[@]}" -lm
flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
# measure PROGRAM PREFIX: the PMPI counter's measured_PREFIXpP.json at every count.
measure() {
  local program="$1" prefix="$2" p
  for p in "${counts[@]}"; do
    echo "[public] MPI run of $(basename "$program") on $p processes" >&2
    (cd "$out" && mpirun "${flags[@]}" -np "$p" -x LD_PRELOAD="$lib" -x CA_PMPI_OUT="$out/measured_${prefix}p$p.json" \
      ${mpi_env[@]+"${mpi_env[@]}"} "$program" $(mpi_args "$p")) > "$out/mpi_${prefix}p$p.log" 2>&1 ||
      { tail -5 "$out/mpi_${prefix}p$p.log" >&2; echo "validate_public.sh: MPI run failed" >&2; exit 1; }
  done
}
measure "$out/mpi_program" ""

if [ -n "$variant" ]; then
  vwork="$out/src-$variant"
  rm -rf "$vwork" && cp -r "$work" "$vwork"
  sed -i "$variant_edit" "$vwork/$variant_file"
  grep -q "$variant" "$vwork/$variant_file" ||
    { echo "validate_public.sh: $variant_file has no line to switch to $variant" >&2; exit 1; }
  $cxx -O2 "${incs[@]/#-I$work/-I$vwork}" ${mpi_defs[@]+"${mpi_defs[@]}"} -o "$out/mpi_program_$variant" \
    "${mpi[@]/#$work/$vwork}" -lm
  measure "$out/mpi_program_$variant" "${variant}_"
fi

if [ $measure_only = 1 ]; then
  echo "[public] measured only: $out/measured_p*.json" >&2
  exit 0
fi

rows=$(python3 - "$out" "$code" "$what" "$opt" "$note" "$variant" "$variant_note" "${counts[@]}" <<'EOF'
import json, sys
out, code, what, opt, note, variant, variant_note = sys.argv[1:8]
counts = sys.argv[8:]
levels = opt.split(",")
doc = {l: json.load(open(f"{out}/estimate{l}.json")) for l in levels}
est = {l: {e["n"]: e for e in doc[l]["procs"]} for l in levels}
short = {"MPI_Allreduce": "Allreduce", "MPI_Bcast": "Bcast", "MPI_Reduce": "Reduce", "MPI_Barrier": "Barrier",
         "MPI_Allgather": "Allgather", "MPI_Allgatherv": "Allgatherv", "MPI_Gather": "Gather",
         "MPI_Scatter": "Scatter", "MPI_Alltoall": "Alltoall", "MPI_Alltoallv": "Alltoallv"}
measured = [(code, "", note)] + ([(f"{code} ({variant})", f"{variant}_", variant_note)] if variant else [])
for (name, prefix, row_note), p in ((v, p) for v in measured for p in counts):
    m = json.load(open(f"{out}/measured_{prefix}p{p}.json"))
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
        if m["total_bytes"]:
            acc = f"{100 * (1 - abs(e['total_bytes'] - m['total_bytes']) / m['total_bytes']):.1f}%"
        else:  # nothing measured: exact if nothing estimated, else no ratio
            acc = "100.0%" if e["total_bytes"] == 0 else "n/a"
        print(f"| {name} | {what} | {l} | {p} | {mit} / {eit} | {m['total_bytes']:,} | {e['total_bytes']:,} "
              f"| {acc} "
              f"| {m['p2p_bytes']:,} / {m['collective_bytes']:,} | {e['p2p_bytes']:,} / {e['collective_bytes']:,} "
              f"| {m['p2p_messages']:,} / {e['p2p_messages']:,} "
              f"| {m['collective_calls']:,} ({mcoll}) / {e['allreduces'] + e['broadcasts']:,} ({ecoll}; "
              f"{e['collective_calls']:,} fused) "
              f"| {mper} / {e['per_iteration_bytes']:,.0f} | {e.get('distribution', '')} | {row_note} |")
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
            # The loop may be in another file than the statement (a header's
            # function inlined into it); older builds write no loop_file.
            loop = f"{(s.get('loop_file') or s['file']).split('/')[-1]}:{s.get('loop_line', '?')}"
            f.write(f"  {s['file'].split('/')[-1]}:{s['line']} (loop {loop}): {b:,} B "
                    f"({100 * b / total:.1f}%), {s['p2p_messages']} msgs, {s.get('partners', 0)} partners, "
                    f"{s.get('allreduces', 0)} allreduces, {s.get('broadcasts', 0)} bcasts; arrays {names}{more}\n")
EOF
)
spread=$(sed -n 's/^SPREAD //p' <<< "$rows")
rows=$(grep -v '^SPREAD ' <<< "$rows")
header="| code | problem | build | P | iterations meas / est | measured B | estimated B | accuracy | meas p2p / coll B | est p2p / coll B | p2p messages meas / est | collective calls meas / est | B per iteration meas / est | distribution | note |
|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---|"
echo "$header"
echo "$rows"
[ -z "$spread" ] || echo "estimates over $opt differ by at most $spread % (largest over P of (max - min) / min)"
if [ -n "$doc" ]; then
  {
    echo
    echo "- \`tools/validate_public.sh --code $code CHECKOUT --size $size --iterations $iters --procs $procs --opt $opt\`"
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

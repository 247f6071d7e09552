#!/usr/bin/env bash
# How far one machine goes: the peak memory of `commanalyzer estimate`
# (--distribution metis, 16 processes) on generated unstructured-mesh
# profiles (tests/generate_mesh_profile) of growing size, a least-squares
# fit of that peak to the profile's size (its value flows, which grow with
# the steps) and the value graph's vertices and edges (which grow with the
# mesh), and the largest profile of each mesh kind that the fit puts within
# 24 GiB. Then the largest mesh again under `mpirun -np K ... --partitioner
# parmetis`, K = 2 and 4, with every rank's own peak: what distributing the
# partitioner takes off rank 0, and what each other rank holds.
# Usage: bench/one_machine.sh [--quick]   (writes bench/results/one_machine.md)
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
bazel build //tools:commanalyzer //tests:generate_mesh_profile >/dev/null 2>&1
tool="$PWD/bazel-bin/tools/commanalyzer"
generate="$PWD/bazel-bin/tests/generate_mesh_profile"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# side steps neighbours
meshes=("256 5 4" "256 20 4" "512 5 4" "512 20 4" "256 5 8" "256 20 8" "512 5 8" "512 20 8")
[ "${1:-}" = "--quick" ] && meshes=("128 5 4" "128 20 4" "256 5 4" "128 5 8" "128 20 8" "256 5 8")

: >"$work/rows"
for mesh in "${meshes[@]}"; do
  read -r side steps neighbours <<<"$mesh"
  "$generate" "$work/p.profile" "$side" "$steps" "$neighbours"
  /usr/bin/time -f "%e %M" -o "$work/t" "$tool" estimate "$work/p.profile" --distribution metis --procs 16 \
    >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  read -r secs kib <"$work/t"
  read -r instances chains vertices edges < <(sed -n \
    's/^value instances \([0-9]*\), value-flow chains \([0-9]*\), graph \([0-9]*\) vertices \/ \([0-9]*\) edges.*/\1 \2 \3 \4/p' "$work/out")
  total=$(awk '$1 == 16 { print $2 }' "$work/out")
  echo "$side $steps $neighbours $(stat -c %s "$work/p.profile") $instances $chains $vertices $edges $secs $kib $total" >>"$work/rows"
done

# The largest mesh under mpirun: one peak per rank.
read -r side steps neighbours <<<"${meshes[-1]}"
"$generate" "$work/p.profile" "$side" "$steps" "$neighbours"
export TMPDIR="$work"   # Open MPI's session directory
mpi_flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && mpi_flags+=(--allow-run-as-root)
: >"$work/ranks"
for ranks in 2 4; do
  mpirun "${mpi_flags[@]}" -np "$ranks" sh -c 'exec /usr/bin/time -f "%e %M" -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' \
    "$work/t" "$tool" estimate "$work/p.profile" --partitioner parmetis --procs 16 >"$work/out" 2>"$work/err" ||
    { cat "$work/err" >&2; exit 1; }
  bytes=$(awk '$1 == 16 { print $2 }' "$work/out")
  for ((r = 0; r < ranks; r++)); do echo "$ranks $r $bytes $(cat "$work/t.$r")" >>"$work/ranks"; done
done

python3 - "$work/rows" "$*" "$work/ranks" "${meshes[-1]}" >"$work/report" <<'PY'
import datetime, os, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1])]
# peak bytes = c + a * profile bytes + b * graph vertices + e * graph edges
# (least squares; value instances and chains are left out: they grow with
# the profile, nearly in proportion, and would make the fit ill-posed)
X = [[1.0, r[3], r[6], r[7]] for r in rows]
y = [r[9] * 1024 for r in rows]
k = len(X[0])
A = [[sum(x[i] * x[j] for x in X) for j in range(k)] + [sum(x[i] * t for x, t in zip(X, y))] for i in range(k)]
for c in range(k):  # Gauss-Jordan with partial pivoting
    p = max(range(c, k), key=lambda r: abs(A[r][c]))
    A[c], A[p] = A[p], A[c]
    for r in range(k):
        if r != c:
            f = A[r][c] / A[c][c]
            A[r] = [a - f * b for a, b in zip(A[r], A[c])]
coef = [A[i][k] / A[i][i] for i in range(k)]
fit = [sum(c * v for c, v in zip(coef, x)) for x in X]
worst = max(abs(f - t) / t for f, t in zip(fit, y))
gib = 1024 ** 3
print("# How far one machine goes: the estimate's peak memory")
print()
print("Command: `bench/one_machine.sh %s`; %s, %d cores, one run each." % (sys.argv[2], datetime.date.today(), os.cpu_count()))
print("`commanalyzer estimate PROFILE --distribution metis --procs 16` on generated unstructured meshes")
print("(`tests/generate_mesh_profile OUT SIDE STEPS NEIGHBOURS`: SIDE^2 nodes in scrambled order, STEPS")
print("sweeps), wall time and peak resident memory (/usr/bin/time). Counts as the report prints them.")
print()
print("| side | steps | neighbours | profile MiB | value instances | value-flow chains | graph vertices | graph edges | seconds | peak MiB | fit MiB |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r, f in zip(rows, fit):
    print("| %d | %d | %d | %.1f | %d | %d | %d | %d | %.1f | %.0f | %.0f |" % (r[0], r[1], r[2], r[3] / 2**20, r[4], r[5], r[6], r[7], r[8], r[9] / 1024, f / 2**20))
print()
print("Least-squares fit: peak = %.0f MiB + %.2f B per profile byte + %.1f B per graph vertex + %.1f B per graph edge"
      % (coef[0] / 2**20, coef[1], coef[2], coef[3]))
print("(largest error on these runs %.0f %%)." % (100 * worst))
print()
print("Largest profile within 24 GiB, by the fit, growing the steps (the profile) and the mesh (the")
print("graph) of the largest run of each kind in proportion:")
print()
print("| mesh kind | scale over the largest run | value instances | value-flow chains | graph edges | profile GiB |")
print("|---|---:|---:|---:|---:|---:|")
for nb in (4, 8):
    r = max((r for r in rows if r[2] == nb), key=lambda r: r[9])
    per_scale = coef[1] * r[3] + coef[2] * r[6] + coef[3] * r[7]
    scale = (24 * gib - coef[0]) / per_scale
    print("| %d neighbours | %.0fx | %.3g | %.3g | %.3g | %.1f |" % (nb, scale, scale * r[4], scale * r[5], scale * r[7], scale * r[3] / gib))
print()
side, steps, nb = map(int, sys.argv[4].split())
single = [r for r in rows if (r[0], r[1], r[2]) == (side, steps, nb)][0]
print("The largest mesh (side %d, %d steps, %d neighbours) with `mpirun -np K commanalyzer estimate PROFILE" % (side, steps, nb))
print("--partitioner parmetis --procs 16` (ParMETIS API, provided by PT-Scotch; K ranks on these %d cores):" % os.cpu_count())
print()
print("| MPI ranks | rank | total bytes (16 processes) | seconds | peak MiB |")
print("|---:|---:|---:|---:|---:|")
print("| 1 (METIS, no MPI) | 0 | %d | %.1f | %.0f |" % (single[10], single[8], single[9] / 1024))
for line in open(sys.argv[3]):
    k, rank, total, secs, kib = line.split()
    print("| %s | %s | %s | %s | %.0f |" % (k, rank, total, secs, float(kib) / 1024))
PY
mkdir -p bench/results
cp "$work/report" bench/results/one_machine.md
cat bench/results/one_machine.md

#!/usr/bin/env python3
"""reference_maps.py APP ARGS P [KIND=ARRAY ...] > MAP

Writes the decomposition that examples/APP/APP_mpi.c uses on P processes as
a `--distribution` map (docs/DISTRIBUTION.md) for the serial APP_seq.c run
with the same ARGS (one string, as tools/validate.sh gives them). Estimating
the serial profile under this map separates the cost model's error from the
choice of distribution (tools/validate_maps.sh).

Each reference cuts its grid dimensions with block_lo (the first n % q
blocks one element longer) over a process grid from MPI_Dims_create
(matmul: sqrt(P) x sqrt(P); lulesh: a cube), ranks row-major. Arrays are
numbered as `analyze` lists them (allocation order); arrays aligned with a
named one follow it. LULESH's arrays depend on its size, so the caller names
the first of each kind: nodelist=N (8 ints per element), nodes=N ((s+1)^3
doubles), elements=N (s^3 doubles), element_ints=N (s^3 ints). Index arrays
(spmv's rowptr, LULESH's connectivity) hold structure, not data the region
computes with, so they are left out of the maps.
"""
import math
import sys


def block_of(x, q, n):
    """The block of coordinate x when n is cut into q blocks by block_lo."""
    base, extra = divmod(n, q)
    big = extra * (base + 1)
    return x // (base + 1) if x < big else extra + (x - big) // base


def dims_create(p, nd):
    """MPI_Dims_create(p, nd): balanced, non-increasing."""
    dims = [1] * nd
    factors, f, m = [], 2, p
    while m > 1:
        while m % f == 0:
            factors.append(f)
            m //= f
        f += 1
    for f in sorted(factors, reverse=True):
        dims[dims.index(min(dims))] *= f
    return sorted(dims, reverse=True)


def runs(array, owners):
    """`array ID FIRST LAST RANK` lines for consecutive elements of one owner."""
    out, first = [], 0
    for i in range(1, len(owners) + 1):
        if i == len(owners) or owners[i] != owners[first]:
            out.append(f"array {array} {first} {i - 1} {owners[first]}")
            first = i
    return out


def grid_owners(shape, dims, interior=None, offset=0):
    """Owner of every element of a row-major grid of `shape`; with `interior`
    (extents) and `offset` (ghost cells before it), the interior is cut and
    ghost cells go with their nearest interior cell."""
    interior = interior or shape
    owners = []
    for index in range(math.prod(shape)):
        coords, rest = [], index
        for extent in reversed(shape):
            rest, c = divmod(rest, extent)
            coords.append(c)
        coords.reverse()
        rank = 0
        for c, n, q in zip(coords, interior, dims):
            x = min(max(c - offset, 0), n - 1)
            rank = rank * q + block_of(x, q, n)
        owners.append(rank)
    return owners


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    app, args, p = sys.argv[1], [int(a) for a in sys.argv[2].split()], int(sys.argv[3])
    # KIND=NUMBER: the first array of each kind (the others of its extent follow it).
    numbers = {kind: int(n) for kind, n in (a.split("=") for a in sys.argv[4:])}
    lines = [f"# {app} {' '.join(map(str, args))} on {p} processes: the MPI reference's decomposition"]
    if app in ("heat2d", "redblack"):  # u (#1), unew or f aligned; MPI_Dims_create(P, 2) blocks of n x n
        n = args[0]
        lines += runs(1, grid_owners([n, n], dims_create(p, 2)))
    elif app == "matmul":  # A (#1), B, C aligned; sqrt(P) x sqrt(P) blocks
        n, q = args[0], math.isqrt(p)
        if q * q != p:
            sys.exit(f"matmul: P={p} is not a perfect square")
        lines += runs(1, grid_owners([n, n], [q, q]))
    elif app == "minighost":  # grid[v], gnew[v] (#1 ...) aligned; (n+2)^3 with ghosts
        nx, ny, nz = args[:3]
        lines += runs(1, grid_owners([nx + 2, ny + 2, nz + 2], dims_create(p, 3), [nx, ny, nz], offset=1))
    elif app == "spmv":  # rowptr #1, colidx #2, val #3, x #4, y #5 (aligned): row blocks
        # colidx and val are packed by rowptr, which the map cannot see: they
        # stay block (inputs, each sent at most once where a cut misses a row).
        # rowptr holds loop bounds, structure rather than data: not in a map.
        n = args[0]
        lines += runs(4, [block_of(r, p, n) for r in range(n)])
    elif app == "lulesh":  # element and node arrays named by `numbers` (below), the rest block
        s, q = args[0], round(p ** (1 / 3))
        if q ** 3 != p:
            sys.exit(f"lulesh: P={p} is not a cube")
        elements = grid_owners([s, s, s], [q, q, q])
        # A node goes with its lowest-indexed element (examples/lulesh/cube_estimate.cc).
        nodes = grid_owners([s + 1, s + 1, s + 1], [q, q, q], [s, s, s], offset=1)
        for kind, array in numbers.items():
            if kind in ("nodelist", "element_ints"):  # connectivity: structure, not data (not in a map)
                continue
            if kind == "nodes":
                lines += runs(array, nodes)
            else:  # one value per element (doubles, or ints: arrays of another extent)
                lines += runs(array, elements)
    else:
        sys.exit(f"reference_maps.py: unknown app '{app}'")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""minife_boxmap.py P > MAP: miniFE ref's own decomposition of a 10^3 run as a
`commanalyzer estimate --distribution MAP` file, for P = 2, 4 or 8.

BoxPartition bisects the 10^3 element box (x, then y, then z); a rank owns
the nodes of its half, 5 below and 6 from node 5 on, of the 11 per edge. Row
r = x + 11 y + 121 z. The map places the CG vectors (array #15 and the arrays
aligned with it), the row arrays (#3, #4, #5) and the CSR columns and
coefficients (#6, #7: 2 or 3 entries per dimension, 29791 in all) by row, as
the array numbers of tools/validate_public.sh --code minife's analysis
(-O2) have them.
"""
import sys

P = int(sys.argv[1])
dims = {2: (2, 1, 1), 4: (2, 2, 1), 8: (2, 2, 2)}[P]


def owner(r):
    x, y, z = r % 11, (r // 11) % 11, r // 121
    half = lambda c, p: 0 if p == 1 or c < 5 else 1
    return half(z, dims[2]) * dims[0] * dims[1] + half(y, dims[1]) * dims[0] + half(x, dims[0])


def nnz(r):
    n = 1
    for c in (r % 11, (r // 11) % 11, r // 121):
        n *= 2 if c in (0, 10) else 3
    return n


off = 0
for r in range(1331):
    o = owner(r)
    for a in (15, 3, 4, 5):
        print(f"array {a} {r} {r} {o}")
    for a in (6, 7):
        print(f"array {a} {off} {off + nnz(r) - 1} {o}")
    off += nnz(r)

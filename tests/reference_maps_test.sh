#!/usr/bin/env bash
# tools/reference_maps.py: the MPI references' decompositions as maps.
#   - dims_create agrees with the MPI standard's examples of MPI_Dims_create;
#   - block_of inverts block_lo (the first n % q blocks one longer);
#   - the heat2d map of a 5 x 5 grid on 4 processes is the 2 x 2 blocks of
#     rows 0-2 / 3-4 and columns 0-2 / 3-4, ranks row-major.
set -euo pipefail
script="$1"
python3 - "$script" <<'PY'
import importlib.util, subprocess, sys
spec = importlib.util.spec_from_file_location("reference_maps", sys.argv[1])
rm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rm)
# MPI standard, MPI_Dims_create examples.
for (p, nd), want in {(6, 2): [3, 2], (7, 2): [7, 1], (6, 3): [3, 2, 1], (7, 3): [7, 1, 1],
                      (32, 3): [4, 4, 2], (27, 3): [3, 3, 3]}.items():
    assert rm.dims_create(p, nd) == want, (p, nd, rm.dims_create(p, nd), want)
def block_lo(c, q, n):
    return c * (n // q) + min(c, n % q)
for n in range(1, 40):
    for q in range(1, n + 1):
        for c in range(q):
            lo, hi = block_lo(c, q, n), block_lo(c + 1, q, n)
            assert all(rm.block_of(x, q, n) == c for x in range(lo, hi)), (n, q, c)
out = subprocess.run([sys.executable, sys.argv[1], "heat2d", "5 1", "4"], check=True, capture_output=True,
                     text=True).stdout.splitlines()[1:]
owners = {}
for line in out:
    _, array, first, last, rank = line.split()
    assert array == "1"
    for e in range(int(first), int(last) + 1):
        owners[e] = int(rank)
want = {i * 5 + j: (0 if i < 3 else 2) + (0 if j < 3 else 1) for i in range(5) for j in range(5)}
assert owners == want, owners
print("reference_maps: dims_create, block_of and the heat2d map hold")
PY

#!/usr/bin/env python3
"""What LULESH 2.0's MPI code sends per cycle, exchange by exchange, and
what one owner per node would need instead.

  tools/public/lulesh2_traffic.py [--size N] [--procs 8,27,64] [--measured DIR]

N is the global edge in elements (P = q^3 ranks of (N/q)^3 elements each,
as tools/validate_public.sh runs it). Counted from the code's own
exchanges (lulesh-comm.cc), 8-byte reals:

  forces     CommSBN, MSG_COMM_SBN: fx, fy, fz of every node a rank shares,
             sent to every rank sharing it (all 26 directions, both ways);
             each rank then sums the node itself
  pos/vel    MSG_SYNC_POS_VEL (SEDOV_SYNC_POS_VEL_EARLY, the shipped
             default): x, y, z, xd, yd, zd of shared nodes, one way only
             (13 of the 26 directions); _NONE leaves it out
  gradients  MSG_MONOQ: delv_xi, delv_eta, delv_zeta of the elements on
             each face, both ways (faces only)

One owner per node (owner-computes, each node with the rank of its
element of the same index) needs: the forces of a shared node from each
other rank once (one way), its positions and velocities back to each
(one way), and of a face neighbour's gradients only the one along the
face's normal (CalcMonotonicQRegionForElems reads delv_xi of its xi
neighbours, delv_eta of its eta neighbours, ...).

With --measured DIR (a validate_public.sh --out folder), the counted
totals are checked against measured_pP.json and
measured_SEDOV_SYNC_POS_VEL_NONE_pP.json (p2p bytes per cycle).
"""
import argparse
import itertools
import json
import os
import sys

REAL = 8


def cycle_traffic(n, q):
    """Bytes and messages per cycle of each exchange, for q^3 ranks."""
    e = n // q  # elements per rank and dimension
    shipped = {"forces": [0, 0], "pos/vel": [0, 0], "gradients": [0, 0]}
    for rank in itertools.product(range(q), repeat=3):
        for d in itertools.product((-1, 0, 1), repeat=3):
            if d == (0, 0, 0):
                continue
            other = tuple(r + s for r, s in zip(rank, d))
            if not all(0 <= x < q for x in other):
                continue
            k = sum(1 for s in d if s)  # 1 face, 2 edge, 3 corner
            shared = (e + 1) ** (3 - k)
            shipped["forces"][0] += shared * 3 * REAL
            shipped["forces"][1] += 1
            if d < (0, 0, 0):  # one of each pair of directions
                shipped["pos/vel"][0] += shared * 6 * REAL
                shipped["pos/vel"][1] += 1
            if k == 1:
                shipped["gradients"][0] += e * e * 3 * REAL
                shipped["gradients"][1] += 1
    # One owner per node: node i of N+1 per dimension goes with element
    # min(i, N-1), so rank coordinate min(i, N-1) // e.
    need = {"forces": [0, set()], "pos/vel": [0, set()], "gradients": [0, set()]}
    owner = lambda c: min(c, n - 1) // e
    for node in itertools.product(range(n + 1), repeat=3):
        touching = set()
        for corner in itertools.product((-1, 0), repeat=3):
            el = tuple(c + s for c, s in zip(node, corner))
            if all(0 <= x < n for x in el):
                touching.add(tuple(x // e for x in el))
        home = tuple(owner(c) for c in node)
        for r in touching - {home}:
            need["forces"][0] += 3 * REAL
            need["forces"][1].add((r, home))
            need["pos/vel"][0] += 6 * REAL
            need["pos/vel"][1].add((home, r))
    for rank in itertools.product(range(q), repeat=3):
        for axis in range(3):
            for step in (-1, 1):
                other = list(rank)
                other[axis] += step
                if 0 <= other[axis] < q:
                    need["gradients"][0] += e * e * REAL
                    need["gradients"][1].add((rank, tuple(other)))
    need = {k: [b, len(m)] for k, (b, m) in need.items()}
    return shipped, need


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=12)
    ap.add_argument("--procs", default="8,27,64")
    ap.add_argument("--measured")
    a = ap.parse_args()
    ok = True
    print("| P | exchange | shipped B / msgs per cycle | one owner per node B / msgs |")
    print("|---:|---|---:|---:|")
    for p in (int(x) for x in a.procs.split(",")):
        q = round(p ** (1 / 3))
        if q ** 3 != p or a.size % q:
            sys.exit(f"lulesh2_traffic.py: P={p} is not a cube whose root divides {a.size}")
        shipped, need = cycle_traffic(a.size, q)
        for k in shipped:
            print(f"| {p} | {k} | {shipped[k][0]:,} / {shipped[k][1]:,} | {need[k][0]:,} / {need[k][1]:,} |")
        total = {k: sum(v[0] for v in d.values()) for k, d in (("shipped", shipped), ("need", need))}
        none = total["shipped"] - shipped["pos/vel"][0]
        print(f"| {p} | **all** | {total['shipped']:,} (_NONE: {none:,}) | {total['need']:,} |")
        if a.measured:
            for name, counted in (("measured", total["shipped"]), ("measured_SEDOV_SYNC_POS_VEL_NONE", none)):
                path = os.path.join(a.measured, f"{name}_p{p}.json")
                m = json.load(open(path))
                per_cycle = m["p2p_bytes"] / m["iterations"]
                if per_cycle != counted:
                    ok = False
                    print(f"{path}: {per_cycle:,.0f} B per cycle measured, {counted:,} counted", file=sys.stderr)
    if a.measured:
        print("counted = measured" if ok else "counted != measured", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

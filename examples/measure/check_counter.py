#!/usr/bin/env python3
"""Exact check of pmpi_counter's JSON for counter_selftest.c on N ranks.

Usage: check_counter.py N counts.json   (exit status 0 iff everything matches)
The expected traffic is modelled here independently of the C code.
"""
import json
import sys


def expected(n):
    p2p = [[0] * n for _ in range(n)]
    msg = [[0] * n for _ in range(n)]
    coll = [[0] * n for _ in range(n)]
    colls = {}
    iters = [dict(p2p_bytes=0, p2p_messages=0, collective_bytes=0,
                  collective_calls=0) for _ in range(2)]

    def send(it, i, j, b):
        p2p[i][j] += b
        msg[i][j] += 1
        if it is not None and i != j:
            iters[it]['p2p_bytes'] += b
            iters[it]['p2p_messages'] += 1

    def coll_call(it, name, pairs):
        c = colls.setdefault(name, dict(calls=0, bytes=0))
        c['calls'] += 1
        iters[it]['collective_calls'] += 1
        for i, j, b in pairs:
            if i != j and b:
                coll[i][j] += b
                c['bytes'] += b
                iters[it]['collective_bytes'] += b

    everyone = range(n)
    send(None, 0, 1, 80)  # before Pcontrol(0)
    # iteration 1
    for r in everyone:
        send(0, r, (r + 1) % n, 40)
        send(0, r, (r + 2) % n, 12)
        if r + 1 < n:
            send(0, r, r + 1, 7)
    coll_call(0, 'MPI_Bcast', [(1, j, 32) for j in everyone])
    coll_call(0, 'MPI_Allreduce', [(j, 0, 16) for j in everyone] +
              [(0, j, 16) for j in everyone])
    # iteration 2
    coll_call(1, 'MPI_Reduce', [(j, 0, 12) for j in everyone])
    coll_call(1, 'MPI_Gather', [(j, 0, 16) for j in everyone])
    coll_call(1, 'MPI_Scatter', [(n - 1, j, 8) for j in everyone])
    coll_call(1, 'MPI_Allgather', [(i, j, 4) for i in everyone for j in everyone])
    coll_call(1, 'MPI_Alltoall', [(i, j, 16) for i in everyone for j in everyone])
    coll_call(1, 'MPI_Allgatherv',
              [(i, j, 8 * (i + 1)) for i in everyone for j in everyone])
    coll_call(1, 'MPI_Gatherv', [(j, 0, 4 * (j + 1)) for j in everyone])
    coll_call(1, 'MPI_Scatterv', [(0, j, 4 * (2 * j + 1)) for j in everyone])
    coll_call(1, 'MPI_Alltoallv',
              [(i, j, 4 * (i + j + 1)) for i in everyone for j in everyone])
    coll_call(1, 'MPI_Barrier', [])
    for parity in (0, 1):
        members = sorted([r for r in everyone if r % 2 == parity], reverse=True)
        coll_call(1, 'MPI_Bcast', [(members[0], j, 8) for j in members])
        if len(members) > 1:
            send(1, members[0], members[1], 24)
    for r in everyone:
        send(1, r, r, 8)  # self
        send(1, r, (r + 1) % n, 32)  # persistent, started twice
        send(1, r, (r + 1) % n, 32)
    send(None, 2, 0, 8)  # region tail, after the last iteration mark

    p2p_bytes = sum(p2p[i][j] for i in everyone for j in everyone if i != j)
    p2p_msgs = sum(msg[i][j] for i in everyone for j in everyone if i != j)
    cbytes = sum(c['bytes'] for c in colls.values())
    ccalls = sum(c['calls'] for c in colls.values())
    for it in iters:
        it['total_bytes'] = it['p2p_bytes'] + it['collective_bytes']
    return {
        'procs': n, 'p2p_bytes': p2p_bytes, 'p2p_messages': p2p_msgs,
        'p2p_self_bytes': 8 * n, 'collective_bytes': cbytes,
        'collective_calls': ccalls, 'total_bytes': p2p_bytes + cbytes,
        'iterations': 2, 'matrix': p2p, 'messages_matrix': msg,
        'collective_matrix': coll, 'collectives': colls, 'per_iteration': iters,
    }


def main():
    n = int(sys.argv[1])
    with open(sys.argv[2]) as f:
        got = json.load(f)
    want = expected(n)
    bad = 0
    for key, val in want.items():
        if got.get(key) != val:
            bad += 1
            print(f'MISMATCH {key}:\n  got  {got.get(key)}\n  want {val}')
    extra = set(got) - set(want)
    if extra:
        bad += 1
        print(f'unexpected keys: {sorted(extra)}')
    print(f'N={n}: total_bytes={got.get("total_bytes")} '
          f'({"OK" if not bad else f"{bad} mismatches"})')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

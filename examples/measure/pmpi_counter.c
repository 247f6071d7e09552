// pmpi_counter.c: PMPI interposition library that measures the MPI traffic of
// an application with the logical-volume convention of docs/DESIGN.md.
//
// Build:  mpicc -O2 -shared -fPIC -o libpmpi_counter.so pmpi_counter.c
// Use:    mpirun -x LD_PRELOAD=$PWD/libpmpi_counter.so -x CA_PMPI_OUT=out.json ./app
//
// Counting state
//   * enabled from MPI_Init; MPI_Pcontrol(0) disables, MPI_Pcontrol(1) enables;
//   * MPI_Pcontrol(2) (while enabled) marks the end of one iteration of the
//     region of interest; the JSON gets "iterations" and "per_iteration".
//
// What is counted (only while enabled)
//   * point-to-point sends, at the sender: MPI_Send/Isend/Ssend/Issend/Rsend/
//     Irsend/Bsend/Ibsend, the send half of MPI_Sendrecv(_replace), persistent
//     sends (MPI_{,S,R,B}send_init + MPI_Start/Startall). bytes = count *
//     MPI_Type_size(type); one message per call. Sends to MPI_PROC_NULL are
//     ignored. Sends to self go on the matrix diagonal and into
//     "p2p_self_bytes" but not into p2p_bytes / total_bytes.
//   * collectives, logical volume with N = communicator size and m = bytes of
//     one rank's block:  Bcast (N-1)m, Reduce (N-1)m, Allreduce 2(N-1)m,
//     Gather/Scatter (N-1)m, Allgather N(N-1)m, Alltoall N(N-1)m,
//     Gatherv/Scatterv: sum of the blocks of the non-root ranks,
//     Allgatherv: (N-1) * sum of all blocks, Alltoallv: sum over i != j of the
//     block i sends to j. Barrier counts a call with 0 bytes. Each collective
//     call is counted once (on the root, or on rank 0 of the communicator;
//     Alltoallv: every rank adds the blocks it sends, rank 0 adds the call).
//   * "collective_matrix" attributes the logical collective volume to world
//     rank pairs: Bcast/Scatter(v): root->each; Reduce/Gather(v): each->root;
//     Allreduce: each->rank 0 of comm and rank 0 of comm->each (reduce +
//     broadcast); Allgather(v)/Alltoall(v): every block to every other rank.
//     "matrix"/"messages_matrix" are point-to-point only (world ranks,
//     row = sender, column = receiver). total_bytes = p2p_bytes +
//     collective_bytes = sum of matrix off-diagonal + sum of collective_matrix.
//
// At MPI_Finalize the counts are combined on rank 0 with PMPI calls (not
// counted) and rank 0 writes $CA_PMPI_OUT (default pmpi_counts.json).
//
// Not intercepted (not counted): nonblocking/neighbourhood collectives,
// Reduce_scatter(_block), Scan/Exscan, one-sided, intercommunicators.
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long u64;

enum {
  C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_GATHER, C_GATHERV, C_SCATTER,
  C_SCATTERV, C_ALLGATHER, C_ALLGATHERV, C_ALLTOALL, C_ALLTOALLV, C_COUNT
};
static const char *const kCollName[C_COUNT] = {
    "MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce",
    "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv",
    "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv"};

typedef struct {  // one per iteration mark, local counts of this rank
  u64 p2p_bytes, p2p_msgs, coll_bytes, coll_calls;
} IterRec;

static int g_enabled = 0;
static int g_inited = 0;
static int g_wsize = 1, g_wrank = 0;
static u64 *g_p2p_bytes;   // [g_wsize] bytes this rank sent to each world rank
static u64 *g_p2p_msgs;    // [g_wsize]
static u64 *g_coll_mat;    // [g_wsize * g_wsize] collective logical volume
static u64 g_coll_calls[C_COUNT], g_coll_bytes[C_COUNT];
static u64 g_tot_p2p_bytes, g_tot_p2p_msgs, g_tot_coll_bytes, g_tot_coll_calls;
static IterRec g_last;  // totals at the previous iteration mark
static IterRec *g_iters;
static size_t g_niters, g_cap_iters;
static int g_keyval = MPI_KEYVAL_INVALID;

// ---------------------------------------------------------------- rank maps
// Per-communicator table comm rank -> world rank, cached as an attribute.
static int free_map(MPI_Comm comm, int key, void *val, void *extra) {
  (void)comm; (void)key; (void)extra;
  free(val);
  return MPI_SUCCESS;
}

static const int *world_map(MPI_Comm comm) {
  int flag = 0;
  int *map = NULL;
  PMPI_Comm_get_attr(comm, g_keyval, &map, &flag);
  if (flag) return map;
  int n;
  MPI_Group g, wg;
  PMPI_Comm_size(comm, &n);
  map = malloc(sizeof(int) * (size_t)(n + 1));
  int *ranks = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) ranks[i] = i;
  PMPI_Comm_group(comm, &g);
  PMPI_Comm_group(MPI_COMM_WORLD, &wg);
  PMPI_Group_translate_ranks(g, n, ranks, wg, map);
  PMPI_Group_free(&g);
  PMPI_Group_free(&wg);
  free(ranks);
  map[n] = -1;
  PMPI_Comm_set_attr(comm, g_keyval, map);
  return map;
}

static int to_world(MPI_Comm comm, int r) {
  if (comm == MPI_COMM_WORLD) return r;
  return world_map(comm)[r];
}

static u64 type_bytes(int count, MPI_Datatype t) {
  int sz = 0;
  PMPI_Type_size(t, &sz);
  return (u64)count * (u64)sz;
}

// ---------------------------------------------------------------- recording
static void rec_p2p(int dest, MPI_Comm comm, u64 bytes) {
  if (!g_enabled || dest == MPI_PROC_NULL || dest < 0) return;
  int w = to_world(comm, dest);
  if (w < 0 || w >= g_wsize) return;
  g_p2p_bytes[w] += bytes;
  g_p2p_msgs[w] += 1;
  if (w != g_wrank) {
    g_tot_p2p_bytes += bytes;
    g_tot_p2p_msgs += 1;
  }
}

static void rec_call(int kind) {  // call count, once per collective call
  g_coll_calls[kind] += 1;
  g_tot_coll_calls += 1;
}

static void rec_pair(int kind, MPI_Comm comm, int from, int to, u64 bytes) {
  if (from == to || bytes == 0) return;
  int wf = to_world(comm, from), wt = to_world(comm, to);
  g_coll_mat[(size_t)wf * (size_t)g_wsize + (size_t)wt] += bytes;
  g_coll_bytes[kind] += bytes;
  g_tot_coll_bytes += bytes;
}

static void comm_info(MPI_Comm comm, int *n, int *me) {
  PMPI_Comm_size(comm, n);
  PMPI_Comm_rank(comm, me);
}

// root -> every other rank, m bytes each (Bcast, Scatter)
static void rec_one_to_all(int kind, MPI_Comm comm, int root, u64 m) {
  int n, me;
  comm_info(comm, &n, &me);
  if (me != root) return;
  rec_call(kind);
  for (int j = 0; j < n; ++j) rec_pair(kind, comm, root, j, m);
}

// every other rank -> root, m bytes each (Reduce, Gather)
static void rec_all_to_one(int kind, MPI_Comm comm, int root, u64 m) {
  int n, me;
  comm_info(comm, &n, &me);
  if (me != root) return;
  rec_call(kind);
  for (int j = 0; j < n; ++j) rec_pair(kind, comm, j, root, m);
}

// ---------------------------------------------------------------- init/ctl
static void setup(void) {
  PMPI_Comm_size(MPI_COMM_WORLD, &g_wsize);
  PMPI_Comm_rank(MPI_COMM_WORLD, &g_wrank);
  g_p2p_bytes = calloc((size_t)g_wsize, sizeof(u64));
  g_p2p_msgs = calloc((size_t)g_wsize, sizeof(u64));
  g_coll_mat = calloc((size_t)g_wsize * (size_t)g_wsize, sizeof(u64));
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_map, &g_keyval, NULL);
  g_inited = 1;
  g_enabled = 1;
}

int MPI_Init(int *argc, char ***argv) {
  int rc = PMPI_Init(argc, argv);
  setup();
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  setup();
  return rc;
}

static void mark_iteration(void) {
  if (g_niters == g_cap_iters) {
    g_cap_iters = g_cap_iters ? 2 * g_cap_iters : 256;
    g_iters = realloc(g_iters, g_cap_iters * sizeof(IterRec));
  }
  IterRec now = {g_tot_p2p_bytes, g_tot_p2p_msgs, g_tot_coll_bytes,
                 g_tot_coll_calls};
  IterRec d = {now.p2p_bytes - g_last.p2p_bytes, now.p2p_msgs - g_last.p2p_msgs,
               now.coll_bytes - g_last.coll_bytes,
               now.coll_calls - g_last.coll_calls};
  g_iters[g_niters++] = d;
  g_last = now;
}

int MPI_Pcontrol(const int level, ...) {
  if (level == 0) {
    g_enabled = 0;
  } else if (level == 1) {
    if (!g_enabled) {  // iteration deltas start at region entry
      g_last.p2p_bytes = g_tot_p2p_bytes;
      g_last.p2p_msgs = g_tot_p2p_msgs;
      g_last.coll_bytes = g_tot_coll_bytes;
      g_last.coll_calls = g_tot_coll_calls;
    }
    g_enabled = 1;
  } else if (level == 2) {
    if (g_enabled) mark_iteration();
  }
  return MPI_SUCCESS;
}

// ---------------------------------------------------------------- p2p
int MPI_Send(const void *buf, int count, MPI_Datatype t, int dest, int tag,
             MPI_Comm comm) {
  rec_p2p(dest, comm, type_bytes(count, t));
  return PMPI_Send(buf, count, t, dest, tag, comm);
}
int MPI_Ssend(const void *buf, int count, MPI_Datatype t, int dest, int tag,
              MPI_Comm comm) {
  rec_p2p(dest, comm, type_bytes(count, t));
  return PMPI_Ssend(buf, count, t, dest, tag, comm);
}
int MPI_Rsend(const void *buf, int count, MPI_Datatype t, int dest, int tag,
              MPI_Comm comm) {
  rec_p2p(dest, comm, type_bytes(count, t));
  return PMPI_Rsend(buf, count, t, dest, tag, comm);
}
int MPI_Bsend(const void *buf, int count, MPI_Datatype t, int dest, int tag,
              MPI_Comm comm) {
  rec_p2p(dest, comm, type_bytes(count, t));
  return PMPI_Bsend(buf, count, t, dest, tag, comm);
}
int MPI_Isend(const void *buf, int count, MPI_Datatype t, int dest, int tag,
              MPI_Comm comm, MPI_Request *req) {
  rec_p2p(dest, comm, type_bytes(count, t));
  return PMPI_Isend(buf, count, t, dest, tag, comm, req);
}
int MPI_Issend(const void *buf, int count, MPI_Datatype t, int dest, int tag,
               MPI_Comm comm, MPI_Request *req) {
  rec_p2p(dest, comm, type_bytes(count, t));
  return PMPI_Issend(buf, count, t, dest, tag, comm, req);
}
int MPI_Irsend(const void *buf, int count, MPI_Datatype t, int dest, int tag,
               MPI_Comm comm, MPI_Request *req) {
  rec_p2p(dest, comm, type_bytes(count, t));
  return PMPI_Irsend(buf, count, t, dest, tag, comm, req);
}
int MPI_Ibsend(const void *buf, int count, MPI_Datatype t, int dest, int tag,
               MPI_Comm comm, MPI_Request *req) {
  rec_p2p(dest, comm, type_bytes(count, t));
  return PMPI_Ibsend(buf, count, t, dest, tag, comm, req);
}
int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest,
                 int stag, void *rbuf, int rcount, MPI_Datatype rtype,
                 int source, int rtag, MPI_Comm comm, MPI_Status *status) {
  rec_p2p(dest, comm, type_bytes(scount, stype));
  return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
                       source, rtag, comm, status);
}
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype t, int dest,
                         int stag, int source, int rtag, MPI_Comm comm,
                         MPI_Status *status) {
  rec_p2p(dest, comm, type_bytes(count, t));
  return PMPI_Sendrecv_replace(buf, count, t, dest, stag, source, rtag, comm,
                               status);
}

// Persistent sends: remember (request -> comm, dest, bytes); count at Start.
typedef struct {
  MPI_Request req;
  MPI_Comm comm;
  int dest;
  u64 bytes;
} Persist;
static Persist *g_persist;
static size_t g_npersist, g_cap_persist;

static void persist_add(MPI_Request req, MPI_Comm comm, int dest, u64 bytes) {
  if (g_npersist == g_cap_persist) {
    g_cap_persist = g_cap_persist ? 2 * g_cap_persist : 64;
    g_persist = realloc(g_persist, g_cap_persist * sizeof(Persist));
  }
  Persist p = {req, comm, dest, bytes};
  g_persist[g_npersist++] = p;
}
static void persist_start(MPI_Request req) {
  for (size_t i = 0; i < g_npersist; ++i)
    if (g_persist[i].req == req) {
      rec_p2p(g_persist[i].dest, g_persist[i].comm, g_persist[i].bytes);
      return;
    }
}
#define PERSIST_INIT(NAME)                                                    \
  int MPI_##NAME(const void *buf, int count, MPI_Datatype t, int dest,        \
                 int tag, MPI_Comm comm, MPI_Request *req) {                  \
    int rc = PMPI_##NAME(buf, count, t, dest, tag, comm, req);                \
    if (rc == MPI_SUCCESS) persist_add(*req, comm, dest, type_bytes(count, t)); \
    return rc;                                                                \
  }
PERSIST_INIT(Send_init)
PERSIST_INIT(Ssend_init)
PERSIST_INIT(Rsend_init)
PERSIST_INIT(Bsend_init)

int MPI_Start(MPI_Request *req) {
  persist_start(*req);
  return PMPI_Start(req);
}
int MPI_Startall(int n, MPI_Request reqs[]) {
  for (int i = 0; i < n; ++i) persist_start(reqs[i]);
  return PMPI_Startall(n, reqs);
}
int MPI_Request_free(MPI_Request *req) {
  for (size_t i = 0; i < g_npersist; ++i)
    if (g_persist[i].req == *req) {
      g_persist[i] = g_persist[--g_npersist];
      break;
    }
  return PMPI_Request_free(req);
}

// ---------------------------------------------------------------- collectives
int MPI_Barrier(MPI_Comm comm) {
  if (g_enabled) {
    int n, me;
    comm_info(comm, &n, &me);
    if (me == 0) rec_call(C_BARRIER);
  }
  return PMPI_Barrier(comm);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm) {
  if (g_enabled) rec_one_to_all(C_BCAST, comm, root, type_bytes(count, t));
  return PMPI_Bcast(buf, count, t, root, comm);
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype t,
               MPI_Op op, int root, MPI_Comm comm) {
  if (g_enabled) rec_all_to_one(C_REDUCE, comm, root, type_bytes(count, t));
  return PMPI_Reduce(sbuf, rbuf, count, t, op, root, comm);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype t,
                  MPI_Op op, MPI_Comm comm) {
  if (g_enabled) {
    int n, me;
    comm_info(comm, &n, &me);
    if (me == 0) {  // logical reduce to rank 0 + broadcast from rank 0
      u64 m = type_bytes(count, t);
      rec_call(C_ALLREDUCE);
      for (int j = 1; j < n; ++j) {
        rec_pair(C_ALLREDUCE, comm, j, 0, m);
        rec_pair(C_ALLREDUCE, comm, 0, j, m);
      }
    }
  }
  return PMPI_Allreduce(sbuf, rbuf, count, t, op, comm);
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
               int rcount, MPI_Datatype rtype, int root, MPI_Comm comm) {
  // At the root the receive block size is always significant (also in place).
  if (g_enabled) rec_all_to_one(C_GATHER, comm, root, type_bytes(rcount, rtype));
  return PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                const int rcounts[], const int displs[], MPI_Datatype rtype,
                int root, MPI_Comm comm) {
  if (g_enabled) {
    int n, me;
    comm_info(comm, &n, &me);
    if (me == root) {
      rec_call(C_GATHERV);
      for (int j = 0; j < n; ++j)
        rec_pair(C_GATHERV, comm, j, root, type_bytes(rcounts[j], rtype));
    }
  }
  return PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root,
                      comm);
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                int rcount, MPI_Datatype rtype, int root, MPI_Comm comm) {
  if (g_enabled) rec_one_to_all(C_SCATTER, comm, root, type_bytes(scount, stype));
  return PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
}

int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[],
                 MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                 int root, MPI_Comm comm) {
  if (g_enabled) {
    int n, me;
    comm_info(comm, &n, &me);
    if (me == root) {
      rec_call(C_SCATTERV);
      for (int j = 0; j < n; ++j)
        rec_pair(C_SCATTERV, comm, root, j, type_bytes(scounts[j], stype));
    }
  }
  return PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root,
                       comm);
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                  int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  if (g_enabled) {
    int n, me;
    comm_info(comm, &n, &me);
    if (me == 0) {
      u64 m = type_bytes(rcount, rtype);
      rec_call(C_ALLGATHER);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) rec_pair(C_ALLGATHER, comm, i, j, m);
    }
  }
  return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype,
                   void *rbuf, const int rcounts[], const int displs[],
                   MPI_Datatype rtype, MPI_Comm comm) {
  if (g_enabled) {
    int n, me;
    comm_info(comm, &n, &me);
    if (me == 0) {
      rec_call(C_ALLGATHERV);
      for (int i = 0; i < n; ++i) {
        u64 m = type_bytes(rcounts[i], rtype);
        for (int j = 0; j < n; ++j) rec_pair(C_ALLGATHERV, comm, i, j, m);
      }
    }
  }
  return PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype,
                         comm);
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                 int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  if (g_enabled) {
    int n, me;
    comm_info(comm, &n, &me);
    if (me == 0) {
      u64 m = type_bytes(rcount, rtype);
      rec_call(C_ALLTOALL);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) rec_pair(C_ALLTOALL, comm, i, j, m);
    }
  }
  return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                  MPI_Datatype stype, void *rbuf, const int rcounts[],
                  const int rdispls[], MPI_Datatype rtype, MPI_Comm comm) {
  if (g_enabled) {
    int n, me;
    comm_info(comm, &n, &me);
    if (me == 0) rec_call(C_ALLTOALLV);
    // Each rank adds the blocks it sends itself (only it knows them). With
    // MPI_IN_PLACE the send blocks are described by the receive arguments.
    int inplace = (sbuf == MPI_IN_PLACE);
    for (int j = 0; j < n; ++j) {
      u64 m = inplace ? type_bytes(rcounts[j], rtype)
                      : type_bytes(scounts[j], stype);
      rec_pair(C_ALLTOALLV, comm, me, j, m);
    }
  }
  return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls,
                        rtype, comm);
}

// ---------------------------------------------------------------- output
static void write_matrix(FILE *f, const char *name, const u64 *m, int n) {
  fprintf(f, "  \"%s\": [\n", name);
  for (int i = 0; i < n; ++i) {
    fprintf(f, "    [");
    for (int j = 0; j < n; ++j)
      fprintf(f, "%s%llu", j ? ", " : "", m[(size_t)i * (size_t)n + (size_t)j]);
    fprintf(f, "]%s\n", i + 1 < n ? "," : "");
  }
  fprintf(f, "  ],\n");
}

int MPI_Finalize(void) {
  if (!g_inited) return PMPI_Finalize();
  g_enabled = 0;
  const int n = g_wsize;
  const size_t nn = (size_t)n * (size_t)n;
  const int root = (g_wrank == 0);

  u64 *p2p = root ? calloc(nn, sizeof(u64)) : NULL;
  u64 *msg = root ? calloc(nn, sizeof(u64)) : NULL;
  u64 *coll = root ? calloc(nn, sizeof(u64)) : NULL;
  PMPI_Gather(g_p2p_bytes, n, MPI_UNSIGNED_LONG_LONG, p2p, n,
              MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  PMPI_Gather(g_p2p_msgs, n, MPI_UNSIGNED_LONG_LONG, msg, n,
              MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  PMPI_Reduce(g_coll_mat, coll, (int)nn, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0,
              MPI_COMM_WORLD);

  u64 loc[2 * C_COUNT + 4], glob[2 * C_COUNT + 4];
  for (int k = 0; k < C_COUNT; ++k) {
    loc[k] = g_coll_calls[k];
    loc[C_COUNT + k] = g_coll_bytes[k];
  }
  loc[2 * C_COUNT + 0] = g_tot_p2p_bytes;
  loc[2 * C_COUNT + 1] = g_tot_p2p_msgs;
  loc[2 * C_COUNT + 2] = g_tot_coll_bytes;
  loc[2 * C_COUNT + 3] = g_tot_coll_calls;
  PMPI_Reduce(loc, glob, 2 * C_COUNT + 4, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0,
              MPI_COMM_WORLD);

  // Iteration records: all ranks should agree on the number; pad to the max.
  u64 nit = g_niters, nit_max = 0, nit_min = 0;
  PMPI_Allreduce(&nit, &nit_max, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX,
                 MPI_COMM_WORLD);
  PMPI_Allreduce(&nit, &nit_min, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN,
                 MPI_COMM_WORLD);
  u64 *it_loc = calloc((size_t)nit_max * 4 + 1, sizeof(u64));
  u64 *it_glob = root ? calloc((size_t)nit_max * 4 + 1, sizeof(u64)) : NULL;
  for (size_t i = 0; i < g_niters; ++i) {
    it_loc[4 * i + 0] = g_iters[i].p2p_bytes;
    it_loc[4 * i + 1] = g_iters[i].p2p_msgs;
    it_loc[4 * i + 2] = g_iters[i].coll_bytes;
    it_loc[4 * i + 3] = g_iters[i].coll_calls;
  }
  if (nit_max > 0)
    PMPI_Reduce(it_loc, it_glob, (int)(4 * nit_max), MPI_UNSIGNED_LONG_LONG,
                MPI_SUM, 0, MPI_COMM_WORLD);

  if (root) {
    u64 self_bytes = 0;
    for (int i = 0; i < n; ++i) self_bytes += p2p[(size_t)i * n + i];
    const char *path = getenv("CA_PMPI_OUT");
    if (!path || !*path) path = "pmpi_counts.json";
    FILE *f = fopen(path, "w");
    if (!f) {
      fprintf(stderr, "pmpi_counter: cannot write %s\n", path);
    } else {
      u64 p2pb = glob[2 * C_COUNT + 0], p2pm = glob[2 * C_COUNT + 1];
      u64 cb = glob[2 * C_COUNT + 2], cc = glob[2 * C_COUNT + 3];
      fprintf(f, "{\n  \"procs\": %d,\n", n);
      fprintf(f, "  \"p2p_bytes\": %llu,\n  \"p2p_messages\": %llu,\n", p2pb,
              p2pm);
      fprintf(f, "  \"p2p_self_bytes\": %llu,\n", self_bytes);
      fprintf(f, "  \"collective_bytes\": %llu,\n  \"collective_calls\": %llu,\n",
              cb, cc);
      fprintf(f, "  \"total_bytes\": %llu,\n", p2pb + cb);
      fprintf(f, "  \"iterations\": %llu,\n", nit_max);
      if (nit_min != nit_max)
        fprintf(f, "  \"iterations_min\": %llu,\n", nit_min);
      write_matrix(f, "matrix", p2p, n);
      write_matrix(f, "messages_matrix", msg, n);
      write_matrix(f, "collective_matrix", coll, n);
      fprintf(f, "  \"collectives\": {");
      int first = 1;
      for (int k = 0; k < C_COUNT; ++k) {
        if (glob[k] == 0) continue;
        fprintf(f, "%s\n    \"%s\": {\"calls\": %llu, \"bytes\": %llu}",
                first ? "" : ",", kCollName[k], glob[k], glob[C_COUNT + k]);
        first = 0;
      }
      fprintf(f, "%s},\n", first ? "" : "\n  ");
      fprintf(f, "  \"per_iteration\": [");
      for (u64 i = 0; i < nit_max; ++i) {
        const u64 *r = it_glob + 4 * i;
        fprintf(f,
                "%s\n    {\"p2p_bytes\": %llu, \"p2p_messages\": %llu, "
                "\"collective_bytes\": %llu, \"collective_calls\": %llu, "
                "\"total_bytes\": %llu}",
                i ? "," : "", r[0], r[1], r[2], r[3], r[0] + r[2]);
      }
      fprintf(f, "%s]\n}\n", nit_max ? "\n  " : "");
      fclose(f);
    }
  }
  free(p2p);
  free(msg);
  free(coll);
  free(it_loc);
  free(it_glob);
  return PMPI_Finalize();
}

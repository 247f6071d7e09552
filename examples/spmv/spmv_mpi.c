// spmv_mpi.c: MPI reference version of spmv_seq.c.
//
// Decomposition: 1-D row blocks. Rank p owns rows [lo_p, lo_p + len_p) of A
// (built directly from the global row index), the same chunk of the initial
// vector x and computes the same chunk of y = A x.
//
// Communication scheme (the one the CommAnalyzer paper describes: "each
// process fetches the RHS entries it needs, the LHS is exchanged with
// collective communication each iteration"):
//   * set-up (not counted): every rank lists the remote columns its rows
//     reference, grouped by owner; the lists are exchanged once
//     (MPI_Alltoall + MPI_Alltoallv) so every rank knows what to send to whom;
//   * before the first product (iteration 0, counted): each rank fetches
//     exactly the remote x entries it needs, point-to-point (MPI_Irecv/Isend,
//     one message per rank pair that has a non-empty list, 8 bytes/entry);
//   * every later iteration: before the local product the previous product
//     (the LHS blocks) is exchanged with MPI_Allgatherv, so every rank holds
//     the whole x = y it multiplies by. After the last product nothing reads
//     the other ranks' blocks, so there is no final exchange.
// Per iteration: the fetch (iteration 0) or an Allgatherv, logical volume
// (P-1) * n * 8 bytes.
// The checksum is reduced with MPI_Reduce after the counted region.
//
// Usage: mpirun -np P spmv_mpi [n=4096] [iters=20] [nrand=3]
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAND 2
#define NRAND_DEFAULT 3

static unsigned hash2(unsigned a, unsigned b) {
  unsigned h = (a * 2654435761u) ^ (b * 2246822519u + 0x9e3779b9u);
  h ^= h >> 15;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  return h;
}

static int make_row(int i, int n, int nrand, int *cols, double *vals) {
  int c = 0;
  for (int j = i - BAND; j <= i + BAND; ++j)
    if (j >= 0 && j < n && j != i) cols[c++] = j;
  for (int r = 0; r < nrand; ++r) cols[c++] = (int)(hash2((unsigned)i, (unsigned)r) % (unsigned)n);
  double wsum = 0.0;
  for (int p = 0; p < c; ++p) {
    vals[p] = 1.0 + (double)(hash2((unsigned)i, 100u + (unsigned)p) % 1000u) / 1000.0;
    wsum += vals[p];
  }
  for (int p = 0; p < c; ++p) vals[p] = 0.5 * vals[p] / wsum;
  cols[c] = i;
  vals[c] = 0.5;
  return c + 1;
}

static double x_init(int i) { return 1.0 + (double)(hash2((unsigned)i, 7777u) % 1000u) / 100.0; }

static int block_lo(int c, int q, int n) { return c * (n / q) + (c < n % q ? c : n % q); }
static int block_len(int c, int q, int n) { return n / q + (c < n % q ? 1 : 0); }
static int owner(int i, int q, int n) {  // inverse of block_lo/block_len
  int b = n / q, r = n % q;
  return i < r * (b + 1) ? i / (b + 1) : r + (i - r * (b + 1)) / b;
}
static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Pcontrol(0);
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  int iters = argc > 2 ? atoi(argv[2]) : 20;
  int nrand = argc > 3 ? atoi(argv[3]) : NRAND_DEFAULT;
  int P, me;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (n < P || iters < 0 || nrand < 0) {
    fprintf(stderr, "spmv_mpi: need n >= P, iters >= 0 and nrand >= 0\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int lo = block_lo(me, P, n), len = block_len(me, P, n);
  const int maxrow = 2 * BAND + nrand + 1;

  // Local rows, global column indices.
  int *rowptr = malloc(sizeof(int) * (len + 1));
  int *colidx = malloc(sizeof(int) * (size_t)(len > 0 ? len : 1) * maxrow);
  double *val = malloc(sizeof(double) * (size_t)(len > 0 ? len : 1) * maxrow);
  rowptr[0] = 0;
  for (int i = 0; i < len; ++i)
    rowptr[i + 1] = rowptr[i] + make_row(lo + i, n, nrand, colidx + rowptr[i], val + rowptr[i]);
  double *x = malloc(sizeof(double) * n);  // full-length vector
  double *y = malloc(sizeof(double) * (len > 0 ? len : 1));
  for (int i = 0; i < len; ++i) x[lo + i] = x_init(lo + i);

  // ---- set-up of the communication lists (not counted)
  int nnz = rowptr[len];
  int *need = malloc(sizeof(int) * (nnz > 0 ? nnz : 1));
  int nneed = 0;
  for (int p = 0; p < nnz; ++p)
    if (colidx[p] < lo || colidx[p] >= lo + len) need[nneed++] = colidx[p];
  qsort(need, nneed, sizeof(int), cmp_int);
  int u = 0;
  for (int k = 0; k < nneed; ++k)
    if (u == 0 || need[k] != need[u - 1]) need[u++] = need[k];
  nneed = u;  // sorted, unique -> grouped by owner
  int *rcnt = calloc(P, sizeof(int)), *rdsp = calloc(P, sizeof(int));
  int *scnt = calloc(P, sizeof(int)), *sdsp = calloc(P, sizeof(int));
  for (int k = 0; k < nneed; ++k) rcnt[owner(need[k], P, n)]++;
  MPI_Alltoall(rcnt, 1, MPI_INT, scnt, 1, MPI_INT, MPI_COMM_WORLD);
  int nsend = 0;
  for (int p = 0; p < P; ++p) {
    rdsp[p] = p ? rdsp[p - 1] + rcnt[p - 1] : 0;
    sdsp[p] = nsend;
    nsend += scnt[p];
  }
  int *sendidx = malloc(sizeof(int) * (nsend > 0 ? nsend : 1));  // global rows to send
  MPI_Alltoallv(need, rcnt, rdsp, MPI_INT, sendidx, scnt, sdsp, MPI_INT, MPI_COMM_WORLD);
  double *sendbuf = malloc(sizeof(double) * (nsend > 0 ? nsend : 1));
  double *recvbuf = malloc(sizeof(double) * (nneed > 0 ? nneed : 1));
  MPI_Request *req = malloc(sizeof(MPI_Request) * 2 * P);
  int *bcnt = malloc(sizeof(int) * P), *bdsp = malloc(sizeof(int) * P);
  for (int p = 0; p < P; ++p) {
    bcnt[p] = block_len(p, P, n);
    bdsp[p] = block_lo(p, P, n);
  }

  MPI_Pcontrol(1);
  for (int t = 0; t < iters; ++t) {
    if (t == 0) {  // fetch the remote RHS entries this rank's rows need
      int nreq = 0;
      for (int p = 0; p < P; ++p)
        if (rcnt[p] > 0)
          MPI_Irecv(recvbuf + rdsp[p], rcnt[p], MPI_DOUBLE, p, 0, MPI_COMM_WORLD, &req[nreq++]);
      for (int k = 0; k < nsend; ++k) sendbuf[k] = x[sendidx[k]];
      for (int p = 0; p < P; ++p)
        if (scnt[p] > 0)
          MPI_Isend(sendbuf + sdsp[p], scnt[p], MPI_DOUBLE, p, 0, MPI_COMM_WORLD, &req[nreq++]);
      MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
      for (int k = 0; k < nneed; ++k) x[need[k]] = recvbuf[k];
    } else {  // x = y of the previous product: every rank gets the whole vector
      MPI_Allgatherv(y, len, MPI_DOUBLE, x, bcnt, bdsp, MPI_DOUBLE, MPI_COMM_WORLD);
    }
    for (int i = 0; i < len; ++i) {
      double sum = 0.0;
      for (int p = rowptr[i]; p < rowptr[i + 1]; ++p) sum += val[p] * x[colidx[p]];
      y[i] = sum;
    }
    MPI_Pcontrol(2);
  }
  MPI_Pcontrol(0);
  // x = y of the last product: each rank's own block only, as nothing in the
  // region reads the rest.
  for (int i = 0; i < len; ++i) x[lo + i] = y[i];

  double local = 0.0, check = 0.0;
  for (int i = lo; i < lo + len; ++i) local += x[i] * (1.0 + (double)(i % 7));
  MPI_Reduce(&local, &check, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  int nnz_all = 0;
  MPI_Reduce(&nnz, &nnz_all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0) {
    printf("spmv n=%d nnz=%d iters=%d x[0] %.6e procs=%d\n", n, nnz_all, iters, x[0], P);
    printf("checksum %.12e\n", check);
  }
  free(rowptr); free(colidx); free(val); free(x); free(y); free(need);
  free(rcnt); free(rdsp); free(scnt); free(sdsp); free(sendidx);
  free(sendbuf); free(recvbuf); free(req); free(bcnt); free(bdsp);
  MPI_Finalize();
  return 0;
}

// redblack_mpi.c: MPI reference version of redblack_seq.c.
//
// Decomposition: 2-D block decomposition of the n x n grid over a
// MPI_Dims_create(P, 2) process grid (MPI_Cart_create, non-periodic), as
// heat2d_mpi.c. Each rank owns a block of rows x cols points (including its
// part of the fixed global boundary) plus a one-point halo, and initialises
// its block and its halo directly from the global indices (the halo's first
// values are known everywhere: no exchange before the first sweep).
//
// A point of one colour reads only points of the other colour, so each
// exchange sends the points of one colour of each boundary line (packed,
// interior points only: the global boundary is every rank's own), with the
// up to 4 face neighbours:
//   * after each red sweep: the red points, which the black sweep reads;
//   * after each black sweep: the black points, which the residual and the
//     next iteration's red sweep read.
// Then MPI_Allreduce(SUM) of 1 double: the residual's squared 2-norm, the
// convergence test. Per iteration (one iteration of the counted region) that
// is two exchanges, each half a boundary line, and one Allreduce. The
// checksum is reduced with MPI_Reduce after the counted region.
//
// Usage: mpirun -np P redblack_mpi [n=64] [iterations=50]
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define OMEGA 1.5
#define TOL 1e-10

static double source(int i, int j, int n) {
  double x = (double)i / (n - 1), y = (double)j / (n - 1);
  return 10.0 * exp(-50.0 * ((x - 0.4) * (x - 0.4) + (y - 0.6) * (y - 0.6)));
}
static double boundary(int j) { return j == 0 ? 1.0 : 0.0; }

// First global index and length of block c of q blocks of n points.
static int block_lo(int c, int q, int n) { return c * (n / q) + (c < n % q ? c : n % q); }
static int block_len(int c, int q, int n) { return n / q + (c < n % q ? 1 : 0); }

// The local block: rows [i0, i0 + ni) and columns [j0, j0 + nj) of the
// global grid, stored with a one-point halo, row stride w.
struct Block {
  int n, i0, ni, j0, nj, w;
  double *u;
};
#define U(b, li, lj) (b)->u[(li) * (b)->w + (lj)]

static int interior(int g, int n) { return g >= 1 && g <= n - 2; }

// Packs (pack = 1) or unpacks the points of `colour` on the line of local
// points (li, lj) + k (di, dj), k = 0 .. len - 1, whose global position is
// inside the grid's interior; with buf NULL only counts them. Returns how
// many.
static int line(struct Block *b, int li, int lj, int di, int dj, int len, int colour, double *buf, int pack) {
  int count = 0;
  for (int k = 0; k < len; ++k, li += di, lj += dj) {
    int gi = b->i0 + li - 1, gj = b->j0 + lj - 1;
    if (!interior(gi, b->n) || !interior(gj, b->n) || (gi + gj) % 2 != colour) continue;
    if (buf != NULL && pack) buf[count] = U(b, li, lj);
    else if (buf != NULL) U(b, li, lj) = buf[count];
    ++count;
  }
  return count;
}

// Sends the points of `colour` of the boundary line facing each neighbour
// and receives the neighbour's into the halo.
static void exchange(struct Block *b, MPI_Comm cart, int colour, int up, int down, int left, int right,
                     double *out, double *in) {
  struct {
    int peer, li, lj, hi, hj, di, dj, len;  // own line, halo line, direction, length
  } sides[4] = {
      {up, 1, 1, 0, 1, 0, 1, b->nj},
      {down, b->ni, 1, b->ni + 1, 1, 0, 1, b->nj},
      {left, 1, 1, 1, 0, 1, 0, b->ni},
      {right, 1, b->nj, 1, b->nj + 1, 1, 0, b->ni},
  };
  MPI_Request req[8];
  int r = 0, offset = 0;
  int at[4], counts[4];
  for (int s = 0; s < 4; ++s) {
    at[s] = offset;
    if (sides[s].peer == MPI_PROC_NULL) continue;
    // What the neighbour sends is this rank's halo line of the same colour.
    counts[s] = line(b, sides[s].hi, sides[s].hj, sides[s].di, sides[s].dj, sides[s].len, colour, NULL, 0);
    if (counts[s] > 0) MPI_Irecv(in + offset, counts[s], MPI_DOUBLE, sides[s].peer, 0, cart, &req[r++]);
    offset += sides[s].len;
  }
  offset = 0;
  for (int s = 0; s < 4; ++s) {
    if (sides[s].peer == MPI_PROC_NULL) continue;
    int c = line(b, sides[s].li, sides[s].lj, sides[s].di, sides[s].dj, sides[s].len, colour, out + offset, 1);
    if (c > 0) MPI_Isend(out + offset, c, MPI_DOUBLE, sides[s].peer, 0, cart, &req[r++]);
    offset += sides[s].len;
  }
  MPI_Waitall(r, req, MPI_STATUSES_IGNORE);
  for (int s = 0; s < 4; ++s) {
    if (sides[s].peer == MPI_PROC_NULL || counts[s] == 0) continue;
    line(b, sides[s].hi, sides[s].hj, sides[s].di, sides[s].dj, sides[s].len, colour, in + at[s], 0);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Pcontrol(0);
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int iterations = argc > 2 ? atoi(argv[2]) : 50;
  int nprocs, rank;
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
  MPI_Dims_create(nprocs, 2, dims);
  if (n < 3 || iterations < 0 || n < dims[0] || n < dims[1]) {
    fprintf(stderr, "usage: redblack_mpi [n>=3, n>=process grid] [iterations]\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, 2, coords);
  int up, down, left, right;
  MPI_Cart_shift(cart, 0, 1, &up, &down);
  MPI_Cart_shift(cart, 1, 1, &left, &right);

  struct Block blk = {n, block_lo(coords[0], dims[0], n), block_len(coords[0], dims[0], n),
                      block_lo(coords[1], dims[1], n), block_len(coords[1], dims[1], n), 0, NULL};
  struct Block *b = &blk;
  b->w = b->nj + 2;
  b->u = calloc((size_t)(b->ni + 2) * b->w, sizeof(double));
  double *f = calloc((size_t)(b->ni + 2) * b->w, sizeof(double));
  double *out = malloc(sizeof(double) * 2 * (b->ni + b->nj)), *in = malloc(sizeof(double) * 2 * (b->ni + b->nj));
  const double h2 = 1.0 / ((double)(n - 1) * (n - 1));
  // The block and its halo take their initial values from the global
  // indices: no exchange is needed before the first sweep.
  for (int li = 0; li <= b->ni + 1; ++li)
    for (int lj = 0; lj <= b->nj + 1; ++lj) {
      int i = b->i0 + li - 1, j = b->j0 + lj - 1;
      if (i < 0 || j < 0 || i > n - 1 || j > n - 1) continue;
      int edge = i == 0 || j == 0 || i == n - 1 || j == n - 1;
      U(b, li, lj) = edge ? boundary(j) : 0.0;
      f[li * b->w + lj] = source(i, j, n);
    }

  double norm = 0.0;
  int it;
  MPI_Pcontrol(1);
  for (it = 0; it < iterations; ++it) {
    for (int colour = 0; colour < 2; ++colour) {
      for (int li = 1; li <= b->ni; ++li)
        for (int lj = 1; lj <= b->nj; ++lj) {
          int i = b->i0 + li - 1, j = b->j0 + lj - 1;
          if (!interior(i, n) || !interior(j, n) || (i + j) % 2 != colour) continue;
          double gs = 0.25 * (U(b, li - 1, lj) + U(b, li + 1, lj) + U(b, li, lj - 1) + U(b, li, lj + 1) +
                              h2 * f[li * b->w + lj]);
          U(b, li, lj) += OMEGA * (gs - U(b, li, lj));
        }
      exchange(b, cart, colour, up, down, left, right, out, in);
    }
    double local = 0.0, sum = 0.0;
    for (int li = 1; li <= b->ni; ++li)
      for (int lj = 1; lj <= b->nj; ++lj) {
        int i = b->i0 + li - 1, j = b->j0 + lj - 1;
        if (!interior(i, n) || !interior(j, n)) continue;
        double r = h2 * f[li * b->w + lj] + U(b, li - 1, lj) + U(b, li + 1, lj) + U(b, li, lj - 1) +
                   U(b, li, lj + 1) - 4.0 * U(b, li, lj);
        local += r * r;
      }
    MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, cart);
    norm = sqrt(sum);
    MPI_Pcontrol(2);
    if (norm < TOL) break;
  }
  MPI_Pcontrol(0);

  double local = 0.0, check = 0.0;
  for (int li = 1; li <= b->ni; ++li)
    for (int lj = 1; lj <= b->nj; ++lj) {
      int i = b->i0 + li - 1, j = b->j0 + lj - 1;
      local += U(b, li, lj) * (1.0 + (double)(i + 2 * j) / n);
    }
  MPI_Reduce(&local, &check, 1, MPI_DOUBLE, MPI_SUM, 0, cart);
  if (rank == 0) {
    printf("redblack n=%d iterations=%d residual %.6e procs=%d grid=%dx%d\n", n, it, norm, nprocs, dims[0], dims[1]);
    printf("checksum %.12e\n", check);
  }
  MPI_Comm_free(&cart);
  free(b->u);
  free(f);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}

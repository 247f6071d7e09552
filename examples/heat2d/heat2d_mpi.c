// heat2d_mpi.c: MPI reference version of heat2d_seq.c.
//
// Decomposition: 2-D block decomposition of the n x n grid over a
// MPI_Dims_create(P, 2) process grid (MPI_Cart_create, non-periodic). Each
// rank owns a block of rows x cols points (including its part of the fixed
// global boundary) plus a one-point halo; it initialises its block directly
// from the global indices.
//
// Per time step (= one iteration of the counted region):
//   * halo exchange with the up to 4 face neighbours: MPI_Sendrecv of its
//     first/last owned row (contiguous, cols doubles) and first/last owned
//     column (MPI_Type_vector, rows doubles) -- whole block lines;
//   * MPI_Allreduce(MAX) of 1 double: the max change (residual), used as the
//     convergence test.
// The checksum is reduced with MPI_Reduce after the counted region.
//
// Usage: mpirun -np P heat2d_mpi [n=64] [steps=100]
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ALPHA 0.2
#define TOL 1e-12

static double initial(int i, int j, int n) {
  double x = (double)i / (n - 1), y = (double)j / (n - 1);
  double v = 800.0 * x * (1.0 - x) * y * (1.0 - y);
  if (i == 0) v = 100.0;
  return v;
}

// First global index and length of block c of q blocks of n points.
static int block_lo(int c, int q, int n) { return c * (n / q) + (c < n % q ? c : n % q); }
static int block_len(int c, int q, int n) { return n / q + (c < n % q ? 1 : 0); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Pcontrol(0);
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int steps = argc > 2 ? atoi(argv[2]) : 100;
  int nprocs, rank;
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
  MPI_Dims_create(nprocs, 2, dims);
  if (n < 3 || steps < 0 || n < dims[0] || n < dims[1]) {
    fprintf(stderr, "usage: heat2d_mpi [n>=3, n>=process grid] [steps]\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, 2, coords);
  int up, down, left, right;
  MPI_Cart_shift(cart, 0, 1, &up, &down);
  MPI_Cart_shift(cart, 1, 1, &left, &right);

  const int i0 = block_lo(coords[0], dims[0], n), ni = block_len(coords[0], dims[0], n);
  const int j0 = block_lo(coords[1], dims[1], n), nj = block_len(coords[1], dims[1], n);
  const int w = nj + 2;  // row stride of the local array with halo
#define U(a, li, lj) a[(li) * w + (lj)]
  double *u = calloc((size_t)(ni + 2) * w, sizeof(double));
  double *unew = calloc((size_t)(ni + 2) * w, sizeof(double));
  for (int li = 1; li <= ni; ++li)
    for (int lj = 1; lj <= nj; ++lj)
      U(u, li, lj) = U(unew, li, lj) = initial(i0 + li - 1, j0 + lj - 1, n);
  // Local range of updated points: skip the fixed global boundary.
  const int ib = (i0 == 0) ? 2 : 1, ie = (i0 + ni == n) ? ni - 1 : ni;
  const int jb = (j0 == 0) ? 2 : 1, je = (j0 + nj == n) ? nj - 1 : nj;

  MPI_Datatype column;
  MPI_Type_vector(ni, 1, w, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);

  double residual = 0.0;
  int done = 0, t;
  MPI_Pcontrol(1);
  for (t = 0; t < steps && !done; ++t) {
    // Halo exchange: rows north/south, columns west/east.
    MPI_Sendrecv(&U(u, 1, 1), nj, MPI_DOUBLE, up, 0, &U(u, ni + 1, 1), nj,
                 MPI_DOUBLE, down, 0, cart, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&U(u, ni, 1), nj, MPI_DOUBLE, down, 1, &U(u, 0, 1), nj,
                 MPI_DOUBLE, up, 1, cart, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&U(u, 1, 1), 1, column, left, 2, &U(u, 1, nj + 1), 1, column,
                 right, 2, cart, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&U(u, 1, nj), 1, column, right, 3, &U(u, 1, 0), 1, column,
                 left, 3, cart, MPI_STATUS_IGNORE);

    double diff = 0.0;
    for (int li = ib; li <= ie; ++li)
      for (int lj = jb; lj <= je; ++lj) {
        double c = U(u, li, lj);
        U(unew, li, lj) = c + ALPHA * (U(u, li - 1, lj) + U(u, li + 1, lj) +
                                       U(u, li, lj - 1) + U(u, li, lj + 1) -
                                       4.0 * c);
        double d = fabs(U(unew, li, lj) - c);
        if (d > diff) diff = d;
      }
    for (int li = ib; li <= ie; ++li)
      for (int lj = jb; lj <= je; ++lj) U(u, li, lj) = U(unew, li, lj);
    MPI_Allreduce(&diff, &residual, 1, MPI_DOUBLE, MPI_MAX, cart);
    done = residual < TOL;
    MPI_Pcontrol(2);
  }
  MPI_Pcontrol(0);

  double local = 0.0, sum = 0.0;
  for (int li = 1; li <= ni; ++li)
    for (int lj = 1; lj <= nj; ++lj) {
      int i = i0 + li - 1, j = j0 + lj - 1;
      local += U(u, li, lj) * (1.0 + (double)(i + 2 * j) / n);
    }
  MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, cart);
  if (rank == 0) {
    printf("heat2d n=%d steps=%d residual %.6e procs=%d grid=%dx%d\n", n, t,
           residual, nprocs, dims[0], dims[1]);
    printf("checksum %.12e\n", sum);
  }
  MPI_Type_free(&column);
  MPI_Comm_free(&cart);
  free(u);
  free(unew);
  MPI_Finalize();
  return 0;
}

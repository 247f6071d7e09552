// matmul_mpi.c: MPI reference version of matmul_seq.c (SUMMA).
//
// Decomposition: q x q process grid (P = q*q: 1, 4, 9, 16, 64, ...), 2-D
// block distribution of A, B and C (block (r, c) holds rows of block r and
// columns of block c; blocks may differ by one row/column when q does not
// divide n). Every rank initialises its blocks of A and B directly.
//
// Counted region = the product = one iteration. For each block step
// k = 0..q-1: the owner of A's block column k broadcasts its A block along
// its process row (MPI_Bcast on the row communicator, root = column k) and
// the owner of B's block row k broadcasts its B block along its process
// column (MPI_Bcast on the column communicator, root = row k); every rank
// then adds A_k x B_k to its C block. Total logical volume:
// 2 (q-1) n^2 * 8 bytes. The checksum is reduced after the region.
//
// Usage: mpirun -np P matmul_mpi [n=64]
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double a_init(int i, int j) { return 1.0 + (double)((7 * i + 3 * j) % 11) / 11.0; }
static double b_init(int i, int j) { return 1.0 + (double)((5 * i + 2 * j) % 13) / 13.0; }

static int block_lo(int c, int q, int n) { return c * (n / q) + (c < n % q ? c : n % q); }
static int block_len(int c, int q, int n) { return n / q + (c < n % q ? 1 : 0); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Pcontrol(0);
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int nprocs, rank;
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  int q = (int)lround(sqrt((double)nprocs));
  if (q * q != nprocs || n < q) {
    fprintf(stderr, "matmul_mpi: P must be a perfect square and n >= sqrt(P)\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int dims[2] = {q, q}, periods[2] = {0, 0}, coords[2];
  MPI_Comm grid, rowcomm, colcomm;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
  MPI_Comm_rank(grid, &rank);
  MPI_Cart_coords(grid, rank, 2, coords);
  int keep_col[2] = {0, 1}, keep_row[2] = {1, 0};
  MPI_Cart_sub(grid, keep_col, &rowcomm);  // my process row; rank = column
  MPI_Cart_sub(grid, keep_row, &colcomm);  // my process column; rank = row
  const int myrow = coords[0], mycol = coords[1];
  const int i0 = block_lo(myrow, q, n), mi = block_len(myrow, q, n);
  const int j0 = block_lo(mycol, q, n), nj = block_len(mycol, q, n);
  const int wmax = block_len(0, q, n);

  double *A = malloc(sizeof(double) * mi * nj);  // A block (myrow, mycol)
  double *B = malloc(sizeof(double) * mi * nj);  // B block (myrow, mycol)
  double *C = calloc((size_t)mi * nj, sizeof(double));
  double *Ak = malloc(sizeof(double) * mi * wmax);  // A block (myrow, k)
  double *Bk = malloc(sizeof(double) * wmax * nj);  // B block (k, mycol)
  for (int i = 0; i < mi; ++i)
    for (int j = 0; j < nj; ++j) {
      A[i * nj + j] = a_init(i0 + i, j0 + j);
      B[i * nj + j] = b_init(i0 + i, j0 + j);
    }

  MPI_Pcontrol(1);
  for (int k = 0; k < q; ++k) {
    const int wk = block_len(k, q, n);
    if (mycol == k) memcpy(Ak, A, sizeof(double) * mi * wk);
    MPI_Bcast(Ak, mi * wk, MPI_DOUBLE, k, rowcomm);
    if (myrow == k) memcpy(Bk, B, sizeof(double) * wk * nj);
    MPI_Bcast(Bk, wk * nj, MPI_DOUBLE, k, colcomm);
    for (int i = 0; i < mi; ++i)
      for (int j = 0; j < nj; ++j) {
        double sum = C[i * nj + j];
        for (int kk = 0; kk < wk; ++kk) sum += Ak[i * wk + kk] * Bk[kk * nj + j];
        C[i * nj + j] = sum;
      }
  }
  MPI_Pcontrol(2);
  MPI_Pcontrol(0);

  double local = 0.0, check = 0.0;
  for (int i = 0; i < mi; ++i)
    for (int j = 0; j < nj; ++j)
      local += C[i * nj + j] * (1.0 + (double)((i0 + i) + 2 * (j0 + j)) / n);
  MPI_Reduce(&local, &check, 1, MPI_DOUBLE, MPI_SUM, 0, grid);
  double c00 = C[0];
  MPI_Bcast(&c00, 1, MPI_DOUBLE, 0, grid);
  if (rank == 0) {
    printf("matmul n=%d C[0][0] %.6e procs=%d grid=%dx%d\n", n, c00, nprocs, q, q);
    printf("checksum %.12e\n", check);
  }
  free(A); free(B); free(C); free(Ak); free(Bk);
  MPI_Comm_free(&rowcomm);
  MPI_Comm_free(&colcomm);
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return 0;
}

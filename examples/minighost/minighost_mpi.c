// minighost_mpi.c: MPI reference version of minighost_seq.c.
//
// Decomposition: 3-D block decomposition of the nx x ny x nz grid over a
// MPI_Dims_create(P, 3) process grid (MPI_Cart_create, non-periodic); every
// rank owns lx x ly x lz points of every variable plus a one-point ghost
// layer and initialises them directly from the global indices.
//
// Per time step (= one iteration of the counted region), for every variable:
//   * face halo exchange with the up to 6 face neighbours: MPI_Sendrecv of
//     each owned boundary face (MPI_Type_create_subarray, ly*lz, lx*lz or
//     lx*ly doubles); no edges/corners (7-point stencil);
//   * MPI_Allreduce(SUM) of 1 double: the variable's global sum.
// The checksum is reduced with MPI_Reduce after the counted region.
//
// Usage: mpirun -np P minighost_mpi [nx=32] [ny=32] [nz=32] [nvars=4] [steps=10]
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double initial(int v, int i, int j, int k) {
  unsigned h = 2166136261u;
  int key[4] = {v, i, j, k};
  for (int q = 0; q < 4; ++q) h = (h ^ (unsigned)key[q]) * 16777619u;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return (double)(h % 1000003u) / 1000003.0;
}

static int block_lo(int c, int q, int n) { return c * (n / q) + (c < n % q ? c : n % q); }
static int block_len(int c, int q, int n) { return n / q + (c < n % q ? 1 : 0); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Pcontrol(0);
  int n[3];
  n[0] = argc > 1 ? atoi(argv[1]) : 32;
  n[1] = argc > 2 ? atoi(argv[2]) : 32;
  n[2] = argc > 3 ? atoi(argv[3]) : 32;
  int nvars = argc > 4 ? atoi(argv[4]) : 4;
  int steps = argc > 5 ? atoi(argv[5]) : 10;
  int nprocs, rank;
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0}, coords[3];
  MPI_Dims_create(nprocs, 3, dims);
  if (nvars < 1 || steps < 0 || n[0] < dims[0] || n[1] < dims[1] || n[2] < dims[2]) {
    fprintf(stderr, "minighost_mpi: bad arguments or too many processes\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, 3, coords);
  int lo[3], len[3], nbr_lo[3], nbr_hi[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] = block_lo(coords[d], dims[d], n[d]);
    len[d] = block_len(coords[d], dims[d], n[d]);
    MPI_Cart_shift(cart, d, 1, &nbr_lo[d], &nbr_hi[d]);
  }
  const int lx = len[0], ly = len[1], lz = len[2];
  const int sy = lz + 2, sx = (ly + 2) * (lz + 2);
  const size_t npts = (size_t)(lx + 2) * (ly + 2) * (lz + 2);

  // face[d]: one owned face orthogonal to dimension d (start offset applied
  // through the buffer pointer).
  MPI_Datatype face[3];
  int sizes[3] = {lx + 2, ly + 2, lz + 2}, zero[3] = {0, 0, 0};
  for (int d = 0; d < 3; ++d) {
    int sub[3] = {lx, ly, lz};
    sub[d] = 1;
    MPI_Type_create_subarray(3, sizes, sub, zero, MPI_ORDER_C, MPI_DOUBLE, &face[d]);
    MPI_Type_commit(&face[d]);
  }
  const int stride[3] = {sx, sy, 1};
  const int base = sx + sy + 1;  // offset of owned point (1,1,1)

  double **grid = malloc(sizeof(double *) * nvars);
  double **gnew = malloc(sizeof(double *) * nvars);
  double *gsum = calloc(nvars, sizeof(double));
  for (int v = 0; v < nvars; ++v) {
    grid[v] = calloc(npts, sizeof(double));
    gnew[v] = calloc(npts, sizeof(double));
    for (int i = 1; i <= lx; ++i)
      for (int j = 1; j <= ly; ++j)
        for (int k = 1; k <= lz; ++k)
          grid[v][i * sx + j * sy + k] =
              initial(v, lo[0] + i - 1, lo[1] + j - 1, lo[2] + k - 1);
  }

  MPI_Pcontrol(1);
  for (int t = 0; t < steps; ++t) {
    for (int v = 0; v < nvars; ++v) {
      double *g = grid[v], *gn = gnew[v];
      for (int d = 0; d < 3; ++d) {
        // owned low face -> low neighbour; high ghost <- high neighbour
        MPI_Sendrecv(g + base, 1, face[d], nbr_lo[d], 2 * d, g + base + len[d] * stride[d],
                     1, face[d], nbr_hi[d], 2 * d, cart, MPI_STATUS_IGNORE);
        // owned high face -> high neighbour; low ghost <- low neighbour
        MPI_Sendrecv(g + base + (len[d] - 1) * stride[d], 1, face[d], nbr_hi[d],
                     2 * d + 1, g + base - stride[d], 1, face[d], nbr_lo[d],
                     2 * d + 1, cart, MPI_STATUS_IGNORE);
      }
      for (int i = 1; i <= lx; ++i)
        for (int j = 1; j <= ly; ++j)
          for (int k = 1; k <= lz; ++k) {
            int c = i * sx + j * sy + k;
            gn[c] = (g[c] + g[c - sx] + g[c + sx] + g[c - sy] + g[c + sy] +
                     g[c - 1] + g[c + 1]) / 7.0;
          }
      double local = 0.0, sum = 0.0;
      for (int i = 1; i <= lx; ++i)
        for (int j = 1; j <= ly; ++j)
          for (int k = 1; k <= lz; ++k) {
            int c = i * sx + j * sy + k;
            g[c] = gn[c];
            local += g[c];
          }
      MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, cart);
      gsum[v] += sum;
    }
    MPI_Pcontrol(2);
  }
  MPI_Pcontrol(0);

  double local = 0.0, check = 0.0;
  for (int v = 0; v < nvars; ++v)
    for (int i = 1; i <= lx; ++i)
      for (int j = 1; j <= ly; ++j)
        for (int k = 1; k <= lz; ++k) {
          int gi = lo[0] + i, gj = lo[1] + j, gk = lo[2] + k;  // 1-based global
          local += grid[v][i * sx + j * sy + k] *
                   (1.0 + v + (double)(gi + 2 * gj + 3 * gk) / (n[0] + n[1] + n[2]));
        }
  if (rank == 0)
    for (int v = 0; v < nvars; ++v) local += 1e-3 * gsum[v];
  MPI_Reduce(&local, &check, 1, MPI_DOUBLE, MPI_SUM, 0, cart);
  if (rank == 0) {
    printf("minighost %dx%dx%d vars=%d steps=%d gsum[0] %.6e procs=%d grid=%dx%dx%d\n",
           n[0], n[1], n[2], nvars, steps, gsum[0], nprocs, dims[0], dims[1], dims[2]);
    printf("checksum %.12e\n", check);
  }
  for (int v = 0; v < nvars; ++v) {
    free(grid[v]);
    free(gnew[v]);
  }
  free(grid);
  free(gnew);
  free(gsum);
  for (int d = 0; d < 3; ++d) MPI_Type_free(&face[d]);
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return 0;
}

// minighost_seq.c: MiniGhost-style 3-D 7-point stencil (average of a point
// and its 6 face neighbours) on an nx x ny x nz grid for nvars variables,
// T time steps. Ghost layer around the grid held at 0. After every step each
// variable's global sum is computed (MiniGhost's "global sum" check) and
// accumulated.
//
// Usage: minighost_seq [nx=32] [ny=32] [nz=32] [nvars=4] [steps=10]
// Region of interest: the time-step loop; one CA_ITERATION per time step.
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"

// Deterministic initial value in [0, 1) from global point and variable.
static double initial(int v, int i, int j, int k) {
  unsigned h = 2166136261u;
  int key[4] = {v, i, j, k};
  for (int q = 0; q < 4; ++q) h = (h ^ (unsigned)key[q]) * 16777619u;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return (double)(h % 1000003u) / 1000003.0;
}

int main(int argc, char **argv) {
  int nx = argc > 1 ? atoi(argv[1]) : 32;
  int ny = argc > 2 ? atoi(argv[2]) : 32;
  int nz = argc > 3 ? atoi(argv[3]) : 32;
  int nvars = argc > 4 ? atoi(argv[4]) : 4;
  int steps = argc > 5 ? atoi(argv[5]) : 10;
  if (nx < 1 || ny < 1 || nz < 1 || nvars < 1 || steps < 0) {
    fprintf(stderr, "usage: %s [nx] [ny] [nz] [nvars] [steps]\n", argv[0]);
    return 1;
  }
  const int sy = nz + 2, sx = (ny + 2) * (nz + 2);  // strides with ghosts
  const size_t npts = (size_t)(nx + 2) * (ny + 2) * (nz + 2);
  double **grid = malloc(sizeof(double *) * nvars);
  double **gnew = malloc(sizeof(double *) * nvars);
  double *gsum = calloc(nvars, sizeof(double));  // accumulated global sums
  for (int v = 0; v < nvars; ++v) {
    grid[v] = calloc(npts, sizeof(double));
    gnew[v] = calloc(npts, sizeof(double));
    for (int i = 1; i <= nx; ++i)
      for (int j = 1; j <= ny; ++j)
        for (int k = 1; k <= nz; ++k)
          grid[v][i * sx + j * sy + k] = initial(v, i - 1, j - 1, k - 1);
  }

  CA_REGION_BEGIN();
  for (int t = 0; t < steps; ++t) {
    for (int v = 0; v < nvars; ++v) {
      double *g = grid[v], *gn = gnew[v];
      for (int i = 1; i <= nx; ++i)
        for (int j = 1; j <= ny; ++j)
          for (int k = 1; k <= nz; ++k) {
            int c = i * sx + j * sy + k;
            gn[c] = (g[c] + g[c - sx] + g[c + sx] + g[c - sy] + g[c + sy] +
                     g[c - 1] + g[c + 1]) / 7.0;
          }
      double sum = 0.0;
      for (int i = 1; i <= nx; ++i)
        for (int j = 1; j <= ny; ++j)
          for (int k = 1; k <= nz; ++k) {
            int c = i * sx + j * sy + k;
            g[c] = gn[c];
            sum += g[c];
          }
      gsum[v] += sum;
    }
    CA_ITERATION();
  }
  CA_REGION_END();

  double check = 0.0;
  for (int v = 0; v < nvars; ++v) {
    for (int i = 1; i <= nx; ++i)
      for (int j = 1; j <= ny; ++j)
        for (int k = 1; k <= nz; ++k)
          check += grid[v][i * sx + j * sy + k] *
                   (1.0 + v + (double)(i + 2 * j + 3 * k) / (nx + ny + nz));
    check += 1e-3 * gsum[v];
  }
  printf("minighost %dx%dx%d vars=%d steps=%d gsum[0] %.6e\n", nx, ny, nz,
         nvars, steps, gsum[0]);
  printf("checksum %.12e\n", check);
  for (int v = 0; v < nvars; ++v) {
    free(grid[v]);
    free(gnew[v]);
  }
  free(grid);
  free(gnew);
  free(gsum);
  return 0;
}

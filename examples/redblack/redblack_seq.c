// redblack_seq.c: red-black successive over-relaxation (SOR) for the 2-D
// Poisson problem -lap(u) = f on an n x n grid with fixed (Dirichlet)
// boundary values. Each iteration updates the red points (i + j even), then
// the black ones (i + j odd), each from its four neighbours of the other
// colour, then computes the residual's 2-norm and stops once it drops
// below a tolerance.
//
// Usage: redblack_seq [n=64] [iterations=50]
// Region of interest: the iteration loop; one CA_ITERATION per iteration.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"

#define OMEGA 1.5  // over-relaxation factor, in (1, 2)
#define TOL 1e-10  // convergence tolerance on the residual's 2-norm

// Right-hand side at global point (i, j): a point source off the centre.
static double source(int i, int j, int n) {
  double x = (double)i / (n - 1), y = (double)j / (n - 1);
  return 10.0 * exp(-50.0 * ((x - 0.4) * (x - 0.4) + (y - 0.6) * (y - 0.6)));
}

// Boundary value at global point (i, j): 1 on the left edge, 0 elsewhere.
static double boundary(int j) { return j == 0 ? 1.0 : 0.0; }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int iterations = argc > 2 ? atoi(argv[2]) : 50;
  if (n < 3 || iterations < 0) {
    fprintf(stderr, "usage: %s [n>=3] [iterations]\n", argv[0]);
    return 1;
  }
  const double h2 = 1.0 / ((double)(n - 1) * (n - 1));
  double *u = malloc(sizeof(double) * n * n);
  double *f = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      int edge = i == 0 || j == 0 || i == n - 1 || j == n - 1;
      u[i * n + j] = edge ? boundary(j) : 0.0;
      f[i * n + j] = source(i, j, n);
    }

  double norm = 0.0;
  int it;
  CA_REGION_BEGIN();
  for (it = 0; it < iterations; ++it) {
    for (int colour = 0; colour < 2; ++colour)
      for (int i = 1; i < n - 1; ++i)
        for (int j = 1 + (i + colour + 1) % 2; j < n - 1; j += 2) {
          double gs = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] +
                              u[i * n + j + 1] + h2 * f[i * n + j]);
          u[i * n + j] += OMEGA * (gs - u[i * n + j]);
        }
    double sum = 0.0;
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j) {
        double r = h2 * f[i * n + j] + u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] +
                   u[i * n + j + 1] - 4.0 * u[i * n + j];
        sum += r * r;
      }
    norm = sqrt(sum);
    CA_ITERATION();
    if (norm < TOL) break;
  }
  CA_REGION_END();

  double check = 0.0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) check += u[i * n + j] * (1.0 + (double)(i + 2 * j) / n);
  printf("redblack n=%d iterations=%d residual %.6e\n", n, it, norm);
  printf("checksum %.12e\n", check);
  free(u);
  free(f);
  return 0;
}

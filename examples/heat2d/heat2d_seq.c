// heat2d_seq.c: explicit 5-point heat diffusion on an n x n grid with fixed
// (Dirichlet) boundary values, T time steps. Every step computes the maximum
// change (residual) and stops early once it drops below a tolerance.
//
// Usage: heat2d_seq [n=64] [steps=100]
// Region of interest: the time-step loop; one CA_ITERATION per time step.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"

#define ALPHA 0.2   // diffusion number, < 0.25 for stability
#define TOL 1e-12   // convergence tolerance on the max change

// Initial temperature at global point (i, j): a smooth bump inside, the top
// edge held at 100, the other edges at 0.
static double initial(int i, int j, int n) {
  double x = (double)i / (n - 1), y = (double)j / (n - 1);
  double v = 800.0 * x * (1.0 - x) * y * (1.0 - y);
  if (i == 0) v = 100.0;
  return v;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int steps = argc > 2 ? atoi(argv[2]) : 100;
  if (n < 3 || steps < 0) {
    fprintf(stderr, "usage: %s [n>=3] [steps]\n", argv[0]);
    return 1;
  }
  double *u = malloc(sizeof(double) * n * n);
  double *unew = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      u[i * n + j] = initial(i, j, n);
      unew[i * n + j] = u[i * n + j];
    }

  double residual = 0.0;
  int done = 0, t;
  CA_REGION_BEGIN();
  for (t = 0; t < steps && !done; ++t) {
    double diff = 0.0;
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j) {
        double c = u[i * n + j];
        unew[i * n + j] = c + ALPHA * (u[(i - 1) * n + j] + u[(i + 1) * n + j] +
                                       u[i * n + j - 1] + u[i * n + j + 1] -
                                       4.0 * c);
        double d = fabs(unew[i * n + j] - c);
        if (d > diff) diff = d;
      }
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j) u[i * n + j] = unew[i * n + j];
    residual = diff;
    done = residual < TOL;
    CA_ITERATION();
  }
  CA_REGION_END();

  double sum = 0.0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      sum += u[i * n + j] * (1.0 + (double)(i + 2 * j) / n);
  printf("heat2d n=%d steps=%d residual %.6e\n", n, t, residual);
  printf("checksum %.12e\n", sum);
  free(u);
  free(unew);
  return 0;
}

// jacobi_swap.c: the textbook 2-D Jacobi iteration with a pointer swap: u
// and v trade roles every step instead of copying back. n x n grid, fixed
// boundary, T steps.
//
// Usage: jacobi_swap [n=64] [T=10]
// An MPI code distributes u and v alike (2-D blocks on a Px x Py grid) and
// exchanges each block's edge rows and columns with its neighbours every
// step: on a 2 x 2 grid, 2 cuts x 2 directions x (n - 2) interior points x 8
// bytes per step.
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int steps = argc > 2 ? atoi(argv[2]) : 10;
  double *u = malloc(sizeof(double) * n * n);
  double *v = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) u[i * n + j] = v[i * n + j] = (i == 0) ? 1.0 : 0.0;
  CA_REGION_BEGIN();
  for (int t = 0; t < steps; ++t) {
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j)
        v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
    double *w = u;
    u = v;
    v = w;
    CA_ITERATION();
  }
  CA_REGION_END();
  double sum = 0;
  for (int i = 0; i < n * n; ++i) sum += u[i];
  printf("jacobi_swap n=%d steps=%d sum %.12e\n", n, steps, sum);
  free(u);
  free(v);
  return 0;
}

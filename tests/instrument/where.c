// where.c: one time step has three loops, in the shape of Hascoet's Fig. 2:
// a gather loop reading its neighbours (a halo exchange before it), a
// reduction over the grid (an Allreduce after it) and a scatter loop that
// writes every point from its own new value and the reduced norm (no
// communication). where.sh checks that the estimate attributes the halo and
// the reduction to these lines.
//
// Usage: where [n=4096] [T=5]
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  int steps = argc > 2 ? atoi(argv[2]) : 5;
  double *u = malloc(sizeof(double) * n), *unew = malloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i) u[i] = unew[i] = (double)(i % 7);
  double norm = 0;
  CA_REGION_BEGIN();
  for (int t = 0; t < steps; ++t) {
    for (int i = 1; i < n - 1; ++i)  // GATHER LOOP
      unew[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);  // GATHER
    double sum = 0;
    for (int i = 1; i < n - 1; ++i)  // REDUCTION LOOP
      sum += unew[i] * unew[i];  // REDUCTION
    norm = sum;
    for (int i = 1; i < n - 1; ++i)  // SCATTER LOOP
      u[i] = unew[i] / (1.0 + norm);  // SCATTER
    CA_ITERATION();
  }
  CA_REGION_END();
  printf("%g %g\n", u[n / 2], norm);
  free(u);
  free(unew);
  return 0;
}

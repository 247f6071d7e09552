/* 1-D Jacobi over n doubles for `steps` steps: the tiny program the
 * consumer workspace analyses. On P processes in blocks every step sends
 * one double each way across each of the P - 1 cuts. */
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 256, steps = argc > 2 ? atoi(argv[2]) : 4;
  double *u = calloc(n, sizeof *u), *unew = calloc(n, sizeof *unew);
  for (int i = 0; i < n; ++i) u[i] = unew[i] = i % 7;
  CA_REGION_BEGIN();
  for (int t = 0; t < steps; ++t) {
    for (int i = 1; i < n - 1; ++i) unew[i] = (u[i - 1] + u[i] + u[i + 1]) / 3;
    for (int i = 1; i < n - 1; ++i) u[i] = unew[i];
    CA_ITERATION();
  }
  CA_REGION_END();
  printf("u[n/2] = %g\n", u[n / 2]);
  free(u);
  free(unew);
  return 0;
}

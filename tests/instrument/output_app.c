// A program whose behaviour must be identical with and without the shim:
// stdout, stderr and exit status.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 50;
  double* u = malloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i) u[i] = sin(i * 0.1);
  double total = 0;
  CA_REGION_BEGIN();
  for (int t = 0; t < 5; ++t) {
    for (int i = 1; i < n - 1; ++i) u[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
    total += u[n / 2];
    CA_ITERATION();
  }
  CA_REGION_END();
  printf("total %.15g\n", total);
  for (int i = 0; i < n; i += n / 5) printf("u[%d] = %.15g\n", i, u[i]);
  fprintf(stderr, "done\n");
  free(u);
  return argc > 2 ? atoi(argv[2]) : 0;  // a chosen status the shim must pass through
}

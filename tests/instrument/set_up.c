// A set-up that computes its data (smoothing passes that update each
// element from its neighbours in place, then a copy) before a 1-D
// relaxation region: the region sends its halo alone, whatever the set-up
// did. With a third argument 0 the region is never reached.
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 4096, steps = argc > 2 ? atoi(argv[2]) : 3;
  const int region = argc > 3 ? atoi(argv[3]) : 1;
  double* u = malloc(n * sizeof *u);
  double* v = malloc(n * sizeof *v);
  for (int i = 0; i < n; ++i) u[i] = 0.0;
  for (int pass = 0; pass < 4; ++pass) {
    for (int i = 1; i < n - 1; ++i) u[i] = (u[i - 1] + u[i] + u[i + 1]) / 3.0 + 0.001 * i;
  }
  for (int i = 0; i < n; ++i) v[i] = 2.0 * u[i];
  if (region) CA_REGION_BEGIN();
  for (int s = 0; s < steps; ++s) {
    for (int i = 1; i < n - 1; ++i) v[i] = 0.5 * (u[i - 1] + u[i + 1]);
    for (int i = 1; i < n - 1; ++i) u[i] = 0.25 * (v[i - 1] + 2.0 * v[i] + v[i + 1]);
    if (region) CA_ITERATION();
  }
  if (region) CA_REGION_END();
  printf("%f\n", u[n / 2]);
  free(u);
  free(v);
  return 0;
}

// A time loop whose every step makes values in a fresh block (the one
// before is freed): the program's memory stays, the analysis grows by a
// step's values each step.
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"

int main(void) {
  const size_t n = (size_t)1 << 17, steps = 200;  // 200 steps of 128 K doubles
  double* previous = calloc(1, sizeof(double));
  double sum = 0;
  CA_REGION_BEGIN();
  for (size_t t = 0; t < steps; ++t) {
    double* a = malloc(n * sizeof(double));
    a[0] = previous[0];
    for (size_t i = 1; i < n; ++i) a[i] = a[i - 1] * 0.5 + (double)i;
    sum += a[n - 1];
    free(previous);
    previous = a;
    CA_ITERATION();
  }
  CA_REGION_END();
  free(previous);
  printf("%f\n", sum);
  return 0;
}

// A time loop whose every step makes values in a fresh block it keeps: the
// analysis grows by a step's values each step.
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"

int main(void) {
  const size_t n = (size_t)1 << 19, steps = 40;  // 40 steps of 512 K doubles (160 MiB in all)
  double** blocks = malloc(steps * sizeof(double*));
  double sum = 0;
  CA_REGION_BEGIN();
  for (size_t t = 0; t < steps; ++t) {
    double* a = blocks[t] = malloc(n * sizeof(double));
    a[0] = sum;
    for (size_t i = 1; i < n; ++i) a[i] = a[i - 1] * 0.5 + (double)i;
    sum += a[n - 1];
    CA_ITERATION();
  }
  CA_REGION_END();
  printf("%f\n", sum);
  return 0;
}

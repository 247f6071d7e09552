// A running maximum over an array, kept in a register (-O2 makes the
// `if` a select) and both stored and tested: its value label and the
// label a decision on it reads name one set (running_max.sh).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 100000;
  double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n), *out = malloc(sizeof(double));
  for (int i = 0; i < n; ++i) {
    a[i] = sin(i);
    b[i] = cos(0.5 * i);
  }
  CA_REGION_BEGIN();
  double m = 0.0;
  for (int i = 0; i < n; ++i) {
    const double d = fabs(a[i] - b[i]);
    if (d > m) m = d;
  }
  out[0] = m;
  if (m < 1e-3) puts("converged");
  CA_ITERATION();
  CA_REGION_END();
  printf("max %.6f\n", out[0]);
  free(a);
  free(b);
  free(out);
  return 0;
}

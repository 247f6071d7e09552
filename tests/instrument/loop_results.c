// Loop results: a dot product returned through a pointer and a minimum
// written with a comparison, each used by every later store. Each is one
// value computed from every element: an Allreduce per step, and no
// point-to-point traffic (x and y aligned, y[i] reads x[i] and y[i]). The
// dot product before the region is one value too, an input of the region.
#include <stdio.h>
#include <stdlib.h>
#include "commanalyzer/annotate.h"
static void dot(int n, const double* a, const double* b, double* out) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  *out = s;
}
static double minimum(int n, const double* a) {
  double m = 1e300;
  for (int i = 0; i < n; ++i) if (a[i] < m) m = a[i];
  return m;
}
int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096, steps = 3;
  double* x = malloc(n * sizeof *x);
  double* y = malloc(n * sizeof *y);
  for (int i = 0; i < n; ++i) x[i] = 1.0 + i % 7, y[i] = 2.0;
  // A set-up that creates more values than the dot product's sources
  // squared (an assembly), then a dot product every step reads (CG's
  // first residual): a reduction, not a label of every element of x and y.
  for (int s = 0; s < 4 * n; ++s)
    for (int i = 0; i < n; ++i) y[i] = y[i] * 0.5 + 1.0;
  double r0;
  dot(n, x, y, &r0);
  CA_REGION_BEGIN();
  for (int t = 0; t < steps; ++t) {
    double r;
    dot(n, x, y, &r);
    double m = minimum(n, x);
    for (int i = 0; i < n; ++i) y[i] = y[i] * 0.5 + x[i] / r + m + r0;
    CA_ITERATION();
  }
  CA_REGION_END();
  printf("%g\n", y[n / 2]);
  return 0;
}

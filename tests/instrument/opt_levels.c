// One program, one profile at every -O level (DESIGN.md, "Optimizer
// independence"). Each piece is something the optimizer changes:
//   - a pointer-swap Jacobi sweep (vectorised at -O2/-O3 unless the build
//     turns the vectorizers off after the user's -O flag);
//   - a 1-D finite-element loop whose element gathers its nodes into a
//     small local array, passes it to a helper (inlined and unrolled into
//     registers above -O1, memory at -O0/-O1: a stack temporary either way)
//     and reads a constant table (folded once unrolled);
//   - a running maximum (`if (d > m) m = d;`: a branch at -O0, a select
//     above), whose result decides the time loop, and a filtered minimum
//     (`if (ok) if (s < m) m = s;`: a select on `ok && s < m` above -O0);
//   - a computed value stored and reused at once (forwarded above -O0);
//   - locals and loop counters (allocas at -O0).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"

static const double weight[4] = {0.125, 0.375, 0.375, 0.125};

static void element(const double xl[4], double fl[4]) {
  double s = 0.0;
  for (int k = 0; k < 4; ++k) s += weight[k] * xl[k];
  for (int k = 0; k < 4; ++k) fl[k] = s - xl[k];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int steps = argc > 2 ? atoi(argv[2]) : 4;
  double *u = malloc(sizeof(double) * n), *v = malloc(sizeof(double) * n);
  double *f = malloc(sizeof(double) * (n + 3));
  for (int i = 0; i < n; ++i) u[i] = v[i] = sin(0.1 * i);
  CA_REGION_BEGIN();
  double change = 1.0;
  for (int t = 0; t < steps && change > 1e-9; ++t) {
    for (int i = 1; i < n - 1; ++i) v[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
    double *tmp = u;
    u = v;
    v = tmp;
    for (int i = 0; i < n + 3; ++i) f[i] = 0.0;
    for (int e = 0; e + 3 < n; ++e) {
      double xl[4], fl[4];
      for (int k = 0; k < 4; ++k) xl[k] = u[e + k];
      element(xl, fl);
      for (int k = 0; k < 4; ++k) f[e + k] += fl[k];
    }
    double step = 1.0;  // a filtered minimum: an and-ed condition above -O0
    for (int i = 0; i < n; ++i) {
      double s = 1.0 / (1.0 + f[i] * f[i]);
      if (f[i] != 0.0) {
        if (s < step) step = s;
      }
    }
    change = 0.0;
    for (int i = 0; i < n; ++i) {
      u[i] += 0.01 * step * f[i];
      double d = fabs(0.01 * f[i] * u[i]);  // u[i] just stored: forwarded
      if (d > change) change = d;
    }
    CA_ITERATION();
  }
  CA_REGION_END();
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += u[i];
  printf("opt_levels n=%d sum %.12e change %.3e\n", n, sum, change);
  return 0;
}

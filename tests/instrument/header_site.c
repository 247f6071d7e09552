// header_site.c: a sweep whose halo-consuming statement is in a header
// (header_site.h) inlined into the loop here, and a second statement of
// the loop's own. header_site.sh checks that the site names the
// statement's file and line and the loop's own file and line, and that
// the two statements are one sweep (one halo exchange a step).
//
// Usage: header_site [n=4096] [T=5]
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"
#include "header_site.h"

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  int steps = argc > 2 ? atoi(argv[2]) : 5;
  double *u = malloc(sizeof(double) * n), *unew = malloc(sizeof(double) * n);
  double *flux = malloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i) u[i] = unew[i] = flux[i] = (double)(i % 7);
  CA_REGION_BEGIN();
  for (int t = 0; t < steps; ++t) {
    for (int i = 1; i < n - 1; ++i) {  // LOOP
      relax(unew, u, i);
      flux[i] = u[i + 1] - u[i - 1];  // OWN STATEMENT
    }
    for (int i = 1; i < n - 1; ++i) u[i] = unew[i] + 1e-3 * flux[i];
    CA_ITERATION();
  }
  CA_REGION_END();
  printf("%g %g\n", u[n / 2], flux[n / 2]);
  free(u);
  free(unew);
  free(flux);
  return 0;
}

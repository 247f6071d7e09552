// checks.c: a Jacobi sweep that checks its data as it goes, on values
// other processes compute: an assert on the neighbours it reads, an exit
// on a jump between neighbours, and a check through a noreturn function of
// its own. Each only decides whether the program stops, so none carries
// data an MPI code would send: checks.sh expects the estimate of the
// program with the checks compiled out (-DNDEBUG), at -O0 and -O2.
//
// Usage: checks [n=4096] [T=5]
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"

__attribute__((noreturn)) static void fail(const char *what, int i) {
  fprintf(stderr, "checks: %s at %d\n", what, i);
  exit(2);
}

#ifdef NDEBUG
#define CHECK(ok, what, i) ((void)0)
#define EXIT_UNLESS(ok, what) ((void)0)
#else
#define CHECK(ok, what, i) ((ok) ? (void)0 : fail(what, i))
#define EXIT_UNLESS(ok, what)              \
  do {                                     \
    if (!(ok)) {                           \
      fprintf(stderr, "checks: %s\n", what); \
      exit(1);                             \
    }                                      \
  } while (0)
#endif

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  int steps = argc > 2 ? atoi(argv[2]) : 5;
  double *u = malloc(sizeof(double) * n), *unew = malloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i) u[i] = unew[i] = (double)(i % 7);
  CA_REGION_BEGIN();
  for (int t = 0; t < steps; ++t) {
    for (int i = 1; i < n - 1; ++i) {
      assert(u[i - 1] + u[i + 1] >= 0);
      unew[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
    }
    for (int i = 1; i < n - 1; ++i) {
      EXIT_UNLESS(unew[i + 1] - unew[i - 1] < 100, "jump between neighbours");
      CHECK(unew[i - 1] * unew[i + 1] >= 0, "sign change", i);
      u[i] = unew[i];
    }
    CA_ITERATION();
  }
  CA_REGION_END();
  printf("%g\n", u[n / 2]);
  free(u);
  free(unew);
  return 0;
}

// Which arrays are indexed indirectly (Profile::Array::indexed_indirectly):
//   #1 x    read at x[col[k]]                       yes
//   #2 y    written at y[i], i a loop counter        no
//   #3 col  read at col[k]                           no (its index is k)
//   #4 a    a[i * g->n + j], n read from a struct    no
//   #5 b    b[j * g->n + i] (a transpose)            no
//   #6 z    z[perm[i]] += ... (a scatter)            yes
//   #7 perm read at perm[i]                          no
//   #8 w    w[entry(perm, i)], a helper reads perm  yes (inlined or not: -O0)
//   #9 v    v[same(i)], a helper returns i            no
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"

struct grid { int n; };

static int entry(const int* list, int k) { return list[k]; }
static int same(int i) { return i; }

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 256;
  struct grid* g = malloc(sizeof *g);
  g->n = n;
  double* x = malloc(n * sizeof *x);
  double* y = malloc(n * sizeof *y);
  int* col = malloc(4 * n * sizeof *col);
  double* a = malloc(n * n * sizeof *a);
  double* b = malloc(n * n * sizeof *b);
  double* z = malloc(n * sizeof *z);
  int* perm = malloc(n * sizeof *perm);
  double* w = malloc(n * sizeof *w);
  double* v = malloc(n * sizeof *v);
  for (int i = 0; i < n; ++i) {
    x[i] = i, z[i] = 0, perm[i] = (i * 7) % n;
    for (int k = 0; k < 4; ++k) col[4 * i + k] = (i * 13 + k * 5) % n;
  }
  for (int i = 0; i < n * n; ++i) a[i] = i, b[i] = 0;
  CA_REGION_BEGIN();
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int k = 4 * i; k < 4 * i + 4; ++k) s += x[col[k]];
    y[i] = s;
  }
  for (int i = 0; i < g->n; ++i)
    for (int j = 0; j < g->n; ++j) b[j * g->n + i] += a[i * g->n + j];
  for (int i = 0; i < n; ++i) z[perm[i]] += y[i];
  for (int i = 0; i < n; ++i) w[entry(perm, i)] = y[i];
  for (int i = 0; i < n; ++i) v[same(i)] = w[i];
  CA_ITERATION();
  CA_REGION_END();
  printf("%g %g %g %g\n", y[n - 1], b[n], z[0], v[1]);
  return 0;
}

// spmv_seq.c: iterative sparse matrix-vector product x <- A x, A in CSR.
//
// A is n x n with a band (columns i-BAND..i+BAND, clipped) plus nrand
// pseudo-random off-band columns per row (third argument; large values give
// the semi-dense matrices of the CommAnalyzer paper). A = 0.5 I + 0.5 W where W has
// positive weights normalised to row sum 1, so the iteration is stable.
//
// Usage: spmv_seq [n=4096] [iters=20] [nrand=3]
// Region of interest: the iteration loop; one CA_ITERATION per product.
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"

#define BAND 2
#define NRAND_DEFAULT 3

static unsigned hash2(unsigned a, unsigned b) {
  unsigned h = (a * 2654435761u) ^ (b * 2246822519u + 0x9e3779b9u);
  h ^= h >> 15;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  return h;
}

// Columns and values of global row i (deterministic in i); returns count.
static int make_row(int i, int n, int nrand, int *cols, double *vals) {
  int c = 0;
  for (int j = i - BAND; j <= i + BAND; ++j)
    if (j >= 0 && j < n && j != i) cols[c++] = j;
  for (int r = 0; r < nrand; ++r) cols[c++] = (int)(hash2((unsigned)i, (unsigned)r) % (unsigned)n);
  double wsum = 0.0;
  for (int p = 0; p < c; ++p) {
    vals[p] = 1.0 + (double)(hash2((unsigned)i, 100u + (unsigned)p) % 1000u) / 1000.0;
    wsum += vals[p];
  }
  for (int p = 0; p < c; ++p) vals[p] = 0.5 * vals[p] / wsum;
  cols[c] = i;  // diagonal
  vals[c] = 0.5;
  return c + 1;
}

static double x_init(int i) { return 1.0 + (double)(hash2((unsigned)i, 7777u) % 1000u) / 100.0; }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  int iters = argc > 2 ? atoi(argv[2]) : 20;
  int nrand = argc > 3 ? atoi(argv[3]) : NRAND_DEFAULT;
  if (n < 1 || iters < 0 || nrand < 0) {
    fprintf(stderr, "usage: %s [n] [iters] [nrand]\n", argv[0]);
    return 1;
  }
  const int maxrow = 2 * BAND + nrand + 1;
  int *rowptr = malloc(sizeof(int) * (n + 1));
  int *colidx = malloc(sizeof(int) * (size_t)n * maxrow);
  double *val = malloc(sizeof(double) * (size_t)n * maxrow);
  double *x = malloc(sizeof(double) * n);
  double *y = malloc(sizeof(double) * n);
  rowptr[0] = 0;
  for (int i = 0; i < n; ++i)
    rowptr[i + 1] = rowptr[i] + make_row(i, n, nrand, colidx + rowptr[i], val + rowptr[i]);
  for (int i = 0; i < n; ++i) x[i] = x_init(i);

  CA_REGION_BEGIN();
  for (int t = 0; t < iters; ++t) {
    for (int i = 0; i < n; ++i) {
      double sum = 0.0;
      for (int p = rowptr[i]; p < rowptr[i + 1]; ++p) sum += val[p] * x[colidx[p]];
      y[i] = sum;
    }
    for (int i = 0; i < n; ++i) x[i] = y[i];
    CA_ITERATION();
  }
  CA_REGION_END();

  double check = 0.0;
  for (int i = 0; i < n; ++i) check += x[i] * (1.0 + (double)(i % 7));
  printf("spmv n=%d nnz=%d iters=%d x[0] %.6e\n", n, rowptr[n], iters, x[0]);
  printf("checksum %.12e\n", check);
  free(rowptr); free(colidx); free(val); free(x); free(y);
  return 0;
}

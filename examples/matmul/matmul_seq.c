// matmul_seq.c: dense matrix product C = A x B of n x n doubles.
//
// Usage: matmul_seq [n=64]
// Region of interest: the product; the whole product is one iteration
// (one CA_ITERATION).
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"

static double a_init(int i, int j) { return 1.0 + (double)((7 * i + 3 * j) % 11) / 11.0; }
static double b_init(int i, int j) { return 1.0 + (double)((5 * i + 2 * j) % 13) / 13.0; }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  if (n < 1) {
    fprintf(stderr, "usage: %s [n]\n", argv[0]);
    return 1;
  }
  double *A = malloc(sizeof(double) * n * n);
  double *B = malloc(sizeof(double) * n * n);
  double *C = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      A[i * n + j] = a_init(i, j);
      B[i * n + j] = b_init(i, j);
    }

  CA_REGION_BEGIN();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0.0;
      for (int k = 0; k < n; ++k) sum += A[i * n + k] * B[k * n + j];
      C[i * n + j] = sum;
    }
  CA_ITERATION();
  CA_REGION_END();

  double check = 0.0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) check += C[i * n + j] * (1.0 + (double)(i + 2 * j) / n);
  printf("matmul n=%d C[0][0] %.6e\n", n, C[0]);
  printf("checksum %.12e\n", check);
  free(A);
  free(B);
  free(C);
  return 0;
}

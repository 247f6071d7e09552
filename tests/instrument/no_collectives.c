// A loop with no global value: a finite-element style sweep over cells.
// Every cell fills a small scratch array (its local values), multiplies it
// by a quadrature matrix every process holds, checks its indices with
// assert, and writes its own result; neighbours are read through a face
// list. No sum, minimum or broadcast: an MPI code sends only halos.
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

enum { kLocal = 8 };

int main(int argc, char** argv) {
  const int cells = argc > 1 ? atoi(argv[1]) : 4096, steps = argc > 2 ? atoi(argv[2]) : 2;
  double* u = malloc(cells * sizeof *u);
  double* w = malloc(cells * sizeof *w);
  int* left = malloc(cells * sizeof *left);
  int* right = malloc(cells * sizeof *right);
  double quadrature[kLocal][kLocal];
  for (int a = 0; a < kLocal; ++a)
    for (int b = 0; b < kLocal; ++b) quadrature[a][b] = 1.0 / (1 + a + b);
  for (int c = 0; c < cells; ++c) {
    u[c] = 1.0 + 0.001 * c;
    left[c] = c > 0 ? c - 1 : 0;
    right[c] = c < cells - 1 ? c + 1 : cells - 1;
  }
  double scratch[kLocal];
  for (int s = 0; s < steps; ++s) {
    for (int c = 0; c < cells; ++c) {
      assert(left[c] >= 0 && right[c] < cells);
      for (int a = 0; a < kLocal; ++a) scratch[a] = u[c] + 0.1 * a * (u[right[c]] - u[left[c]]);
      double r = 0;
      for (int a = 0; a < kLocal; ++a)
        for (int b = 0; b < kLocal; ++b) r += quadrature[a][b] * scratch[b];
      w[c] = 0.5 * u[c] + 0.01 * r;
    }
    double* t = u; u = w; w = t;
  }
  printf("%f\n", u[cells / 2]);
  return 0;
}

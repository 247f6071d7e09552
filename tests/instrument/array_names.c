// Arrays named by their variable and allocation site (array_names.sh): the
// program prints before it allocates, so the C library's stdout buffer is
// allocated first; the report must still number u 1 and v 2 and name them
// with these lines, at -O0 and -O2. t is a table of rows, one 2-D array
// named after the table; g's two arrays, behind a table too small to be
// one, are named g[]. z is allocated by a helper: named by the helper's
// variable and line, whether the helper is inlined (-O2) or not.
#include <stdio.h>
#include <stdlib.h>

static double* zeros(int n) {
  double* p = calloc(n, sizeof(double));  // P
  return p;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 4096, steps = argc > 2 ? atoi(argv[2]) : 3;
  const int rows = 128, cols = 256;  // a table of 1 KiB, rows of 2 KiB: both tracked
  printf("array_names: %d points, %d steps\n", n, steps);
  fflush(stdout);
  double* u = malloc(n * sizeof(double));  // U
  double* v = calloc(n, sizeof(double));  // V
  double** t = malloc(rows * sizeof(double*));  // T
  for (int r = 0; r < rows; ++r) t[r] = malloc(cols * sizeof(double));
  double* z = zeros(n);
  double** g = malloc(2 * sizeof(double*));
  for (int k = 0; k < 2; ++k) g[k] = calloc(n, sizeof(double));  // G
  for (int i = 0; i < n; ++i) u[i] = i % 7;
  for (int s = 0; s < steps; ++s) {
    for (int i = 1; i < n - 1; ++i) v[i] = (u[i - 1] + u[i] + u[i + 1]) / 3;
    for (int i = 1; i < n - 1; ++i) u[i] = v[i];
  }
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) t[r][c] = u[(r * cols + c) % n] * 2;
  for (int r = 1; r < rows - 1; ++r)
    for (int c = 0; c < cols; ++c) t[r][c] += t[r - 1][c] + t[r + 1][c];
  double sum = 0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) sum += t[r][c];
  for (int i = 0; i < n; ++i) z[i] = u[i] + v[i];
  for (int i = 1; i < n - 1; ++i) g[i % 2][i] = z[i - 1] - z[i + 1];
  printf("sum %g\n", sum + u[n / 2] + z[n / 3]);
  for (int r = 0; r < rows; ++r) free(t[r]);
  free(t);
  free(u);
  free(v);
  free(z);
  free(g[0]);
  free(g[1]);
  free(g);
  return 0;
}

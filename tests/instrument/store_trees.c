// Stores of a computation over loaded values (store_trees.h): a 5-point
// update, which __ca_store_union records without union nodes, and updates
// it refuses (its labels name fewer than three values: two of the loaded
// values are one instance; or a label is a node: a loaded sum), which make
// their labels and call __ca_store. store_trees.sh requires the profile of
// either build to be the same.
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 32;
  int steps = argc > 2 ? atoi(argv[2]) : 3;
  double* u = malloc(sizeof(double) * n * n);
  double* v = malloc(sizeof(double) * n * n);
  double* w = malloc(sizeof(double) * n);
  for (int k = 0; k < n * n; ++k) u[k] = v[k] = (double)(k % 7);
  for (int k = 0; k < n; ++k) w[k] = u[k];  // w[k] holds u[k]'s instance
  double total = 0.0;
  CA_REGION_BEGIN();
  for (int t = 0; t < steps; ++t) {
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j)
        v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
    for (int k = 1; k < n - 1; ++k) u[n + k] = u[k] + w[k] * v[n + k];  // u[k], w[k]: one instance
    for (int k = 0; k < n; ++k) total += v[k * n + n / 2];
    v[0] = total + u[1] * u[2];  // a sum over a column: a node
    for (int k = 1; k < n - 1; ++k) u[2 * n + k] = v[n + k] + v[n + k - 1] - v[n + k + 1];
    CA_ITERATION();
  }
  CA_REGION_END();
  printf("%.6f %.6f\n", u[n + 1], v[0]);
  free(u);
  free(v);
  free(w);
  return 0;
}

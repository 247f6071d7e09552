// A prefix scan carried in a register: above -O0 the compiler keeps a[i]
// in a register for the next iteration instead of reloading a[i - 1]
// (store-to-load forwarding). The register stands for the stored instance
// (DESIGN.md, "Optimizer independence"), so each new value has two sources
// (a[i] and a[i - 1]), not the whole prefix: edges linear in n, not n^2/2.
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 5000;
  double c = argc > 2 ? atof(argv[2]) : 0.5;
  double *a = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) a[i] = 1.0 + (i % 7);
  for (int i = 1; i < n; i++) a[i] += a[i - 1] * c;
  printf("%f\n", a[n - 1]);
  free(a);
  return 0;
}

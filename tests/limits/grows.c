// Keeps creating new values in fresh memory: the analysis grows with it.
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  const size_t n = (size_t)1 << 27;  // 1 GiB of doubles, touched a page at a time
  double* a = calloc(n, sizeof(double));
  double sum = 0;
  for (size_t i = 1; i < n; ++i) {
    a[i] = a[i - 1] * 0.5 + (double)i;
    sum += a[i];
  }
  printf("%f\n", sum);
  return 0;
}

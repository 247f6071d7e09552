// Indirect access: x[idx[i]] += y[idx2[i]] * z[i]. The index values idx[i],
// idx2[i] are loaded (and so become input values) but only feed addresses:
// they must never appear in a source set. x[2] is updated twice, so its
// second new value has the first one as a source.
#include <stdio.h>

double x[4] = {10, 20, 30, 40};
double y[4] = {1, 2, 3, 4};
double z[4] = {0.5, 0.25, 2, 4};
int idx[4] = {2, 0, 2, 1};
int idx2[4] = {3, 3, 0, 1};
int n = 4;

__attribute__((noinline)) void kernel(int len) {
  for (int i = 0; i < len; i++) x[idx[i]] += y[idx2[i]] * z[i];
}

int main(void) {
  kernel(n);
  printf("%g %g %g %g\n", x[0], x[1], x[2], x[3]);
  return 0;
}

// Figure 7 of the paper: out[k] = in[i] + in[j] creates one new value whose
// source set is exactly the two input values; the indices (i, j, k) are
// addresses and never appear as sources. A plain copy replicates a value.
// Globals with external linkage so that -O1 cannot fold the loads.
#include <stdio.h>

double in[4] = {1.5, 2.5, 3.5, 4.5};
double out[4];
int ii = 0, jj = 2, kk = 1;

__attribute__((noinline)) void kernel(int i, int j, int k) {
  out[k] = in[i] + in[j];  // new value, sources {in[i], in[j]}
  out[k + 1] = in[i + 1];  // replication of in[i+1]
}

int main(void) {
  kernel(ii, jj, kk);
  printf("%g %g\n", out[1], out[2]);
  return 0;
}

// libm calls and math intrinsics are one computation step on their data
// arguments: each result is a new value whose sources are the arguments.
#include <math.h>
#include <stdio.h>

double a[6] = {4, 1, 2, 3, -5, 0.5};
float f[2] = {9, 16};
double r[8];
float rf[2];

__attribute__((noinline)) void kernel(void) {
  r[0] = sqrt(a[0]);              // {a0}
  r[1] = exp(a[1]);               // {a1}
  r[2] = pow(a[2], a[3]);         // {a2, a3}
  r[3] = fabs(a[4]);              // {a4}
  r[4] = fmax(a[0], a[5]);        // {a0, a5}
  r[5] = log(a[1] + 1) * sin(a[2]);  // {a1, a2}
  r[6] = floor(a[3] * a[5]);      // {a3, a5}
  rf[0] = sqrtf(f[0]) + cosf(f[1]);  // {f0, f1}
}

int main(void) {
  kernel();
  for (int i = 0; i < 7; i++) printf("%.6g ", r[i]);
  printf("%.6g\n", rf[0]);
  return 0;
}

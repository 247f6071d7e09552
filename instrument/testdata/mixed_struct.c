// A small struct mixing a pointer and a double is returned in registers as
// {ptr, double}: the double keeps its label, the pointer carries none.
#include <stdio.h>
struct PD { double *p; double d; };
double in[4] = {1, 2, 3, 4};
double out[4];
__attribute__((noinline)) struct PD mk(int k) { struct PD r = {&in[k], in[k + 1]}; return r; }
int main(void) {
  struct PD a = mk(0);
  out[0] = a.d;           // copy of in[1]
  out[1] = *a.p + a.d;    // {in0, in1}
  printf("%g %g\n", out[0], out[1]);
  return 0;
}

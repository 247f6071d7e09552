// Labels across calls (runtime_abi.h protocol): by value, by pointer,
// returned values, an indirect call, recursion, an uninstrumented external
// function and a callback from uninstrumented code.
#include <stdio.h>

double a[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
double r[8];

double ext_twice(double v);                       // uninstrumented
double ext_apply(double (*f)(double), double v);  // uninstrumented, calls f

__attribute__((noinline)) double add(double p, double q) { return p + q; }
__attribute__((noinline)) double ident(double p) { return p; }
__attribute__((noinline)) void addp(double *o, const double *p, const double *q) {
  *o = *p + *q;
}
__attribute__((noinline)) double twice(double p) { return 2 * p; }
__attribute__((noinline)) double sum_rec(const double *v, int len) {
  return len == 1 ? v[0] : v[0] + sum_rec(v + 1, len - 1);
}
double (*volatile fp)(double) = twice;  // volatile: keep the call indirect

int main(void) {
  r[0] = add(a[0], a[1]);      // new value, sources {a0, a1}
  r[1] = ident(a[2]);          // through a call and back: still a copy of a2
  addp(&r[2], &a[3], &a[4]);   // by pointer: sources {a3, a4}
  r[3] = ext_twice(a[5]);      // uninstrumented: a new value, no sources
  r[4] = fp(a[6]);             // indirect call: sources {a6}
  r[5] = ext_apply(twice, a[7]);  // callback: provenance lost, no sources
  r[6] = sum_rec(&a[8], 2);    // recursion: sources {a8, a9}
  for (int i = 0; i < 7; i++) printf("%g ", r[i]);
  printf("\n");
  return 0;
}

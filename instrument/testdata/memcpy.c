// memcpy/memmove replicate values (COPY), memset creates one new constant
// value, a struct assignment is a memcpy, and a pointer store is not a value.
#include <stdio.h>
#include <string.h>

double src[4] = {1, 2, 3, 4};
double dst[4];
double zero[4];
struct S { double x, y, z, w; } s1 = {5, 6, 7, 8}, s2;
double *ptrs[2];

__attribute__((noinline)) void kernel(void) {
  memcpy(dst, src, sizeof src);                    // inputs, then COPY each
  memmove(dst + 1, dst, 2 * sizeof(double));       // COPY src[0], src[1]
  memset(zero, 0, sizeof zero);                    // one new constant value
  s2 = s1;                                         // struct copy
  ptrs[0] = &dst[0];                               // pointer: no value
  dst[3] = *ptrs[0] * 2;                           // {src[0]}
}

int main(void) {
  kernel();
  printf("%g %g %g %g %g %g\n", dst[0], dst[1], dst[2], dst[3], zero[2], s2.z);
  return 0;
}

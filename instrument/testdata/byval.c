// Structs passed by value. Up to 16 bytes they travel in registers as data
// arguments; larger ones are byval: the call lowering copies the object, and
// the pass replays that copy (__ca_memcpy) in the callee.
#include <stdio.h>

struct V2 { double x, y; };     // 16 bytes: two double registers
struct V3 { double x, y, z; };  // 24 bytes: byval (memory)

double in[5] = {1, 2, 3, 4, 5};
double out[4];

__attribute__((noinline)) double sum3(struct V3 v) { return v.x + v.y + v.z; }
__attribute__((noinline)) double getz(struct V3 v) { return v.z; }
__attribute__((noinline)) double dot2(struct V2 a) { return a.x * a.y; }
__attribute__((noinline)) struct V2 swap2(struct V2 a) {
  struct V2 r = {a.y, a.x};
  return r;
}

int main(void) {
  struct V3 v = {in[0], in[1], in[2]};
  struct V2 w = {in[3], in[4]};
  out[0] = sum3(v);     // sources {in0, in1, in2}
  out[1] = getz(v);     // copy of in2
  out[2] = dot2(w);     // sources {in3, in4}
  struct V2 s = swap2(w);
  out[3] = s.x;         // in4, but the {double, double} return carries one
                        // label for both fields (a known imprecision)
  printf("%g %g %g %g\n", out[0], out[1], out[2], out[3]);
  return 0;
}

// Labels across calls: by value, by pointer, returned values, a value
// passed through unchanged (still a replication), libm, memcpy, memset and
// an uninstrumented library call.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/runtime_testing.h"

double in[4] = {1.5, 2.5, 3.5, 4.5};
double r[8], copy[4];
const char* text = "42.5";

__attribute__((noinline)) double add(double a, double b) { return a + b; }
__attribute__((noinline)) void add_to(double* dst, const double* a, const double* b) { *dst = *a + *b; }
__attribute__((noinline)) double twice(double v) { return 2 * v; }
__attribute__((noinline)) double identity(double v) { return v; }

int main(void) {
  r[0] = add(in[0], in[1]);
  CA_EXPECT_SOURCES("by value + return", &r[0], &in[0], &in[1]);
  add_to(&r[1], &in[2], &in[3]);
  CA_EXPECT_SOURCES("by pointer", &r[1], &in[2], &in[3]);
  r[2] = twice(add(in[0], in[3]));
  CA_EXPECT_SOURCES("nested calls", &r[2], &in[0], &in[3]);
  r[3] = identity(in[1]);
  CA_EXPECT_SAME_VALUE("a value passed through a call is replicated", &r[3], &in[1]);

  r[4] = sqrt(in[0]) + exp(in[1]);
  CA_EXPECT_SOURCES("libm sqrt + exp", &r[4], &in[0], &in[1]);
  r[5] = pow(in[2], in[3]) * fabs(in[0]);
  CA_EXPECT_SOURCES("libm pow * fabs", &r[5], &in[0], &in[2], &in[3]);

  memcpy(copy, in, sizeof copy);
  for (int i = 0; i < 4; ++i) CA_EXPECT_SAME_VALUE("memcpy replicates", &copy[i], &in[i]);
  memset(copy, 0, sizeof copy);
  CA_EXPECT("memset creates new values", __ca_debug_value_at(&copy[0]) != __ca_debug_value_at(&in[0]));
  CA_EXPECT_NO_SOURCES("memset values have no sources", &copy[1]);

  r[6] = strtod(text, NULL);  // uninstrumented: data from outside
  CA_EXPECT_NO_SOURCES("uninstrumented call result is a fresh value", &r[6]);
  r[7] = r[6] + in[0];
  CA_EXPECT_SOURCES("and flows on like any value", &r[7], &r[6], &in[0]);
  return CA_TEST_RESULT();
}

// Branch decisions (runtime_abi.h __ca_use): data that only decides control
// flow is consumed there. A residual reduced in a loop is the loop's result,
// one value from the reduced values (Analyzer::loop_result); a test of it
// against another value (tol) in a loop condition creates one more value per
// evaluation; a test on one value creates nothing.
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "instrument/runtime_testing.h"

#define N 64
double a[N];
double tol = 1e-3;
int kind[N];
int rowptr[5];

// A register reduction: the label of the result names all N elements.
__attribute__((noinline)) double norm(const double* x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += fabs(x[i]);
  return s;
}

// Keeps v alive as an argument of an instrumented call (so its ordinary
// label is needed too) without storing anything.
__attribute__((noinline)) void observe(double v) { __asm__ volatile("" : : "x"(v)); }

// The program's own way to stop, declared so.
__attribute__((noreturn, noinline)) void stop(const char* why) {
  fprintf(stderr, "branches: %s\n", why);
  exit(3);
}

// One value, through a computation: a leaf marked computed.
__attribute__((noinline)) double first(const double* x) { return 2.0 * x[0]; }

int main(void) {
  for (int i = 0; i < N; ++i) a[i] = 1.0 + (double)i / N;
  for (int i = 0; i < N; ++i) kind[i] = i % 9;
  tol = 1e-3;  // a value now, not an input created by its first read later

  // while (err > tol) on a residual over the array: one new value per
  // evaluation of the condition (including the last, failing one).
  double scale = 1.0;
  double err = norm(a, N) * scale;  // first reads: inputs made here
  const uint64_t values_before = __ca_debug_value_count();
  const uint64_t uses_before = __ca_debug_use_count();
  int evaluations = 0, iterations = 0;
  while (++evaluations, err > tol) {
    ++iterations;
    scale *= 0.5;
    err = norm(a, N) * scale;
  }
  // Read before any CA_EXPECT: a failed one stores to its counter.
  const uint64_t values_after = __ca_debug_value_count(), uses_after = __ca_debug_use_count();
  // The newest value is the last decision: from a norm and tol, the norm
  // from every element. (The optimizer may hoist the call out of the loop:
  // then every decision reads one norm.)
  uint32_t sources[N + 2];
  const size_t n = __ca_debug_sources((uint32_t)values_after, sources, N + 2);
  uint32_t norm_value = 0;
  int has_tol = 0;
  for (size_t i = 0; i < n && i < N + 2; ++i) {
    if (sources[i] == __ca_debug_value_at(&tol)) has_tol = 1;
    else norm_value = sources[i];
  }
  const size_t norm_sources = norm_value ? __ca_debug_sources(norm_value, sources, N + 2) : 0;
  CA_EXPECT("residual loop ran", iterations > 5);
  CA_EXPECT("a value per condition evaluation", values_after - values_before >= (uint64_t)evaluations);
  CA_EXPECT("one use per condition evaluation", uses_after - uses_before == (uint64_t)evaluations);
  CA_EXPECT("decision sources: a norm and tol", n == 2 && has_tol);
  CA_EXPECT("norm sources: the N elements", norm_sources == N);

  // A test on one value, or on f(one value), is local: nothing recorded.
  const uint64_t values_single = __ca_debug_value_count();
  int small = 0;
  for (double x = first(a); x > tol; x *= 0.5) ++small;     // f(a[0]) and tol: compound
  const uint64_t after_pair = __ca_debug_value_count();
  int big = 0;
  // (The empty asm keeps each test a branch rather than a select.)
  for (int i = 0; i < N; ++i)
    if (fabs(a[i]) > 1.5) {  // f(one value) against a constant: local
      ++big;
      __asm__ volatile("");
    }
  for (int i = 0; i < N; ++i)
    if (a[i] > 1.25) {  // one loaded value: local
      ++big;
      __asm__ volatile("");
    }
  for (int i = 0; i < N; ++i) switch (kind[i]) {  // a leaf: local
      case 0: big += 2; __asm__ volatile(""); break;
      case 1: big += 3; __asm__ volatile(""); break;
      case 7: big += 5; __asm__ volatile(""); break;
      default: break;
    }
  const uint64_t after_local = __ca_debug_value_count();
  CA_EXPECT("f(a[0]) > tol decides on two values", after_pair - values_single == (uint64_t)small + 1);
  CA_EXPECT("elementwise tests record nothing", after_local == after_pair);
  CA_EXPECT("elementwise tests counted", big > 0);

  // A running maximum (`if (d > mx) mx = d;`, a chain of selects) is a
  // reduction like a sum: its result comes from every element compared (an
  // Allreduce with MPI_MAX), and a decision on it from that result and tol.
  double mx = 0.0;
  for (int i = 0; i < N; ++i) {
    double d = fabs(a[i] - 1.0);
    if (d > mx) mx = d;
  }
  observe(mx);
  const uint64_t before_max = __ca_debug_value_count();
  int taken = 0;
  if (mx > tol) {
    ++taken;
    __asm__ volatile("");
  }
  const uint64_t after_max = __ca_debug_value_count();
  const size_t max_sources = __ca_debug_sources((uint32_t)after_max, sources, N + 2);
  const size_t mx_sources = __ca_debug_sources((uint32_t)before_max, sources + 2, N);
  CA_EXPECT("branch on a running max: one value", after_max == before_max + 1);
  CA_EXPECT("branch on a running max: from the maximum and tol", max_sources == 2);
  CA_EXPECT("the running max: a result from every element compared", mx_sources == N);
  CA_EXPECT("max branch taken", taken == 1);

  // Loop control is not a decision on data, even with bounds loaded from
  // memory (CSR row pointers).
  for (int r = 0; r <= 4; ++r) rowptr[r] = 3 * r + (r > 2);
  const uint64_t before_csr = __ca_debug_use_count();
  double acc = 0.0;
  for (int r = 0; r < 4; ++r)
    for (int p = rowptr[r]; p < rowptr[r + 1]; ++p) acc += a[p];
  observe(acc);
  const uint64_t after_csr = __ca_debug_use_count();
  CA_EXPECT("CSR loop bounds decide nothing", after_csr == before_csr);

  // A test whose other way only stops the program (abort, a noreturn
  // function, an assert) decides nothing an MPI code would send, whichever
  // values it reads; the same test with two ways that go on decides.
  const uint64_t before_checks = __ca_debug_use_count();
  for (int i = 0; i + 1 < N; ++i) {
    if (a[i] + a[i + 1] < 0) abort();
    if (a[i] * a[i + 1] > 1e300) stop("overflow");
    assert(a[i + 1] - a[i] < 1.0);
  }
  const uint64_t after_checks = __ca_debug_use_count();
  int rising = 0;
  for (int i = 0; i + 1 < N; ++i)
    if (a[i] + a[i + 1] < 3.0) {
      ++rising;
      __asm__ volatile("");
    }
  const uint64_t after_tests = __ca_debug_use_count();
  CA_EXPECT("tests that stop the program decide nothing", after_checks == before_checks);
  CA_EXPECT("the same test going on: a use per evaluation", after_tests - after_checks == N - 1);
  CA_EXPECT("test counted", rising > 0);
  return CA_TEST_RESULT();
}

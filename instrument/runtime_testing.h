// Test-only queries into the CommAnalyzer runtime, for self-checking C/C++
// test programs compiled with the pass (tests/instrument/). A test asks
// which value a location holds and which values it was computed from, and
// fails with a message naming the expectation.
#ifndef COMMANALYZER_INSTRUMENT_RUNTIME_TESTING_H_
#define COMMANALYZER_INSTRUMENT_RUNTIME_TESTING_H_

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

// The value instance a location holds now (0: none).
uint32_t __ca_debug_value_at(const void* addr);
// The source set recorded when `value` was created, ascending; returns the
// number of sources (may exceed capacity). 0 for inputs, replications of
// nothing, and constants.
size_t __ca_debug_sources(uint32_t value, uint32_t* out, size_t capacity);
int __ca_debug_is_input(uint32_t value);
uint64_t __ca_debug_value_count(void);
// Branch decisions recorded so far (__ca_use calls with a compound label).
uint64_t __ca_debug_use_count(void);
// Point-to-point and total bytes for `procs` processes with a fixed owner
// map (owner of a vertex from its home address) and no singleton detection.
// Analysis is paused while it runs, so the callback may read memory.
uint64_t __ca_debug_p2p_bytes(int procs, int (*owner)(uintptr_t home, int procs));

#ifdef __cplusplus
}  // extern "C"
#endif

static int ca_test_failures = 0;

// Expects the value at `dst` to have been created from exactly the values
// that follow (any order): addresses whose current values count, or value
// ids (by_address = 0) taken earlier with __ca_debug_value_at.
static inline void ca_expect_sources_impl(const char* file, int line, const char* what, const void* dst,
                                          int by_address, int count, ...) {
  uint32_t expected[64], actual[64];
  va_list ap;
  va_start(ap, count);
  for (int i = 0; i < count && i < 64; ++i) {
    expected[i] = by_address ? __ca_debug_value_at(va_arg(ap, const void*)) : va_arg(ap, uint32_t);
  }
  va_end(ap);
  // Sort expected (insertion sort; small) and drop duplicates.
  int n = 0;
  for (int i = 0; i < count && i < 64; ++i) {
    int j = n;
    int dup = 0;
    for (int k = 0; k < n; ++k) dup |= expected[k] == expected[i];
    if (dup) continue;
    uint32_t v = expected[i];
    while (j > 0 && expected[j - 1] > v) {
      expected[j] = expected[j - 1];
      --j;
    }
    expected[j] = v;
    ++n;
  }
  const uint32_t value = __ca_debug_value_at(dst);
  const size_t got = __ca_debug_sources(value, actual, 64);
  int ok = value != 0 && got == (size_t)n;
  for (int i = 0; ok && i < n; ++i) ok = actual[i] == expected[i];
  if (!ok) {
    ++ca_test_failures;
    fprintf(stderr, "%s:%d: FAILED %s: value %u has %zu source(s) {", file, line, what, value, got);
    for (size_t i = 0; i < got && i < 64; ++i) fprintf(stderr, "%s%u", i ? ", " : "", actual[i]);
    fprintf(stderr, "}, expected {");
    for (int i = 0; i < n; ++i) fprintf(stderr, "%s%u", i ? ", " : "", expected[i]);
    fprintf(stderr, "}\n");
  }
}

#define CA_EXPECT_SOURCES(what, dst, ...)                                                                 \
  ca_expect_sources_impl(__FILE__, __LINE__, what, dst, 1,                                              \
                         (int)(sizeof((const void*[]){__VA_ARGS__}) / sizeof(void*)), __VA_ARGS__)
// Sources given as value ids (uint32_t), e.g. of values since overwritten.
#define CA_EXPECT_SOURCE_VALUES(what, dst, ...)                                                           \
  ca_expect_sources_impl(__FILE__, __LINE__, what, dst, 0,                                              \
                         (int)(sizeof((uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t)), __VA_ARGS__)
#define CA_EXPECT_NO_SOURCES(what, dst) ca_expect_sources_impl(__FILE__, __LINE__, what, dst, 1, 0)

#define CA_EXPECT(what, cond)                                                 \
  do {                                                                        \
    if (!(cond)) {                                                            \
      ++ca_test_failures;                                                     \
      fprintf(stderr, "%s:%d: FAILED %s: %s\n", __FILE__, __LINE__, what, #cond); \
    }                                                                         \
  } while (0)

// Same value instance at both locations (a replication).
#define CA_EXPECT_SAME_VALUE(what, a, b) \
  CA_EXPECT(what, __ca_debug_value_at(a) != 0 && __ca_debug_value_at(a) == __ca_debug_value_at(b))

#define CA_TEST_RESULT() (ca_test_failures == 0 ? (printf("all expectations met\n"), 0) : 1)

#endif  // COMMANALYZER_INSTRUMENT_RUNTIME_TESTING_H_

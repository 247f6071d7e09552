// C++ fills followed by in-place updates. With a size known only at run
// time, std::vector<double>(n, 0.0), assign(n, 0.0) and std::fill run
// libstdc++'s out-of-line fill loops: one value, read once through a const
// reference, is stored to every element, so every element first holds the
// same value instance (a replication). The updates r[i] += x[i] that follow
// must still form one chain per element, homed at r[i], not one hub vertex
// for the whole array (which the partitioner would then treat as a single
// value and the cost model as a collective).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "instrument/runtime_testing.h"

constexpr int kMax = 64;
double x[kMax];
volatile int g_size = kMax;  // a size the compiler cannot see
static int n;
static const double* g_r = nullptr;

// Block distribution by element index of r and x; anything else on 0.
static int owner(uintptr_t home, int procs) {
  for (const double* base : {g_r, static_cast<const double*>(x)}) {
    const uintptr_t b = reinterpret_cast<uintptr_t>(base);
    if (home >= b && home < b + sizeof(double) * n) return static_cast<int>((home - b) / sizeof(double)) * procs / n;
  }
  return 0;
}

template <class Fill>
static void check(const char* what, Fill fill) {
  std::vector<double> r;
  fill(r);
  g_r = r.data();
  CA_EXPECT(what, __ca_debug_value_at(&r[1]) != 0);
  const uint64_t before = __ca_debug_p2p_bytes(2, owner);
  for (int i = 0; i < n; ++i) r[i] += x[i];
  for (int i = 0; i < n; ++i) r[i] += 2.0 * x[i];
  // r[i] and x[i] live on the same process: nothing travels but the one
  // shared zero, to the second process (8 bytes). With one hub vertex homed
  // where the zero was, the x[i] of the second process would travel.
  const uint64_t bytes = __ca_debug_p2p_bytes(2, owner) - before;
  CA_EXPECT(what, bytes <= 8);
  if (bytes > 8) fprintf(stderr, "  %s: %llu bytes\n", what, static_cast<unsigned long long>(bytes));
}

int main() {
  n = g_size;
  for (int i = 0; i < n; ++i) x[i] = 1.0 + i;
  check("vector(n, 0.0) then +=", [](std::vector<double>& r) { r = std::vector<double>(n, 0.0); });
  check("assign(n, 0.0) then +=", [](std::vector<double>& r) { r.assign(n, 0.0); });
  check("assign(n, 0.0) over old contents then +=", [](std::vector<double>& r) {
    r.assign(n, 1.0);
    r.assign(n, 0.0);
  });
  check("std::fill then +=", [](std::vector<double>& r) {
    r.resize(n);
    std::fill(r.begin(), r.end(), 0.0);
  });
  return CA_TEST_RESULT();
}

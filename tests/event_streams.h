// Synthetic event streams for tests and benchmarks: arrays of doubles at
// fake addresses, and the load/compute/store sequences of small kernels, as
// the instrumentation shim would report them.
#ifndef COMMANALYZER_TESTS_EVENT_STREAMS_H_
#define COMMANALYZER_TESTS_EVENT_STREAMS_H_

#include <cstdint>

#include "commanalyzer/record/types.h"

namespace commanalyzer::testing {

// A row-major array of doubles at a fake base address.
struct Array {
  Address base;
  std::uint64_t cols = 1;
  Address at(std::uint64_t i) const { return base + 8 * i; }
  Address at(std::uint64_t r, std::uint64_t c) const { return base + 8 * (r * cols + c); }
  bool contains(Address a, std::uint64_t count) const { return a >= base && a < base + 8 * count; }
  std::uint64_t index(Address a) const { return (a - base) / 8; }
};

// C += A x B, n x n, C updated in memory at every k (no register promotion).
template <class A>
void matmul(A& a, const Array& C, const Array& Am, const Array& Bm, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i)
    for (std::uint64_t j = 0; j < n; ++j)
      for (std::uint64_t k = 0; k < n; ++k) {
        const auto c = a.load(C.at(i, j), 8);
        const auto product = a.join(a.load(Am.at(i, k), 8), a.load(Bm.at(k, j), 8));
        a.store(C.at(i, j), 8, a.join(c, product));
      }
}

// The arrays of a 1-D sweep: u of n doubles, its values set before the
// region, and unew of n + unew_padding.
template <class A>
void sweep_arrays(A& a, const Array& u, const Array& unew, std::uint64_t n, std::uint64_t unew_padding = 0) {
  a.allocation(u.base, 8 * n);
  a.allocation(unew.base, 8 * (n + unew_padding));
  for (std::uint64_t i = 0; i < n; ++i) a.store(u.at(i), 8, kComputedBit);
}

// 1-D Jacobi: unew[i] = (u[i-1] + u[i] + u[i+1]) / 3 for the interior, then
// copy back u[i] = unew[i]; one iteration mark per step. Each cell also
// reads also(i), a label (kNoLabel: nothing more), after its neighbours.
template <class A, class Also>
void jacobi1d(A& a, const Array& u, const Array& unew, std::uint64_t n, int steps, Also also) {
  for (int t = 0; t < steps; ++t) {
    for (std::uint64_t i = 1; i + 1 < n; ++i) {
      auto sum = a.join(a.join(a.load(u.at(i - 1), 8), a.load(u.at(i), 8)), a.load(u.at(i + 1), 8));
      if (const Label more = also(i); more != kNoLabel) sum = a.join(sum, more);
      a.store(unew.at(i), 8, a.compute(sum));
    }
    for (std::uint64_t i = 1; i + 1 < n; ++i) a.store(u.at(i), 8, a.load(unew.at(i), 8));
    a.iteration();
  }
}

template <class A>
void jacobi1d(A& a, const Array& u, const Array& unew, std::uint64_t n, int steps) {
  jacobi1d(a, u, unew, n, steps, [](std::uint64_t) { return kNoLabel; });
}

}  // namespace commanalyzer::testing

#endif  // COMMANALYZER_TESTS_EVENT_STREAMS_H_

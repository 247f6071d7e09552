// Event streams for the benchmarks, in the style of tests/event_streams.h:
// the load/compute/store sequences the instrumentation shim would report for
// a Heat2D time step and for a radius-2 (13-point) in-place stencil sweep.
#ifndef COMMANALYZER_BENCH_BENCH_STREAMS_H_
#define COMMANALYZER_BENCH_BENCH_STREAMS_H_

#include <cstdint>

#include "tests/event_streams.h"

namespace commanalyzer::bench {

using testing::Array;

// examples/heat2d/heat2d_seq.c, region of interest: per interior cell
//   c = u[i][j]; unew[i][j] = c + ALPHA*(u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1] - 4*c)
// (5 loads, 1 store), then the copy-back u = unew (1 load, 1 store, a
// replication), one iteration mark per step. 8 load/store events per
// interior cell and step. The residual lives in a register: no events.
template <class A>
void heat2d(A& a, const Array& u, const Array& unew, std::uint64_t n, int steps) {
  for (int t = 0; t < steps; ++t) {
    for (std::uint64_t i = 1; i + 1 < n; ++i) {
      for (std::uint64_t j = 1; j + 1 < n; ++j) {
        const auto c = a.load(u.at(i, j), 8);
        const auto up = a.load(u.at(i - 1, j), 8);
        const auto down = a.load(u.at(i + 1, j), 8);
        const auto left = a.load(u.at(i, j - 1), 8);
        const auto right = a.load(u.at(i, j + 1), 8);
        const auto sum = a.join(a.join(a.join(up, down), left), right);
        const auto delta = a.compute(a.join(sum, a.compute(c)));  // ALPHA * (sum - 4c)
        a.store(unew.at(i, j), 8, a.join(c, delta));
      }
    }
    for (std::uint64_t i = 1; i + 1 < n; ++i) {
      for (std::uint64_t j = 1; j + 1 < n; ++j) a.store(u.at(i, j), 8, a.load(unew.at(i, j), 8));
    }
    a.iteration();
  }
}

// One in-place (Gauss-Seidel order) sweep of a radius-2 diamond stencil on
// an n x n grid: every cell reads itself and its 12 neighbours with
// |di| + |dj| <= 2 (clipped at the border) and is overwritten. The new value
// reads the old one, so coalescing keeps one vertex per cell: n^2 vertices
// and 12 n^2 - 20 n + 4 directed edges (11,980,004 for n = 1000).
inline constexpr int kStencil13[12][2] = {{-2, 0}, {-1, -1}, {-1, 0}, {-1, 1}, {0, -2}, {0, -1},
                                          {0, 1},  {0, 2},   {1, -1},  {1, 0},  {1, 1},  {2, 0}};

template <class A>
void stencil13_sweep(A& a, const Array& u, std::uint64_t n) {
  const auto sn = static_cast<std::int64_t>(n);
  for (std::int64_t i = 0; i < sn; ++i) {
    for (std::int64_t j = 0; j < sn; ++j) {
      auto label = a.load(u.at(i, j), 8);
      for (const auto& d : kStencil13) {
        const std::int64_t r = i + d[0], c = j + d[1];
        if (r < 0 || r >= sn || c < 0 || c >= sn) continue;
        label = a.join(label, a.load(u.at(r, c), 8));
      }
      a.store(u.at(i, j), 8, a.compute(label));
    }
  }
}

}  // namespace commanalyzer::bench

#endif  // COMMANALYZER_BENCH_BENCH_STREAMS_H_

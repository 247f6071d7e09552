// Built-in event-level examples: what the instrumentation shim would report
// for small kernels, driven straight through the Analyzer's event API. They
// let `commanalyzer demo` run the whole estimate without compiling anything.
#ifndef COMMANALYZER_TOOLS_BUILTIN_EXAMPLES_H_
#define COMMANALYZER_TOOLS_BUILTIN_EXAMPLES_H_

#include <cstdint>

#include "commanalyzer/record/types.h"

namespace commanalyzer::examples {

// Heat2D: explicit 5-point diffusion on an n x n grid with fixed boundary,
// `steps` time steps; each step computes unew from u, a global maximum
// change (kept in memory, as `diff = fmax(diff, fabs(unew - u))`), then
// copies unew back into u. Region of interest = the time loop.
template <class A>
void heat2d(A& a, std::uint64_t n, int steps) {
  const Address u = 0x1000'0000, unew = 0x2000'0000, coef = 0x3000'0000, diff = 0x3000'0100;
  auto at = [n](Address base, std::uint64_t i, std::uint64_t j) { return base + 8 * (i * n + j); };
  a.allocation(u, 8 * n * n);  // heap arrays, as malloc would report them
  a.allocation(unew, 8 * n * n);
  // Set-up: the grid and the diffusion coefficient are computed (not read).
  for (std::uint64_t i = 0; i < n; ++i)
    for (std::uint64_t j = 0; j < n; ++j) a.store(at(u, i, j), 8, kComputedBit);
  a.store(coef, 8, kComputedBit);

  a.region_begin();
  for (int t = 0; t < steps; ++t) {
    a.store(diff, 8, kComputedBit);  // diff = 0
    for (std::uint64_t i = 1; i + 1 < n; ++i) {
      for (std::uint64_t j = 1; j + 1 < n; ++j) {
        const Label centre = a.load(at(u, i, j), 8);
        Label lap = a.join(a.load(at(u, i - 1, j), 8), a.load(at(u, i + 1, j), 8));
        lap = a.join(lap, a.join(a.load(at(u, i, j - 1), 8), a.load(at(u, i, j + 1), 8)));
        const Label value = a.join(centre, a.join(a.load(coef, 8), a.join(lap, centre)));
        a.store(at(unew, i, j), 8, value);
        const Label change = a.join(a.load(at(unew, i, j), 8), centre);
        a.store(diff, 8, a.join(a.load(diff, 8), change));
      }
    }
    for (std::uint64_t i = 1; i + 1 < n; ++i)
      for (std::uint64_t j = 1; j + 1 < n; ++j) a.store(at(u, i, j), 8, a.load(at(unew, i, j), 8));
    a.iteration();
  }
  a.region_end();
  a.finish();
}

}  // namespace commanalyzer::examples

#endif  // COMMANALYZER_TOOLS_BUILTIN_EXAMPLES_H_

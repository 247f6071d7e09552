#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "commanalyzer/annotate.h"
#include "tests/instrument/cxx_app/grid.h"
#include "tests/instrument/cxx_app/solver.h"

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 32;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 5;
  Grid<double> u(n, n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) u(i, j) = std::sin(0.1 * static_cast<double>(i * n + j));
  std::unique_ptr<Solver> solver(make_solver("jacobi", n, n));
  if (!solver) return 2;
  CA_REGION_BEGIN();
  for (int t = 0; t < steps; ++t) {
    solver->step(u);
    CA_ITERATION();
  }
  CA_REGION_END();
  std::printf("%s n=%zu steps=%d sum %.12e corner %.12e\n", solver->name(), n, steps, u.sum(), u(1, 1));
  return 0;
}

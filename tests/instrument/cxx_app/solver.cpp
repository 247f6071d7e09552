#include "tests/instrument/cxx_app/solver.h"

#include <cstring>

JacobiSolver::JacobiSolver(std::size_t rows, std::size_t cols, double alpha)
    : scratch_(new Grid<double>(rows, cols)), alpha_(alpha) {}

JacobiSolver::~JacobiSolver() { delete scratch_; }

void JacobiSolver::step(Grid<double>& u) {
  Grid<double>& next = *scratch_;
  next = u;
  for (std::size_t i = 1; i + 1 < u.rows(); ++i)
    for (std::size_t j = 1; j + 1 < u.cols(); ++j)
      next(i, j) = u(i, j) + alpha_ * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1) - 4 * u(i, j));
  u = next;
}

Solver* make_solver(const char* kind, std::size_t rows, std::size_t cols) {
  if (std::strcmp(kind, "jacobi") == 0) return new JacobiSolver(rows, cols, 0.2);
  return nullptr;
}

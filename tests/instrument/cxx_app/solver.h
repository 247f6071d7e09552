#ifndef CXX_APP_SOLVER_H_
#define CXX_APP_SOLVER_H_

#include "tests/instrument/cxx_app/grid.h"

class Solver {
 public:
  virtual ~Solver() = default;
  virtual void step(Grid<double>& u) = 0;
  virtual const char* name() const = 0;
};

// Explicit diffusion; keeps a scratch grid allocated on the heap.
class JacobiSolver : public Solver {
 public:
  JacobiSolver(std::size_t rows, std::size_t cols, double alpha);
  ~JacobiSolver() override;
  void step(Grid<double>& u) override;
  const char* name() const override { return "jacobi"; }

 private:
  Grid<double>* scratch_;
  double alpha_;
};

Solver* make_solver(const char* kind, std::size_t rows, std::size_t cols);

#endif  // CXX_APP_SOLVER_H_

// timestep.h: explicit time integrators for the coupled system.
//
// All of them are explicit Runge-Kutta methods written as sequences of
// system.rate() evaluations and vector updates; the strong-stability-
// preserving ones (Shu & Osher) keep the positivity of the first-order
// transport. Every stage re-applies the essential boundary conditions at the
// stage time. Scratch states are members, sized on first use, so a step
// allocates nothing.
#ifndef CXX_BIG_TIMESTEP_H_
#define CXX_BIG_TIMESTEP_H_

#include <memory>
#include <string>
#include <vector>

#include "tests/instrument/cxx_big/operators.h"

namespace thermo {

class TimeIntegrator {
 public:
  virtual ~TimeIntegrator() = default;
  // Advances u from time t to t + dt.
  virtual void step(CoupledSystem& system, State& u, double t, double dt) = 0;
  virtual int stages() const = 0;
  virtual std::string name() const = 0;
  // Length of the stability interval on the negative real axis relative to
  // forward Euler's [-2, 0]; the driver scales the step by it.
  virtual double stability_factor() const { return 1.0; }

 protected:
  // Sizes `count` scratch states like the system's state.
  void reserve_scratch(const CoupledSystem& system, int count);
  std::vector<State> scratch_;
};

class ForwardEuler : public TimeIntegrator {
 public:
  void step(CoupledSystem& system, State& u, double t, double dt) override;
  int stages() const override { return 1; }
  std::string name() const override { return "forward-euler"; }
};

// Heun's method in SSP form: u1 = u + dt L(u); u = (u + u1 + dt L(u1)) / 2.
class SspRk2 : public TimeIntegrator {
 public:
  void step(CoupledSystem& system, State& u, double t, double dt) override;
  int stages() const override { return 2; }
  std::string name() const override { return "ssp-rk2"; }
};

// Third-order SSP Runge-Kutta; stability interval about [-2.51, 0].
class SspRk3 : public TimeIntegrator {
 public:
  void step(CoupledSystem& system, State& u, double t, double dt) override;
  int stages() const override { return 3; }
  std::string name() const override { return "ssp-rk3"; }
  double stability_factor() const override { return 1.25; }
};

// The classical fourth-order method; stability interval about [-2.78, 0].
class ClassicRk4 : public TimeIntegrator {
 public:
  void step(CoupledSystem& system, State& u, double t, double dt) override;
  int stages() const override { return 4; }
  std::string name() const override { return "rk4"; }
  double stability_factor() const override { return 1.39; }
};

// "euler", "ssprk2", "ssprk3", "rk4"; throws std::invalid_argument otherwise.
std::unique_ptr<TimeIntegrator> make_integrator(const std::string& name);

}  // namespace thermo

#endif  // CXX_BIG_TIMESTEP_H_

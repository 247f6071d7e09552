// timestep.cpp: the Runge-Kutta steps.
#include "tests/instrument/cxx_big/timestep.h"

#include <stdexcept>

namespace thermo {

void TimeIntegrator::reserve_scratch(const CoupledSystem& system, int count) {
  if (static_cast<int>(scratch_.size()) >= count) return;
  while (static_cast<int>(scratch_.size()) < count) scratch_.push_back(system.make_state());
}

void ForwardEuler::step(CoupledSystem& system, State& u, double t, double dt) {
  reserve_scratch(system, 1);
  State& k = scratch_[0];
  system.rate(u, t, k);
  axpy(u, dt, k);
  system.constrain(u, t + dt);
}

void SspRk2::step(CoupledSystem& system, State& u, double t, double dt) {
  reserve_scratch(system, 2);
  State& k = scratch_[0];
  State& u1 = scratch_[1];
  system.rate(u, t, k);
  combine(u1, 1.0, u, dt, k);
  system.constrain(u1, t + dt);
  system.rate(u1, t + dt, k);
  axpy(u1, dt, k);
  combine(u, 0.5, u, 0.5, u1);
  system.constrain(u, t + dt);
}

void SspRk3::step(CoupledSystem& system, State& u, double t, double dt) {
  reserve_scratch(system, 3);
  State& k = scratch_[0];
  State& u1 = scratch_[1];
  State& u2 = scratch_[2];
  system.rate(u, t, k);
  combine(u1, 1.0, u, dt, k);
  system.constrain(u1, t + dt);

  system.rate(u1, t + dt, k);
  axpy(u1, dt, k);
  combine(u2, 0.75, u, 0.25, u1);
  system.constrain(u2, t + 0.5 * dt);

  system.rate(u2, t + 0.5 * dt, k);
  axpy(u2, dt, k);
  combine(u, 1.0 / 3.0, u, 2.0 / 3.0, u2);
  system.constrain(u, t + dt);
}

void ClassicRk4::step(CoupledSystem& system, State& u, double t, double dt) {
  reserve_scratch(system, 3);
  State& k = scratch_[0];
  State& stage = scratch_[1];
  State& sum = scratch_[2];  // k1 + 2 k2 + 2 k3 + k4
  const double half = 0.5 * dt;

  system.rate(u, t, k);
  combine(sum, 1.0, k, 0.0, k);
  combine(stage, 1.0, u, half, k);
  system.constrain(stage, t + half);

  system.rate(stage, t + half, k);
  axpy(sum, 2.0, k);
  combine(stage, 1.0, u, half, k);
  system.constrain(stage, t + half);

  system.rate(stage, t + half, k);
  axpy(sum, 2.0, k);
  combine(stage, 1.0, u, dt, k);
  system.constrain(stage, t + dt);

  system.rate(stage, t + dt, k);
  axpy(sum, 1.0, k);
  axpy(u, dt / 6.0, sum);
  system.constrain(u, t + dt);
}

std::unique_ptr<TimeIntegrator> make_integrator(const std::string& name) {
  if (name == "euler") return std::make_unique<ForwardEuler>();
  if (name == "ssprk2") return std::make_unique<SspRk2>();
  if (name == "ssprk3") return std::make_unique<SspRk3>();
  if (name == "rk4") return std::make_unique<ClassicRk4>();
  throw std::invalid_argument("unknown integrator '" + name + "' (euler, ssprk2, ssprk3, rk4)");
}

}  // namespace thermo

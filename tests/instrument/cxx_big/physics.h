// physics.h: the models the solver dispatches to at run time.
//
//   Material          heat conductivity tensor and volumetric heat capacity
//                     (isotropic, temperature dependent, orthotropic)
//   BoundaryCondition what happens on one side of the box (fixed
//                     temperature, prescribed flux, convection, radiation)
//   NumericalFlux     the upwind-type flux of the finite-volume transport
//                     of the reacting species (upwind, Rusanov, central,
//                     blends of two)
//   Reaction          first-order Arrhenius consumption of the species,
//                     releasing heat
//
// Each hierarchy has a small registry or factory keyed by name, used while
// setting up from the command line.
#ifndef CXX_BIG_PHYSICS_H_
#define CXX_BIG_PHYSICS_H_

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/instrument/cxx_big/linalg.h"
#include "tests/instrument/cxx_big/mesh.h"

namespace thermo {

// ------------------------------------------------------------- materials

class Material {
 public:
  Material(std::string name, double density, double specific_heat)
      : name_(std::move(name)), density_(density), specific_heat_(specific_heat) {}
  virtual ~Material() = default;
  Material(const Material&) = delete;
  Material& operator=(const Material&) = delete;

  // Conductivity tensor at temperature T (W / m K).
  virtual Mat3 conductivity(double temperature) const = 0;
  // An upper bound of the largest eigenvalue of the conductivity at T; the
  // stable time step depends on it.
  virtual double max_conductivity(double temperature) const { return conductivity(temperature).row_sum_norm(); }
  virtual std::string describe() const;

  const std::string& name() const { return name_; }
  double density() const { return density_; }
  double specific_heat() const { return specific_heat_; }
  double volumetric_capacity() const { return density_ * specific_heat_; }

 private:
  std::string name_;
  double density_, specific_heat_;
};

class IsotropicMaterial : public Material {
 public:
  IsotropicMaterial(std::string name, double density, double specific_heat, double k)
      : Material(std::move(name), density, specific_heat), k_(k) {}
  Mat3 conductivity(double) const override { return Mat3::identity() * k_; }
  double max_conductivity(double) const override { return k_; }
  std::string describe() const override;

 private:
  double k_;
};

// k(T) = max(k_min, k0 (1 + beta (T - T_ref))).
class TemperatureDependentMaterial : public Material {
 public:
  TemperatureDependentMaterial(std::string name, double density, double specific_heat, double k0, double beta,
                               double t_ref, double k_min)
      : Material(std::move(name), density, specific_heat), k0_(k0), beta_(beta), t_ref_(t_ref), k_min_(k_min) {}
  double k(double temperature) const { return std::max(k_min_, k0_ * (1.0 + beta_ * (temperature - t_ref_))); }
  Mat3 conductivity(double temperature) const override { return Mat3::identity() * k(temperature); }
  double max_conductivity(double temperature) const override { return k(temperature); }
  std::string describe() const override;

 private:
  double k0_, beta_, t_ref_, k_min_;
};

// Principal conductivities (k1, k2, k3) along axes turned by `angle` about z:
// K = R diag(k) R^T.
class OrthotropicMaterial : public Material {
 public:
  OrthotropicMaterial(std::string name, double density, double specific_heat, const Vec3& principal, double angle);
  Mat3 conductivity(double) const override { return tensor_; }
  double max_conductivity(double) const override { return max_abs(principal_); }
  std::string describe() const override;

 private:
  Vec3 principal_;
  double angle_;
  Mat3 tensor_;
};

// Named material kinds; create() makes a fresh instance.
class MaterialLibrary {
 public:
  using Factory = std::function<std::unique_ptr<Material>()>;
  MaterialLibrary();  // registers the built-in kinds
  void add(const std::string& name, Factory factory);
  // Throws std::out_of_range for an unknown name.
  std::unique_ptr<Material> create(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, Factory> factories_;
};

// -------------------------------------------------- boundary conditions

using SpaceTimeFunction = std::function<double(const Vec3& x, double t)>;

class BoundaryCondition {
 public:
  explicit BoundaryCondition(Side side) : side_(side) {}
  virtual ~BoundaryCondition() = default;
  Side side() const { return side_; }

  // Essential conditions fix the nodal temperature; the others contribute
  // a heat flux into the domain through flux().
  virtual bool essential() const { return false; }
  virtual double prescribed(const Vec3& /*x*/, double /*t*/) const { return 0.0; }
  // Heat flux into the domain (W / m^2) at a surface point of temperature T.
  virtual double flux(double /*temperature*/, const Vec3& /*x*/, double /*t*/) const { return 0.0; }
  virtual std::string describe() const = 0;

 private:
  Side side_;
};

class FixedTemperature : public BoundaryCondition {
 public:
  FixedTemperature(Side side, SpaceTimeFunction value) : BoundaryCondition(side), value_(std::move(value)) {}
  bool essential() const override { return true; }
  double prescribed(const Vec3& x, double t) const override { return value_(x, t); }
  std::string describe() const override;

 private:
  SpaceTimeFunction value_;
};

class HeatFlux : public BoundaryCondition {
 public:
  HeatFlux(Side side, double q, double ramp_time) : BoundaryCondition(side), q_(q), ramp_time_(ramp_time) {}
  double flux(double, const Vec3&, double t) const override {
    return ramp_time_ > 0.0 && t < ramp_time_ ? q_ * t / ramp_time_ : q_;
  }
  std::string describe() const override;

 private:
  double q_, ramp_time_;
};

class Convection : public BoundaryCondition {
 public:
  Convection(Side side, double h, double ambient) : BoundaryCondition(side), h_(h), ambient_(ambient) {}
  double flux(double temperature, const Vec3&, double) const override { return h_ * (ambient_ - temperature); }
  std::string describe() const override;

 private:
  double h_, ambient_;
};

class Radiation : public BoundaryCondition {
 public:
  static constexpr double kStefanBoltzmann = 5.670374419e-8;
  Radiation(Side side, double emissivity, double ambient)
      : BoundaryCondition(side), emissivity_(emissivity), ambient_k_(ambient + 273.15) {}
  double flux(double temperature, const Vec3&, double) const override {
    const double tk = temperature + 273.15;
    const double t2 = tk * tk, a2 = ambient_k_ * ambient_k_;
    return emissivity_ * kStefanBoltzmann * (a2 * a2 - t2 * t2);
  }
  std::string describe() const override;

 private:
  double emissivity_, ambient_k_;
};

// ------------------------------------------------------ numerical fluxes

// Flux of a scalar through a face with area-weighted normal velocity `un`
// (positive from left to right), given the two cell values.
class NumericalFlux {
 public:
  virtual ~NumericalFlux() = default;
  virtual double operator()(double left, double right, double un) const = 0;
  virtual std::string name() const = 0;
};

class UpwindFlux : public NumericalFlux {
 public:
  double operator()(double left, double right, double un) const override { return un > 0.0 ? un * left : un * right; }
  std::string name() const override { return "upwind"; }
};

// Central flux plus `dissipation` times the local wave speed.
class RusanovFlux : public NumericalFlux {
 public:
  explicit RusanovFlux(double dissipation = 1.0) : dissipation_(dissipation) {}
  double operator()(double left, double right, double un) const override {
    return 0.5 * un * (left + right) - 0.5 * dissipation_ * std::abs(un) * (right - left);
  }
  std::string name() const override;

 private:
  double dissipation_;
};

class CentralFlux : public NumericalFlux {
 public:
  double operator()(double left, double right, double un) const override { return 0.5 * un * (left + right); }
  std::string name() const override { return "central"; }
};

// (1 - theta) * first + theta * second.
class BlendedFlux : public NumericalFlux {
 public:
  BlendedFlux(std::unique_ptr<NumericalFlux> first, std::unique_ptr<NumericalFlux> second, double theta)
      : first_(std::move(first)), second_(std::move(second)), theta_(theta) {}
  double operator()(double left, double right, double un) const override {
    return (1.0 - theta_) * (*first_)(left, right, un) + theta_ * (*second_)(left, right, un);
  }
  std::string name() const override;

 private:
  std::unique_ptr<NumericalFlux> first_, second_;
  double theta_;
};

// "upwind", "rusanov", "central", or "blend:A:B:THETA" (e.g.
// blend:upwind:central:0.25). Throws std::invalid_argument otherwise.
std::unique_ptr<NumericalFlux> make_flux(const std::string& spec);

// ------------------------------------------------------------- reaction

struct Reaction {
  double prefactor = 40.0;      // 1 / s
  double activation = 600.0;    // E / R, in K
  double heat_release = 5.0e6;  // J per unit of species per m^3

  double rate(double temperature) const { return prefactor * std::exp(-activation / (temperature + 273.15)); }
};

}  // namespace thermo

#endif  // CXX_BIG_PHYSICS_H_

// physics.cpp: descriptions, the material library and the flux factory.
#include "tests/instrument/cxx_big/physics.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace thermo {

namespace {

std::string format(const char* fmt, double a, double b = 0.0, double c = 0.0, double d = 0.0) {
  char line[200];
  std::snprintf(line, sizeof line, fmt, a, b, c, d);
  return line;
}

}  // namespace

std::string Material::describe() const {
  return name_ + format(" (rho %.0f, cp %.0f)", density_, specific_heat_);
}

std::string IsotropicMaterial::describe() const {
  return Material::describe() + format(", k = %.3g", k_);
}

std::string TemperatureDependentMaterial::describe() const {
  return Material::describe() + format(", k = %.3g (1 + %.3g (T - %.1f)), >= %.3g", k0_, beta_, t_ref_, k_min_);
}

OrthotropicMaterial::OrthotropicMaterial(std::string name, double density, double specific_heat, const Vec3& principal,
                                         double angle)
    : Material(std::move(name), density, specific_heat), principal_(principal), angle_(angle) {
  for (int i = 0; i < 3; ++i)
    if (!(principal[i] > 0.0)) throw std::invalid_argument("principal conductivities must be positive");
  const Mat3 r = rotation_z(angle);
  tensor_ = r * Mat3::diagonal(principal) * r.transpose();
}

std::string OrthotropicMaterial::describe() const {
  return Material::describe() +
         format(", k = (%.3g, %.3g, %.3g) turned %.3f rad", principal_[0], principal_[1], principal_[2], angle_);
}

MaterialLibrary::MaterialLibrary() {
  add("steel", [] { return std::make_unique<IsotropicMaterial>("steel", 7850.0, 490.0, 45.0); });
  add("copper", [] { return std::make_unique<IsotropicMaterial>("copper", 8960.0, 385.0, 400.0); });
  add("ceramic", [] {
    return std::make_unique<TemperatureDependentMaterial>("ceramic", 3900.0, 880.0, 25.0, -0.002, 20.0, 5.0);
  });
  add("polymer", [] {
    return std::make_unique<TemperatureDependentMaterial>("polymer", 1200.0, 1500.0, 0.4, 0.004, 20.0, 0.1);
  });
  add("composite", [] {
    return std::make_unique<OrthotropicMaterial>("composite", 1600.0, 900.0, Vec3(60.0, 4.0, 2.0), 0.5);
  });
}

void MaterialLibrary::add(const std::string& name, Factory factory) { factories_[name] = std::move(factory); }

std::unique_ptr<Material> MaterialLibrary::create(const std::string& name) const {
  const auto it = factories_.find(name);
  if (it == factories_.end()) throw std::out_of_range("unknown material '" + name + "'");
  return it->second();
}

std::vector<std::string> MaterialLibrary::names() const {
  std::vector<std::string> out;
  for (const auto& entry : factories_) out.push_back(entry.first);
  return out;
}

std::string FixedTemperature::describe() const { return std::string(side_name(side())) + ": fixed temperature"; }

std::string HeatFlux::describe() const {
  return std::string(side_name(side())) + format(": heat flux %.4g W/m2 (ramp %.3g s)", q_, ramp_time_);
}

std::string Convection::describe() const {
  return std::string(side_name(side())) + format(": convection h = %.4g to %.1f C", h_, ambient_);
}

std::string Radiation::describe() const {
  return std::string(side_name(side())) + format(": radiation eps = %.2f to %.1f C", emissivity_, ambient_k_ - 273.15);
}

std::string RusanovFlux::name() const { return format("rusanov(%.2f)", dissipation_); }

std::string BlendedFlux::name() const {
  return first_->name() + "+" + second_->name() + format("@%.2f", theta_);
}

std::unique_ptr<NumericalFlux> make_flux(const std::string& spec) {
  if (spec == "upwind") return std::make_unique<UpwindFlux>();
  if (spec == "rusanov") return std::make_unique<RusanovFlux>(1.0);
  if (spec == "central") return std::make_unique<CentralFlux>();
  if (spec.rfind("blend:", 0) == 0) {
    // blend:FIRST:SECOND:THETA
    const size_t a = spec.find(':', 6);
    const size_t b = a == std::string::npos ? a : spec.find(':', a + 1);
    if (b == std::string::npos) throw std::invalid_argument("flux blend needs blend:FIRST:SECOND:THETA");
    char* end = nullptr;
    const std::string theta_text = spec.substr(b + 1);
    const double theta = std::strtod(theta_text.c_str(), &end);
    if (theta_text.empty() || *end != '\0' || theta < 0.0 || theta > 1.0) {
      throw std::invalid_argument("flux blend weight must be a number in [0, 1], not '" + theta_text + "'");
    }
    return std::make_unique<BlendedFlux>(make_flux(spec.substr(6, a - 6)), make_flux(spec.substr(a + 1, b - a - 1)),
                                         theta);
  }
  throw std::invalid_argument("unknown flux '" + spec + "' (upwind, rusanov, central, blend:A:B:THETA)");
}

}  // namespace thermo

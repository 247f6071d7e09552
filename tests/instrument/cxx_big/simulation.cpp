// simulation.cpp: configuration parsing and the driver.
#include "tests/instrument/cxx_big/simulation.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "commanalyzer/annotate.h"

namespace thermo {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Physical size of the block before grading and twisting (m).
const Vec3 kBlockSize(0.12, 0.08, 0.06);

int to_int(const std::string& key, const std::string& text, long lo, long hi) {
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < lo || v > hi) {
    throw std::invalid_argument(key + " must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                "], not '" + text + "'");
  }
  return static_cast<int>(v);
}

double to_double(const std::string& key, const std::string& text, double lo, double hi) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0 || !(v >= lo && v <= hi)) {
    char range[96];
    std::snprintf(range, sizeof range, " must be a number in [%g, %g], not '", lo, hi);
    throw std::invalid_argument(key + range + text + "'");
  }
  return v;
}

bool to_bool(const std::string& key, const std::string& text) {
  if (text == "1" || text == "yes" || text == "true" || text == "on") return true;
  if (text == "0" || text == "no" || text == "false" || text == "off") return false;
  throw std::invalid_argument(key + " must be yes or no, not '" + text + "'");
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t at = text.find(separator, start);
    parts.push_back(text.substr(start, at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return parts;
}

}  // namespace

std::string Config::describe() const {
  char line[400];
  std::snprintf(line, sizeof line,
                "%dx%dx%d hexes, %d steps to %.4g s, %s, flux %s, quadrature %d^3, cfl %.2f, jitter %.2f, twist %.2f, "
                "grading %.2f, u %.4g m/s, materials %s (%s)",
                nx, ny, nz, steps, end_time, integrator.c_str(), flux.c_str(), quadrature, cfl, jitter, twist, grading,
                velocity, materials.c_str(), layout.c_str());
  return line;
}

Config parse_config(const std::vector<std::string>& args) {
  Config c;
  const std::unordered_map<std::string, std::function<void(const std::string&)>> setters = {
      {"n", [&](const std::string& v) { c.nx = c.ny = c.nz = to_int("n", v, 1, 64); }},
      {"nx", [&](const std::string& v) { c.nx = to_int("nx", v, 1, 64); }},
      {"ny", [&](const std::string& v) { c.ny = to_int("ny", v, 1, 64); }},
      {"nz", [&](const std::string& v) { c.nz = to_int("nz", v, 1, 64); }},
      {"steps", [&](const std::string& v) { c.steps = to_int("steps", v, 0, 1000000); }},
      {"end", [&](const std::string& v) { c.end_time = to_double("end", v, 0.0, 1e9); }},
      {"order", [&](const std::string& v) { c.quadrature = to_int("order", v, 1, 4); }},
      {"jitter", [&](const std::string& v) { c.jitter = to_double("jitter", v, 0.0, 0.24); }},
      {"twist", [&](const std::string& v) { c.twist = to_double("twist", v, -0.7, 0.7); }},
      {"grading", [&](const std::string& v) { c.grading = to_double("grading", v, 0.2, 5.0); }},
      {"cfl", [&](const std::string& v) { c.cfl = to_double("cfl", v, 0.01, 1.0); }},
      {"velocity", [&](const std::string& v) { c.velocity = to_double("velocity", v, 0.0, 10.0); }},
      {"flux", [&](const std::string& v) { c.flux = v; }},
      {"integrator", [&](const std::string& v) { c.integrator = v; }},
      {"materials", [&](const std::string& v) { c.materials = v; }},
      {"layout", [&](const std::string& v) { c.layout = v; }},
      {"report", [&](const std::string& v) { c.report_every = to_int("report", v, 1, 1000000); }},
      {"scramble", [&](const std::string& v) { c.scramble = to_bool("scramble", v); }},
      {"renumber", [&](const std::string& v) { c.renumber = to_bool("renumber", v); }},
      {"seed", [&](const std::string& v) { c.seed = static_cast<uint64_t>(to_int("seed", v, 0, 2147483647)); }},
  };
  int positional = 0;
  for (const std::string& arg : args) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos) {
      static const char* const kPositional[] = {"n", "steps"};
      if (positional >= 2) throw std::invalid_argument("unexpected argument '" + arg + "'");
      setters.at(kPositional[positional++])(arg);
      continue;
    }
    const std::string key = arg.substr(0, eq);
    const auto it = setters.find(key);
    if (it == setters.end()) throw std::invalid_argument("unknown setting '" + key + "'");
    it->second(arg.substr(eq + 1));
  }
  if (c.layout != "layers" && c.layout != "checker" && c.layout != "uniform") {
    throw std::invalid_argument("layout must be layers, checker or uniform, not '" + c.layout + "'");
  }
  make_flux(c.flux);              // validates, throws on a bad spec
  make_integrator(c.integrator);  // likewise
  return c;
}

std::string usage(const std::string& program) {
  return "usage: " + program +
         " [n] [steps] [key=value ...]\n"
         "  keys: n nx ny nz steps end order jitter twist grading cfl velocity flux integrator\n"
         "        materials layout report scramble renumber seed\n"
         "  e.g. " +
         program + " 6 10 flux=upwind integrator=ssprk3 materials=copper,polymer\n";
}

Simulation::Simulation(Config config) : config_(std::move(config)) {}

Simulation::~Simulation() = default;

void Simulation::setup() {
  std::printf("thermo: %s\n", config_.describe().c_str());
  build_mesh();
  assign_materials();
  build_operators();
  initialise();
}

void Simulation::build_mesh() {
  map_ = std::make_unique<BoxMap>(Vec3(0.0, 0.0, 0.0), kBlockSize);
  map_ = std::make_unique<GradedMap>(std::move(map_), Vec3(config_.grading, 1.0, 1.0));
  if (config_.twist != 0.0) {
    map_ = std::make_unique<TwistMap>(std::move(map_), Vec3(0.5 * kBlockSize[0], 0.5 * kBlockSize[1], 0.0),
                                      config_.twist);
  }
  BoxSpec spec;
  spec.nx = config_.nx;
  spec.ny = config_.ny;
  spec.nz = config_.nz;
  spec.jitter = config_.jitter;
  spec.scramble = config_.scramble;
  spec.seed = config_.seed;
  mesh_ = generate_box_mesh(spec, *map_);

  const int natural = bandwidth(*mesh_);
  if (config_.renumber) {
    mesh_->renumber_nodes(reverse_cuthill_mckee(*mesh_));
    mesh_->renumber_elements(morton_element_order(*mesh_));
  }
  mesh_->build_topology();
  domain_ = mesh_->bounds();
  std::printf("mesh: %s\n", mesh_->summary().c_str());
  std::printf("  geometry: %s\n", map_->describe().c_str());
  std::printf("  node bandwidth %d (as generated %d), worst Jacobian ratio %.4f, volume %.6e m3\n", bandwidth(*mesh_),
              natural, mesh_->min_jacobian_ratio(), mesh_->total_volume());
  for (int s = 0; s < kNumSides; ++s) {
    std::printf("  %s: %zu nodes\n", side_name(static_cast<Side>(s)), mesh_->nodes_on(static_cast<Side>(s)).size());
  }
}

void Simulation::assign_materials() {
  for (const std::string& name : split(config_.materials, ',')) materials_.push_back(library_.create(name));
  const int count = static_cast<int>(materials_.size());
  const Vec3 lo = domain_.lo, extent = domain_.extent();
  const int nx = config_.nx, ny = config_.ny;

  std::function<int(const Vec3&)> pick;
  if (config_.layout == "layers") {
    pick = [=](const Vec3& c) { return std::min(count - 1, static_cast<int>((c[2] - lo[2]) / extent[2] * count)); };
  } else if (config_.layout == "checker") {
    pick = [=](const Vec3& c) {
      const int i = static_cast<int>((c[0] - lo[0]) / extent[0] * nx);
      const int j = static_cast<int>((c[1] - lo[1]) / extent[1] * ny);
      return (i + j) % count;
    };
  } else {
    pick = [](const Vec3&) { return 0; };
  }
  std::map<int, int> histogram;
  for (int e = 0; e < mesh_->num_elements(); ++e) {
    const int m = pick(mesh_->centroid(e));
    mesh_->set_material(e, m);
    ++histogram[m];
  }
  for (const auto& [m, n] : histogram) {
    std::printf("  material %d: %s on %d elements\n", m, materials_[m]->describe().c_str(), n);
  }
}

void Simulation::build_operators() {
  std::vector<const Material*> raw;
  for (const auto& m : materials_) raw.push_back(m.get());
  heat_ = std::make_unique<HeatOperator>(*mesh_, std::move(raw), config_.quadrature);

  const double y0 = domain_.lo[1], ly = domain_.extent()[1];
  heat_->set_boundary(std::make_unique<FixedTemperature>(Side::kXMin, [y0, ly](const Vec3& x, double t) {
    const double s = std::sin(kPi * (x[1] - y0) / ly);
    const double ramp = std::min(1.0, t / 20.0);
    return 20.0 + 80.0 * s * s * ramp;
  }));
  heat_->set_boundary(std::make_unique<Convection>(Side::kXMax, 25.0, 20.0));
  heat_->set_boundary(std::make_unique<HeatFlux>(Side::kZMin, 1500.0, 10.0));
  heat_->set_boundary(std::make_unique<Radiation>(Side::kZMax, 0.85, 15.0));
  heat_->finalize();
  std::printf("boundaries (%zu fixed nodes):\n%s", heat_->essential_nodes().size(),
              heat_->describe_boundaries().c_str());

  // A divergence-free flow: each component independent of its own coordinate.
  const double u = config_.velocity;
  const Vec3 lo = domain_.lo, extent = domain_.extent();
  const VelocityField velocity = [u, lo, extent](const Vec3& x) {
    return Vec3(u, 0.3 * u * std::sin(2.0 * kPi * (x[2] - lo[2]) / extent[2]),
                0.2 * u * std::cos(2.0 * kPi * (x[0] - lo[0]) / extent[0]));
  };
  species_ = std::make_unique<SpeciesTransport>(*mesh_, velocity, make_flux(config_.flux), Side::kXMin, 1.0);
  Reaction reaction;
  reaction.prefactor = 2.0e3;
  reaction.activation = 3000.0;
  reaction.heat_release = 4.0e8;
  system_ = std::make_unique<CoupledSystem>(*heat_, *species_, reaction);
  integrator_ = make_integrator(config_.integrator);
  std::printf("transport: flux %s, advective step %.4e s, inflow %.4e /s; integrator %s (%d stages)\n",
              species_->flux().name().c_str(), species_->stable_dt(), species_->net_inflow_rate(),
              integrator_->name().c_str(), integrator_->stages());
}

void Simulation::initialise() {
  state_ = system_->make_state();
  const Vec3 extent = domain_.extent();
  const Vec3 hot = map_->apply(Vec3(0.6, 0.5, 0.4));
  const double sigma = 0.18 * std::min(extent[0], std::min(extent[1], extent[2]));
  for (int n = 0; n < mesh_->num_nodes(); ++n) {
    const double r2 = norm2(mesh_->node(n) - hot);
    state_.temperature[n] = 20.0 + 140.0 * std::exp(-r2 / (2.0 * sigma * sigma));
  }
  for (int e = 0; e < mesh_->num_elements(); ++e) {
    const double s = (mesh_->centroid(e)[0] - domain_.lo[0]) / extent[0];
    state_.concentration[e] = 0.5 * (1.0 + std::tanh((0.45 - s) / 0.08));
  }
  system_->constrain(state_, 0.0);

  probes_.add(*mesh_, "centre", map_->apply(Vec3(0.5, 0.5, 0.5)));
  probes_.add(*mesh_, "hotspot", hot);
  probes_.add(*mesh_, "inlet", map_->apply(Vec3(0.05, 0.5, 0.5)));
  probes_.add(*mesh_, "corner", map_->apply(Vec3(0.97, 0.97, 0.97)));
  probes_.add(*mesh_, "outside", domain_.hi + extent);
  std::printf("initial: energy %.6e J, reactant %.6e, max T %.4f\n", heat_->energy(state_.temperature),
              species_->total_amount(state_.concentration),
              field_stats(state_.temperature, heat_->lumped_capacity()).max);
  history_.reserve(config_.steps);
}

void Simulation::run() {
  State previous = system_->make_state();
  const double scale = config_.cfl * integrator_->stability_factor();
  int step = 0;
  CA_REGION_BEGIN();
  while (step < config_.steps && time_ < config_.end_time) {
    ++step;
    // Global reduction 1: the stable step over all elements, cut so that
    // the last step lands on the end time.
    double dt = scale * system_->stable_dt(state_);
    if (!(dt > 0.0) || !std::isfinite(dt)) {
      throw std::runtime_error("the stable time step collapsed at t = " + std::to_string(time_));
    }
    if (time_ + dt > config_.end_time) dt = config_.end_time - time_;
    previous.temperature = state_.temperature;
    integrator_->step(*system_, state_, time_, dt);
    time_ += dt;

    // Global reduction 2: the largest temperature rate, the reactant left
    // and the thermal energy.
    double max_rate = 0.0;
    for (size_t i = 0; i < state_.temperature.size(); ++i) {
      max_rate = std::max(max_rate, std::abs(state_.temperature[i] - previous.temperature[i]) / dt);
    }
    const StepRecord record{step, time_, dt, max_rate, species_->total_amount(state_.concentration),
                            heat_->energy(state_.temperature)};
    history_.push_back(record);
    if (step % config_.report_every == 0 || step == config_.steps || time_ >= config_.end_time) {
      std::printf("step %5d  t %.5e  dt %.4e  max|dT/dt| %.5e  reactant %.8e  energy %.8e\n", record.step,
                  record.time, record.dt, record.max_rate, record.species, record.energy);
    }
    CA_ITERATION();
  }
  CA_REGION_END();
}

void Simulation::report() const {
  std::printf("done: %zu steps to t = %.6e s, %ld rate evaluations\n", history_.size(), time_, system_->evaluations());
  const FieldStats t = field_stats(state_.temperature, heat_->lumped_capacity());
  std::printf("temperature: min %.6f (node %d) max %.6f (node %d) mean %.6f rms %.6f\n", t.min, t.argmin, t.max,
              t.argmax, t.mean, t.rms);
  const FieldStats c = field_stats(state_.concentration, species_->volumes());
  std::printf("reactant:    min %.6f (cell %d) max %.6f (cell %d) mean %.6f rms %.6f\n", c.min, c.argmin, c.max,
              c.argmax, c.mean, c.rms);
  std::printf("%s", probes_.report(*mesh_, state_.temperature).c_str());
  std::vector<double> cell_temperature;
  heat_->element_means(state_.temperature, cell_temperature);
  std::printf("cell temperatures:\n%s", histogram(cell_temperature, 8).c_str());
  if (!history_.empty()) {
    double smallest = history_.front().dt, largest = history_.front().dt;
    for (const StepRecord& r : history_) {
      smallest = std::min(smallest, r.dt);
      largest = std::max(largest, r.dt);
    }
    std::printf("time steps between %.4e and %.4e s\n", smallest, largest);
  }
  std::printf("checksum %.10e\n", checksum(state_));
}

}  // namespace thermo

// operators.cpp: finite element conduction, finite volume transport, and
// their coupling.
#include "tests/instrument/cxx_big/operators.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace thermo {

void axpy(State& y, double a, const State& x) {
  for (size_t i = 0; i < y.temperature.size(); ++i) y.temperature[i] += a * x.temperature[i];
  for (size_t i = 0; i < y.concentration.size(); ++i) y.concentration[i] += a * x.concentration[i];
}

void combine(State& out, double a, const State& x, double b, const State& y) {
  out.temperature.resize(x.temperature.size());
  out.concentration.resize(x.concentration.size());
  for (size_t i = 0; i < x.temperature.size(); ++i) out.temperature[i] = a * x.temperature[i] + b * y.temperature[i];
  for (size_t i = 0; i < x.concentration.size(); ++i) {
    out.concentration[i] = a * x.concentration[i] + b * y.concentration[i];
  }
}

// ------------------------------------------------------------ conduction

HeatOperator::HeatOperator(const Mesh& mesh, std::vector<const Material*> materials, int quadrature_order)
    : mesh_(mesh), materials_(std::move(materials)), order_(quadrature_order) {
  if (!mesh.has_topology()) throw std::logic_error("HeatOperator needs a mesh with topology");
  const std::vector<QuadPoint<3>> rule = tensor_gauss_rule<3>(quadrature_order);
  nq_ = static_cast<int>(rule.size());
  const int ne = mesh.num_elements();
  grad_.assign(static_cast<size_t>(ne) * nq_ * 24, 0.0);
  dvol_.assign(static_cast<size_t>(ne) * nq_, 0.0);
  source_weight_.assign(static_cast<size_t>(ne) * Hex8::kNodes, 0.0);
  capacity_.assign(mesh.num_nodes(), 0.0);
  spectral_.assign(ne, 0.0);

  // The shape function values do not depend on the element.
  std::vector<Hex8::Values> shape(nq_);
  for (int q = 0; q < nq_; ++q) shape[q] = Hex8::shape(rule[q].xi);

  for (int e = 0; e < ne; ++e) {
    const int m = mesh.material(e);
    if (m < 0 || m >= static_cast<int>(materials_.size()) || materials_[m] == nullptr) {
      throw std::out_of_range("element " + std::to_string(e) + " has material id " + std::to_string(m) +
                              " without a material");
    }
    const double rhoc = materials_[m]->volumetric_capacity();
    const Hex8::Coords x = mesh.element_coords(e);
    Mat<double, 8, 8> unit_stiffness;
    Hex8::Values lumped;
    for (int q = 0; q < nq_; ++q) {
      PointGeometry g;
      if (!hex8_point_geometry(x, rule[q].xi, rule[q].weight, g)) {
        throw std::runtime_error("element " + std::to_string(e) + " has a non-positive Jacobian");
      }
      double* out = &grad_[(static_cast<size_t>(e) * nq_ + q) * 24];
      for (int a = 0; a < Hex8::kNodes; ++a)
        for (int d = 0; d < 3; ++d) out[a * 3 + d] = g.grad(a, d);
      dvol_[static_cast<size_t>(e) * nq_ + q] = g.dvol;
      unit_stiffness += (g.grad * g.grad.transpose()) * g.dvol;
      for (int a = 0; a < Hex8::kNodes; ++a) {
        source_weight_[static_cast<size_t>(e) * Hex8::kNodes + a] += shape[q][a] * g.dvol;
        lumped[a] += rhoc * shape[q][a] * g.dvol;
      }
    }
    double bound = 0.0;
    for (int a = 0; a < Hex8::kNodes; ++a) {
      capacity_[mesh.element(e)[a]] += lumped[a];
      double row = 0.0;
      for (int b = 0; b < Hex8::kNodes; ++b) row += std::abs(unit_stiffness(a, b));
      bound = std::max(bound, row / lumped[a]);
    }
    spectral_[e] = bound;
  }
  bcs_.resize(kNumSides);
}

void HeatOperator::set_boundary(std::unique_ptr<BoundaryCondition> bc) {
  if (finalized_) throw std::logic_error("boundary conditions are fixed once the operator is finalized");
  const int side = static_cast<int>(bc->side());
  bcs_[side] = std::move(bc);
}

void HeatOperator::finalize() {
  // Essential nodes: a node on two sides with essential conditions takes the
  // first side's (x-min before x-max before y-min ...).
  std::vector<int> owner(mesh_.num_nodes(), -1);
  for (int s = 0; s < kNumSides; ++s) {
    if (!bcs_[s] || !bcs_[s]->essential()) continue;
    for (int n : mesh_.nodes_on(static_cast<Side>(s)))
      if (owner[n] < 0) owner[n] = s;
  }
  essential_nodes_.clear();
  essential_bc_.clear();
  for (int n = 0; n < mesh_.num_nodes(); ++n) {
    if (owner[n] >= 0) {
      essential_nodes_.push_back(n);
      essential_bc_.push_back(owner[n]);
    }
  }

  // Surface quadrature of the natural conditions.
  const std::vector<QuadPoint<2>> rule = tensor_gauss_rule<2>(order_);
  natural_faces_.clear();
  for (const BoundaryFace& f : mesh_.boundary_faces()) {
    const int s = static_cast<int>(f.side);
    if (!bcs_[s] || bcs_[s]->essential()) continue;
    SurfaceFace face{s, f.nodes, {}};
    Quad4::Coords x;
    for (int k = 0; k < 4; ++k) x[k] = mesh_.node(f.nodes[k]);
    for (const QuadPoint<2>& q : rule) {
      face.points.push_back({Quad4::map(x, q.xi), Quad4::shape(q.xi), norm(Quad4::area_normal(x, q.xi)) * q.weight});
    }
    natural_faces_.push_back(std::move(face));
  }
  finalized_ = true;
}

void HeatOperator::residual(const std::vector<double>& temperature, const std::vector<double>& element_source,
                            double t, std::vector<double>& r) const {
  r.assign(mesh_.num_nodes(), 0.0);
  const int ne = mesh_.num_elements();
  for (int e = 0; e < ne; ++e) {
    const HexNodes& conn = mesh_.element(e);
    // Gather.
    Hex8::Values te;
    for (int a = 0; a < Hex8::kNodes; ++a) te[a] = temperature[conn[a]];
    const Mat3 k = materials_[mesh_.material(e)]->conductivity(sum(te) * 0.125);

    // Compute: -integral grad N_a . K grad T, plus the source.
    Hex8::Values re;
    for (int q = 0; q < nq_; ++q) {
      const double* g = point_gradients(e, q);
      Vec3 grad_t;
      for (int a = 0; a < Hex8::kNodes; ++a) {
        grad_t[0] += g[3 * a] * te[a];
        grad_t[1] += g[3 * a + 1] * te[a];
        grad_t[2] += g[3 * a + 2] * te[a];
      }
      const Vec3 q_flux = (k * grad_t) * dvol_[static_cast<size_t>(e) * nq_ + q];
      for (int a = 0; a < Hex8::kNodes; ++a) {
        re[a] -= g[3 * a] * q_flux[0] + g[3 * a + 1] * q_flux[1] + g[3 * a + 2] * q_flux[2];
      }
    }
    const double s = element_source[e];
    for (int a = 0; a < Hex8::kNodes; ++a) re[a] += s * source_weight_[static_cast<size_t>(e) * Hex8::kNodes + a];

    // Scatter.
    for (int a = 0; a < Hex8::kNodes; ++a) r[conn[a]] += re[a];
  }

  for (const SurfaceFace& f : natural_faces_) {
    const BoundaryCondition& bc = *bcs_[f.bc];
    Vec<double, 4> tf, rf;
    for (int k = 0; k < 4; ++k) tf[k] = temperature[f.nodes[k]];
    for (const SurfacePoint& p : f.points) {
      const double q = bc.flux(dot(p.shape, tf), p.x, t);
      rf += p.shape * (q * p.area);
    }
    for (int k = 0; k < 4; ++k) r[f.nodes[k]] += rf[k];
  }
}

void HeatOperator::rate(const std::vector<double>& r, std::vector<double>& dtdt) const {
  dtdt.resize(r.size());
  for (size_t a = 0; a < r.size(); ++a) dtdt[a] = r[a] / capacity_[a];
  for (int n : essential_nodes_) dtdt[n] = 0.0;
}

void HeatOperator::apply_essential(std::vector<double>& temperature, double t) const {
  for (size_t i = 0; i < essential_nodes_.size(); ++i) {
    const int n = essential_nodes_[i];
    temperature[n] = bcs_[essential_bc_[i]]->prescribed(mesh_.node(n), t);
  }
}

void HeatOperator::element_means(const std::vector<double>& temperature, std::vector<double>& means) const {
  means.resize(mesh_.num_elements());
  for (int e = 0; e < mesh_.num_elements(); ++e) {
    double s = 0.0;
    for (int n : mesh_.element(e)) s += temperature[n];
    means[e] = 0.125 * s;
  }
}

double HeatOperator::stable_dt(const std::vector<double>& element_temperature) const {
  // Forward Euler on dT/dt = -C^{-1} K T is stable for dt <= 2 / lambda_max,
  // and lambda_max <= max_e spectral_e * k_e by Gershgorin (a sum of element
  // rows over a sum of element capacities is at most the largest ratio).
  double dt = std::numeric_limits<double>::infinity();
  for (int e = 0; e < mesh_.num_elements(); ++e) {
    const double k = materials_[mesh_.material(e)]->max_conductivity(element_temperature[e]);
    dt = std::min(dt, 2.0 / (spectral_[e] * k));
  }
  return dt;
}

double HeatOperator::energy(const std::vector<double>& temperature) const {
  double s = 0.0;
  for (size_t a = 0; a < capacity_.size(); ++a) s += capacity_[a] * temperature[a];
  return s;
}

std::string HeatOperator::describe_boundaries() const {
  std::string out;
  for (int s = 0; s < kNumSides; ++s) {
    out += "  ";
    out += bcs_[s] ? bcs_[s]->describe() : std::string(side_name(static_cast<Side>(s))) + ": insulated";
    out += "\n";
  }
  return out;
}

// ------------------------------------------------------------- transport

SpeciesTransport::SpeciesTransport(const Mesh& mesh, const VelocityField& velocity, std::unique_ptr<NumericalFlux> flux,
                                   Side inflow_side, double inflow_value)
    : flux_(std::move(flux)), inflow_value_(inflow_value) {
  if (!mesh.has_topology()) throw std::logic_error("SpeciesTransport needs a mesh with topology");
  const int ne = mesh.num_elements();
  volume_.resize(ne);
  for (int e = 0; e < ne; ++e) volume_[e] = hex8_volume(mesh.element_coords(e));

  const std::vector<QuadPoint<2>> rule = tensor_gauss_rule<2>(2);
  auto normal_velocity = [&](const FaceNodes& nodes) {
    Quad4::Coords x;
    for (int k = 0; k < 4; ++k) x[k] = mesh.node(nodes[k]);
    double un = 0.0;
    for (const QuadPoint<2>& q : rule) un += q.weight * dot(velocity(Quad4::map(x, q.xi)), Quad4::area_normal(x, q.xi));
    return un;
  };

  std::vector<double> throughput(ne, 0.0);
  faces_.reserve(mesh.interior_faces().size());
  for (const InteriorFace& f : mesh.interior_faces()) {
    const double un = normal_velocity(f.nodes);
    faces_.push_back({f.left, f.right, un});
    throughput[f.left] += std::abs(un);
    throughput[f.right] += std::abs(un);
  }
  for (const BoundaryFace& f : mesh.boundary_faces()) {
    const double un = normal_velocity(f.nodes);
    walls_.push_back({f.element, un, f.side == inflow_side});
    throughput[f.element] += std::abs(un);
  }
  // Sort the faces by their left cell, then the right: a cache-friendly
  // sweep, as a production code would order them.
  std::sort(faces_.begin(), faces_.end(),
            [](const Face& a, const Face& b) { return a.left != b.left ? a.left < b.left : a.right < b.right; });

  cell_dt_.resize(ne);
  advective_dt_ = std::numeric_limits<double>::infinity();
  for (int e = 0; e < ne; ++e) {
    cell_dt_[e] = throughput[e] > 0.0 ? volume_[e] / throughput[e] : std::numeric_limits<double>::infinity();
    advective_dt_ = std::min(advective_dt_, cell_dt_[e]);
  }
}

void SpeciesTransport::rate(const std::vector<double>& c, const std::vector<double>& element_temperature,
                            const Reaction& reaction, std::vector<double>& dcdt, std::vector<double>& heat) const {
  const size_t ne = c.size();
  dcdt.assign(ne, 0.0);
  heat.resize(ne);
  const NumericalFlux& flux = *flux_;
  for (const Face& f : faces_) {
    const double through = flux(c[f.left], c[f.right], f.un);
    dcdt[f.left] -= through;
    dcdt[f.right] += through;
  }
  for (const Wall& w : walls_) {
    // Outflow: the cell value leaves. Inflow: the inflow side brings the
    // feed concentration, the other sides clean fluid.
    const double outside = w.un >= 0.0 ? c[w.cell] : (w.inflow_side ? inflow_value_ : 0.0);
    dcdt[w.cell] -= flux(c[w.cell], outside, w.un);
  }
  for (size_t e = 0; e < ne; ++e) {
    const double consumed = reaction.rate(element_temperature[e]) * c[e];
    dcdt[e] = dcdt[e] / volume_[e] - consumed;
    heat[e] = reaction.heat_release * consumed;
  }
}

double SpeciesTransport::total_amount(const std::vector<double>& c) const {
  double s = 0.0;
  for (size_t e = 0; e < c.size(); ++e) s += c[e] * volume_[e];
  return s;
}

double SpeciesTransport::net_inflow_rate() const {
  double s = 0.0;
  for (const Wall& w : walls_)
    if (w.un < 0.0 && w.inflow_side) s -= w.un * inflow_value_;
  return s;
}

// -------------------------------------------------------------- coupling

CoupledSystem::CoupledSystem(HeatOperator& heat, SpeciesTransport& species, const Reaction& reaction)
    : heat_(heat), species_(species), reaction_(reaction) {
  element_temperature_.resize(heat.num_elements());
  heat_source_.resize(heat.num_elements());
  residual_.resize(heat.num_nodes());
}

State CoupledSystem::make_state() const {
  State s;
  s.temperature.assign(heat_.num_nodes(), 0.0);
  s.concentration.assign(heat_.num_elements(), 0.0);
  return s;
}

void CoupledSystem::rate(const State& u, double t, State& out) {
  ++evaluations_;
  heat_.element_means(u.temperature, element_temperature_);
  species_.rate(u.concentration, element_temperature_, reaction_, out.concentration, heat_source_);
  heat_.residual(u.temperature, heat_source_, t, residual_);
  heat_.rate(residual_, out.temperature);
}

double CoupledSystem::stable_dt(const State& u) {
  heat_.element_means(u.temperature, element_temperature_);
  double dt = std::min(heat_.stable_dt(element_temperature_), species_.stable_dt());
  // The reaction: keep r(T) dt below one so that no cell loses more species
  // than it holds in one step.
  for (double te : element_temperature_) {
    const double r = reaction_.rate(te);
    if (r > 0.0) dt = std::min(dt, 1.0 / r);
  }
  return dt;
}

}  // namespace thermo

// operators.h: the discrete operators of the coupled problem.
//
//   rho c dT/dt = div(K(T) grad T) + H r(T) c      on the nodes (trilinear FE,
//                                                   lumped capacity)
//   dc/dt + div(u c) = -r(T) c                      on the cells (first-order FV)
//
// HeatOperator is the finite element part: element geometry is computed
// once, then every evaluation gathers the element's nodal temperatures,
// integrates the conductive flux at the quadrature points, and scatters the
// element residual back to the nodes; boundary conditions add surface
// integrals. SpeciesTransport is the finite volume part: a loop over
// interior and boundary faces with a NumericalFlux, then the reaction per
// cell. CoupledSystem glues both: the element temperature (mean of its
// nodes) drives the reaction, the reaction heat is the element source.
#ifndef CXX_BIG_OPERATORS_H_
#define CXX_BIG_OPERATORS_H_

#include <functional>
#include <memory>
#include <vector>

#include "tests/instrument/cxx_big/element.h"
#include "tests/instrument/cxx_big/mesh.h"
#include "tests/instrument/cxx_big/physics.h"

namespace thermo {

// The solution: nodal temperatures and cell concentrations.
struct State {
  std::vector<double> temperature;
  std::vector<double> concentration;
};

// y += a x
void axpy(State& y, double a, const State& x);
// out = a x + b y
void combine(State& out, double a, const State& x, double b, const State& y);

class HeatOperator {
 public:
  // materials[m] is the material of the elements with material id m; the
  // operator keeps the pointers, not the materials.
  HeatOperator(const Mesh& mesh, std::vector<const Material*> materials, int quadrature_order);
  HeatOperator(const HeatOperator&) = delete;
  HeatOperator& operator=(const HeatOperator&) = delete;

  // Boundary conditions: at most one per side. Call finalize() after the last.
  void set_boundary(std::unique_ptr<BoundaryCondition> bc);
  void finalize();

  int num_nodes() const { return mesh_.num_nodes(); }
  int num_elements() const { return mesh_.num_elements(); }
  const std::vector<double>& lumped_capacity() const { return capacity_; }
  const std::vector<int>& essential_nodes() const { return essential_nodes_; }

  // R = -K(T) T + boundary fluxes + sources, where element_source[e] is a
  // volumetric heat source (W / m^3) uniform over element e.
  void residual(const std::vector<double>& temperature, const std::vector<double>& element_source, double t,
                std::vector<double>& r) const;
  // Temperature rate dT/dt from the residual; zero on essential nodes.
  void rate(const std::vector<double>& r, std::vector<double>& dtdt) const;
  // Sets the essential (fixed) temperatures at time t.
  void apply_essential(std::vector<double>& temperature, double t) const;
  // Mean nodal temperature of every element (the gather of the FV coupling).
  void element_means(const std::vector<double>& temperature, std::vector<double>& means) const;
  // Largest stable explicit step for conduction alone at these temperatures
  // (Gershgorin bound of the lumped operator, element by element).
  double stable_dt(const std::vector<double>& element_temperature) const;
  // Thermal energy sum_a C_a T_a (J, relative to 0 C).
  double energy(const std::vector<double>& temperature) const;
  std::string describe_boundaries() const;

 private:
  const double* point_gradients(int e, int q) const { return &grad_[(static_cast<size_t>(e) * nq_ + q) * 24]; }

  const Mesh& mesh_;
  std::vector<const Material*> materials_;
  int order_;
  int nq_;
  std::vector<double> grad_;           // [element][point][node][3] physical gradients
  std::vector<double> dvol_;           // [element][point] weight * det J
  std::vector<double> source_weight_;  // [element][node] integral of N_a
  std::vector<double> capacity_;       // [node] lumped rho c integral of N_a
  std::vector<double> spectral_;       // [element] Gershgorin row bound of K_e / C_e for k = 1

  struct SurfacePoint {
    Vec3 x;
    Vec<double, 4> shape;  // N_a at the point
    double area;           // quadrature weight * surface Jacobian
  };
  struct SurfaceFace {
    int bc;
    FaceNodes nodes;
    std::vector<SurfacePoint> points;
  };
  std::vector<std::unique_ptr<BoundaryCondition>> bcs_;
  std::vector<SurfaceFace> natural_faces_;
  std::vector<int> essential_nodes_;
  std::vector<int> essential_bc_;
  bool finalized_ = false;
};

using VelocityField = std::function<Vec3(const Vec3&)>;

class SpeciesTransport {
 public:
  SpeciesTransport(const Mesh& mesh, const VelocityField& velocity, std::unique_ptr<NumericalFlux> flux,
                   Side inflow_side, double inflow_value);

  // dc/dt and the reaction heat (W / m^3) per cell.
  void rate(const std::vector<double>& c, const std::vector<double>& element_temperature, const Reaction& reaction,
            std::vector<double>& dcdt, std::vector<double>& heat) const;
  // Largest stable explicit step for advection alone (per cell: volume over
  // the sum of |u.n| dA of its faces), the minimum over cells.
  double stable_dt() const { return advective_dt_; }
  double cell_dt(int e) const { return cell_dt_[e]; }
  double total_amount(const std::vector<double>& c) const;
  double net_inflow_rate() const;  // sum of -u.n dA over inflow faces
  const std::vector<double>& volumes() const { return volume_; }
  const NumericalFlux& flux() const { return *flux_; }

 private:
  struct Face {
    int left, right;
    double un;  // integral of u.n over the face, from left to right
  };
  struct Wall {
    int cell;
    double un;  // outward
    bool inflow_side;
  };
  std::unique_ptr<NumericalFlux> flux_;
  double inflow_value_;
  std::vector<Face> faces_;
  std::vector<Wall> walls_;
  std::vector<double> volume_;
  std::vector<double> cell_dt_;
  double advective_dt_ = 0.0;
};

class CoupledSystem {
 public:
  CoupledSystem(HeatOperator& heat, SpeciesTransport& species, const Reaction& reaction);

  State make_state() const;
  // rate = d(state)/dt at time t.
  void rate(const State& u, double t, State& out);
  // Enforces the essential conditions at time t.
  void constrain(State& u, double t) const { heat_.apply_essential(u.temperature, t); }
  // Stable explicit step: min over cells of the conduction, advection and
  // reaction limits (a global reduction).
  double stable_dt(const State& u);
  const HeatOperator& heat() const { return heat_; }
  const SpeciesTransport& species() const { return species_; }
  const Reaction& reaction() const { return reaction_; }
  const std::vector<double>& element_temperature() const { return element_temperature_; }
  long evaluations() const { return evaluations_; }

 private:
  HeatOperator& heat_;
  SpeciesTransport& species_;
  Reaction reaction_;
  std::vector<double> element_temperature_;
  std::vector<double> heat_source_;
  std::vector<double> residual_;
  long evaluations_ = 0;
};

}  // namespace thermo

#endif  // CXX_BIG_OPERATORS_H_

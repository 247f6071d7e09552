// selfcheck.cpp: see selfcheck.h.
#include "tests/instrument/cxx_big/selfcheck.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/instrument/cxx_big/diagnostics.h"
#include "tests/instrument/cxx_big/element.h"
#include "tests/instrument/cxx_big/mesh.h"
#include "tests/instrument/cxx_big/operators.h"
#include "tests/instrument/cxx_big/physics.h"
#include "tests/instrument/cxx_big/timestep.h"

namespace thermo {

namespace {

class Checker {
 public:
  void expect(bool ok, const std::string& what, double detail = 0.0) {
    std::printf("%s %-58s %.3e\n", ok ? "ok  " : "FAIL", what.c_str(), detail);
    if (!ok) ++failures_;
  }
  void near(double got, double want, double tolerance, const std::string& what) {
    const double error = std::abs(got - want);
    expect(error <= tolerance * std::max(1.0, std::abs(want)), what, error);
  }
  int failures() const { return failures_; }

 private:
  int failures_ = 0;
};

bool is_permutation_of_iota(std::vector<int> p) {
  std::sort(p.begin(), p.end());
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != static_cast<int>(i)) return false;
  return true;
}

void check_quadrature(Checker& check) {
  for (int n = 1; n <= 4; ++n) {
    std::vector<double> x, w;
    gauss_legendre(n, x, w);
    double worst = 0.0;
    for (int k = 0; k < 2 * n; ++k) {
      double integral = 0.0;
      for (int i = 0; i < n; ++i) integral += w[i] * std::pow(x[i], k);
      const double exact = k % 2 == 1 ? 0.0 : 2.0 / (k + 1);
      worst = std::max(worst, std::abs(integral - exact));
    }
    check.expect(worst < 1e-14, "Gauss rule with " + std::to_string(n) + " points is exact to degree " +
                                     std::to_string(2 * n - 1),
                 worst);
  }
  double total = 0.0;
  for (const QuadPoint<3>& q : tensor_gauss_rule<3>(3)) total += q.weight;
  check.near(total, 8.0, 1e-14, "3-D tensor rule weights sum to the cube volume");
  bool threw = false;
  try {
    std::vector<double> x, w;
    gauss_legendre(7, x, w);
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  check.expect(threw, "a 7-point rule is refused");
}

void check_shapes(Checker& check) {
  Xorshift rng(7);
  double unity = 0.0, gradient = 0.0;
  for (int k = 0; k < 20; ++k) {
    const Vec3 xi(rng.symmetric(), rng.symmetric(), rng.symmetric());
    unity = std::max(unity, std::abs(sum(Hex8::shape(xi)) - 1.0));
    const Hex8::Gradients g = Hex8::shape_gradients(xi);
    for (int d = 0; d < 3; ++d) gradient = std::max(gradient, std::abs(sum(g.col(d))));
  }
  check.expect(unity < 1e-15, "Hex8 shape functions sum to one", unity);
  check.expect(gradient < 1e-15, "Hex8 shape gradients sum to zero", gradient);
  double kronecker = 0.0;
  for (int b = 0; b < Hex8::kNodes; ++b) {
    const Hex8::Values n = Hex8::shape(Vec3(Hex8::kCorner[b][0], Hex8::kCorner[b][1], Hex8::kCorner[b][2]));
    for (int a = 0; a < Hex8::kNodes; ++a) kronecker = std::max(kronecker, std::abs(n[a] - (a == b ? 1.0 : 0.0)));
  }
  check.expect(kronecker < 1e-15, "Hex8 shape functions interpolate the corners", kronecker);

  // The outward faces of the reference cube have outward normals.
  Hex8::Coords cube;
  for (int a = 0; a < Hex8::kNodes; ++a) cube[a] = Vec3(Hex8::kCorner[a][0], Hex8::kCorner[a][1], Hex8::kCorner[a][2]);
  bool outward = true;
  for (int f = 0; f < Hex8::kFaces; ++f) {
    Quad4::Coords x;
    for (int k = 0; k < 4; ++k) x[k] = cube[Hex8::kFace[f][k]];
    const Vec3 n = Quad4::area_normal(x, Vec2(0.0, 0.0));
    const Vec3 centre = Quad4::map(x, Vec2(0.0, 0.0));
    outward = outward && dot(n, centre) > 0.0 && std::abs(norm(n) - 1.0) < 1e-15;
  }
  check.expect(outward, "Hex8 faces are numbered with outward normals");
}

void check_algebra(Checker& check) {
  Mat3 m;
  m(0, 0) = 4.0;
  m(0, 1) = 1.0;
  m(0, 2) = -2.0;
  m(1, 0) = 0.5;
  m(1, 1) = 3.0;
  m(1, 2) = 1.0;
  m(2, 0) = -1.0;
  m(2, 1) = 2.0;
  m(2, 2) = 5.0;
  Mat3 inv;
  const bool ok = invert(m, inv);
  const double error = (m * inv - Mat3::identity()).frobenius();
  check.expect(ok && error < 1e-14, "3x3 inverse times the matrix is the identity", error);
  const Mat3 r = rotation_z(0.7);
  check.near(det(r), 1.0, 1e-15, "a rotation has determinant one");
  check.near((r * r.transpose() - Mat3::identity()).frobenius(), 0.0, 1e-15, "a rotation is orthogonal");
  const Vec3 a(1.0, 2.0, 3.0), b(-2.0, 0.5, 4.0);
  const Vec3 c = cross(a, b);
  check.near(dot(c, a) + dot(c, b), 0.0, 1e-14, "the cross product is orthogonal to its factors");
  Mat<double, 2, 2> s;
  s(0, 0) = 2.0;
  s(0, 1) = 1.0;
  s(1, 0) = 1.0;
  s(1, 1) = 3.0;
  Mat<double, 2, 2> sinv;
  invert(s, sinv);
  check.near((s * sinv - Mat<double, 2, 2>::identity()).frobenius(), 0.0, 1e-15, "2x2 inverse");
  check.near(transpose_times(m, a)[2], m.col(2)[0] * a[0] + m.col(2)[1] * a[1] + m.col(2)[2] * a[2], 1e-15,
             "transpose_times agrees with the columns");
}

std::unique_ptr<Mesh> small_mesh(int n, double jitter, double grading, double twist) {
  std::unique_ptr<CoordinateMap> map = std::make_unique<BoxMap>(Vec3(0.0, 0.0, 0.0), Vec3(2.0, 1.0, 0.5));
  map = std::make_unique<GradedMap>(std::move(map), Vec3(grading, 1.0, 1.0));
  if (twist != 0.0) map = std::make_unique<TwistMap>(std::move(map), Vec3(1.0, 0.5, 0.0), twist);
  BoxSpec spec;
  spec.nx = spec.ny = spec.nz = n;
  spec.jitter = jitter;
  auto mesh = generate_box_mesh(spec, *map);
  return mesh;
}

void check_mesh(Checker& check) {
  const int n = 4;
  auto mesh = small_mesh(n, 0.2, 1.5, 0.0);
  mesh->build_topology();
  check.expect(mesh->num_nodes() == (n + 1) * (n + 1) * (n + 1) && mesh->num_elements() == n * n * n,
               "box mesh node and element counts");
  check.expect(static_cast<int>(mesh->interior_faces().size()) == 3 * n * n * (n - 1), "interior face count");
  check.expect(static_cast<int>(mesh->boundary_faces().size()) == 6 * n * n, "boundary face count");
  bool sides = true;
  for (int s = 0; s < kNumSides; ++s)
    sides = sides && static_cast<int>(mesh->nodes_on(static_cast<Side>(s)).size()) == (n + 1) * (n + 1);
  check.expect(sides, "every side holds (n+1)^2 nodes");
  const double volume = mesh->total_volume();
  check.near(volume, 1.0, 1e-12, "a perturbed, graded box keeps its volume");
  int degree_sum = 0;
  for (int v = 0; v < mesh->num_nodes(); ++v) degree_sum += mesh->node_elements().degree(v);
  check.expect(degree_sum == 8 * mesh->num_elements(), "node-element adjacency holds 8 entries per element");

  // As read from a file, a mesh has no useful numbering: scramble it, then
  // RCM must bring the band back well below the scrambled one.
  mesh->renumber_nodes(scrambled_order(mesh->num_nodes(), 5));
  mesh->renumber_elements(scrambled_order(mesh->num_elements(), 6));
  mesh->build_topology();
  check.near(mesh->total_volume(), volume, 1e-13, "scrambling keeps the volume");
  const int before = bandwidth(*mesh);
  const std::vector<int> node_perm = reverse_cuthill_mckee(*mesh);
  const std::vector<int> element_perm = morton_element_order(*mesh);
  check.expect(is_permutation_of_iota(node_perm), "reverse Cuthill-McKee gives a permutation");
  check.expect(is_permutation_of_iota(element_perm), "Morton order gives a permutation");
  mesh->renumber_nodes(node_perm);
  mesh->renumber_elements(element_perm);
  mesh->build_topology();
  check.expect(5 * bandwidth(*mesh) < 3 * before, "RCM narrows a scrambled band by 40% (" + std::to_string(before) + " -> " +
                                                  std::to_string(bandwidth(*mesh)) + ")");
  check.near(mesh->total_volume(), volume, 1e-13, "renumbering keeps the volume");
  check.expect(static_cast<int>(mesh->interior_faces().size()) == 3 * n * n * (n - 1), "renumbering keeps the faces");

  auto twisted = small_mesh(3, 0.1, 1.0, 0.5);
  twisted->build_topology();
  bool classified = true;
  for (int s = 0; s < kNumSides; ++s) classified = classified && twisted->nodes_on(static_cast<Side>(s)).size() == 16u;
  check.expect(classified, "boundary faces of a twisted box are classified by side");
  check.expect(twisted->min_jacobian_ratio() > 0.0, "the twisted box has no inverted element",
               twisted->min_jacobian_ratio());

  bool threw = false;
  try {
    Mesh bad;
    for (int k = 0; k < 8; ++k) bad.add_node(Vec3(k & 1, (k >> 1) & 1, (k >> 2) & 1));
    bad.add_element({4, 5, 7, 6, 0, 1, 3, 2}, 0);  // top and bottom swapped: inverted
    bad.build_topology();
  } catch (const std::runtime_error&) {
    threw = true;
  }
  check.expect(threw, "an inverted element is refused");
}

void check_patch_test(Checker& check) {
  // A linear temperature is reproduced exactly by trilinear elements: the
  // conduction residual vanishes at every interior node, whatever the mesh
  // distortion. Isotropic and anisotropic conductivity alike.
  auto mesh = small_mesh(4, 0.2, 1.4, 0.0);
  mesh->build_topology();
  std::vector<char> on_boundary(mesh->num_nodes(), 0);
  for (const BoundaryFace& f : mesh->boundary_faces())
    for (int v : f.nodes) on_boundary[v] = 1;
  const IsotropicMaterial iso("iso", 1000.0, 1000.0, 3.0);
  const OrthotropicMaterial ortho("ortho", 1000.0, 1000.0, Vec3(5.0, 1.0, 0.5), 0.4);
  for (const Material* material : {static_cast<const Material*>(&iso), static_cast<const Material*>(&ortho)}) {
    HeatOperator heat(*mesh, {material}, 2);
    heat.finalize();
    std::vector<double> t(mesh->num_nodes());
    for (int v = 0; v < mesh->num_nodes(); ++v) t[v] = 3.0 + dot(Vec3(2.0, -1.0, 0.5), mesh->node(v));
    std::vector<double> r, source(mesh->num_elements(), 0.0);
    heat.residual(t, source, 0.0, r);
    double worst = 0.0, boundary_sum = 0.0;
    for (int v = 0; v < mesh->num_nodes(); ++v) {
      if (on_boundary[v])
        boundary_sum += r[v];
      else
        worst = std::max(worst, std::abs(r[v]));
    }
    check.expect(worst < 1e-12, "patch test, " + material->name() + ": zero interior residual", worst);
    check.expect(std::abs(boundary_sum) < 1e-12, "patch test, " + material->name() + ": boundary residuals balance",
                 std::abs(boundary_sum));
    // Capacity: sum of lumped capacities = rho c * volume.
    const auto& cap = heat.lumped_capacity();
    check.near(std::accumulate(cap.begin(), cap.end(), 0.0), material->volumetric_capacity() * mesh->total_volume(),
               1e-12, "lumped capacity adds up to rho c V (" + material->name() + ")");
  }
}

void check_transport(Checker& check) {
  auto mesh = small_mesh(4, 0.15, 1.3, 0.0);
  mesh->build_topology();
  const double u = 0.5;
  SpeciesTransport species(*mesh, [u](const Vec3&) { return Vec3(u, 0.0, 0.0); }, std::make_unique<UpwindFlux>(),
                           Side::kXMin, 1.0);
  Reaction inert;
  inert.prefactor = 0.0;
  std::vector<double> te(mesh->num_elements(), 20.0), dcdt, heat;
  // A uniform field in a uniform flow with a matching inflow stays uniform.
  std::vector<double> ones(mesh->num_elements(), 1.0);
  species.rate(ones, te, inert, dcdt, heat);
  double worst = 0.0;
  for (double r : dcdt) worst = std::max(worst, std::abs(r));
  check.expect(worst < 1e-12, "uniform flow keeps a uniform concentration", worst);
  // Conservation: the total rate equals inflow minus outflow.
  std::vector<double> c(mesh->num_elements());
  Xorshift rng(99);
  for (double& x : c) x = 0.5 + 0.5 * rng.symmetric();
  species.rate(c, te, inert, dcdt, heat);
  double total = 0.0;
  for (int e = 0; e < mesh->num_elements(); ++e) total += dcdt[e] * species.volumes()[e];
  double outflow = 0.0;
  for (const BoundaryFace& f : mesh->boundary_faces()) {
    if (f.side != Side::kXMax) continue;
    Quad4::Coords x;
    for (int k = 0; k < 4; ++k) x[k] = mesh->node(f.nodes[k]);
    outflow += 4.0 * norm(Quad4::area_normal(x, Vec2(0.0, 0.0))) * u * c[f.element];
  }
  check.near(total, species.net_inflow_rate() - outflow, 1e-12, "finite volumes conserve the species");
  check.near(species.net_inflow_rate(), u * 1.0 * 0.5, 1e-12, "inflow rate is u times the inlet area");
}

void check_integrators(Checker& check) {
  // An insulated block at uniform temperature without reactant is steady.
  auto mesh = small_mesh(2, 0.1, 1.0, 0.0);
  mesh->build_topology();
  const TemperatureDependentMaterial material("t-dep", 2000.0, 800.0, 10.0, 0.01, 20.0, 1.0);
  HeatOperator heat(*mesh, {&material}, 2);
  heat.finalize();
  SpeciesTransport species(*mesh, [](const Vec3&) { return Vec3(0.1, 0.0, 0.0); }, make_flux("rusanov"), Side::kXMin,
                           0.0);
  CoupledSystem system(heat, species, Reaction());
  for (const char* name : {"euler", "ssprk2", "ssprk3", "rk4"}) {
    auto integrator = make_integrator(name);
    State u = system.make_state();
    std::fill(u.temperature.begin(), u.temperature.end(), 55.0);
    const double dt = 0.5 * system.stable_dt(u);
    for (int k = 0; k < 3; ++k) integrator->step(system, u, k * dt, dt);
    double drift = 0.0;
    for (double t : u.temperature) drift = std::max(drift, std::abs(t - 55.0));
    for (double c : u.concentration) drift = std::max(drift, std::abs(c));
    check.expect(drift < 1e-10, std::string("integrator ") + name + " keeps a steady state", drift);
  }
}

void check_fluxes(Checker& check) {
  check.near((*make_flux("blend:upwind:central:0.5"))(1.0, 3.0, 2.0), 3.0, 1e-15, "blended flux value");
  check.near((*make_flux("rusanov"))(1.0, 3.0, -2.0), -6.0, 1e-15, "Rusanov flux equals upwind at full dissipation");
  int refused = 0;
  for (const char* bad : {"donor", "blend:upwind", "blend:upwind:central:2", "blend:upwind:nothing:0.5"}) {
    try {
      make_flux(bad);
    } catch (const std::invalid_argument&) {
      ++refused;
    }
  }
  check.expect(refused == 4, "malformed flux specifications are refused");
  MaterialLibrary library;
  bool unknown = false;
  try {
    library.create("unobtainium");
  } catch (const std::out_of_range&) {
    unknown = true;
  }
  check.expect(unknown && library.names().size() == 5, "material library knows five materials");
}

void check_probes(Checker& check) {
  auto mesh = small_mesh(3, 0.2, 1.2, 0.3);
  mesh->build_topology();
  ProbeSet probes;
  const Vec3 inside(1.0, 0.45, 0.2);
  probes.add(*mesh, "in", inside);
  probes.add(*mesh, "out", Vec3(5.0, 5.0, 5.0));
  std::vector<double> linear(mesh->num_nodes());
  for (int v = 0; v < mesh->num_nodes(); ++v) linear[v] = dot(Vec3(1.0, 2.0, 3.0), mesh->node(v));
  const std::vector<double> got = probes.sample(*mesh, linear);
  // Isoparametric elements reproduce linear fields: sum N_a(xi) c.x_a =
  // c.x(xi), exact wherever the inverse map found xi.
  check.expect(!std::isnan(got[0]) && std::isnan(got[1]), "probes are found inside and not outside");
  check.near(got[0], dot(Vec3(1.0, 2.0, 3.0), inside), 1e-9, "probe interpolates the coordinates");
}

}  // namespace

int run_self_checks() {
  Checker check;
  check_quadrature(check);
  check_shapes(check);
  check_algebra(check);
  check_mesh(check);
  check_patch_test(check);
  check_transport(check);
  check_integrators(check);
  check_fluxes(check);
  check_probes(check);
  std::printf("%d failure(s)\n", check.failures());
  return check.failures();
}

}  // namespace thermo

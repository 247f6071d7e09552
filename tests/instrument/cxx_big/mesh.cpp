// mesh.cpp: topology, renumbering and generation of hexahedral meshes.
#include "tests/instrument/cxx_big/mesh.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <map>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace thermo {

const char* side_name(Side s) {
  switch (s) {
    case Side::kXMin:
      return "x-min";
    case Side::kXMax:
      return "x-max";
    case Side::kYMin:
      return "y-min";
    case Side::kYMax:
      return "y-max";
    case Side::kZMin:
      return "z-min";
    case Side::kZMax:
      return "z-max";
  }
  return "?";
}

int Mesh::add_node(const Vec3& x) {
  coords_.push_back(x);
  topology_built_ = false;
  return num_nodes() - 1;
}

int Mesh::add_element(const HexNodes& nodes, int material) {
  for (int n : nodes) {
    if (n < 0 || n >= num_nodes()) throw std::out_of_range("element refers to node " + std::to_string(n));
  }
  elements_.push_back(nodes);
  material_.push_back(material);
  topology_built_ = false;
  return num_elements() - 1;
}

Hex8::Coords Mesh::element_coords(int e) const {
  Hex8::Coords x;
  const HexNodes& conn = elements_[e];
  for (int a = 0; a < Hex8::kNodes; ++a) x[a] = coords_[conn[a]];
  return x;
}

Vec3 Mesh::centroid(int e) const {
  Vec3 c;
  for (int n : elements_[e]) c += coords_[n];
  return c / 8.0;
}

Box3 Mesh::bounds() const {
  Box3 b;
  for (const Vec3& x : coords_) b.grow(x);
  return b;
}

namespace {

// A boundary face's side: the dominant component of its outward normal at
// the face centre. Valid while the mesh is a (possibly twisted, graded,
// perturbed) box whose faces turn by less than 45 degrees.
Side classify(const Vec3& normal) {
  int axis = 0;
  for (int i = 1; i < 3; ++i)
    if (std::abs(normal[i]) > std::abs(normal[axis])) axis = i;
  return static_cast<Side>(2 * axis + (normal[axis] > 0.0 ? 1 : 0));
}

FaceNodes sorted_key(FaceNodes f) {
  std::sort(f.begin(), f.end());
  return f;
}

}  // namespace

void Mesh::build_topology() {
  boundary_.clear();
  interior_.clear();

  // Match faces through their sorted node ids.
  struct Seen {
    int element, local_face, partner_element;
  };
  std::map<FaceNodes, int> index;
  std::vector<Seen> seen;
  std::vector<FaceNodes> oriented;
  seen.reserve(static_cast<size_t>(num_elements()) * 4);
  for (int e = 0; e < num_elements(); ++e) {
    for (int f = 0; f < Hex8::kFaces; ++f) {
      FaceNodes nodes;
      for (int k = 0; k < 4; ++k) nodes[k] = elements_[e][Hex8::kFace[f][k]];
      auto [it, inserted] = index.emplace(sorted_key(nodes), static_cast<int>(seen.size()));
      if (inserted) {
        seen.push_back({e, f, -1});
        oriented.push_back(nodes);
      } else {
        Seen& s = seen[it->second];
        if (s.partner_element >= 0) {
          throw std::runtime_error("non-manifold mesh: a face of element " + std::to_string(e) +
                                   " is shared by three elements");
        }
        s.partner_element = e;
      }
    }
  }

  for (size_t i = 0; i < seen.size(); ++i) {
    const Seen& s = seen[i];
    if (s.partner_element >= 0) {
      interior_.push_back({oriented[i], s.element, s.partner_element, s.local_face});
    } else {
      Quad4::Coords x;
      for (int k = 0; k < 4; ++k) x[k] = coords_[oriented[i][k]];
      const Vec3 n = Quad4::area_normal(x, Vec2(0.0, 0.0));
      boundary_.push_back({oriented[i], s.element, s.local_face, classify(n)});
    }
  }

  // Node -> elements, in compressed rows (counting sort keeps element order).
  node_elements_.offsets.assign(num_nodes() + 1, 0);
  for (const HexNodes& conn : elements_)
    for (int n : conn) ++node_elements_.offsets[n + 1];
  std::partial_sum(node_elements_.offsets.begin(), node_elements_.offsets.end(), node_elements_.offsets.begin());
  node_elements_.items.assign(node_elements_.offsets.back(), -1);
  std::vector<int> fill(node_elements_.offsets.begin(), node_elements_.offsets.end() - 1);
  for (int e = 0; e < num_elements(); ++e)
    for (int n : elements_[e]) node_elements_.items[fill[n]++] = e;

  // Orientation: every element must have a positive Jacobian everywhere.
  for (int e = 0; e < num_elements(); ++e) {
    const Hex8::Coords x = element_coords(e);
    for (const auto& corner : Hex8::kCorner) {
      const Vec3 xi(corner[0], corner[1], corner[2]);
      if (det(Hex8::jacobian(x, Hex8::shape_gradients(xi))) <= 0.0) {
        throw std::runtime_error("element " + std::to_string(e) + " is inverted or degenerate");
      }
    }
  }
  topology_built_ = true;
}

std::vector<int> Mesh::nodes_on(Side s) const {
  std::vector<int> nodes;
  for (const BoundaryFace& f : boundary_)
    if (f.side == s) nodes.insert(nodes.end(), f.nodes.begin(), f.nodes.end());
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

Adjacency Mesh::node_graph() const {
  std::vector<std::vector<int>> lists(num_nodes());
  for (const HexNodes& conn : elements_)
    for (int a : conn)
      for (int b : conn)
        if (a != b) lists[a].push_back(b);
  Adjacency g;
  g.offsets.reserve(num_nodes() + 1);
  for (std::vector<int>& l : lists) {
    std::sort(l.begin(), l.end());
    l.erase(std::unique(l.begin(), l.end()), l.end());
    g.items.insert(g.items.end(), l.begin(), l.end());
    g.offsets.push_back(static_cast<int>(g.items.size()));
  }
  return g;
}

void Mesh::renumber_nodes(const std::vector<int>& perm) {
  if (static_cast<int>(perm.size()) != num_nodes()) throw std::invalid_argument("node permutation has the wrong size");
  std::vector<Vec3> moved(coords_.size());
  for (int i = 0; i < num_nodes(); ++i) moved[perm[i]] = coords_[i];
  coords_.swap(moved);
  for (HexNodes& conn : elements_)
    for (int& n : conn) n = perm[n];
  topology_built_ = false;
}

void Mesh::renumber_elements(const std::vector<int>& perm) {
  if (static_cast<int>(perm.size()) != num_elements()) {
    throw std::invalid_argument("element permutation has the wrong size");
  }
  std::vector<HexNodes> moved(elements_.size());
  std::vector<int> materials(material_.size());
  for (int e = 0; e < num_elements(); ++e) {
    moved[perm[e]] = elements_[e];
    materials[perm[e]] = material_[e];
  }
  elements_.swap(moved);
  material_.swap(materials);
  topology_built_ = false;
}

double Mesh::total_volume() const {
  double v = 0.0;
  for (int e = 0; e < num_elements(); ++e) v += hex8_volume(element_coords(e));
  return v;
}

double Mesh::min_jacobian_ratio() const {
  double worst = 1.0;
  for (int e = 0; e < num_elements(); ++e) {
    const Hex8::Coords x = element_coords(e);
    double lo = 1e300, hi = 0.0;
    for (const auto& corner : Hex8::kCorner) {
      const double d = det(Hex8::jacobian(x, Hex8::shape_gradients(Vec3(corner[0], corner[1], corner[2]))));
      lo = std::min(lo, d);
      hi = std::max(hi, d);
    }
    if (hi > 0.0) worst = std::min(worst, lo / hi);
  }
  return worst;
}

std::string Mesh::summary() const {
  const Box3 b = bounds();
  char line[256];
  std::snprintf(line, sizeof line,
                "%d nodes, %d hexes, %zu interior / %zu boundary faces, box [%.3f %.3f %.3f]-[%.3f %.3f %.3f]",
                num_nodes(), num_elements(), interior_.size(), boundary_.size(), b.lo[0], b.lo[1], b.lo[2], b.hi[0],
                b.hi[1], b.hi[2]);
  return line;
}

int bandwidth(const Mesh& mesh) {
  int width = 0;
  for (int e = 0; e < mesh.num_elements(); ++e) {
    const HexNodes& conn = mesh.element(e);
    const auto [lo, hi] = std::minmax_element(conn.begin(), conn.end());
    width = std::max(width, *hi - *lo);
  }
  return width;
}

namespace {

// Breadth-first levels from `start` over the nodes not yet numbered; returns
// the nodes of the last level.
std::vector<int> last_level(const Adjacency& g, int start, int& depth) {
  std::vector<int> level(g.rows(), -1);
  std::vector<int> frontier{start}, last{start};
  level[start] = 0;
  depth = 0;
  while (!frontier.empty()) {
    last = frontier;
    std::vector<int> next;
    for (int v : frontier)
      for (int k = g.begin(v); k < g.end(v); ++k) {
        const int w = g.items[k];
        if (level[w] < 0) {
          level[w] = level[v] + 1;
          next.push_back(w);
        }
      }
    if (!next.empty()) ++depth;
    frontier.swap(next);
  }
  return last;
}

int pseudo_peripheral(const Adjacency& g, int start) {
  int depth = 0;
  for (int round = 0; round < 8; ++round) {
    std::vector<int> last = last_level(g, start, depth);
    const int candidate = *std::min_element(last.begin(), last.end(), [&](int a, int b) {
      return g.degree(a) != g.degree(b) ? g.degree(a) < g.degree(b) : a < b;
    });
    int candidate_depth = 0;
    last_level(g, candidate, candidate_depth);
    if (candidate_depth <= depth) break;
    start = candidate;
  }
  return start;
}

}  // namespace

std::vector<int> reverse_cuthill_mckee(const Mesh& mesh) {
  const Adjacency g = mesh.node_graph();
  const int n = g.rows();
  std::vector<int> order;
  order.reserve(n);
  std::vector<char> placed(n, 0);
  std::vector<int> by_degree(n);
  std::iota(by_degree.begin(), by_degree.end(), 0);
  std::stable_sort(by_degree.begin(), by_degree.end(), [&](int a, int b) { return g.degree(a) < g.degree(b); });

  for (int seed : by_degree) {
    if (placed[seed]) continue;
    const int start = pseudo_peripheral(g, seed);
    std::deque<int> queue{start};
    placed[start] = 1;
    std::vector<int> neighbours;
    while (!queue.empty()) {
      const int v = queue.front();
      queue.pop_front();
      order.push_back(v);
      neighbours.clear();
      for (int k = g.begin(v); k < g.end(v); ++k)
        if (!placed[g.items[k]]) neighbours.push_back(g.items[k]);
      std::sort(neighbours.begin(), neighbours.end(), [&](int a, int b) {
        return g.degree(a) != g.degree(b) ? g.degree(a) < g.degree(b) : a < b;
      });
      for (int w : neighbours) {
        placed[w] = 1;
        queue.push_back(w);
      }
    }
  }
  std::vector<int> perm(n);
  for (int i = 0; i < n; ++i) perm[order[i]] = n - 1 - i;
  return perm;
}

namespace {

// Spreads the low 10 bits of v so that two zero bits follow each one.
uint32_t spread_bits(uint32_t v) {
  v &= 0x3ffu;
  v = (v | (v << 16)) & 0x030000ffu;
  v = (v | (v << 8)) & 0x0300f00fu;
  v = (v | (v << 4)) & 0x030c30c3u;
  v = (v | (v << 2)) & 0x09249249u;
  return v;
}

}  // namespace

std::vector<int> morton_element_order(const Mesh& mesh) {
  const Box3 box = mesh.bounds();
  const Vec3 extent = box.extent();
  std::vector<std::pair<uint32_t, int>> keys;
  keys.reserve(mesh.num_elements());
  for (int e = 0; e < mesh.num_elements(); ++e) {
    const Vec3 c = mesh.centroid(e);
    uint32_t code = 0;
    for (int d = 0; d < 3; ++d) {
      const double unit = extent[d] > 0.0 ? (c[d] - box.lo[d]) / extent[d] : 0.0;
      const uint32_t cell = static_cast<uint32_t>(std::clamp(unit, 0.0, 1.0) * 1023.0);
      code |= spread_bits(cell) << d;
    }
    keys.emplace_back(code, e);
  }
  std::sort(keys.begin(), keys.end());
  std::vector<int> perm(mesh.num_elements());
  for (int i = 0; i < mesh.num_elements(); ++i) perm[keys[i].second] = i;
  return perm;
}

std::string BoxMap::describe() const {
  char line[160];
  std::snprintf(line, sizeof line, "box %.2f x %.2f x %.2f", lengths_[0], lengths_[1], lengths_[2]);
  return line;
}

Vec3 GradedMap::apply(const Vec3& unit) const {
  Vec3 graded;
  for (int d = 0; d < 3; ++d) {
    const double r = ratio_[d];
    // Cells grow geometrically: s(u) = (r^u - 1) / (r - 1) maps [0,1] onto itself.
    graded[d] = std::abs(r - 1.0) < 1e-12 ? unit[d] : (std::pow(r, unit[d]) - 1.0) / (r - 1.0);
  }
  return inner_->apply(graded);
}

std::string GradedMap::describe() const {
  char line[128];
  std::snprintf(line, sizeof line, ", graded (%.2f %.2f %.2f)", ratio_[0], ratio_[1], ratio_[2]);
  return inner_->describe() + line;
}

Vec3 TwistMap::apply(const Vec3& unit) const {
  const Vec3 p = inner_->apply(unit);
  const Mat3 r = rotation_z(angle_ * unit[2]);
  return center_ + r * (p - center_);
}

std::string TwistMap::describe() const {
  char line[96];
  std::snprintf(line, sizeof line, ", twisted by %.3f rad", angle_);
  return inner_->describe() + line;
}

std::unique_ptr<Mesh> generate_box_mesh(const BoxSpec& spec, const CoordinateMap& map) {
  if (spec.nx < 1 || spec.ny < 1 || spec.nz < 1) throw std::invalid_argument("a box mesh needs at least one cell per axis");
  if (spec.jitter < 0.0 || spec.jitter >= 0.25) throw std::invalid_argument("jitter must be in [0, 0.25)");
  auto mesh = std::make_unique<Mesh>();
  const int px = spec.nx + 1, py = spec.ny + 1, pz = spec.nz + 1;
  const Vec3 cell(1.0 / spec.nx, 1.0 / spec.ny, 1.0 / spec.nz);
  Xorshift rng(spec.seed);
  auto id = [&](int i, int j, int k) { return (k * py + j) * px + i; };

  for (int k = 0; k < pz; ++k)
    for (int j = 0; j < py; ++j)
      for (int i = 0; i < px; ++i) {
        Vec3 u(i * cell[0], j * cell[1], k * cell[2]);
        // Draw for every node so that the pattern does not depend on which
        // nodes are interior; only interior nodes move.
        const Vec3 shake(rng.symmetric(), rng.symmetric(), rng.symmetric());
        const bool interior = i > 0 && i < spec.nx && j > 0 && j < spec.ny && k > 0 && k < spec.nz;
        if (interior) u += spec.jitter * hadamard(shake, cell);
        mesh->add_node(map.apply(u));
      }

  for (int k = 0; k < spec.nz; ++k)
    for (int j = 0; j < spec.ny; ++j)
      for (int i = 0; i < spec.nx; ++i) {
        const HexNodes conn = {id(i, j, k),         id(i + 1, j, k),         id(i + 1, j + 1, k),
                               id(i, j + 1, k),     id(i, j, k + 1),         id(i + 1, j, k + 1),
                               id(i + 1, j + 1, k + 1), id(i, j + 1, k + 1)};
        mesh->add_element(conn, 0);
      }
  if (spec.scramble) {
    mesh->renumber_nodes(scrambled_order(mesh->num_nodes(), spec.seed + 1));
    mesh->renumber_elements(scrambled_order(mesh->num_elements(), spec.seed + 2));
  }
  return mesh;
}

std::vector<int> scrambled_order(int n, uint64_t seed) {
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  Xorshift rng(seed);
  for (int i = n - 1; i > 0; --i) {
    const int j = static_cast<int>(rng.next() % static_cast<uint64_t>(i + 1));
    std::swap(order[i], order[j]);
  }
  return order;
}

}  // namespace thermo

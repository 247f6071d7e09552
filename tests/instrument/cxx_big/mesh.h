// mesh.h: an unstructured hexahedral mesh and its generators.
//
// The mesh stores what an unstructured solver sees: node coordinates,
// element-to-node connectivity, a material id per element, and topology
// derived from those alone (faces matched through a map keyed by their
// sorted node ids, boundary faces classified by their outward normal, the
// node-to-element adjacency in compressed rows). The box generator builds a
// structured block of hexes, pushes it through a CoordinateMap (grading,
// twisting) and perturbs interior nodes, then the caller may renumber nodes
// (reverse Cuthill-McKee) and elements (Morton order) as real codes do.
#ifndef CXX_BIG_MESH_H_
#define CXX_BIG_MESH_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tests/instrument/cxx_big/element.h"
#include "tests/instrument/cxx_big/linalg.h"

namespace thermo {

enum class Side : int { kXMin = 0, kXMax, kYMin, kYMax, kZMin, kZMax };
constexpr int kNumSides = 6;
const char* side_name(Side s);

using HexNodes = std::array<int, Hex8::kNodes>;
using FaceNodes = std::array<int, 4>;

struct BoundaryFace {
  FaceNodes nodes;  // outward order
  int element = -1;
  int local_face = -1;
  Side side = Side::kXMin;
};

struct InteriorFace {
  FaceNodes nodes;  // outward order as seen from `left`
  int left = -1, right = -1;
  int local_face_left = -1;
};

// Compressed rows: the items of row r are items[offsets[r] .. offsets[r+1]).
struct Adjacency {
  std::vector<int> offsets{0};
  std::vector<int> items;
  int rows() const { return static_cast<int>(offsets.size()) - 1; }
  int begin(int r) const { return offsets[r]; }
  int end(int r) const { return offsets[r + 1]; }
  int degree(int r) const { return offsets[r + 1] - offsets[r]; }
};

class Mesh {
 public:
  int add_node(const Vec3& x);
  int add_element(const HexNodes& nodes, int material);

  int num_nodes() const { return static_cast<int>(coords_.size()); }
  int num_elements() const { return static_cast<int>(elements_.size()); }
  const Vec3& node(int i) const { return coords_[i]; }
  Vec3& node(int i) { return coords_[i]; }
  const HexNodes& element(int e) const { return elements_[e]; }
  int material(int e) const { return material_[e]; }
  void set_material(int e, int m) { material_[e] = m; }
  Hex8::Coords element_coords(int e) const;
  Vec3 centroid(int e) const;
  Box3 bounds() const;

  // Faces and adjacency; call after the last change of connectivity.
  // Throws std::runtime_error on a non-manifold mesh (a face shared by more
  // than two elements) or an inverted element.
  void build_topology();
  bool has_topology() const { return topology_built_; }
  const std::vector<BoundaryFace>& boundary_faces() const { return boundary_; }
  const std::vector<InteriorFace>& interior_faces() const { return interior_; }
  const Adjacency& node_elements() const { return node_elements_; }
  // Sorted, unique ids of the nodes on one side of the box.
  std::vector<int> nodes_on(Side s) const;
  // Node-to-node graph (two nodes are neighbours if an element holds both).
  Adjacency node_graph() const;

  // Renumberings: perm[old] = new. Topology must be rebuilt afterwards.
  void renumber_nodes(const std::vector<int>& perm);
  void renumber_elements(const std::vector<int>& perm);

  double total_volume() const;
  double min_jacobian_ratio() const;  // min over elements of min detJ / max detJ
  std::string summary() const;

 private:
  std::vector<Vec3> coords_;
  std::vector<HexNodes> elements_;
  std::vector<int> material_;
  std::vector<BoundaryFace> boundary_;
  std::vector<InteriorFace> interior_;
  Adjacency node_elements_;
  bool topology_built_ = false;
};

// Largest |i - j| over the node graph: what RCM tries to reduce.
int bandwidth(const Mesh& mesh);
// Reverse Cuthill-McKee node order (perm[old] = new), each connected
// component started from a pseudo-peripheral node of minimum degree.
std::vector<int> reverse_cuthill_mckee(const Mesh& mesh);
// Element order along a Morton (Z-order) curve through the centroids.
std::vector<int> morton_element_order(const Mesh& mesh);

// Maps the unit cube onto the physical domain.
class CoordinateMap {
 public:
  virtual ~CoordinateMap() = default;
  virtual Vec3 apply(const Vec3& unit) const = 0;
  virtual std::string describe() const = 0;
};

class BoxMap : public CoordinateMap {
 public:
  BoxMap(const Vec3& origin, const Vec3& lengths) : origin_(origin), lengths_(lengths) {}
  Vec3 apply(const Vec3& unit) const override { return origin_ + hadamard(unit, lengths_); }
  std::string describe() const override;

 private:
  Vec3 origin_, lengths_;
};

// Geometric grading per axis: ratio r > 1 packs points towards the low end
// (cells grow by r from one to the next), r == 1 leaves the axis uniform.
class GradedMap : public CoordinateMap {
 public:
  GradedMap(std::unique_ptr<CoordinateMap> inner, const Vec3& ratio) : inner_(std::move(inner)), ratio_(ratio) {}
  Vec3 apply(const Vec3& unit) const override;
  std::string describe() const override;

 private:
  std::unique_ptr<CoordinateMap> inner_;
  Vec3 ratio_;
};

// Twists the domain about the vertical axis through `center`, the angle
// growing linearly with z from 0 to `angle`.
class TwistMap : public CoordinateMap {
 public:
  TwistMap(std::unique_ptr<CoordinateMap> inner, const Vec3& center, double angle)
      : inner_(std::move(inner)), center_(center), angle_(angle) {}
  Vec3 apply(const Vec3& unit) const override;
  std::string describe() const override;

 private:
  std::unique_ptr<CoordinateMap> inner_;
  Vec3 center_;
  double angle_;
};

// A tiny deterministic generator (xorshift64*): the same numbers on every
// platform, unlike the std distributions.
class Xorshift {
 public:
  explicit Xorshift(uint64_t seed) : state_(seed ? seed : 0x9e3779b97f4a7c15ULL) {}
  uint64_t next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545f4914f6cdd1dULL;
  }
  // Uniform in [-1, 1).
  double symmetric() { return static_cast<double>(next() >> 11) * (2.0 / 9007199254740992.0) - 1.0; }

 private:
  uint64_t state_;
};

// A random permutation of 0..n-1 (Fisher-Yates with Xorshift).
std::vector<int> scrambled_order(int n, uint64_t seed);

struct BoxSpec {
  int nx = 4, ny = 4, nz = 4;
  double jitter = 0.0;  // interior node perturbation, as a fraction of the cell size (< 0.25)
  bool scramble = false;  // number nodes and elements randomly, as a mesh file might
  uint64_t seed = 12345;
};

// A block of nx * ny * nz hexes, mapped by `map`, material 0 everywhere.
std::unique_ptr<Mesh> generate_box_mesh(const BoxSpec& spec, const CoordinateMap& map);

}  // namespace thermo

#endif  // CXX_BIG_MESH_H_

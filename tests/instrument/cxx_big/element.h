// element.h: reference elements and quadrature.
//
// Hex8 is the trilinear hexahedron on [-1, 1]^3 with the usual node order
// (bottom face counter-clockwise seen from above, then the top face); Quad4
// is its bilinear face. Quadrature rules are tensor products of
// Gauss-Legendre rules with 1..4 points per direction.
#ifndef CXX_BIG_ELEMENT_H_
#define CXX_BIG_ELEMENT_H_

#include <array>
#include <vector>

#include "tests/instrument/cxx_big/linalg.h"

namespace thermo {

template <int Dim>
struct QuadPoint {
  Vec<double, Dim> xi;
  double weight = 0.0;
};

// The n-point Gauss-Legendre rule on [-1, 1] (1 <= n <= 4).
void gauss_legendre(int n, std::vector<double>& points, std::vector<double>& weights);

template <int Dim>
std::vector<QuadPoint<Dim>> tensor_gauss_rule(int n) {
  std::vector<double> x, w;
  gauss_legendre(n, x, w);
  int total = 1;
  for (int d = 0; d < Dim; ++d) total *= n;
  std::vector<QuadPoint<Dim>> rule(total);
  for (int k = 0; k < total; ++k) {
    int rest = k;
    QuadPoint<Dim>& q = rule[k];
    q.weight = 1.0;
    for (int d = 0; d < Dim; ++d) {
      const int i = rest % n;
      rest /= n;
      q.xi[d] = x[i];
      q.weight *= w[i];
    }
  }
  return rule;
}

struct Hex8 {
  static constexpr int kNodes = 8;
  static constexpr int kFaces = 6;
  using Coords = std::array<Vec3, kNodes>;
  using Values = Vec<double, kNodes>;
  using Gradients = Mat<double, kNodes, 3>;

  // Reference coordinates of the corners.
  static constexpr double kCorner[kNodes][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                                 {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
  // Local faces, ordered so that the right-hand rule gives the outward
  // normal: -x, +x, -y, +y, -z, +z.
  static constexpr int kFace[kFaces][4] = {{0, 4, 7, 3}, {1, 2, 6, 5}, {0, 1, 5, 4},
                                          {3, 7, 6, 2}, {0, 3, 2, 1}, {4, 5, 6, 7}};

  static Values shape(const Vec3& xi);
  static Gradients shape_gradients(const Vec3& xi);
  // dx/dxi: J(i, j) = sum_a x_a[i] dN_a/dxi_j.
  static Mat3 jacobian(const Coords& x, const Gradients& dn);
  static Vec3 map(const Coords& x, const Vec3& xi);
  static bool inside_reference(const Vec3& xi, double tolerance);
  // Newton iteration for the reference point of physical point p; false if
  // it does not converge or lands outside the element.
  static bool inverse_map(const Coords& x, const Vec3& p, Vec3& xi);
};

struct Quad4 {
  static constexpr int kNodes = 4;
  using Coords = std::array<Vec3, kNodes>;
  static constexpr double kCorner[kNodes][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};

  static Vec<double, kNodes> shape(const Vec2& xi);
  static Mat<double, kNodes, 2> shape_gradients(const Vec2& xi);
  // The area-weighted normal dx/dxi1 x dx/dxi2 at xi: its length is the
  // surface Jacobian, its direction follows the node order.
  static Vec3 area_normal(const Coords& x, const Vec2& xi);
  static Vec3 map(const Coords& x, const Vec2& xi);
};

// Geometry of one element at one quadrature point: physical shape function
// gradients and the weight times the Jacobian determinant.
struct PointGeometry {
  Hex8::Gradients grad;
  double dvol = 0.0;
};

// Computes the physical gradients at xi; false for a degenerate or inverted
// element (non-positive Jacobian).
bool hex8_point_geometry(const Hex8::Coords& x, const Vec3& xi, double weight, PointGeometry& out);

// Volume of a hexahedron by quadrature.
double hex8_volume(const Hex8::Coords& x, int order = 2);

}  // namespace thermo

#endif  // CXX_BIG_ELEMENT_H_

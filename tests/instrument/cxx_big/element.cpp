// element.cpp: shape functions, Jacobians and Gauss rules.
#include "tests/instrument/cxx_big/element.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace thermo {

void gauss_legendre(int n, std::vector<double>& points, std::vector<double>& weights) {
  points.clear();
  weights.clear();
  switch (n) {
    case 1:
      points = {0.0};
      weights = {2.0};
      break;
    case 2: {
      const double a = 1.0 / std::sqrt(3.0);
      points = {-a, a};
      weights = {1.0, 1.0};
      break;
    }
    case 3: {
      const double a = std::sqrt(0.6);
      points = {-a, 0.0, a};
      weights = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
      break;
    }
    case 4: {
      const double r = std::sqrt(6.0 / 5.0);
      const double a = std::sqrt(3.0 / 7.0 - 2.0 / 7.0 * r);
      const double b = std::sqrt(3.0 / 7.0 + 2.0 / 7.0 * r);
      const double wa = (18.0 + std::sqrt(30.0)) / 36.0;
      const double wb = (18.0 - std::sqrt(30.0)) / 36.0;
      points = {-b, -a, a, b};
      weights = {wb, wa, wa, wb};
      break;
    }
    default:
      throw std::invalid_argument("Gauss-Legendre rules have 1 to 4 points, not " + std::to_string(n));
  }
}

Hex8::Values Hex8::shape(const Vec3& xi) {
  Values n;
  for (int a = 0; a < kNodes; ++a) {
    n[a] = 0.125 * (1.0 + kCorner[a][0] * xi[0]) * (1.0 + kCorner[a][1] * xi[1]) * (1.0 + kCorner[a][2] * xi[2]);
  }
  return n;
}

Hex8::Gradients Hex8::shape_gradients(const Vec3& xi) {
  Gradients g;
  for (int a = 0; a < kNodes; ++a) {
    const double sx = kCorner[a][0], sy = kCorner[a][1], sz = kCorner[a][2];
    const double fx = 1.0 + sx * xi[0], fy = 1.0 + sy * xi[1], fz = 1.0 + sz * xi[2];
    g(a, 0) = 0.125 * sx * fy * fz;
    g(a, 1) = 0.125 * fx * sy * fz;
    g(a, 2) = 0.125 * fx * fy * sz;
  }
  return g;
}

Mat3 Hex8::jacobian(const Coords& x, const Gradients& dn) {
  Mat3 j;
  for (int a = 0; a < kNodes; ++a)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) j(r, c) += x[a][r] * dn(a, c);
  return j;
}

Vec3 Hex8::map(const Coords& x, const Vec3& xi) {
  const Values n = shape(xi);
  Vec3 p;
  for (int a = 0; a < kNodes; ++a) p += n[a] * x[a];
  return p;
}

bool Hex8::inside_reference(const Vec3& xi, double tolerance) {
  return max_abs(xi) <= 1.0 + tolerance;
}

bool Hex8::inverse_map(const Coords& x, const Vec3& p, Vec3& xi) {
  Vec3 guess;  // the element centre
  for (int iteration = 0; iteration < 25; ++iteration) {
    const Vec3 residual = map(x, guess) - p;
    Mat3 jinv;
    if (!invert(jacobian(x, shape_gradients(guess)), jinv)) return false;
    const Vec3 delta = jinv * residual;
    guess -= delta;
    if (max_abs(guess) > 4.0) return false;  // diverging: far outside
    if (max_abs(delta) < 1e-13) {
      xi = guess;
      return inside_reference(guess, 1e-9);
    }
  }
  return false;
}

Vec<double, Quad4::kNodes> Quad4::shape(const Vec2& xi) {
  Vec<double, kNodes> n;
  for (int a = 0; a < kNodes; ++a) n[a] = 0.25 * (1.0 + kCorner[a][0] * xi[0]) * (1.0 + kCorner[a][1] * xi[1]);
  return n;
}

Mat<double, Quad4::kNodes, 2> Quad4::shape_gradients(const Vec2& xi) {
  Mat<double, kNodes, 2> g;
  for (int a = 0; a < kNodes; ++a) {
    g(a, 0) = 0.25 * kCorner[a][0] * (1.0 + kCorner[a][1] * xi[1]);
    g(a, 1) = 0.25 * (1.0 + kCorner[a][0] * xi[0]) * kCorner[a][1];
  }
  return g;
}

Vec3 Quad4::area_normal(const Coords& x, const Vec2& xi) {
  const Mat<double, kNodes, 2> g = shape_gradients(xi);
  Vec3 t1, t2;
  for (int a = 0; a < kNodes; ++a) {
    t1 += g(a, 0) * x[a];
    t2 += g(a, 1) * x[a];
  }
  return cross(t1, t2);
}

Vec3 Quad4::map(const Coords& x, const Vec2& xi) {
  const Vec<double, kNodes> n = shape(xi);
  Vec3 p;
  for (int a = 0; a < kNodes; ++a) p += n[a] * x[a];
  return p;
}

bool hex8_point_geometry(const Hex8::Coords& x, const Vec3& xi, double weight, PointGeometry& out) {
  const Hex8::Gradients dn = Hex8::shape_gradients(xi);
  const Mat3 j = Hex8::jacobian(x, dn);
  Mat3 jinv;
  double detj = 0.0;
  if (!invert(j, jinv, &detj) || detj <= 0.0) return false;
  // grad N_a = J^{-T} dN_a/dxi, i.e. row a of dn * J^{-1}.
  out.grad = dn * jinv;
  out.dvol = weight * detj;
  return true;
}

double hex8_volume(const Hex8::Coords& x, int order) {
  double v = 0.0;
  for (const QuadPoint<3>& q : tensor_gauss_rule<3>(order)) {
    const Mat3 j = Hex8::jacobian(x, Hex8::shape_gradients(q.xi));
    v += q.weight * det(j);
  }
  return v;
}

}  // namespace thermo

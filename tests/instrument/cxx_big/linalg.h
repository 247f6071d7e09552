// linalg.h: fixed-size vectors and matrices for element kernels.
//
// Everything here is a header-only template meant to be inlined into the
// element loops: Vec<T, N> and Mat<T, R, C> hold their entries in a
// std::array and provide the usual arithmetic through operator overloading,
// plus the few dense operations a low-order finite element code needs
// (products, transposes, 2x2/3x3 determinants and inverses, outer products).
#ifndef CXX_BIG_LINALG_H_
#define CXX_BIG_LINALG_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>

namespace thermo {

template <class T, int N>
class Vec {
  static_assert(N > 0, "a vector has at least one component");

 public:
  using value_type = T;
  static constexpr int kSize = N;

  constexpr Vec() : c_{} {}
  constexpr explicit Vec(T fill) : c_{} {
    for (int i = 0; i < N; ++i) c_[i] = fill;
  }
  template <class... A, class = std::enable_if_t<(N > 1) && sizeof...(A) == N>>
  constexpr Vec(A... components) : c_{static_cast<T>(components)...} {}

  static constexpr Vec unit(int axis) {
    Vec v;
    v.c_[axis] = T(1);
    return v;
  }

  constexpr T& operator[](int i) { return c_[i]; }
  constexpr const T& operator[](int i) const { return c_[i]; }
  T* data() { return c_.data(); }
  const T* data() const { return c_.data(); }
  auto begin() { return c_.begin(); }
  auto end() { return c_.end(); }
  auto begin() const { return c_.begin(); }
  auto end() const { return c_.end(); }

  Vec& operator+=(const Vec& o) {
    for (int i = 0; i < N; ++i) c_[i] += o.c_[i];
    return *this;
  }
  Vec& operator-=(const Vec& o) {
    for (int i = 0; i < N; ++i) c_[i] -= o.c_[i];
    return *this;
  }
  Vec& operator*=(T s) {
    for (int i = 0; i < N; ++i) c_[i] *= s;
    return *this;
  }
  Vec& operator/=(T s) {
    const T inv = T(1) / s;
    for (int i = 0; i < N; ++i) c_[i] *= inv;
    return *this;
  }

 private:
  std::array<T, N> c_;
};

template <class T, int N>
inline Vec<T, N> operator+(Vec<T, N> a, const Vec<T, N>& b) {
  return a += b;
}
template <class T, int N>
inline Vec<T, N> operator-(Vec<T, N> a, const Vec<T, N>& b) {
  return a -= b;
}
template <class T, int N>
inline Vec<T, N> operator-(Vec<T, N> a) {
  for (int i = 0; i < N; ++i) a[i] = -a[i];
  return a;
}
template <class T, int N>
inline Vec<T, N> operator*(Vec<T, N> a, T s) {
  return a *= s;
}
template <class T, int N>
inline Vec<T, N> operator*(T s, Vec<T, N> a) {
  return a *= s;
}
template <class T, int N>
inline Vec<T, N> operator/(Vec<T, N> a, T s) {
  return a /= s;
}
template <class T, int N>
inline bool operator==(const Vec<T, N>& a, const Vec<T, N>& b) {
  for (int i = 0; i < N; ++i)
    if (!(a[i] == b[i])) return false;
  return true;
}

template <class T, int N>
inline T dot(const Vec<T, N>& a, const Vec<T, N>& b) {
  T s{};
  for (int i = 0; i < N; ++i) s += a[i] * b[i];
  return s;
}
template <class T, int N>
inline T norm2(const Vec<T, N>& a) {
  return dot(a, a);
}
template <class T, int N>
inline T norm(const Vec<T, N>& a) {
  return std::sqrt(norm2(a));
}
template <class T, int N>
inline T max_abs(const Vec<T, N>& a) {
  T m{};
  for (int i = 0; i < N; ++i) m = std::max(m, std::abs(a[i]));
  return m;
}
template <class T, int N>
inline Vec<T, N> hadamard(const Vec<T, N>& a, const Vec<T, N>& b) {
  Vec<T, N> r;
  for (int i = 0; i < N; ++i) r[i] = a[i] * b[i];
  return r;
}
template <class T, int N>
inline Vec<T, N> cwise_min(const Vec<T, N>& a, const Vec<T, N>& b) {
  Vec<T, N> r;
  for (int i = 0; i < N; ++i) r[i] = std::min(a[i], b[i]);
  return r;
}
template <class T, int N>
inline Vec<T, N> cwise_max(const Vec<T, N>& a, const Vec<T, N>& b) {
  Vec<T, N> r;
  for (int i = 0; i < N; ++i) r[i] = std::max(a[i], b[i]);
  return r;
}
template <class T, int N>
inline T sum(const Vec<T, N>& a) {
  T s{};
  for (int i = 0; i < N; ++i) s += a[i];
  return s;
}
template <class T>
inline Vec<T, 3> cross(const Vec<T, 3>& a, const Vec<T, 3>& b) {
  return Vec<T, 3>(a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]);
}

template <class T, int R, int C>
class Mat {
  static_assert(R > 0 && C > 0, "a matrix has at least one entry");

 public:
  static constexpr int kRows = R;
  static constexpr int kCols = C;

  constexpr Mat() : a_{} {}
  static constexpr Mat identity() {
    static_assert(R == C, "identity of a square matrix");
    Mat m;
    for (int i = 0; i < R; ++i) m(i, i) = T(1);
    return m;
  }
  static Mat diagonal(const Vec<T, R>& d) {
    static_assert(R == C, "diagonal of a square matrix");
    Mat m;
    for (int i = 0; i < R; ++i) m(i, i) = d[i];
    return m;
  }

  constexpr T& operator()(int i, int j) { return a_[i * C + j]; }
  constexpr const T& operator()(int i, int j) const { return a_[i * C + j]; }

  Vec<T, C> row(int i) const {
    Vec<T, C> r;
    for (int j = 0; j < C; ++j) r[j] = (*this)(i, j);
    return r;
  }
  Vec<T, R> col(int j) const {
    Vec<T, R> c;
    for (int i = 0; i < R; ++i) c[i] = (*this)(i, j);
    return c;
  }
  void set_row(int i, const Vec<T, C>& r) {
    for (int j = 0; j < C; ++j) (*this)(i, j) = r[j];
  }

  Mat& operator+=(const Mat& o) {
    for (int k = 0; k < R * C; ++k) a_[k] += o.a_[k];
    return *this;
  }
  Mat& operator-=(const Mat& o) {
    for (int k = 0; k < R * C; ++k) a_[k] -= o.a_[k];
    return *this;
  }
  Mat& operator*=(T s) {
    for (int k = 0; k < R * C; ++k) a_[k] *= s;
    return *this;
  }

  Mat<T, C, R> transpose() const {
    Mat<T, C, R> t;
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < C; ++j) t(j, i) = (*this)(i, j);
    return t;
  }

  T trace() const {
    static_assert(R == C, "trace of a square matrix");
    T s{};
    for (int i = 0; i < R; ++i) s += (*this)(i, i);
    return s;
  }

  T frobenius() const {
    T s{};
    for (int k = 0; k < R * C; ++k) s += a_[k] * a_[k];
    return std::sqrt(s);
  }

  // Largest absolute row sum: an upper bound of the spectral radius.
  T row_sum_norm() const {
    T m{};
    for (int i = 0; i < R; ++i) {
      T s{};
      for (int j = 0; j < C; ++j) s += std::abs((*this)(i, j));
      m = std::max(m, s);
    }
    return m;
  }

 private:
  std::array<T, R * C> a_;
};

template <class T, int R, int C>
inline Mat<T, R, C> operator+(Mat<T, R, C> a, const Mat<T, R, C>& b) {
  return a += b;
}
template <class T, int R, int C>
inline Mat<T, R, C> operator-(Mat<T, R, C> a, const Mat<T, R, C>& b) {
  return a -= b;
}
template <class T, int R, int C>
inline Mat<T, R, C> operator*(Mat<T, R, C> a, T s) {
  return a *= s;
}
template <class T, int R, int C>
inline Mat<T, R, C> operator*(T s, Mat<T, R, C> a) {
  return a *= s;
}
template <class T, int R, int K, int C>
inline Mat<T, R, C> operator*(const Mat<T, R, K>& a, const Mat<T, K, C>& b) {
  Mat<T, R, C> p;
  for (int i = 0; i < R; ++i)
    for (int k = 0; k < K; ++k) {
      const T aik = a(i, k);
      for (int j = 0; j < C; ++j) p(i, j) += aik * b(k, j);
    }
  return p;
}
template <class T, int R, int C>
inline Vec<T, R> operator*(const Mat<T, R, C>& a, const Vec<T, C>& x) {
  Vec<T, R> y;
  for (int i = 0; i < R; ++i) {
    T s{};
    for (int j = 0; j < C; ++j) s += a(i, j) * x[j];
    y[i] = s;
  }
  return y;
}
// a^T x without forming the transpose.
template <class T, int R, int C>
inline Vec<T, C> transpose_times(const Mat<T, R, C>& a, const Vec<T, R>& x) {
  Vec<T, C> y;
  for (int i = 0; i < R; ++i) {
    const T xi = x[i];
    for (int j = 0; j < C; ++j) y[j] += a(i, j) * xi;
  }
  return y;
}
template <class T, int R, int C>
inline Mat<T, R, C> outer(const Vec<T, R>& a, const Vec<T, C>& b) {
  Mat<T, R, C> m;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) m(i, j) = a[i] * b[j];
  return m;
}

template <class T, int N>
inline T det(const Mat<T, N, N>& m) {
  static_assert(N == 2 || N == 3, "determinants of 2x2 and 3x3 matrices only");
  if constexpr (N == 2) {
    return m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0);
  } else {
    return m(0, 0) * (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1)) - m(0, 1) * (m(1, 0) * m(2, 2) - m(1, 2) * m(2, 0)) +
           m(0, 2) * (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0));
  }
}

// Inverse by the adjugate; returns false (and leaves `inv` alone) when the
// determinant is not safely away from zero.
template <class T, int N>
inline bool invert(const Mat<T, N, N>& m, Mat<T, N, N>& inv, T* determinant = nullptr) {
  static_assert(N == 2 || N == 3, "inverses of 2x2 and 3x3 matrices only");
  const T d = det(m);
  if (determinant) *determinant = d;
  if (!(std::abs(d) > T(1e-300))) return false;
  const T s = T(1) / d;
  if constexpr (N == 2) {
    inv(0, 0) = m(1, 1) * s;
    inv(0, 1) = -m(0, 1) * s;
    inv(1, 0) = -m(1, 0) * s;
    inv(1, 1) = m(0, 0) * s;
  } else {
    inv(0, 0) = (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1)) * s;
    inv(0, 1) = (m(0, 2) * m(2, 1) - m(0, 1) * m(2, 2)) * s;
    inv(0, 2) = (m(0, 1) * m(1, 2) - m(0, 2) * m(1, 1)) * s;
    inv(1, 0) = (m(1, 2) * m(2, 0) - m(1, 0) * m(2, 2)) * s;
    inv(1, 1) = (m(0, 0) * m(2, 2) - m(0, 2) * m(2, 0)) * s;
    inv(1, 2) = (m(0, 2) * m(1, 0) - m(0, 0) * m(1, 2)) * s;
    inv(2, 0) = (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0)) * s;
    inv(2, 1) = (m(0, 1) * m(2, 0) - m(0, 0) * m(2, 1)) * s;
    inv(2, 2) = (m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0)) * s;
  }
  return true;
}

// Rotation by `angle` radians about the z axis.
template <class T>
inline Mat<T, 3, 3> rotation_z(T angle) {
  Mat<T, 3, 3> r = Mat<T, 3, 3>::identity();
  const T c = std::cos(angle), s = std::sin(angle);
  r(0, 0) = c;
  r(0, 1) = -s;
  r(1, 0) = s;
  r(1, 1) = c;
  return r;
}

using Vec2 = Vec<double, 2>;
using Vec3 = Vec<double, 3>;
using Mat3 = Mat<double, 3, 3>;

// Axis-aligned bounding box, grown point by point.
struct Box3 {
  Vec3 lo{1e300, 1e300, 1e300};
  Vec3 hi{-1e300, -1e300, -1e300};

  void grow(const Vec3& p) {
    lo = cwise_min(lo, p);
    hi = cwise_max(hi, p);
  }
  bool contains(const Vec3& p, double slack = 0.0) const {
    for (int i = 0; i < 3; ++i)
      if (p[i] < lo[i] - slack || p[i] > hi[i] + slack) return false;
    return true;
  }
  Vec3 extent() const { return hi - lo; }
  Vec3 center() const { return 0.5 * (lo + hi); }
};

}  // namespace thermo

#endif  // CXX_BIG_LINALG_H_

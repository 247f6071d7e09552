// C++: a class with a member accumulated through a reference, a template,
// std::vector, and by-reference parameters.
#include <cstdio>
#include <vector>

double in[6] = {1, 2, 3, 4, 5, 6};

template <typename T>
struct Vec2 {
  T x, y;
  __attribute__((noinline)) T dot(const Vec2 &o) const { return x * o.x + y * o.y; }
};

class Accumulator {
 public:
  __attribute__((noinline)) void add(const double &v) { sum_ += v; }
  double sum() const { return sum_; }

 private:
  double sum_ = 0;  // a constant value at construction
};

__attribute__((noinline)) void scale_into(const std::vector<double> &from,
                                          std::vector<double> &to, double f) {
  for (size_t i = 0; i < from.size(); i++) to[i] = from[i] * f;
}

Vec2<double> u, w;
double result[3];

int main() {
  std::vector<double> v(in, in + 3);  // copies in[0..2] (memmove)
  std::vector<double> s(3);           // value-initialized
  scale_into(v, s, in[3]);            // s[i]: {in[i], in[3]}
  u = {in[4], in[5]};
  w = {in[0], in[1]};
  result[0] = u.dot(w);  // {in[0], in[1], in[4], in[5]}
  Accumulator acc;
  for (double d : s) acc.add(d);
  result[1] = acc.sum();  // the last new value of the accumulator, copied
  result[2] = s[2];       // copy of s[2]
  std::printf("%g %g %g\n", result[0], result[1], result[2]);
  return 0;
}

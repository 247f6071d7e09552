// C++: classes, templates, std::vector, new/delete and inlined code.
#include <vector>

#include "instrument/runtime_testing.h"

template <class T>
struct Vec3 {
  T x, y, z;
  T dot(const Vec3& o) const { return x * o.x + y * o.y + z * o.z; }
};

class Field {
 public:
  explicit Field(int n) : values_(n) {}
  double& operator[](int i) { return values_[i]; }
  double* data() { return values_.data(); }
  void scale_into(Field& out, double factor) {
    for (std::size_t i = 0; i < values_.size(); ++i) out.values_[i] = values_[i] * factor;
  }

 private:
  std::vector<double> values_;
};

double seed[6];
volatile double factor = 3.0;

int main() {
  for (int i = 0; i < 6; ++i) seed[i] = 1.0 + i;  // computed values
  Field a(6), b(6);
  for (int i = 0; i < 6; ++i) a[i] = seed[i];
  for (int i = 0; i < 6; ++i) CA_EXPECT_SAME_VALUE("vector element copy", &a[i], &seed[i]);

  double f = factor;
  a.scale_into(b, f);
  CA_EXPECT_SOURCES("method on vectors", &b[2], &a[2], (const void*)&factor);

  Vec3<double> p{a[0], a[1], a[2]}, q{a[3], a[4], a[5]};
  double* heap = new double[2];
  heap[0] = p.dot(q);
  CA_EXPECT_SOURCES("template method", &heap[0], &seed[0], &seed[1], &seed[2], &seed[3], &seed[4], &seed[5]);
  std::vector<double> copy(a.data(), a.data() + 6);
  CA_EXPECT_SAME_VALUE("vector copy constructor replicates", &copy[4], &seed[4]);
  delete[] heap;
  return CA_TEST_RESULT();
}

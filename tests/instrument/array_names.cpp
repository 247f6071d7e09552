// std::vectors named where the user allocated them (array_names.sh): their
// operator new is in the library's header (new_allocator.h), inlined into
// main or called from a header function that is not (y's resize); every
// -O level names `w`, `x` and `y` at this file's lines.
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096, steps = argc > 2 ? std::atoi(argv[2]) : 3;
  std::printf("array_names: %d points, %d steps\n", n, steps);
  std::fflush(stdout);
  std::vector<double> w(n);  // W
  std::vector<double> x(n);  // X
  std::vector<double> y;
  y.resize(n);  // Y
  for (int i = 0; i < n; ++i) w[i] = i % 5;
  for (int s = 0; s < steps; ++s) {
    for (int i = 1; i < n - 1; ++i) x[i] = (w[i - 1] + w[i] + w[i + 1]) / 3;
    for (int i = 1; i < n - 1; ++i) y[i] = x[i] - w[i];
    for (int i = 1; i < n - 1; ++i) w[i] = x[i] + y[i] / 2;
  }
  std::printf("w %g\n", w[n / 2]);
  return 0;
}

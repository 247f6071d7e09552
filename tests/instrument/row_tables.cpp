// A Jacobi sweep on an n x m grid kept three ways: one block (u[i * m + j]),
// rows allocated one by one behind a table of pointers (double **), and a
// std::vector<std::vector<double>>. An MPI programmer distributes all three
// alike; row_tables.sh checks that their estimates are the same.
//   row_tables MODE N M STEPS   (MODE: block, pointers, vectors)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "commanalyzer/annotate.h"

namespace {

// get(g, i, j) is element (i, j) of grid g, however it is kept.
template <class Grid>
double sweep(Grid& u, Grid& v, int n, int m, int steps) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) u[i][j] = (i * 7 + j * 3) % 11;
  CA_REGION_BEGIN();
  for (int t = 0; t < steps; ++t) {
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < m - 1; ++j) v[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < m - 1; ++j) u[i][j] = v[i][j];
    CA_ITERATION();
  }
  CA_REGION_END();
  double sum = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) sum += u[i][j];
  return sum;
}

// A block indexed as rows: b[i] is row i.
struct Block {
  double* data;
  int m;
  double* operator[](int i) { return data + static_cast<long>(i) * m; }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: row_tables block|pointers|vectors N M STEPS\n");
    return 2;
  }
  const char* mode = argv[1];
  const int n = std::atoi(argv[2]), m = std::atoi(argv[3]), steps = std::atoi(argv[4]);
  double sum = 0;
  if (std::strcmp(mode, "block") == 0) {
    Block u{static_cast<double*>(std::calloc(static_cast<size_t>(n) * m, sizeof(double))), m};
    Block v{static_cast<double*>(std::calloc(static_cast<size_t>(n) * m, sizeof(double))), m};
    sum = sweep(u, v, n, m, steps);
    std::free(u.data);
    std::free(v.data);
  } else if (std::strcmp(mode, "pointers") == 0) {
    double** u = static_cast<double**>(std::malloc(n * sizeof(double*)));
    double** v = static_cast<double**>(std::malloc(n * sizeof(double*)));
    for (int i = 0; i < n; ++i) {
      u[i] = static_cast<double*>(std::calloc(m, sizeof(double)));
      v[i] = static_cast<double*>(std::calloc(m, sizeof(double)));
    }
    sum = sweep(u, v, n, m, steps);
    for (int i = 0; i < n; ++i) {
      std::free(u[i]);
      std::free(v[i]);
    }
    std::free(u);
    std::free(v);
  } else {
    std::vector<std::vector<double>> u(n, std::vector<double>(m)), v(n, std::vector<double>(m));
    sum = sweep(u, v, n, m, steps);
  }
  std::printf("%.6f\n", sum);
  return 0;
}

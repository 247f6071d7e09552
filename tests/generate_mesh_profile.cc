// generate_mesh_profile OUT SIDE STEPS NEIGHBOURS: writes the profile an
// instrumented run of an unstructured-mesh relaxation would record, without
// compiling anything: SIDE x SIDE nodes numbered in a scrambled (seeded,
// fixed) order, each step y[v] = x[v] + sum of x over v's NEIGHBOURS (4 or 8
// grid neighbours, read through an index list: x[nbr[k]]), then x = y.
// The location graph is the mesh, the node order gives no hint of it, and
// the profile grows with SIDE^2 x STEPS: a generated graph for the
// distributed partitioner's test (parmetis_mpi_test.sh) and for measuring
// the estimate's memory (bench/one_machine.sh).
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "commanalyzer/record/analyzer.h"
#include "commanalyzer/record/profile_io.h"

namespace {

long parse(const char* text, const char* what, long low, long high) {
  try {
    std::size_t used = 0;
    const long value = std::stol(text, &used);
    if (used == std::string(text).size() && value >= low && value <= high) return value;
  } catch (const std::exception&) {
  }
  std::fprintf(stderr, "generate_mesh_profile: %s must be a number from %ld to %ld (got '%s')\n", what, low, high, text);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s OUT SIDE STEPS NEIGHBOURS(4|8)\n", argv[0]);
    return 2;
  }
  const auto side = static_cast<std::uint64_t>(parse(argv[2], "SIDE", 2, 20000));
  const int steps = static_cast<int>(parse(argv[3], "STEPS", 1, 100000));
  const long neighbours = parse(argv[4], "NEIGHBOURS", 4, 8);
  if (neighbours != 4 && neighbours != 8) {
    std::fprintf(stderr, "generate_mesh_profile: NEIGHBOURS must be 4 or 8\n");
    return 2;
  }
  const std::uint64_t n = side * side;
  // Scrambled numbering: node (i, j) is element number[i * side + j].
  std::vector<std::uint64_t> number(n);
  for (std::uint64_t k = 0; k < n; ++k) number[k] = k;
  std::mt19937_64 random(12345);
  for (std::uint64_t k = n - 1; k > 0; --k) std::swap(number[k], number[random() % (k + 1)]);
  std::vector<std::vector<std::uint64_t>> adjacent(n);
  for (std::uint64_t i = 0; i < side; ++i) {
    for (std::uint64_t j = 0; j < side; ++j) {
      for (int di = -1; di <= 1; ++di) {
        for (int dj = -1; dj <= 1; ++dj) {
          if ((di == 0 && dj == 0) || (neighbours == 4 && di != 0 && dj != 0)) continue;
          const std::uint64_t a = i + di, b = j + dj;  // wraps past the edge: out of range
          if (a < side && b < side) adjacent[number[i * side + j]].push_back(number[a * side + b]);
        }
      }
    }
  }

  using namespace commanalyzer;
  Analyzer<> analyzer;
  const Address x = 0x1000'0000, y = 0x4000'0000;
  analyzer.allocation(x, 8 * n);
  analyzer.allocation(y, 8 * n);
  for (std::uint64_t v = 0; v < n; ++v) analyzer.store(x + 8 * v, 8, kComputedBit);
  analyzer.region_begin();
  for (int t = 0; t < steps; ++t) {
    for (std::uint64_t v = 0; v < n; ++v) {
      Label sum = analyzer.load(x + 8 * v, 8);
      for (std::uint64_t u : adjacent[v]) {
        analyzer.indexed_indirectly(x + 8 * u);
        sum = analyzer.join(sum, analyzer.load(x + 8 * u, 8));
      }
      analyzer.store(y + 8 * v, 8, sum);
    }
    for (std::uint64_t v = 0; v < n; ++v) analyzer.store(x + 8 * v, 8, analyzer.load(y + 8 * v, 8));
    analyzer.iteration();
  }
  analyzer.region_end();
  analyzer.finish();
  ProfileInfo info;
  info.word_bytes = Analyzer<>::kWordBytes;
  info.metadata = "generated unstructured mesh side=" + std::to_string(side) + " steps=" + std::to_string(steps) +
                  " neighbours=" + std::to_string(neighbours);
  try {
    save_profile(argv[1], analyzer.profile(), info);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "generate_mesh_profile: %s\n", e.what());
    return 1;
  }
  return 0;
}

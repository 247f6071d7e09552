// The location hypergraph and the hypergraph distribution candidate
// (hypergraph.h): its nets, its exchange format, Zoltan's PHG run as a
// program of its own, and the portfolio's handling of the candidate.
#include "commanalyzer/estimate/hypergraph.h"
#include "tools/spawned_hypergraph.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "commanalyzer/record/analyzer.h"
#include "commanalyzer/estimate/distribution.h"
#include "commanalyzer/estimate/estimate.h"
#include "event_streams.h"

namespace commanalyzer {
namespace {

using testing::Array;
using Profile0 = Analyzer<>::ProfileType;

// y[i] = x[i] + x at three random indices read from an array, n elements.
void gather(Analyzer<>& a, std::uint64_t n) {
  const Array x{0x1000000}, y{0x2000000};
  a.allocation(x.base, 8 * n);
  a.allocation(y.base, 8 * n);
  a.region_begin();
  std::uint64_t seed = 7;
  for (std::uint64_t i = 0; i < n; ++i) {
    Label sum = a.load(x.at(i), 8);
    for (int k = 0; k < 3; ++k) {
      seed = seed * 6364136223846793005u + 1442695040888963407u;
      const Address at = x.at((seed >> 33) % n);
      a.indexed_indirectly(at);
      sum = a.join(sum, a.load(at, 8));
    }
    a.store(y.at(i), 8, a.compute(sum));
  }
  a.region_end();
  a.finish();
}

// The hypergraph of an n x n 5-point stencil: a net per point, its
// neighbours as pins.
LocationHypergraph grid(std::uint32_t n) {
  LocationHypergraph h;
  h.vertex_weight.assign(std::size_t{n} * n, 1);
  h.net_start.push_back(0);
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t j = 0; j < n; ++j) {
      h.pins.push_back(i * n + j);
      if (i > 0) h.pins.push_back((i - 1) * n + j);
      if (i + 1 < n) h.pins.push_back((i + 1) * n + j);
      if (j > 0) h.pins.push_back(i * n + j - 1);
      if (j + 1 < n) h.pins.push_back(i * n + j + 1);
      h.net_start.push_back(h.pins.size());
      h.net_weight.push_back(1);
    }
  }
  return h;
}

TEST(Hypergraph, OneNetPerExportingLocationWithItsNeighbours) {
  Analyzer<> a;
  gather(a, 256);
  const Estimator<Profile0> est(a.profile());
  const LocationIndex& index = est.locations();
  const LocationContraction leaves(index, [](LocationIndex::Node) { return std::size_t{0}; }, {~std::uint64_t{0} / 2});
  const LocationHypergraph h = location_hypergraph(index, leaves);
  ASSERT_EQ(h.vertex_count(), leaves.coarse_count());
  ASSERT_EQ(leaves.coarse_count(), index.node_count());  // x[i] and y[i] are one location: no leaves
  ASSERT_GT(h.net_count(), 0u);
  for (std::size_t e = 0; e < h.net_count(); ++e) {
    const std::uint32_t first = h.pins[h.net_start[e]];
    EXPECT_GT(index.exports()[first], 0u);
    EXPECT_EQ(h.net_weight[e], index.exports()[first]);
    EXPECT_EQ(h.net_start[e + 1] - h.net_start[e], 1 + index.row_start()[first + 1] - index.row_start()[first]);
  }
  // One process: nothing crosses; every node alone: each net costs its weight per other pin.
  EXPECT_EQ(h.connectivity_cost(std::vector<ProcId>(h.vertex_count(), 0)), 0u);
  std::vector<ProcId> alone(h.vertex_count());
  std::iota(alone.begin(), alone.end(), 0);
  std::uint64_t expected = 0;
  for (std::size_t e = 0; e < h.net_count(); ++e) expected += h.net_weight[e] * (h.net_start[e + 1] - h.net_start[e] - 1);
  EXPECT_EQ(h.connectivity_cost(alone), expected);
}

TEST(Hypergraph, RoundTripsThroughItsTextFormat) {
  const LocationHypergraph h = grid(5);
  std::stringstream text;
  write_hypergraph(text, h);
  const LocationHypergraph back = read_hypergraph(text);
  EXPECT_EQ(back.vertex_weight, h.vertex_weight);
  EXPECT_EQ(back.net_start, h.net_start);
  EXPECT_EQ(back.pins, h.pins);
  EXPECT_EQ(back.net_weight, h.net_weight);
  std::istringstream bad("commanalyzer-hypergraph 1\n2 1\n1\n1\n1 2 0 7\n");  // pin 7 of 2 vertices
  EXPECT_THROW(read_hypergraph(bad), std::runtime_error);
}

std::string zoltan_phg() {
  const char* dir = std::getenv("TEST_SRCDIR");
  return std::string(dir != nullptr ? dir : ".") + "/commanalyzer/tools/zoltan_phg";
}

TEST(Hypergraph, ZoltanSplitsAGridIntoBalancedCompactParts) {
  const LocationHypergraph h = grid(32);
  const std::vector<ProcId> owner = SpawnedHypergraphPartitioner{zoltan_phg()}.partition(h, 4);
  ASSERT_EQ(owner.size(), h.vertex_count());
  std::vector<std::size_t> size(4, 0);
  for (ProcId p : owner) {
    ASSERT_GE(p, 0);
    ASSERT_LT(p, 4);
    ++size[p];
  }
  for (std::size_t s : size) EXPECT_LE(s, 256u * 110 / 100);  // 3 % tolerance, with room
  // 2 x 2 blocks cost 4 x 32 = 128; scattered owners cost about 3 per net.
  std::vector<ProcId> scattered(h.vertex_count());
  for (std::size_t v = 0; v < scattered.size(); ++v) scattered[v] = static_cast<ProcId>(v * 7 % 4);
  EXPECT_LT(h.connectivity_cost(owner), 3 * 128u);
  EXPECT_LT(4 * h.connectivity_cost(owner), h.connectivity_cost(scattered));
  // The same hypergraph, the same partition (PHG alone depends on addresses).
  for (int run = 0; run < 3; ++run) EXPECT_EQ(SpawnedHypergraphPartitioner{zoltan_phg()}.partition(h, 4), owner);
}

TEST(Hypergraph, APartitionerThatCannotRunIsAnError) {
  const LocationHypergraph h = grid(4);
  EXPECT_THROW(SpawnedHypergraphPartitioner{"/nonexistent/zoltan_phg"}.partition(h, 2), std::runtime_error);
  EXPECT_THROW(SpawnedHypergraphPartitioner{"/bin/false"}.partition(h, 2), std::runtime_error);
}

TEST(Hypergraph, ThePortfolioCostsTheCandidateAndSurvivesAFailingPartitioner) {
  Analyzer<> a;
  gather(a, 256);
  DistributionPortfolio portfolio;
  portfolio.hypergraph = [](const LocationIndex& index, int procs) {
    std::vector<ProcId> owner(index.node_count());
    for (std::size_t k = 0; k < owner.size(); ++k) owner[k] = static_cast<ProcId>(k * procs / owner.size());
    return owner;
  };
  Estimator<Profile0, DensityDistanceScorer, DistributionPortfolio> with(a.profile(), {}, portfolio);
  const CommEstimate e = with.estimate(4);
  bool offered = false;
  for (const CandidateCost& c : e.candidates) offered |= c.name == "hypergraph";
  EXPECT_TRUE(offered);

  portfolio.hypergraph = [](const LocationIndex&, int) -> std::vector<ProcId> { throw std::runtime_error("no MPI"); };
  Estimator<Profile0, DensityDistanceScorer, DistributionPortfolio> failing(a.profile(), {}, portfolio);
  const CommEstimate f = failing.estimate(4);
  for (const CandidateCost& c : f.candidates) EXPECT_NE(c.name, "hypergraph");
  EXPECT_FALSE(f.distribution.empty());
}

}  // namespace
}  // namespace commanalyzer

#include <cstdint>
#include <random>
#include <sstream>
#include <vector>

#include "commanalyzer/act/graph_placement.h"
#include "commanalyzer/act/placement.h"
#include "commanalyzer/act/rankfile.h"
#include "gtest/gtest.h"

namespace commanalyzer {
namespace {

// A random directed matrix; `density` of the pairs exchange 1..1000 bytes.
TrafficMatrix random_matrix(int procs, double density, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> coin(0, 1);
  std::uniform_int_distribution<std::uint64_t> bytes(1, 1000);
  std::vector<std::uint64_t> m(static_cast<std::size_t>(procs) * procs, 0);
  for (int i = 0; i < procs; ++i) {
    for (int j = 0; j < procs; ++j) {
      if (i != j && coin(rng) < density) m[static_cast<std::size_t>(i) * procs + j] = bytes(rng);
    }
  }
  return TrafficMatrix::from_directed(m, procs);
}

// A rows x cols process grid, 5-point halo; vertical neighbours exchange
// `vertical` bytes, horizontal ones `horizontal`.
TrafficMatrix grid_matrix(int rows, int cols, std::uint64_t vertical, std::uint64_t horizontal) {
  const int procs = rows * cols;
  std::vector<std::uint64_t> m(static_cast<std::size_t>(procs) * procs, 0);
  auto set = [&](int a, int b, std::uint64_t w) {
    m[static_cast<std::size_t>(a) * procs + b] = w;
    m[static_cast<std::size_t>(b) * procs + a] = w;
  };
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      if (r + 1 < rows) set(r * cols + c, (r + 1) * cols + c, vertical);
      if (c + 1 < cols) set(r * cols + c, r * cols + c + 1, horizontal);
    }
  }
  return TrafficMatrix::from_directed(m, procs);
}

// The most bytes any capacity-respecting placement keeps inside nodes, by
// trying every node for every process.
std::uint64_t optimum_by_enumeration(const TrafficMatrix& t, NodeShape shape) {
  const int procs = t.procs();
  std::vector<int> node(static_cast<std::size_t>(procs), 0);
  std::uint64_t best = 0;
  for (;;) {
    std::vector<int> load(static_cast<std::size_t>(shape.nodes), 0);
    bool fits = true;
    for (int k : node) fits &= ++load[static_cast<std::size_t>(k)] <= shape.cores_per_node;
    if (fits) {
      std::uint64_t kept = 0;
      for (const auto& p : t.pairs()) kept += node[p.a] == node[p.b] ? p.bytes : 0;
      best = std::max(best, kept);
    }
    int i = 0;
    while (i < procs && ++node[static_cast<std::size_t>(i)] == shape.nodes) node[static_cast<std::size_t>(i++)] = 0;
    if (i == procs) return best;
  }
}

TEST(TrafficMatrixTest, SumsBothDirections) {
  const TrafficMatrix t = TrafficMatrix::from_directed({0, 5, 0, 7, 0, 1, 0, 0, 0}, 3);
  EXPECT_EQ(t.at(0, 1), 12u);
  EXPECT_EQ(t.at(1, 0), 12u);
  EXPECT_EQ(t.at(1, 2), 1u);
  EXPECT_EQ(t.at(0, 2), 0u);
  EXPECT_EQ(t.total(), 13u);
  EXPECT_EQ(t.pairs().size(), 2u);
  EXPECT_THROW(TrafficMatrix::from_directed({0, 1, 2}, 2), std::invalid_argument);
}

TEST(PlacementTest, NaivePoliciesAsOpenMpiMapsThem) {
  const TrafficMatrix t = random_matrix(6, 0.5, 1);
  const NodeShape shape{.nodes = 3, .cores_per_node = 2};
  const Placement by_rank = ByRankPlacement{}.place(t, shape);
  const Placement round_robin = RoundRobinPlacement{}.place(t, shape);
  EXPECT_EQ(by_rank.slot, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  // Round-robin: ranks 0,1,2 on nodes 0,1,2 (core 0), then 3,4,5 (core 1).
  for (int r = 0; r < 6; ++r) {
    EXPECT_EQ(round_robin.node_of(r), r % 3);
    EXPECT_EQ(round_robin.core_of(r), r / 3);
  }
}

TEST(PlacementTest, TooFewSlotsIsAnError) {
  const TrafficMatrix t = random_matrix(10, 0.3, 2);
  try {
    GraphPlacement{}.place(t, {.nodes = 3, .cores_per_node = 3});
    FAIL() << "9 slots accepted for 10 processes";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("9 slots, fewer than the 10 processes"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ByRankPlacement{}.place(t, {.nodes = 0, .cores_per_node = 16}), std::invalid_argument);
}

TEST(PlacementTest, CapacityRespectedByEveryPolicy) {
  for (const auto& [procs, shape] : std::vector<std::pair<int, NodeShape>>{
           {16, {4, 4}}, {13, {4, 4}}, {7, {2, 5}}, {30, {7, 5}}, {5, {5, 1}}, {9, {1, 12}}}) {
    const TrafficMatrix t = random_matrix(procs, 0.4, static_cast<std::uint64_t>(procs));
    EXPECT_TRUE(respects_capacity(GraphPlacement{}.place(t, shape), procs)) << procs;
    EXPECT_TRUE(respects_capacity(ByRankPlacement{}.place(t, shape), procs)) << procs;
    EXPECT_TRUE(respects_capacity(RoundRobinPlacement{}.place(t, shape), procs)) << procs;
    EXPECT_TRUE(respects_capacity(RandomPlacement{3}.place(t, shape), procs)) << procs;
    EXPECT_TRUE(respects_capacity(GraphPlacement{}.metis_start(t, shape), procs)) << procs;
  }
  EXPECT_FALSE(respects_capacity(Placement{{2, 2}, {0, 1, 1}}, 3));  // two ranks on one core
  EXPECT_FALSE(respects_capacity(Placement{{2, 2}, {0, 4}}, 2));     // no such slot
}

TEST(PlacementTest, NeverWorseThanByRankOrRoundRobin) {
  int strictly_better = 0, cases = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    for (double density : {0.05, 0.3, 1.0}) {
      const TrafficMatrix t = random_matrix(24, density, seed);
      for (NodeShape shape : {NodeShape{3, 8}, NodeShape{6, 4}, NodeShape{4, 7}}) {
        const std::uint64_t graph = intra_node_bytes(t, GraphPlacement{.random_starts = 10}.place(t, shape));
        const std::uint64_t by_rank = intra_node_bytes(t, ByRankPlacement{}.place(t, shape));
        EXPECT_GE(graph, by_rank) << "seed " << seed << " density " << density;
        EXPECT_GE(graph, intra_node_bytes(t, RoundRobinPlacement{}.place(t, shape)));
        strictly_better += graph > by_rank;
        ++cases;
      }
    }
  }
  // On unstructured traffic, by-rank's order means nothing: a partitioner finds better nearly always.
  EXPECT_GE(strictly_better, cases * 9 / 10);
}

TEST(PlacementTest, StructuredHaloKeepsTheHeavyDirectionInside) {
  // 4 x 4 process grid, vertical halos 10x the horizontal ones, 4 cores per
  // node: by-rank keeps rows together (the light direction); the best keeps
  // columns, all vertical bytes.
  const TrafficMatrix t = grid_matrix(4, 4, 1000, 100);
  const NodeShape shape{.nodes = 4, .cores_per_node = 4};
  const Placement best = GraphPlacement{}.place(t, shape);
  EXPECT_EQ(intra_node_bytes(t, ByRankPlacement{}.place(t, shape)), 4u * 3u * 200u);
  EXPECT_EQ(intra_node_bytes(t, best), 4u * 3u * 2000u);
  for (int r = 0; r < 16; ++r) EXPECT_EQ(best.node_of(r), best.node_of(r % 4)) << "rank " << r << " left its column";
  // 2 x 2 blocks on 4-core nodes of an 8 x 8 grid with equal halos: 4
  // internal edges per block of 4, 16 blocks.
  const TrafficMatrix square = grid_matrix(8, 8, 1, 1);
  EXPECT_EQ(intra_node_bytes(square, GraphPlacement{}.place(square, {16, 4})), 16u * 4u * 2u);
}

TEST(PlacementTest, EqualsTheOptimumOnSmallMatrices) {
  int checked = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    for (const auto& [procs, shape] : std::vector<std::pair<int, NodeShape>>{
             {8, {2, 4}}, {8, {4, 2}}, {8, {3, 3}}, {7, {2, 4}}, {6, {3, 2}}, {5, {3, 2}}, {4, {2, 3}}}) {
      for (double density : {0.3, 1.0}) {
        const TrafficMatrix t = random_matrix(procs, density, seed * 100 + procs);
        const Placement p = GraphPlacement{}.place(t, shape);
        ASSERT_TRUE(respects_capacity(p, procs));
        EXPECT_EQ(intra_node_bytes(t, p), optimum_by_enumeration(t, shape))
            << procs << " processes on " << shape.nodes << "x" << shape.cores_per_node << ", seed " << seed;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 8 * 7 * 2);
}

TEST(PlacementTest, LeavesANodePartlyEmptyWhenThatKeepsMore) {
  // Pairs {0,1} and {2,3}, 3 cores per node: by-rank puts 0,1,2 together
  // and cuts 2-3; the best puts each pair on its own node.
  std::vector<std::uint64_t> m(16, 0);
  m[0 * 4 + 1] = m[2 * 4 + 3] = 50;
  m[1 * 4 + 2] = 1;
  const TrafficMatrix t = TrafficMatrix::from_directed(m, 4);
  const NodeShape shape{.nodes = 2, .cores_per_node = 3};
  EXPECT_EQ(intra_node_bytes(t, ByRankPlacement{}.place(t, shape)), 51u);
  const Placement best = GraphPlacement{}.place(t, shape);
  EXPECT_EQ(intra_node_bytes(t, best), 100u);
  EXPECT_EQ(best.node_of(0), best.node_of(1));
  EXPECT_NE(best.node_of(1), best.node_of(2));
}

TEST(PlacementTest, RandomMeanMatchesItsExpectation) {
  // Two processes share a node with probability (C - 1) / (slots - 1),
  // whatever the matrix.
  const TrafficMatrix t = random_matrix(20, 0.2, 9);
  for (NodeShape shape : {NodeShape{5, 4}, NodeShape{3, 8}}) {
    const double expected = (shape.cores_per_node - 1.0) / (shape.slots() - 1.0);
    const double mean = mean_random_share(t, shape, 10000, 1);
    EXPECT_NEAR(mean, expected, 0.01) << shape.nodes << "x" << shape.cores_per_node;
    EXPECT_EQ(mean, mean_random_share(t, shape, 10000, 1));  // fixed seed: reproducible
  }
}

TEST(PlacementTest, NoTrafficKeepsEverything) {
  const TrafficMatrix t = TrafficMatrix::from_directed(std::vector<std::uint64_t>(9, 0), 3);
  EXPECT_EQ(intra_node_share(t, GraphPlacement{}.place(t, {3, 1})), 1.0);
}

TEST(RankfileTest, ParsesBackToThePlacement) {
  const TrafficMatrix t = random_matrix(11, 0.5, 4);
  const Placement p = GraphPlacement{}.place(t, {3, 4});
  for (const std::vector<std::string>& hosts : {std::vector<std::string>{}, {"alpha", "beta", "gamma.example.org"}}) {
    std::stringstream file;
    write_rankfile(file, p, hosts);
    const std::vector<RankfileEntry> entries = parse_rankfile(file);
    ASSERT_EQ(entries.size(), 11u);
    for (int r = 0; r < 11; ++r) {
      const std::string host = hosts.empty() ? "node" + std::to_string(p.node_of(r)) : hosts[p.node_of(r)];
      EXPECT_EQ(entries[r], (RankfileEntry{r, host, p.core_of(r)}));
    }
  }
  std::stringstream sample("# a comment\nrank 0=node1 slot=2\n\n rank 1 = n0  slot = 0  # trailing\n");
  EXPECT_EQ(parse_rankfile(sample), (std::vector<RankfileEntry>{{0, "node1", 2}, {1, "n0", 0}}));
  std::stringstream sink;
  EXPECT_THROW(write_rankfile(sink, p, {"only-one"}), std::invalid_argument);
}

TEST(RankfileTest, MalformedLineNamesItsNumber) {
  std::stringstream bad("rank 0=node0 slot=0\nrank one=node0 slot=1\n");
  try {
    parse_rankfile(bad);
    FAIL() << "accepted a malformed line";
  } catch (const RankfileError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace commanalyzer

#include "commanalyzer/partitioner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>
#include <numeric>
#include <set>
#include <sstream>
#include <vector>

#include "commanalyzer/analyzer.h"
#include "commanalyzer/connectivity_partitioner.h"
#include "commanalyzer/estimate.h"
#include "commanalyzer/value_graph.h"
#include "tests/event_streams.h"

namespace commanalyzer {
namespace {

// A 2-D 5-point stencil over an m x m grid, two sweeps: a graph with an
// obvious good partition.
ValueGraph stencil_graph(std::uint64_t m, Analyzer<>& a) {
  const testing::Array u{0x100000, m}, v{0x900000, m};
  for (int sweep = 0; sweep < 2; ++sweep) {
    for (std::uint64_t i = 1; i + 1 < m; ++i)
      for (std::uint64_t j = 1; j + 1 < m; ++j) {
        Label sum = a.load(u.at(i, j), 8);
        for (auto [di, dj] : {std::pair{-1, 0}, {1, 0}, {0, -1}, {0, 1}}) sum = a.join(sum, a.load(u.at(i + di, j + dj), 8));
        a.store(v.at(i, j), 8, sum);
      }
    for (std::uint64_t i = 1; i + 1 < m; ++i)
      for (std::uint64_t j = 1; j + 1 < m; ++j) a.store(u.at(i, j), 8, a.load(v.at(i, j), 8));
  }
  a.finish();
  return ValueGraph::build(a.profile());
}

std::vector<std::uint64_t> part_weights(const ValueGraph& g, const std::vector<ProcId>& owner, int n) {
  std::vector<std::uint64_t> w(n, 0);
  for (ValueGraph::Vertex v = 0; v < g.vertex_count(); ++v) w[owner[v]] += g.weight(v);
  return w;
}

std::uint64_t cut(const ValueGraph& g, const std::vector<ProcId>& owner) {
  std::uint64_t total = 0;
  const auto& d = g.directed();
  for (auto e : boost::make_iterator_range(boost::edges(d))) {
    if (owner[boost::source(e, d)] != owner[boost::target(e, d)]) total += d[e].uses;
  }
  return total;
}

TEST(MetisPartitioner, BalancedDeterministicAndBetterThanBlocks) {
  Analyzer<> a;
  const ValueGraph g = stencil_graph(40, a);
  const std::vector<std::uint8_t> none(g.vertex_count(), 0);
  for (int n : {2, 4, 8}) {
    const auto owner = MetisPartitioner{}.partition(g, none, n);
    EXPECT_EQ(owner, MetisPartitioner{}.partition(g, none, n)) << "deterministic";
    const auto w = part_weights(g, owner, n);
    const std::uint64_t total = std::accumulate(w.begin(), w.end(), std::uint64_t{0});
    EXPECT_LE(*std::max_element(w.begin(), w.end()), total / n * 1.10) << n;
    EXPECT_GT(*std::min_element(w.begin(), w.end()), 0u);
    const auto blocks = BlockPartitioner{}.partition(g, none, n);
    EXPECT_LE(cut(g, owner), cut(g, blocks)) << n;
  }
  const auto volume = MetisPartitioner{MetisPartitioner::Objective::kVolume}.partition(g, none, 4);
  EXPECT_EQ(std::set<ProcId>(volume.begin(), volume.end()).size(), 4u);
}

TEST(Partitioners, ExcludedVerticesAreReplicated) {
  Analyzer<> a;
  const ValueGraph g = stencil_graph(10, a);
  std::vector<std::uint8_t> excluded(g.vertex_count(), 0);
  excluded[0] = excluded[5] = 1;
  for (const auto& owner : {MetisPartitioner{}.partition(g, excluded, 3), BlockPartitioner{}.partition(g, excluded, 3)}) {
    EXPECT_EQ(owner[0], kReplicated);
    EXPECT_EQ(owner[5], kReplicated);
    for (std::size_t v = 0; v < owner.size(); ++v) {
      if (!excluded[v]) {
        EXPECT_TRUE(owner[v] >= 0 && owner[v] < 3);
      }
    }
  }
}

TEST(BlockPartitioner, ContiguousInCreationOrder) {
  Analyzer<> a;
  const ValueGraph g = stencil_graph(12, a);
  const auto owner = BlockPartitioner{}.partition(g, std::vector<std::uint8_t>(g.vertex_count(), 0), 4);
  EXPECT_TRUE(std::is_sorted(owner.begin(), owner.end()));
  EXPECT_EQ(owner.front(), 0);
  EXPECT_EQ(owner.back(), 3);
}

TEST(OwnerMapPartitioner, RejectsOwnersOutOfRange) {
  Analyzer<> a;
  const ValueGraph g = stencil_graph(6, a);
  const OwnerMapPartitioner bad{[](Address, int n) -> ProcId { return n; }};
  EXPECT_THROW(bad.partition(g, std::vector<std::uint8_t>(g.vertex_count(), 0), 2), std::out_of_range);
}

TEST(ValueGraph, EdgesCountUsesAndGraphvizNamesThem) {
  Analyzer<> a;
  const testing::Array x{0x1000}, y{0x2000};
  // y[0] uses x[0] twice over two updates; x[1] once.
  a.store(y.at(0), 8, a.join(a.load(y.at(0), 8), a.load(x.at(0), 8)));
  a.store(y.at(0), 8, a.join(a.load(y.at(0), 8), a.join(a.load(x.at(0), 8), a.load(x.at(1), 8))));
  a.finish();
  const ValueGraph g = ValueGraph::build(a.profile());
  EXPECT_EQ(g.vertex_count(), 3u);
  EXPECT_EQ(g.edge_count(), 2u);
  const auto& d = g.directed();
  std::vector<std::uint64_t> uses;
  for (auto e : boost::make_iterator_range(boost::edges(d))) uses.push_back(d[e].uses);
  std::sort(uses.begin(), uses.end());
  EXPECT_EQ(uses, (std::vector<std::uint64_t>{1, 2}));
  // The symmetric closure: each edge in both rows, with the same uses.
  const auto& sym = g.symmetric();
  EXPECT_EQ(boost::num_edges(sym), 4u);
  const ValueGraph::Vertex y0 = g.local(a.profile().values.vertex(a.value_at(y.at(0))));
  EXPECT_EQ(g.degree(y0), 2u);
  std::vector<std::uint64_t> sym_uses;
  for (auto e : boost::make_iterator_range(boost::edges(sym))) sym_uses.push_back(sym[e].uses);
  std::sort(sym_uses.begin(), sym_uses.end());
  EXPECT_EQ(sym_uses, (std::vector<std::uint64_t>{1, 1, 2, 2}));
  std::ostringstream dot;
  g.write_graphviz(dot);
  EXPECT_NE(dot.str().find("digraph"), std::string::npos);
  EXPECT_NE(dot.str().find("[label=\"2\"]"), std::string::npos);
}

}  // namespace
}  // namespace commanalyzer

namespace commanalyzer {
namespace {

// C = A x B with the sum in a register: C[i][j] is one value computed from
// row i of A and column j of B. Its communication optimum is the 2-D block
// decomposition (SUMMA): 2 n^2 (q - 1) doubles on q x q processes; the edge
// cut prefers 1-D rows, which cost (P - 1) n^2.
Analyzer<>::ProfileType register_matmul(std::uint64_t n) {
  Analyzer<> a;
  const Address C = 0x1000000, A = 0x2000000, B = 0x3000000;
  for (std::uint64_t i = 0; i < n; ++i)
    for (std::uint64_t j = 0; j < n; ++j) {
      Label acc = kNoLabel;
      for (std::uint64_t k = 0; k < n; ++k) {
        acc = a.join(acc, a.join(a.load(A + 8 * (i * n + k), 8), a.load(B + 8 * (k * n + j), 8)));
      }
      a.store(C + 8 * (i * n + j), 8, acc);
    }
  a.finish();
  return a.take_profile();
}

// Rows are collapsed on several threads and peak phase degrees counted
// beside the symmetric closure: the graph must not depend on the count.
// A 1-D in-place sweep with a residual over every location each step
// (a hub: the one candidate for peak degrees).
TEST(ValueGraph, SameGraphOnAnyThreadCount) {
  constexpr std::uint64_t n = 300;
  const testing::Array u{0x100000}, residual{0x900000}, w{0xa00000}, partner{0xb00000};
  Analyzer<> a;
  a.region_begin();
  for (int step = 0; step < 4; ++step) {
    Label all = kNoLabel;
    for (std::uint64_t i = 1; i + 1 < n; ++i) {
      a.store(u.at(i), 8, a.join(a.join(a.load(u.at(i - 1), 8), a.load(u.at(i), 8)), a.load(u.at(i + 1), 8)));
      all = a.join(all, a.load(u.at(i), 8));
    }
    a.store(residual.at(0), 8, a.compute(all));
    // w trades values with three of its ten partners each step: 20 edges,
    // 10 neighbours (under the floor, not a candidate), 3 a step.
    for (std::uint64_t k = 0; k < 10; ++k) {
      if (k % 4 != static_cast<std::uint64_t>(step) % 4 && !(k >= 8 && step == 3)) continue;
      a.store(partner.at(k), 8, a.join(a.load(partner.at(k), 8), a.load(w.at(0), 8)));
      a.store(w.at(0), 8, a.join(a.load(w.at(0), 8), a.load(partner.at(k), 8)));
    }
    a.iteration();
  }
  a.region_end();
  const ValueGraph one = ValueGraph::build(a.profile(), 1);
  ASSERT_GT(one.edge_count(), 3 * n);
  for (unsigned threads : {2u, 3u, 8u}) {
    const ValueGraph many = ValueGraph::build(a.profile(), threads);
    for (const auto& [x, y] : {std::pair{&one.directed(), &many.directed()}, {&one.symmetric(), &many.symmetric()}}) {
      EXPECT_EQ(x->m_forward.m_rowstart, y->m_forward.m_rowstart) << threads;
      EXPECT_EQ(x->m_forward.m_column, y->m_forward.m_column) << threads;
      ASSERT_EQ(x->m_forward.m_edge_properties.size(), y->m_forward.m_edge_properties.size());
      for (std::size_t e = 0; e < x->m_forward.m_edge_properties.size(); ++e) {
        ASSERT_EQ(x->m_forward.m_edge_properties[e].uses, y->m_forward.m_edge_properties[e].uses) << threads;
      }
    }
    for (ValueGraph::Vertex v = 0; v < one.vertex_count(); ++v) {
      ASSERT_EQ(one.peak_phase_degree(v), many.peak_phase_degree(v)) << threads;
    }
  }
  // The residual's location is the candidate: 298 neighbours over all steps
  // (one coalesced vertex per u[i]), capped at ceil(sqrt(n)) within one, n
  // the vertices of one step.
  const ValueGraph::Vertex hub = one.local(a.profile().values.vertex(a.value_at(residual.at(0))));
  EXPECT_EQ(one.peak_phase_degree(hub), static_cast<std::size_t>(std::ceil(std::sqrt(double(one.peak_phase_vertices())))));
  const ValueGraph::Vertex traded = one.local(a.profile().values.vertex(a.value_at(w.at(0))));
  EXPECT_EQ(one.degree(traded), 10u);
  EXPECT_EQ(one.peak_phase_degree(traded), 10u);  // its degree: not a candidate
}

TEST(ConnectivityPartitioner, FindsTheTwoDimensionalMatMulDecomposition) {
  constexpr std::uint64_t n = 32;
  const auto profile = register_matmul(n);
  Estimator<Analyzer<>::ProfileType, DensityDistanceScorer, ConnectivityPartitioner> conn(profile);
  Estimator<Analyzer<>::ProfileType, DensityDistanceScorer, MetisPartitioner> metis(profile);
  EXPECT_EQ(conn.estimate(2).total_bytes(), n * n * 8);  // one matrix cut in two
  const std::uint64_t optimum4 = 2 * n * n * 1 * 8;
  EXPECT_LE(conn.estimate(4).total_bytes(), optimum4 * 105 / 100);
  EXPECT_GE(conn.estimate(4).total_bytes(), optimum4);
  EXPECT_LT(conn.estimate(4).total_bytes(), metis.estimate(4).total_bytes());
}

// Skipping recursive bisection (as `--partitioner auto` does for large
// graphs) leaves METIS's start only on mesh-like graphs: on C = A x B it is
// slow and finds rows, and bisection stays.
TEST(ConnectivityPartitioner, LargeGraphSettingStillBisectsWhatIsNotAMesh) {
  constexpr std::uint64_t n = 64;  // mean degree 85: not mesh-like
  const auto profile = register_matmul(n);
  ConnectivityPartitioner large;
  large.bisection_start = false;
  Estimator<Analyzer<>::ProfileType, DensityDistanceScorer, ConnectivityPartitioner> as_large(profile, {}, large);
  Estimator<Analyzer<>::ProfileType, DensityDistanceScorer, ConnectivityPartitioner> as_small(profile);
  EXPECT_TRUE(large.bisects(as_large.graph(), as_large.singletons()));
  const std::uint64_t optimum4 = 2 * n * n * 1 * 8;
  EXPECT_EQ(as_large.estimate(4).total_bytes(), as_small.estimate(4).total_bytes());
  EXPECT_LE(as_large.estimate(4).total_bytes(), optimum4 * 105 / 100);
}

// A LULESH-like step on an s^3 hexahedral mesh: each element gathers its 8
// node positions into a reused workspace, computes a force contribution
// per node from them and its pressure, and scatters it (f[n] += ...); then
// every node moves and every element recomputes its pressure. With
// `heap_arrays` the node and element arrays are registered as heap
// allocations, as the runtime registers malloc'd arrays, and each element
// also updates an energy and a viscosity array (element data outweighs
// node data, as in LULESH).
Analyzer<>::ProfileType hex_mesh(std::uint64_t s, int steps, bool heap_arrays = false) {
  const std::uint64_t sn = s + 1;
  const testing::Array x{0x1000000}, f{0x2000000}, p{0x3000000}, work{0x4000000}, contribution{0x5000000},
      energy{0x6000000}, viscosity{0x7000000};
  auto node = [&](std::uint64_t el, int c) {
    const std::uint64_t i = el / (s * s) + (c & 1), j = el / s % s + (c >> 1 & 1), k = el % s + (c >> 2);
    return (i * sn + j) * sn + k;
  };
  Analyzer<> a;
  if (heap_arrays) {
    a.allocation(x.base, 8 * sn * sn * sn);
    a.allocation(f.base, 8 * sn * sn * sn);
    for (const auto& element_array : {p, energy, viscosity}) a.allocation(element_array.base, 8 * s * s * s);
  }
  a.region_begin();
  for (int t = 0; t < steps; ++t) {
    for (std::uint64_t el = 0; el < s * s * s; ++el) {
      Label gathered = kNoLabel;
      for (int c = 0; c < 8; ++c) gathered = a.join(gathered, a.load(x.at(node(el, c)), 8));
      for (int c = 0; c < 8; ++c) a.store(work.at(c), 8, a.compute(gathered));
      for (int c = 0; c < 8; ++c) {
        a.store(contribution.at(c), 8, a.compute(a.join(a.load(p.at(el), 8), a.load(work.at(c), 8))));
        a.store(f.at(node(el, c)), 8, a.join(a.load(f.at(node(el, c)), 8), a.load(contribution.at(c), 8)));
      }
    }
    for (std::uint64_t n = 0; n < sn * sn * sn; ++n) {
      a.store(x.at(n), 8, a.compute(a.join(a.load(x.at(n), 8), a.load(f.at(n), 8))));
      a.store(f.at(n), 8, kComputedBit);
    }
    for (std::uint64_t el = 0; el < s * s * s; ++el) {
      Label gathered = a.load(p.at(el), 8);
      for (int c = 0; c < 8; ++c) gathered = a.join(gathered, a.load(x.at(node(el, c)), 8));
      a.store(p.at(el), 8, a.compute(gathered));
      if (heap_arrays) {
        a.store(energy.at(el), 8, a.compute(a.join(a.load(energy.at(el), 8), a.load(p.at(el), 8))));
        a.store(viscosity.at(el), 8, a.compute(a.join(a.load(viscosity.at(el), 8), a.load(energy.at(el), 8))));
      }
    }
    a.iteration();
  }
  a.region_end();
  a.finish();
  return a.take_profile();
}

TEST(ConnectivityPartitioner, MetisStartImprovesMeshPartitions) {
  const auto profile = hex_mesh(10, 2);
  ConnectivityPartitioner bisection_only, any_gain;
  bisection_only.metis_start = false;
  any_gain.margin = 0;
  Estimator<Analyzer<>::ProfileType, DensityDistanceScorer, ConnectivityPartitioner> both(profile, {}, any_gain);
  Estimator<Analyzer<>::ProfileType, DensityDistanceScorer, ConnectivityPartitioner> bisected(profile, {}, bisection_only);
  // Recursive bisection of the flat graph alone stalls in ragged cuts.
  for (int n : {8, 27}) EXPECT_LT(both.estimate(n).total_bytes(), bisected.estimate(n).total_bytes()) << n;
}

// Refining clusters of vertices (an element with its workspace values)
// moves block boundaries that single-vertex moves cannot.
TEST(ConnectivityPartitioner, MultilevelRefinementImprovesMeshPartitions) {
  const auto profile = hex_mesh(10, 2);
  ConnectivityPartitioner multilevel, single;
  multilevel.bisection_start = single.bisection_start = false;
  {
    Estimator<Analyzer<>::ProfileType, DensityDistanceScorer, ConnectivityPartitioner> mesh(profile, {}, single);
    EXPECT_FALSE(single.bisects(mesh.graph(), mesh.singletons()));  // a mesh: METIS's start only
  }
  multilevel.margin = single.margin = 0;
  single.multilevel_refinement = false;
  // Judged by what the refinement minimises, the connectivity: the bytes of
  // plain owner-computes. The cost model's refinements for shared sums
  // (partials, recomputation, exchanges) are not what the partitioner sees.
  LogicalVolumeCostModel owner_computes;
  owner_computes.combine_partial_updates = owner_computes.recompute_when_cheaper = false;
  owner_computes.exchange_partials = false;
  using MeshEstimator =
      Estimator<Analyzer<>::ProfileType, DensityDistanceScorer, ConnectivityPartitioner, LogicalVolumeCostModel>;
  MeshEstimator with(profile, {}, multilevel, owner_computes);
  MeshEstimator without(profile, {}, single, owner_computes);
  for (int n : {8, 27}) EXPECT_LT(with.estimate(n).total_bytes(), without.estimate(n).total_bytes()) << n;
}

// On a grid, bisection's axis-aligned blocks stay unless another start is
// clearly (by the margin) better: a few percent less halo from bent block
// faces is not what SPMD codes get.
TEST(ConnectivityPartitioner, GridsKeepBisectionBlocks) {
  Analyzer<> a;
  const ValueGraph g = stencil_graph(40, a);
  const std::vector<std::uint8_t> none(g.vertex_count(), 0);
  ConnectivityPartitioner bisection_only;
  bisection_only.metis_start = false;
  for (int n : {4, 8, 16}) {
    EXPECT_EQ(ConnectivityPartitioner{}.partition(g, none, n), bisection_only.partition(g, none, n)) << n;
  }
}

// Prepared once for a graph, the partitioner shares bisections between
// process counts (the halves for 2 are the first cut for 4 and 8; 3 and 6
// share none with them); each count gets what a fresh partition gives, in
// any order and from concurrent threads.
TEST(ConnectivityPartitioner, PreparedMatchesFreshPartitionsForEveryCount) {
  Analyzer<> a;
  const ValueGraph g = stencil_graph(24, a);
  std::vector<std::uint8_t> excluded(g.vertex_count(), 0);
  excluded[5] = 1;
  const ConnectivityPartitioner partitioner;
  const auto prepared = partitioner.prepare(g, excluded);
  for (int n : {8, 2, 6, 4, 3, 16}) EXPECT_EQ(prepared->partition(n), partitioner.partition(g, excluded, n)) << n;

  const auto profile = register_matmul(32);
  const std::vector<int> procs{2, 4, 8, 16};
  Estimator<Analyzer<>::ProfileType, DensityDistanceScorer, ConnectivityPartitioner> one(profile), two(profile);
  const auto sequential = one.estimate(procs, 1), concurrent = two.estimate(procs, 2);
  for (std::size_t k = 0; k < procs.size(); ++k) {
    EXPECT_EQ(concurrent[k].total_bytes(), sequential[k].total_bytes()) << procs[k];
    EXPECT_EQ(two.owners(procs[k]), partitioner.partition(two.graph(), two.singletons(), procs[k])) << procs[k];
  }
}

TEST(ConnectivityPartitioner, BalancesWorkAndKeepsSingletonsReplicated) {
  Analyzer<> a;
  const ValueGraph g = stencil_graph(24, a);
  std::vector<std::uint8_t> excluded(g.vertex_count(), 0);
  excluded[3] = 1;
  for (int n : {2, 3, 8}) {
    const auto owner = ConnectivityPartitioner{}.partition(g, excluded, n);
    EXPECT_EQ(owner, ConnectivityPartitioner{}.partition(g, excluded, n)) << "deterministic";
    EXPECT_EQ(owner[3], kReplicated);
    std::vector<double> work(n, 0);
    double total = 0;
    for (ValueGraph::Vertex v = 0; v < g.vertex_count(); ++v) {
      if (excluded[v]) continue;
      ASSERT_TRUE(owner[v] >= 0 && owner[v] < n);
      work[owner[v]] += 1 + g.work(v);
      total += 1 + g.work(v);
    }
    EXPECT_LE(*std::max_element(work.begin(), work.end()), 1.04 * total / n) << n;
  }
}

}  // namespace
}  // namespace commanalyzer

#include "commanalyzer/estimate/partitioner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cmath>
#include <map>
#include <tuple>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "commanalyzer/record/analyzer.h"
#include "commanalyzer/estimate/estimate.h"
#include "commanalyzer/estimate/value_graph.h"
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

// What METIS prints from inside a bisection ("\t***Cannot bisect a graph
// with 0 vertices!", LULESH 2.0's location graph) goes to standard error
// as a note; the report's own lines before and after stay on stdout, in
// order.
TEST(LibraryOutput, GoesToStandardErrorNotTheReport) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  std::printf("before\n");
  {
    LibraryOutputToStderr note("METIS");
    std::printf("\t***Cannot bisect a graph with 0 vertices!\n\t***You are trying to partition a graph into too many parts!\n");
    std::printf("no newline");
  }
  std::printf("after\n");
  std::fflush(stdout);
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "before\nafter\n");
  EXPECT_EQ(err,
            "[commanalyzer] METIS: Cannot bisect a graph with 0 vertices!\n"
            "[commanalyzer] METIS: You are trying to partition a graph into too many parts!\n"
            "[commanalyzer] METIS: no newline\n");
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
  EXPECT_EQ(g.symmetric_entries(), 4u);
  const ValueGraph::Vertex y0 = g.local(a.profile().values.vertex(a.value_at(y.at(0))));
  EXPECT_EQ(g.degree(y0), 2u);
  std::vector<std::uint64_t> sym_uses;
  for (ValueGraph::Vertex v = 0; v < g.vertex_count(); ++v) {
    g.for_each_neighbour(v, [&](ValueGraph::Vertex, std::uint32_t uses) { sym_uses.push_back(uses); });
  }
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
    const auto& x = one.directed();
    const auto& y = many.directed();
    EXPECT_EQ(x.m_forward.m_rowstart, y.m_forward.m_rowstart) << threads;
    EXPECT_EQ(x.m_forward.m_column, y.m_forward.m_column) << threads;
    ASSERT_EQ(x.m_forward.m_edge_properties.size(), y.m_forward.m_edge_properties.size());
    for (std::size_t e = 0; e < x.m_forward.m_edge_properties.size(); ++e) {
      ASSERT_EQ(x.m_forward.m_edge_properties[e].uses, y.m_forward.m_edge_properties[e].uses) << threads;
    }
    for (ValueGraph::Vertex v = 0; v < one.vertex_count(); ++v) {
      ASSERT_EQ(one.peak_phase_degree(v), many.peak_phase_degree(v)) << threads;
      ASSERT_EQ(one.degree(v), many.degree(v)) << threads;
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

}  // namespace
}  // namespace commanalyzer

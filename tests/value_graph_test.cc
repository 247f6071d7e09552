// The value graph's construction: uses folded into weighted edges, and a
// graph whose size follows the program's data, not its number of steps.
#include "commanalyzer/estimate/value_graph.h"

#include "commanalyzer/estimate/locations.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <utility>

#include "commanalyzer/record/analyzer.h"
#include "tests/event_streams.h"

namespace commanalyzer {
namespace {

using testing::Array;

// Read counts saturating at 2, against a plain byte per instance, before
// and after sealing; sealed, blocks of one count keep only the count.
TEST(SourceUses, CountsEveryInstanceAndKeepsOnlyMixedBlocks) {
  constexpr std::size_t kValues = 5 * 4096 + 77;
  std::mt19937 random(7);
  std::vector<std::uint8_t> expected(kValues, 0);
  SourceUses uses(kValues);
  auto add = [&](ValueId s) {
    uses.add(s);
    expected[s] = static_cast<std::uint8_t>(std::min(expected[s] + 1, 2));
  };
  for (ValueId s = 0; s < 4096; ++s) add(s), add(s), add(s);  // block 0: all 2
  for (ValueId s = 4096; s < 2 * 4096; ++s) add(s);            // block 1: all 1; block 2: all 0
  for (int k = 0; k < 20000; ++k) add(3 * 4096 + random() % (2 * 4096 + 77));  // blocks 3, 4 and the rest: mixed
  for (ValueId s = 0; s < kValues; ++s) ASSERT_EQ(uses[s], expected[s]) << s;
  const std::size_t before = uses.memory_bytes();
  uses.seal();
  for (ValueId s = 0; s < kValues; ++s) ASSERT_EQ(uses[s], expected[s]) << s;
  EXPECT_LE(uses.memory_bytes(), before - 3 * 1024);  // three uniform blocks of 1024 bytes given back
}

// Folding in small buffers (many folds, rows merged with earlier ones) gives
// every distinct pair once, its uses counted, rows sorted by target; a use
// added as n uses (of a new edge or one the graph has) counts n.
TEST(UseAccumulator, FoldsEveryUseIntoItsPairsEdge) {
  constexpr std::size_t vertices = 300, uses = 50000;
  std::mt19937 random(7);
  std::uniform_int_distribution<CsrVertex> vertex(0, vertices - 1);
  std::map<std::pair<CsrVertex, CsrVertex>, std::uint64_t> expected;
  UseAccumulator accumulator(vertices, 2, /*minimum_buffer=*/997);
  for (std::size_t k = 0; k < uses; ++k) {
    // Skewed: a few sources take most uses, so rows of every length merge.
    const CsrVertex source = vertex(random) % (k % 3 == 0 ? vertices : 17);
    const CsrVertex sink = vertex(random);
    const std::uint32_t n = k % 7 == 0 ? 1 + k % 5 : 1;
    accumulator.add(source, sink, n);
    expected[{source, sink}] += n;
  }
  const CsrGraph g = std::move(accumulator).finish();
  ASSERT_EQ(boost::num_edges(g), expected.size());
  auto want = expected.begin();
  for (CsrVertex v = 0; v < vertices; ++v) {
    for (auto e : boost::make_iterator_range(boost::out_edges(v, g))) {
      ASSERT_NE(want, expected.end());
      EXPECT_EQ(std::pair(v, boost::target(e, g)), want->first);
      EXPECT_EQ(g[e].uses, want->second);
      ++want;
    }
  }
  EXPECT_EQ(want, expected.end());
}

// The symmetric rows from the out- and in-edges: every neighbour of either
// direction once, ascending, with the uses of both directions summed (pairs
// used both ways, one way, and self-free), and saturated as the closure's.
TEST(InEdges, SymmetricRowsSumBothDirections) {
  constexpr std::size_t vertices = 200;
  std::mt19937 random(3);
  std::uniform_int_distribution<CsrVertex> vertex(0, vertices - 1);
  std::map<std::pair<CsrVertex, CsrVertex>, std::uint64_t> directed;
  UseAccumulator accumulator(vertices, 1, /*minimum_buffer=*/64);
  for (std::size_t k = 0; k < 20000; ++k) {
    const CsrVertex source = vertex(random), sink = vertex(random) % (k % 2 == 0 ? vertices : 9);
    if (source == sink) continue;
    accumulator.add(source, sink);
    ++directed[{source, sink}];
  }
  CsrGraph g = std::move(accumulator).finish();
  // One pair used past what a weight holds, both ways: the sum saturates.
  CsrVertex u = 0, w = 0;
  for (std::uint64_t e = 0; w == u; ++e) {
    while (g.m_forward.m_rowstart[u + 1] <= e) ++u;
    if (!directed.contains({g.m_forward.m_column[e], u})) continue;
    w = g.m_forward.m_column[e];
    g.m_forward.m_edge_properties[e].uses = static_cast<std::uint32_t>(EdgeWeight::kMax - 1);
  }
  directed[{u, w}] = EdgeWeight::kMax - 1;
  std::map<std::pair<CsrVertex, CsrVertex>, std::uint64_t> both;
  for (const auto& [pair, uses] : directed) {
    both[pair] += uses;
    both[{pair.second, pair.first}] += uses;
  }
  const csr::InEdges in = csr::in_edges(g, vertices);
  std::size_t both_ways = 0;
  auto want = both.begin();
  for (CsrVertex v = 0; v < vertices; ++v) {
    const auto row_begins = want;
    csr::symmetric_row(g, in, v, [&](CsrVertex t, std::uint32_t uses) {
      ASSERT_NE(want, both.end());
      EXPECT_EQ(std::pair(v, t), want->first);
      EXPECT_EQ(uses, EdgeWeight::saturated(want->second));
      both_ways += directed.contains({v, t}) && directed.contains({t, v});
      ++want;
    });
    EXPECT_EQ(csr::symmetric_degree(g, in, v), static_cast<std::uint32_t>(std::distance(row_begins, want))) << v;
  }
  EXPECT_EQ(want, both.end());
  EXPECT_GT(both_ways, 100u);  // pairs used both ways were merged, not listed twice
  std::uint32_t sum = 0;
  csr::symmetric_row(g, in, u, [&](CsrVertex t, std::uint32_t uses) { sum = t == w ? uses : sum; });
  EXPECT_EQ(sum, EdgeWeight::kMax);
}

// A Jacobi sweep with a residual (a loop result over every element), a
// decision on it, per-region minima and a per-element decision, for
// `steps` iterations.
Analyzer<> jacobi(int steps) {
  constexpr std::uint64_t n = 1024, regions = 4;
  Analyzer<> a;
  const Array u{0x100000}, unew{0x200000};
  a.allocation(u.base, 8 * n);
  a.allocation(unew.base, 8 * n);
  a.region_begin();
  for (int t = 0; t < steps; ++t) {
    Label residual = kNoLabel;
    for (std::uint64_t i = 1; i + 1 < n; ++i) {
      const Label v = a.join(a.join(a.load(u.at(i - 1), 8), a.load(u.at(i + 1), 8)), a.load(u.at(i), 8));
      a.store(unew.at(i), 8, a.compute(v));
      residual = a.join(residual, a.load(unew.at(i), 8));
      a.use(a.join(a.load(unew.at(i), 8), a.load(u.at(i), 8)), 7);  // if (unew[i] > u[i]) ...
    }
    a.use(a.loop_result(residual, 5), 6);  // if (residual < tol) break;
    for (std::uint64_t r = 0; r < regions; ++r) {
      Label m = kNoLabel;
      for (std::uint64_t i = r * (n / regions) + 1; i < (r + 1) * (n / regions) - 1; ++i) m = a.join(m, a.load(unew.at(i), 8));
      a.loop_result(m, 8);
    }
    for (std::uint64_t i = 1; i + 1 < n; ++i) a.store(u.at(i), 8, a.load(unew.at(i), 8));
    a.iteration();
  }
  a.region_end();
  return a;
}

TEST(ValueGraph, DoesNotGrowWithTheSteps) {
  const Analyzer<> short_run = jacobi(3), long_run = jacobi(6);
  const ValueGraph small = ValueGraph::build(short_run.profile());
  const ValueGraph large = ValueGraph::build(long_run.profile());
  ASSERT_GT(long_run.profile().vertex_count(), short_run.profile().vertex_count());
  EXPECT_EQ(large.vertex_count(), small.vertex_count());
  EXPECT_EQ(large.edge_count(), small.edge_count());
}

// Results merged are the same result: the residual of every step is one
// vertex, each region's minimum another, each element's decision its own
// (not one hub of every element).
TEST(ValueGraph, MergesTheResultsOfOneSiteComputedFromTheSameVertices) {
  const Analyzer<> run = jacobi(4);
  const auto& profile = run.profile();
  const ValueGraph g = ValueGraph::build(profile);
  std::map<Address, std::set<ValueGraph::Vertex>> at_site;
  std::map<Address, std::size_t> results;
  for (VertexId x = 0; x < profile.vertex_count(); ++x) {
    if (profile.vertex_home[x] < kUseSiteBase || g.local(x) == ValueGraph::kAbsent) continue;
    at_site[profile.vertex_home[x]].insert(g.local(x));
    ++results[profile.vertex_home[x]];
  }
  const Address residual = kLoopResultBase + 8 * 5, minima = kLoopResultBase + 8 * 8;
  const Address decided = kUseSiteBase + 8 * 6, per_element = kUseSiteBase + 8 * 7;
  EXPECT_EQ(results[residual], 4u);
  EXPECT_EQ(at_site[residual].size(), 1u);
  EXPECT_EQ(results[decided], 4u);
  EXPECT_EQ(at_site[decided].size(), 1u);
  EXPECT_EQ(results[minima], 16u);
  EXPECT_EQ(at_site[minima].size(), 4u);
  // Per element, two: the first step reads u as set before the region,
  // the later ones u as copied from unew.
  EXPECT_EQ(results[per_element], 4u * 1022);
  EXPECT_EQ(at_site[per_element].size(), 2u * 1022);
}

// Each step: y = A x (a 3-point row), work[0] = x[t] + x[t + 1] (other
// elements each time), step[0] = x[1] + x[2] in an array of its own
// (allocated and freed in the step: scratch), then x += y (an exclusive
// update) or, with `copy_back`, x = y. x, y and work are 2 KiB arrays
// (tracked: TrackedArrays::kMinBytes) of one extent.
std::unique_ptr<Analyzer<>> product_and_work(int steps, bool copy_back) {
  constexpr std::uint64_t n = 256;
  auto a = std::make_unique<Analyzer<>>();
  const Array x{0x100000}, y{0x200000}, work{0x300000}, step{0x400000};
  a->allocation(x.base, 8 * n);
  a->allocation(y.base, 8 * n);
  a->allocation(work.base, 8 * n);
  for (std::uint64_t i = 0; i < n; ++i) a->store(x.at(i), 8, a->compute(kNoLabel));
  a->region_begin();
  for (int t = 0; t < steps; ++t) {
    for (std::uint64_t i = 1; i + 1 < n; ++i) {
      a->store(y.at(i), 8, a->compute(a->join(a->join(a->load(x.at(i - 1), 8), a->load(x.at(i), 8)),
                                              a->load(x.at(i + 1), 8))));
    }
    a->store(work.at(0), 8, a->compute(a->join(a->load(x.at(t), 8), a->load(x.at(t + 1), 8))));
    a->allocation(step.base, 8 * n);
    a->store(step.at(0), 8, a->compute(a->join(a->load(x.at(1), 8), a->load(x.at(2), 8))));
    a->release(step.base);
    for (std::uint64_t i = 1; i + 1 < n; ++i) {
      const Label from_y = a->load(y.at(i), 8);
      a->store(x.at(i), 8, copy_back ? from_y : a->compute(a->join(a->load(x.at(i), 8), from_y)));
    }
    a->iteration();
  }
  a->region_end();
  return a;
}

// An element overwritten without being read: the product y = A x of each
// iteration is one vertex per element (the graph does not grow with the
// iterations), while a work slot refilled from other elements each time
// stays a vertex per fill (no hub of everything it ever held), and so does
// a work array allocated and freed each step at the same address, filled
// from the same elements (another array each time).
TEST(ValueGraph, MergesAnElementOverwrittenFromTheSameVertices) {
  auto run = [](int steps) { return product_and_work(steps, /*copy_back=*/false); };
  const auto short_run = run(3), long_run = run(6);
  const ValueGraph small = ValueGraph::build(short_run->profile());
  const ValueGraph large = ValueGraph::build(long_run->profile());
  std::set<ValueGraph::Vertex> work_vertices, step_vertices;
  for (VertexId v = 0; v < long_run->profile().vertex_count(); ++v) {
    if (large.local(v) == ValueGraph::kAbsent) continue;
    if (long_run->profile().vertex_home[v] == 0x300000) work_vertices.insert(large.local(v));
    if (long_run->profile().vertex_home[v] == 0x400000) step_vertices.insert(large.local(v));
  }
  EXPECT_EQ(work_vertices.size(), 6u);
  EXPECT_EQ(step_vertices.size(), 6u);
  // Only the work slot's fills and the step arrays are new: three more
  // steps, six more vertices.
  EXPECT_EQ(large.vertex_count(), small.vertex_count() + 6);
}

// The arrays as the estimate gives them to a location graph (no count's
// copies marked unless `copy_all`).
LocationGrain grain_of(const Analyzer<>::ProfileType& profile, bool copy_all = false) {
  LocationGrain grain;
  for (const auto& a : profile.arrays) {
    grain.arrays.push_back({a.base, a.bytes, a.freed, a.indexed_indirectly, a.scratch, a.copied_into, copy_all});
  }
  return grain;
}

// By location, the values stored at one location are one vertex: an
// element's values before and in the region, and element i of the arrays
// aligned with it (x, y and the work array, of one extent), while a
// scratch array's fills keep a vertex each. The location graph built on
// it is the one built on a vertex per site: the same nodes, rows, work and
// exports. Arrays a count may copy keep their site vertices.
TEST(ValueGraph, ByLocationALocationsValuesAreOneVertex) {
  auto run = [](int steps) { return product_and_work(steps, /*copy_back=*/true); };
  const auto short_run = run(3), long_run = run(6);
  const auto& profile = long_run->profile();
  const LocationGrain grain = grain_of(profile);
  const ValueGraph by_site = ValueGraph::build(profile);
  const ValueGraph by_location = ValueGraph::build(profile, 1, &grain);
  std::map<Address, std::set<ValueGraph::Vertex>> at_offset;  // offset in an aligned array -> vertices
  std::set<ValueGraph::Vertex> steps;
  for (VertexId v = 0; v < profile.vertex_count(); ++v) {
    const ValueGraph::Vertex at = by_location.local(v);
    if (at == ValueGraph::kAbsent) continue;
    const Address home = profile.vertex_home[v];
    if (home >= 0x400000 && home < 0x500000) steps.insert(at);
    if (home >= 0x100000 && home < 0x400000) at_offset[home % 0x100000].insert(at);
  }
  ASSERT_EQ(at_offset.size(), 256u);
  for (const auto& [offset, vertices] : at_offset) EXPECT_EQ(vertices.size(), 1u) << offset;
  EXPECT_EQ(steps.size(), 6u);
  EXPECT_EQ(by_location.vertex_count(), 256u + 6);
  EXPECT_GT(by_site.vertex_count(), by_location.vertex_count() + 256);
  // Three more steps: three more step arrays, nothing else.
  const LocationGrain short_grain = grain_of(short_run->profile());
  EXPECT_EQ(ValueGraph::build(short_run->profile(), 1, &short_grain).vertex_count() + 3, by_location.vertex_count());

  std::vector<ArrayExtent> arrays = grain.arrays;
  const LocationIndex a = LocationIndex::build(by_site, std::vector<std::uint8_t>(by_site.vertex_count(), 0), arrays);
  const LocationIndex b =
      LocationIndex::build(by_location, std::vector<std::uint8_t>(by_location.vertex_count(), 0), arrays);
  ASSERT_EQ(a.node_count(), b.node_count());
  EXPECT_EQ(a.location_count(), b.location_count());
  EXPECT_EQ(a.work(), b.work());
  EXPECT_EQ(a.exports(), b.exports());
  EXPECT_EQ(a.row_start(), b.row_start());
  for (std::uint64_t k = 0; k < a.row_start().back(); ++k) {
    ASSERT_EQ(a.neighbour()[k], b.neighbour()[k]) << k;
    ASSERT_EQ(a.uses()[k], b.uses()[k]) << k;
  }

  const LocationGrain copied = grain_of(profile, /*copy_all=*/true);
  EXPECT_EQ(ValueGraph::build(profile, 1, &copied).vertex_count(), by_site.vertex_count());
}

// Results of one site are merged by the set of vertices they read, told
// apart inside: sets of the same size, least and greatest element are two
// vertices; the same set read in another order is one.
TEST(ValueGraph, TellsApartSetsOfTheSameSizeAndEnds) {
  Analyzer<> a;
  const Array x{0x100000};
  a.allocation(x.base, 8 * 4);
  for (std::uint64_t i = 0; i < 4; ++i) a.store(x.at(i), 8, a.compute(kNoLabel));
  a.region_begin();
  auto reduce = [&](std::initializer_list<std::uint64_t> elements) {
    Label m = kNoLabel;
    for (std::uint64_t i : elements) m = a.join(m, a.load(x.at(i), 8));
    a.use(a.loop_result(m, 9), 10);
  };
  for (int t = 0; t < 2; ++t) {
    reduce({0, 1, 3});
    reduce({0, 2, 3});
    reduce({3, 1, 0});
    a.iteration();
  }
  a.region_end();
  const auto& profile = a.profile();
  const ValueGraph g = ValueGraph::build(profile);
  std::set<ValueGraph::Vertex> at_site;
  std::size_t results = 0;
  for (VertexId v = 0; v < profile.vertex_count(); ++v) {
    if (profile.vertex_home[v] != kLoopResultBase + 8 * 9 || g.local(v) == ValueGraph::kAbsent) continue;
    at_site.insert(g.local(v));
    ++results;
  }
  EXPECT_EQ(results, 6u);
  EXPECT_EQ(at_site.size(), 2u);
}

}  // namespace
}  // namespace commanalyzer

// Value-flow chains, replication, liveness, coalescing and regions: the
// semantics contract of DESIGN.md, driven through the event API.
#include "commanalyzer/record/analyzer.h"

#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "commanalyzer/estimate/value_graph.h"
#include "tests/event_streams.h"

namespace commanalyzer {
namespace {

using testing::Array;
using Flow = std::pair<ValueId, std::vector<ValueId>>;

template <class P>
std::vector<Flow> flows_of(const P& profile) {
  std::vector<Flow> out;
  profile.flows.for_each([&](ValueId v, std::span<const ValueId> s) { out.emplace_back(v, std::vector(s.begin(), s.end())); });
  return out;
}

// The paper's Figure 7: out[k] = in[i] + in[j] creates V2 with sources
// {V0, V1}; a plain load-store copy replicates without a new value.
TEST(ValueFlow, Figure7) {
  Analyzer<> a;
  const Array in{0x10000}, out{0x20000};
  const Label r4 = a.load(in.at(3), 8);   // V0: first read -> input
  const Label r11 = a.load(in.at(5), 8);  // V1
  a.store(out.at(0), 8, a.join(r4, r11));
  const ValueId v0 = a.value_at(in.at(3)), v1 = a.value_at(in.at(5)), v2 = a.value_at(out.at(0));
  EXPECT_EQ(a.profile().values.count(), 3u);
  EXPECT_TRUE(a.profile().values.is_input(v0));
  EXPECT_FALSE(a.profile().values.is_input(v2));
  EXPECT_EQ(flows_of(a.profile()), (std::vector<Flow>{{v2, {v0, v1}}}));

  a.store(out.at(1), 8, a.load(out.at(0), 8));  // copy
  EXPECT_EQ(a.value_at(out.at(1)), v2);
  EXPECT_EQ(a.profile().values.count(), 3u);
  // Live copies count locations: two doubles of 8 / kWordBytes words each.
  EXPECT_EQ(a.profile().values.live_copies(v2), 2 * 8 / Analyzer<>::kWordBytes);
  EXPECT_EQ(a.stats().replications, 1u);
  EXPECT_EQ(a.profile().flows.flow_count(), 1u);
}

// store() returns what a reload would give: the leaf of the new instance,
// or the replicated leaf itself. The pass gives it to the later uses of the
// stored register (DESIGN.md, "Optimizer independence"): a prefix scan
// carried in a register then has two sources per value, not its prefix.
TEST(ValueFlow, StoreReturnsTheLeafOfTheStoredInstance) {
  Analyzer<> a;
  const Array x{0x10000};
  const Label first = a.load(x.at(0), 8);
  Label carried = first;
  for (int i = 1; i < 6; ++i) {
    const Label computed = a.join(a.load(x.at(i), 8), carried);
    carried = a.store(x.at(i), 8, computed);
    EXPECT_EQ(carried, a.slicer().leaf(a.value_at(x.at(i))));
    EXPECT_EQ(a.slicer().leaf_value(carried), a.value_at(x.at(i)));
  }
  for (const auto& [v, sources] : flows_of(a.profile())) EXPECT_EQ(sources.size(), 2u);
  EXPECT_EQ(a.store(x.at(7), 8, first), first);  // a replication returns its leaf
  EXPECT_EQ(a.value_at(x.at(7)), a.value_at(x.at(0)));
}

TEST(ValueFlow, ConstantAndUninstrumentedStoresCreateValuesWithoutSources) {
  Analyzer<> a;
  a.store(0x100, 8, kComputedBit);
  EXPECT_NE(a.value_at(0x100), kNoValue);
  EXPECT_EQ(a.profile().flows.flow_count(), 0u);
  // An address/loop-control label never reaches data: a store of kNoLabel
  // is a constant too.
  a.store(0x108, 8, kNoLabel);
  EXPECT_NE(a.value_at(0x108), a.value_at(0x100));
}

TEST(ValueFlow, LivenessDistinguishesOutputsFromIntermediates) {
  Analyzer<> a;
  a.store(0x100, 8, kComputedBit);
  const ValueId first = a.value_at(0x100);
  a.store(0x100, 8, kComputedBit);  // kills the first
  const ValueId second = a.value_at(0x100);
  a.finish();
  EXPECT_EQ(a.profile().values.kind(first), ValueKind::kIntermediate);
  EXPECT_EQ(a.profile().values.kind(second), ValueKind::kOutput);
}

// The runtime's value store marks outputs once, at finish, instead of
// counting copies on every store: the kinds must come out the same.
TEST(ValueFlow, LivenessMarkedAtEndMatchesCountedLiveness) {
  using Marked = Analyzer<PagedShadowMemory<>, UnionDagSlicer, CoalesceExclusiveUpdates, LiveAtEndValueStore>;
  auto run = [](auto& a) {
    const Array u{0x10000}, unew{0x20000}, copy{0x30000};
    testing::jacobi1d(a, u, unew, 40, 3);
    a.copy(copy.base, u.base, 8 * 20);  // replicas keep values live
    a.fill(u.base, 8 * 10);             // kills those not copied
    a.clear(unew.base, 8 * 40);         // pointer data over the rest
    a.store(copy.at(3), 8, a.join(a.load(copy.at(2), 8), a.load(copy.at(4), 8)));
    a.finish();
  };
  Analyzer<> counted;
  Marked marked;
  run(counted);
  run(marked);
  ASSERT_EQ(marked.profile().values.count(), counted.profile().values.count());
  std::size_t outputs = 0, intermediates = 0;
  for (ValueId v = 1; v <= counted.profile().values.count(); ++v) {
    const ValueKind kind = counted.profile().values.kind(v);
    ASSERT_EQ(marked.profile().values.kind(v), kind) << v;
    outputs += kind == ValueKind::kOutput;
    intermediates += kind == ValueKind::kIntermediate;
  }
  EXPECT_GT(outputs, 10u);
  EXPECT_GT(intermediates, 10u);
}

TEST(ValueFlow, MemcpyReplicatesAndMemsetCreates) {
  Analyzer<PagedShadowMemory<8>> a;
  const Array src{0x1000}, dst{0x2000};
  for (int i = 0; i < 4; ++i) a.store(src.at(i), 8, kComputedBit);
  const std::size_t before = a.profile().values.count();
  a.copy(dst.base, src.base, 32);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(a.value_at(dst.at(i)), a.value_at(src.at(i)));
  EXPECT_EQ(a.profile().values.count(), before);
  a.fill(dst.base, 32);
  EXPECT_EQ(a.profile().values.count(), before + 4);
  EXPECT_NE(a.value_at(dst.at(0)), a.value_at(src.at(0)));
}

// memset does not know element sizes either: an 8-byte aligned range gets
// one value per 8 bytes, so a zeroed double array read back element by
// element yields one value per element, not a join of two half-values
// (which made every later update of it a two-source computation).
TEST(ValueFlow, MemsetOfAlignedRangeCreatesOneValuePerEightBytes) {
  Analyzer<PagedShadowMemory<4>> a;
  const Array f{0x1000};
  a.fill(f.base, 32);
  EXPECT_EQ(a.profile().values.count(), 4u);
  EXPECT_NE(a.slicer().leaf_value(a.load(f.at(1), 8)), kNoValue);  // one value, not a join
  EXPECT_EQ(a.profile().values.size_bytes(a.value_at(f.at(1))), 8u);
  a.fill(0x2004, 12);  // not 8-byte aligned: one value per word
  EXPECT_EQ(a.profile().values.count(), 4u + 3u);
}

// memcpy does not know element sizes: copying memory nobody wrote or read
// leaves the destination unread, and its first typed load creates one input
// of that load's size (not one per shadow word).
TEST(ValueFlow, MemcpyOfUnreadMemoryDefersInputsToTheFirstLoad) {
  Analyzer<PagedShadowMemory<4>> a;
  a.copy(0x2000, 0x1000, 16);
  EXPECT_EQ(a.value_at(0x2000), kNoValue);
  EXPECT_EQ(a.profile().values.count(), 0u);
  const Label d = a.load(0x2008, 8);
  EXPECT_NE(a.slicer().leaf_value(d), kNoValue);
  EXPECT_EQ(a.profile().values.count(), 1u);
  EXPECT_EQ(a.profile().values.size_bytes(a.value_at(0x2008)), 8u);
}

// C[i][j] += A[i][k] * B[k][j], stored at every k, is one vertex per C
// element: n*n C vertices + n*n A + n*n B, whatever n.
TEST(Coalescing, ExclusiveUpdatesOfOneLocationFormOneVertex) {
  constexpr std::uint64_t n = 6;
  Analyzer<> a;
  const Array C{0x100000, n}, A{0x200000, n}, B{0x300000, n};
  testing::matmul(a, C, A, B, n);
  EXPECT_EQ(a.profile().values.count(), 3 * n * n + n * n * n);
  EXPECT_EQ(a.profile().vertex_count(), 3 * n * n);
  const VertexId c00 = a.profile().values.vertex(a.value_at(C.at(0, 0)));
  EXPECT_EQ(a.profile().vertex_weight[c00], n + 1);  // the input + n updates
  const auto graph = ValueGraph::build(a.profile());
  EXPECT_EQ(graph.vertex_count(), 3 * n * n);
  EXPECT_EQ(graph.edge_count(), 2 * n * n * n);  // A_ik -> C_ij and B_kj -> C_ij
}

// store_union records what store of the union records, when the union
// would be a node made for the store: leaves and pairs naming three or more
// values. Fewer values, or a node among the labels, it refuses and records
// nothing (the caller makes the union and stores it).
TEST(ValueFlow, StoreOfAUnionRecordsTheUnionsStore) {
  const Array in{0x10000}, out{0x20000};
  Analyzer<> joined, direct;
  for (Analyzer<>* a : {&joined, &direct}) {
    for (std::uint64_t k = 0; k < 4; ++k) a->load(in.at(k), 8);
  }
  auto leaf = [&](Analyzer<>& a, std::uint64_t k) { return a.load(in.at(k), 8); };
  const Label pair = joined.join(leaf(joined, 0), leaf(joined, 1));
  joined.store(out.at(0), 8, joined.join(joined.join(pair, leaf(joined, 2)), leaf(joined, 3)));
  Label stored = kNoLabel;
  const std::vector<Label> labels{direct.join(leaf(direct, 0), leaf(direct, 1)), leaf(direct, 2) | kComputedBit,
                                  leaf(direct, 3), kComputedBit};
  ASSERT_TRUE(direct.store_union(out.at(0), 8, labels, 0, stored));
  EXPECT_EQ(stored, direct.slicer().leaf(direct.value_at(out.at(0))));
  EXPECT_EQ(flows_of(direct.profile()), flows_of(joined.profile()));
  EXPECT_EQ(direct.profile().values.count(), joined.profile().values.count());

  const std::size_t values = direct.profile().values.count();
  const std::vector<Label> two_values{leaf(direct, 0), leaf(direct, 1), leaf(direct, 0) | kComputedBit};
  EXPECT_FALSE(direct.store_union(out.at(1), 8, two_values, 0, stored));
  const Label node = direct.join(direct.join(leaf(direct, 0), leaf(direct, 1)), leaf(direct, 2));
  const std::vector<Label> with_node{node, leaf(direct, 3), leaf(direct, 1)};
  EXPECT_FALSE(direct.store_union(out.at(1), 8, with_node, 0, stored));
  EXPECT_EQ(direct.profile().values.count(), values);
}

// Which recorded loop results are reductions (ValueGraph, from
// Profile::reductions). Site 5: each step, the minimum over each of four
// regions of the elements a filter passes (one in 16; -O0 joins only those),
// while the step also updates 16 other fields: each minimum is computed
// from fewer values than a global value's degree, sqrt of a step's values,
// but the loop makes four results a step from 128 values each. Site 6: an
// element's sum over 8 of a small mesh's 64 nodes, which also reads
// sqrt(D) values, makes one result per element. Only site 5 reduces.
TEST(LoopReductions, ALoopThatFoldsMoreValuesThanItMakesResultsReduces) {
  constexpr std::uint64_t n = 4096, fields = 16, filter = 16, regions = 4, nodes = 64, elements = 64;
  constexpr int steps = 2;
  Analyzer<> a;
  const Array x{0x100000}, mesh{0x200000}, sums{0x300000}, minima{0x400000};
  a.allocation(x.base, 8 * n);
  for (std::uint64_t k = 0; k < fields; ++k) a.allocation(0x1000000 + k * 0x100000, 8 * n);
  a.allocation(mesh.base, 8 * nodes);
  a.allocation(sums.base, 8 * elements);
  a.region_begin();
  for (int t = 0; t < steps; ++t) {
    for (std::uint64_t k = 0; k < fields; ++k) {
      const Array y{0x1000000 + k * 0x100000};
      for (std::uint64_t i = 0; i < n; ++i) a.store(y.at(i), 8, a.compute(a.load(y.at(i), 8)));
    }
    for (std::uint64_t i = 0; i < n; ++i) a.store(x.at(i), 8, a.compute(a.load(x.at(i), 8)));
    for (std::uint64_t r = 0; r < regions; ++r) {
      Label m = kNoLabel;
      for (std::uint64_t i = r * (n / regions); i < (r + 1) * (n / regions); i += filter) m = a.join(m, a.load(x.at(i), 8));
      a.store(minima.at(r), 8, a.loop_result(m, 5));
    }
    for (std::uint64_t e = 0; e < elements; ++e) {
      Label s = kNoLabel;
      for (std::uint64_t k = 0; k < 8; ++k) s = a.join(s, a.load(mesh.at((e + 7 * k) % nodes), 8));
      a.store(sums.at(e), 8, a.loop_result(s, 6));
    }
    a.iteration();
  }
  a.region_end();
  const auto graph = ValueGraph::build(a.profile());
  ASSERT_LT(static_cast<double>(n / regions / filter), graph.global_degree());
  std::size_t minima_seen = 0, sums_seen = 0;
  for (const auto& r : a.profile().reductions) {
    const bool reduces = graph.reduction(graph.local(r.vertex));
    if (r.site == 5) {
      ++minima_seen;
      EXPECT_TRUE(reduces) << r.vertex;
    } else if (r.site == 6) {
      ++sums_seen;
      EXPECT_FALSE(reduces) << r.vertex;
    }
  }
  EXPECT_EQ(minima_seen, regions * steps);
  EXPECT_GT(sums_seen, 0u);
}

// A workspace slot refilled for each element with unrelated data must not
// become one hub vertex joining all elements.
TEST(Coalescing, ReusedWorkspaceSlotIsNotAHub) {
  constexpr std::uint64_t n = 50;
  Analyzer<> a;
  const Array x{0x10000}, y{0x20000}, ws{0x30000};
  for (std::uint64_t e = 0; e < n; ++e) {
    a.store(ws.at(0), 8, a.compute(a.load(x.at(e), 8)));            // ws = 2 * x[e]
    a.store(ws.at(1), 8, a.compute(a.load(ws.at(0), 8)));           // second level
    a.store(y.at(e), 8, a.join(a.load(ws.at(1), 8), a.load(y.at(e), 8)));  // y[e] += ws
  }
  const auto graph = ValueGraph::build(a.profile());
  for (ValueGraph::Vertex v = 0; v < graph.vertex_count(); ++v) EXPECT_LE(graph.degree(v), 2u) << v;
  // Without the "reads its previous content" rule, both slots would each be
  // a single vertex of degree 2n.
  EXPECT_EQ(graph.vertex_count(), 4 * n);
}

// A C++ fill (std::vector<double> r(n, 0.0), r.assign(n, 0.0)) loads one
// value and stores it to every element: each element holds the same
// instance. Updating each element in place (r[e] += x[e], twice) must give
// one vertex per element, homed there, not one hub homed where the fill
// value was.
TEST(Coalescing, FilledValueUpdatedInPlaceIsNotAHub) {
  constexpr std::uint64_t n = 40;
  Analyzer<> a;
  const Array x{0x10000}, r{0x20000}, tmp{0x30000};
  a.store(tmp.at(0), 8, kComputedBit);  // the 0.0 behind the const reference
  const Label zero = a.load(tmp.at(0), 8);
  for (std::uint64_t e = 0; e < n; ++e) a.store(r.at(e), 8, zero);
  EXPECT_EQ(a.value_at(r.at(0)), a.value_at(r.at(n - 1)));  // replicated
  for (int pass = 0; pass < 2; ++pass)
    for (std::uint64_t e = 0; e < n; ++e) a.store(r.at(e), 8, a.join(a.load(r.at(e), 8), a.load(x.at(e), 8)));
  for (std::uint64_t e = 0; e < n; ++e) {
    const VertexId v = a.profile().values.vertex(a.value_at(r.at(e)));
    EXPECT_EQ(a.profile().vertex_home[v], r.at(e)) << e;
    EXPECT_EQ(a.profile().vertex_weight[v], 2u) << e;  // both updates, nothing else
  }
  EXPECT_EQ(a.profile().vertex_count(), 2 * n + 1);  // x, r, and the fill value
}

TEST(Coalescing, NoCoalescingKeepsEveryInstance) {
  constexpr std::uint64_t n = 3;
  Analyzer<PagedShadowMemory<>, UnionDagSlicer, NoCoalescing> a;
  const Array C{0x100000, n}, A{0x200000, n}, B{0x300000, n};
  testing::matmul(a, C, A, B, n);
  EXPECT_EQ(a.profile().vertex_count(), 3 * n * n + n * n * n);
}

// A region of two iterations after a set-up that wrote u[0]: u[2] from
// u[0], then u[3] from u[2].
template <class A>
void record_two_iterations(A& a, const Array& u) {
  a.region_begin();
  a.store(u.at(2), 8, a.compute(a.load(u.at(0), 8)));
  a.iteration();
  a.store(u.at(3), 8, a.compute(a.load(u.at(2), 8)));
  a.iteration();
  a.region_end();
}

TEST(Region, OnlyFlowsInsideTheRegionCount) {
  Analyzer<> a;
  const Array u{0x1000};
  a.store(u.at(0), 8, a.compute(a.load(u.at(1), 8)));  // set-up
  record_two_iterations(a, u);
  a.store(u.at(4), 8, a.compute(a.load(u.at(3), 8)));  // checking code
  const auto flows = flows_of(a.profile());
  ASSERT_EQ(flows.size(), 2u);
  EXPECT_EQ(flows[0].first, a.value_at(u.at(2)));
  EXPECT_EQ(a.profile().iterations(), 2u);
  EXPECT_EQ(a.profile().phase_of(flows[0].first), 0u);
  EXPECT_EQ(a.profile().phase_of(flows[1].first), 1u);
}

// At the end, the set-up's values the region does not read are dropped and
// the rest renumbered in order (unread_set_up.h), in both kinds of store.
template <class Values>
class UnreadSetUp : public ::testing::Test {};
using BothStores = ::testing::Types<CompactValueStore, LiveAtEndValueStore>;
TYPED_TEST_SUITE(UnreadSetUp, BothStores);

TYPED_TEST(UnreadSetUp, FinishDropsTheSetUpValuesTheRegionDoesNotRead) {
  Analyzer<PagedShadowMemory<>, UnionDagSlicer, CoalesceExclusiveUpdates, TypeParam, VarintFlowStore> a;
  const Array u{0x1000}, scratch{0x8000};
  for (std::uint64_t i = 0; i < 100; ++i) {  // an assembly's temporaries
    a.store(scratch.at(i % 4), 8, a.compute(a.join(a.load(scratch.at(4 + i % 4), 8), a.load(u.at(1), 8))));
  }
  a.store(u.at(0), 8, a.compute(a.load(u.at(1), 8)));  // the set-up's value the region reads
  const std::size_t set_up_values = a.profile().values.count();
  ASSERT_GT(set_up_values, 100u);
  record_two_iterations(a, u);
  a.finish();
  const auto& p = a.profile();
  ASSERT_EQ(p.values.count(), 3u);  // u[0]'s set-up value, then the region's two
  ASSERT_EQ(p.vertex_count(), 3u);  // the scratch vertices are gone
  for (ValueId v = 1; v <= 3; ++v) EXPECT_EQ(p.values.vertex(v), v - 1);
  EXPECT_EQ(p.vertex_home[0], u.at(0));
  EXPECT_EQ(p.vertex_home[2], u.at(3));
  EXPECT_EQ(p.vertex_weight[0], 1u);
  EXPECT_EQ(flows_of(p), (std::vector<Flow>{{2, {1}}, {3, {2}}}));
  EXPECT_EQ(p.iteration_marks, (std::vector<ValueId>{3, 4}));
  EXPECT_EQ(p.phase_of(2), 0u);
  EXPECT_EQ(p.phase_of(3), 1u);
  for (ValueId v = 1; v <= 3; ++v) EXPECT_EQ(p.values.kind(v), ValueKind::kOutput) << v;  // all still in memory
  EXPECT_EQ(p.site_of(3), p.site_of(2));
}

// The region's values, copied 64 at a time at the end of the run where
// they have one size: each keeps its size, input flag and vertex (moved
// down past the set-up's dropped vertices), and those held at the end stay
// outputs, in both kinds of store.
TYPED_TEST(UnreadSetUp, ManyRegionValuesKeepTheirSizesVerticesAndKinds) {
  Analyzer<PagedShadowMemory<>, UnionDagSlicer, CoalesceExclusiveUpdates, TypeParam, VarintFlowStore> a;
  const Array u{0x1000}, scratch{0x8000}, x{0x100000}, y{0x200000};
  for (std::uint64_t i = 0; i < 100; ++i) {  // read by no one: dropped, vertices and all
    a.store(scratch.at(i % 4), 8, a.compute(a.load(scratch.at(4 + i % 4), 8)));
  }
  constexpr std::uint64_t n = 10000;
  // x (8-byte values) and y (4-byte) set up, one vertex per element, which
  // the region's updates keep.
  for (std::uint64_t i = 0; i < n; ++i) a.store(x.at(i), 8, a.compute(a.load(u.at(i % 8), 8)));
  for (std::uint64_t i = 0; i < n; ++i) a.store(y.at(i), 4, a.compute(a.load(u.at(i % 8), 8)));
  a.region_begin();
  struct Seen {
    ValueId value;
    std::uint32_t size;
    Address home;
  };
  std::vector<Seen> seen;
  for (int t = 0; t < 2; ++t) {
    for (std::uint64_t i = 0; i < n; ++i) {
      // Runs of one size (the store's size column is uniform in blocks of
      // 4096 values: these have some), and blocks of both.
      const bool wide = i < 9000;
      const Address at = wide ? x.at(i) : y.at(i);
      const std::uint32_t size = wide ? 8 : 4;
      a.store(at, size, a.compute(a.load(at, size)));
      const auto& p = a.profile();
      const ValueId v = a.value_at(at);
      seen.push_back({v, p.values.size_bytes(v), p.vertex_home[p.values.vertex(v)]});
    }
    a.iteration();
  }
  a.region_end();
  const std::size_t values_before = a.profile().values.count();
  const std::size_t vertices_before = a.profile().vertex_count();
  a.finish();
  const auto& p = a.profile();
  ASSERT_LT(p.vertex_count(), vertices_before);  // vertices renumbered, not only values
  const ValueId shift = static_cast<ValueId>(values_before - p.values.count());
  ASSERT_GE(shift, 100u);
  for (std::size_t k = 0; k < seen.size(); ++k) {
    const ValueId v = seen[k].value - shift;
    ASSERT_EQ(p.values.size_bytes(v), seen[k].size) << k;
    ASSERT_FALSE(p.values.is_input(v)) << k;
    ASSERT_EQ(p.vertex_home[p.values.vertex(v)], seen[k].home) << k;
    // The last step's values are what x and y hold at the end.
    ASSERT_EQ(p.values.kind(v), k >= n ? ValueKind::kOutput : ValueKind::kIntermediate) << k;
  }
}

// A pass's cursor agrees with phase_of on values met in order, on values
// that skip several phases, and on a step back to an earlier value.
TEST(PhaseCursor, AgreesWithPhaseOf) {
  Profile<> p;
  p.iteration_marks = {5, 9, 9, 20};
  PhaseCursor cursor(p.iteration_marks);
  for (ValueId v : {1u, 4u, 5u, 6u, 9u, 10u, 25u, 3u, 9u, 19u, 20u, 21u}) EXPECT_EQ(cursor(v), p.phase_of(v)) << v;
  PhaseCursor no_marks(std::span<const ValueId>{});
  EXPECT_EQ(no_marks(7), 0u);
}

// A program that marks a region runs its set-up without looking for the
// sources of what it stores (Analyzer::expect_region): the region's flows
// and where their sources live are those of a full recording.
TEST(UnreadSetUp, ASetUpRunWithoutSourcesRecordsTheSameRegion) {
  using Recorder = Analyzer<PagedShadowMemory<>, UnionDagSlicer, CoalesceExclusiveUpdates, LiveAtEndValueStore,
                            VarintFlowStore>;
  auto run = [](bool expect_region) {
    auto a = std::make_unique<Recorder>();
    if (expect_region) a->expect_region();
    const Array x{0x1000}, sum{0x9000}, tmp{0x20000};
    for (std::uint64_t e = 0; e < 16; ++e) {  // an assembly: sum[i] += element terms through temporaries
      a->store(tmp.at(0), 8, a->compute(a->join(a->load(x.at(e), 8), a->load(x.at(e + 1), 8))));
      a->store(tmp.at(1), 8, a->loop_result(a->join(a->join(a->load(tmp.at(0), 8), a->load(x.at(e + 2), 8)),
                                                    a->load(x.at(e + 3), 8)), 7));
      for (std::uint64_t k = 0; k < 2; ++k) {
        a->store(sum.at(e + k), 8, a->compute(a->join(a->load(sum.at(e + k), 8), a->load(tmp.at(1), 8))));
      }
    }
    EXPECT_EQ(a->in_set_up(), expect_region);
    a->region_begin();
    EXPECT_FALSE(a->in_set_up());
    for (int t = 0; t < 2; ++t) {
      for (std::uint64_t i = 1; i < 16; ++i) {
        a->store(x.at(i), 8, a->compute(a->join(a->load(sum.at(i - 1), 8), a->load(sum.at(i + 1), 8))));
      }
      a->iteration();
    }
    a->region_end();
    a->finish();
    return a;
  };
  const auto full = run(false), set_up = run(true);
  const auto& p = full->profile();
  const auto& q = set_up->profile();
  ASSERT_EQ(flows_of(p), flows_of(q));
  EXPECT_EQ(p.iteration_marks, q.iteration_marks);
  ASSERT_EQ(p.values.count(), q.values.count());
  for (ValueId v = 1; v <= p.values.count(); ++v) {
    EXPECT_EQ(p.vertex_home[p.values.vertex(v)], q.vertex_home[q.values.vertex(v)]) << v;
    EXPECT_EQ(p.vertex_group[p.values.vertex(v)], q.vertex_group[q.values.vertex(v)]) << v;
  }
}

// Without an explicit region the whole run counts: nothing is dropped.
TEST(UnreadSetUp, KeepsEveryValueWithoutARegion) {
  Analyzer<> a;
  const Array u{0x1000};
  for (std::uint64_t i = 0; i < 10; ++i) a.store(u.at(i % 2), 8, a.compute(a.load(u.at(2), 8)));
  const std::size_t values = a.profile().values.count();
  a.finish();
  EXPECT_EQ(a.profile().values.count(), values);
}

// Branch decisions (Analyzer::use): a compound label is consumed like a
// store to the site's virtual location; one value, or f(one value), is not.
template <class S>
class BranchUse : public ::testing::Test {};
using BothSlicers = ::testing::Types<UnionDagSlicer, InternedSetSlicer>;
TYPED_TEST_SUITE(BranchUse, BothSlicers);

TYPED_TEST(BranchUse, CompoundLabelCreatesOneValueFromItsSources) {
  Analyzer<PagedShadowMemory<>, TypeParam> a;
  const Array x{0x10000};
  // diff = max(diff, f(x[i])) over 100 elements, kept in a register.
  Label residual = kNoLabel;
  std::vector<ValueId> sources;
  for (std::uint64_t i = 0; i < 100; ++i) {
    residual = a.join(residual, a.compute(a.load(x.at(i), 8)));
    sources.push_back(a.value_at(x.at(i)));
  }
  EXPECT_TRUE(a.slicer().is_compound(residual));
  const std::size_t before = a.profile().values.count();
  a.use(residual, 7);
  ASSERT_EQ(a.profile().values.count(), before + 1);
  const auto v = static_cast<ValueId>(a.profile().values.count());
  EXPECT_EQ(a.value_at(kUseSiteBase + 8 * 7), v);
  EXPECT_FALSE(a.profile().values.is_input(v));
  EXPECT_EQ(flows_of(a.profile()), (std::vector<Flow>{{v, sources}}));
  EXPECT_EQ(a.stats().uses, 1u);

  // Evaluated again: a new instance on a vertex of its own (it does not
  // read the previous decision, so the two are not coalesced).
  a.use(residual, 7);
  const auto w = static_cast<ValueId>(a.profile().values.count());
  EXPECT_EQ(w, v + 1);
  EXPECT_NE(a.profile().values.vertex(w), a.profile().values.vertex(v));
  EXPECT_EQ(a.value_at(kUseSiteBase + 8 * 7), w);
  EXPECT_EQ(a.profile().flows.flow_count(), 2u);
  EXPECT_EQ(a.stats().uses, 2u);
}

TYPED_TEST(BranchUse, LeafAndLeafComputedLabelsRecordNothing) {
  Analyzer<PagedShadowMemory<>, TypeParam> a;
  const Array x{0x10000};
  const Label leaf = a.load(x.at(0), 8);
  const std::size_t before = a.profile().values.count();
  for (const Label label : {leaf, a.compute(leaf), a.join(leaf, kNoLabel), a.join(leaf, leaf), kNoLabel,
                            kComputedBit}) {
    EXPECT_FALSE(a.slicer().is_compound(label)) << label;
    a.use(label, 3);
  }
  EXPECT_EQ(a.profile().values.count(), before);
  EXPECT_EQ(a.profile().flows.flow_count(), 0u);
  EXPECT_EQ(a.value_at(kUseSiteBase + 8 * 3), kNoValue);
  EXPECT_EQ(a.stats().uses, 0u);
  EXPECT_EQ(a.stats().stores, 0u);
}

// Rows allocated one by one behind a table of pointers (record/row_tables.h)
// are one array, laid out in the order of their pointers in the table, not
// of their allocation; the newest pointer store of a row counts (rows
// swapped). A block that holds other data beside its row pointers is a
// structure, not a table, and rows of different extents are no table
// either: their arrays stay their own.
TEST(RowTables, RowsOfATableAreOneArrayInTheOrderOfTheirPointers) {
  Analyzer<> a;
  constexpr std::uint64_t kRows = 128, kRow = 1024;
  const Address table = 0x100000, rows = 0x200000;  // row r at rows + r * 0x10000
  auto row = [&](std::uint64_t r) { return rows + r * 0x10000; };
  a.allocation(table, kRows * 8);
  for (std::uint64_t r = 0; r < kRows; ++r) a.allocation(row(r), kRow);
  // Stored in reverse: row r is slot kRows - 1 - r; then rows 0 and 1 swapped.
  for (std::uint64_t r = 0; r < kRows; ++r) a.pointer_stored(table + 8 * (kRows - 1 - r), row(r));
  a.pointer_stored(table + 8 * (kRows - 1), row(1));
  a.pointer_stored(table + 8 * (kRows - 2), row(0));
  // A structure: two equal rows and a scalar after them.
  const Address mesh = 0x3000000, x = 0x3100000, y = 0x3200000;
  a.allocation(mesh, 1024);
  a.allocation(x, kRow);
  a.allocation(y, kRow);
  a.pointer_stored(mesh, x);
  a.pointer_stored(mesh + 8, y);
  a.region_begin();
  for (std::uint64_t r = 0; r < kRows; ++r) a.store(row(r) + 16, 8, a.compute(a.load(row(r), 8)));
  a.store(y + 8, 8, a.compute(a.load(y, 8)));
  a.finish();
  const auto& p = a.profile();
  ASSERT_EQ(p.arrays.size(), kRows + 4);
  // Arrays: 1 the table, 2 + r row r; the first row in the table's order is
  // row kRows - 1, array kRows + 1.
  const std::uint32_t fused = kRows + 1;
  EXPECT_EQ(p.arrays[fused - 1].bytes, kRows * kRow);
  EXPECT_EQ(p.arrays[1].bytes, 0u);
  for (std::uint64_t slot = 0; slot < kRows; ++slot) {
    const std::uint64_t r = slot == kRows - 1 ? 1 : slot == kRows - 2 ? 0 : kRows - 1 - slot;
    const VertexId v = p.values.vertex(a.value_at(row(r) + 16));
    EXPECT_EQ(p.vertex_group[v], fused) << slot;
    EXPECT_EQ(p.vertex_home[v], row(kRows - 1) + slot * kRow + 16) << slot;
  }
  EXPECT_EQ(p.arrays[kRows + 2].bytes, kRow);
  EXPECT_EQ(p.arrays[kRows + 3].bytes, kRow);
  const VertexId v = p.values.vertex(a.value_at(y + 8));
  EXPECT_EQ(p.vertex_group[v], kRows + 4);
  EXPECT_EQ(p.vertex_home[v], y + 8);
}

}  // namespace
}  // namespace commanalyzer

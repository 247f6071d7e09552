// Iterations that repeat the one before are costed as it
// (repeated_iterations.h): the estimate equals costing every iteration.
#include "commanalyzer/estimate/repeated_iterations.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "commanalyzer/estimate/alike_replays.h"
#include "commanalyzer/estimate/estimate.h"
#include "commanalyzer/estimate/value_graph.h"
#include "commanalyzer/record/analyzer.h"
#include "tools/builtin_examples.h"

namespace commanalyzer {
namespace {

using Profile0 = Analyzer<>::ProfileType;

// A 2-D relaxation (unew from u's four neighbours, then u = unew) with a
// global sum of unew every step, and after the time loop, still in the
// region, a last sweep that reads the last step's u: the iteration after
// the repeated ones reads values of one that was not costed. (In 1-D a
// process could as cheaply recompute its halos from the set-up as receive
// them, and recomputation is costed step by step.) `in_place`: unew's
// elements are updated (each new value computed from the old one too, so
// it stays the element's vertex) and the sum runs on from the step before,
// where otherwise each step's unew and zeroed sum are new values.
template <class A>
void relax_with_tail(A& a, std::uint64_t m, int steps, bool in_place = false) {
  const Address u = 0x1000'0000, unew = 0x2000'0000, sum = 0x3000'0000;
  auto at = [m](Address base, std::uint64_t i, std::uint64_t j) { return base + 8 * (i * m + j); };
  a.allocation(u, 8 * m * m);
  a.allocation(unew, 8 * m * m);
  for (std::uint64_t i = 0; i < m * m; ++i) a.store(u + 8 * i, 8, kComputedBit);
  auto sweep = [&](std::uint64_t i, std::uint64_t j) {
    return a.join(a.join(a.load(at(u, i - 1, j), 8), a.load(at(u, i + 1, j), 8)),
                  a.join(a.load(at(u, i, j - 1), 8), a.load(at(u, i, j + 1), 8)));
  };
  a.region_begin();
  for (int t = 0; t < steps; ++t) {
    if (!in_place) a.store(sum, 8, kComputedBit);
    for (std::uint64_t i = 1; i + 1 < m; ++i) {
      for (std::uint64_t j = 1; j + 1 < m; ++j) {
        const Label old = in_place ? a.load(at(unew, i, j), 8) : Label{};
        a.store(at(unew, i, j), 8, in_place ? a.join(sweep(i, j), old) : sweep(i, j));
        a.store(sum, 8, a.join(a.load(sum, 8), a.load(at(unew, i, j), 8)));
      }
    }
    for (std::uint64_t i = 1; i + 1 < m; ++i) {
      for (std::uint64_t j = 1; j + 1 < m; ++j) a.store(at(u, i, j), 8, a.load(at(unew, i, j), 8));
    }
    a.iteration();
  }
  for (std::uint64_t i = 1; i + 1 < m; ++i) {
    for (std::uint64_t j = 1; j + 1 < m; ++j) a.store(at(unew, i, j), 8, a.join(sweep(i, j), a.load(at(u, i, j), 8)));
  }
  a.region_end();
  a.finish();
}

// relax_with_tail in 1-D: a process recomputes its halos from the set-up
// as cheaply as it receives them, and the values it computed a step
// before are its own the next: recomputation carries across steps.
template <class A>
void relax_1d_with_tail(A& a, std::uint64_t n, int steps) {
  const Address u = 0x1000'0000, unew = 0x2000'0000, sum = 0x3000'0000;
  auto at = [](Address base, std::uint64_t i) { return base + 8 * i; };
  a.allocation(u, 8 * n);
  a.allocation(unew, 8 * n);
  for (std::uint64_t i = 0; i < n; ++i) a.store(at(u, i), 8, kComputedBit);
  a.region_begin();
  for (int t = 0; t < steps; ++t) {
    a.store(sum, 8, kComputedBit);
    for (std::uint64_t i = 1; i + 1 < n; ++i) {
      const Label value = a.join(a.load(at(u, i - 1), 8), a.load(at(u, i + 1), 8));
      a.store(at(unew, i), 8, value);
      a.store(sum, 8, a.join(a.load(sum, 8), a.load(at(unew, i), 8)));
    }
    for (std::uint64_t i = 1; i + 1 < n; ++i) a.store(at(u, i), 8, a.load(at(unew, i), 8));
    a.iteration();
  }
  for (std::uint64_t i = 1; i + 1 < n; ++i) {
    a.store(at(unew, i), 8, a.join(a.load(at(u, i - 1), 8), a.join(a.load(at(u, i), 8), a.load(at(u, i + 1), 8))));
  }
  a.region_end();
  a.finish();
}

// Everything an estimate reports, compared field by field.
void expect_same(const CommEstimate& counted, const CommEstimate& costed) {
  EXPECT_EQ(counted.matrix, costed.matrix);
  EXPECT_EQ(counted.messages_matrix, costed.messages_matrix);
  EXPECT_EQ(counted.p2p_bytes, costed.p2p_bytes);
  EXPECT_EQ(counted.p2p_messages, costed.p2p_messages);
  EXPECT_EQ(counted.allreduce_bytes, costed.allreduce_bytes);
  EXPECT_EQ(counted.broadcast_bytes, costed.broadcast_bytes);
  EXPECT_EQ(counted.allreduces, costed.allreduces);
  EXPECT_EQ(counted.broadcasts, costed.broadcasts);
  EXPECT_EQ(counted.collective_calls, costed.collective_calls);
  EXPECT_EQ(counted.phase_bytes, costed.phase_bytes);
  EXPECT_EQ(counted.phase_work, costed.phase_work);
  EXPECT_EQ(counted.process_work, costed.process_work);
  EXPECT_EQ(counted.critical_path, costed.critical_path);
  EXPECT_EQ(counted.busiest_work, costed.busiest_work);
  EXPECT_EQ(counted.mean_work, costed.mean_work);
  EXPECT_EQ(counted.waiting, costed.waiting);
  EXPECT_EQ(counted.trace.messages, costed.trace.messages);
  EXPECT_EQ(counted.trace.collectives, costed.trace.collectives);
  EXPECT_EQ(counted.phase_seconds, costed.phase_seconds);
  EXPECT_DOUBLE_EQ(counted.seconds, costed.seconds);
  EXPECT_EQ(counted.distribution, costed.distribution);
  ASSERT_EQ(counted.sites.size(), costed.sites.size());
  for (std::size_t k = 0; k < counted.sites.size(); ++k) {
    EXPECT_EQ(counted.sites[k].p2p_bytes, costed.sites[k].p2p_bytes);
    EXPECT_EQ(counted.sites[k].p2p_messages, costed.sites[k].p2p_messages);
    EXPECT_EQ(counted.sites[k].allreduces, costed.sites[k].allreduces);
  }
}

TEST(RepeatedIterations, ARunCostsItsFirstStepsAndCountsTheRest) {
  // Phase 0 (before the first mark) and the last are never repeated; 2..6
  // are alike. Reading one step back, 2 and 3 are costed, 4..6 count as 3.
  const std::vector<std::uint64_t> signature = {9, 1, 5, 5, 5, 5, 5, 5};
  const std::vector<ValueId> first = {0, 10, 20, 30, 40, 50, 60, 70};
  const RepeatedIterations r =
      RepeatedIterations::from_runs(signature, 1, [&](std::size_t p) { return first[p]; });
  for (std::size_t p : {0, 1, 2, 3, 7}) EXPECT_FALSE(r.repeats(p)) << p;
  for (std::size_t p : {4, 5, 6}) {
    EXPECT_TRUE(r.repeats(p)) << p;
    EXPECT_EQ(r.costed_as(p), 3u) << p;
  }
  EXPECT_EQ(r.weight(3), 4u);
  EXPECT_EQ(r.weight(2), 1u);
  // The last repeated steps stand for the last costed ones, in order: the
  // step after the run reads 6 as 3 and 5 as 2.
  EXPECT_EQ(r.stand_in(65, 6), 35u);
  EXPECT_EQ(r.stand_in(55, 5), 25u);
  EXPECT_EQ(r.stand_in(15, 1), 15u);
  // Reading two steps back, three of the run are costed.
  const RepeatedIterations two = RepeatedIterations::from_runs(signature, 2, [&](std::size_t p) { return first[p]; });
  EXPECT_FALSE(two.repeats(4));
  EXPECT_EQ(two.costed_as(5), 4u);
  EXPECT_EQ(two.weight(4), 3u);
  // A run too short to repeat anything.
  EXPECT_FALSE(RepeatedIterations::from_runs({9, 1, 5, 5, 2}, 1, [&](std::size_t p) { return first[p]; }).any());
}

// `counted_steps`: the iterations counted at every count of `procs` but
// those in `costed_at` (where the plan recomputes, every one is costed).
template <class Example>
void expect_counted_equals_costed(const Example& example, std::size_t counted_steps, std::vector<int> procs,
                                  std::vector<int> costed_at = {}) {
  Analyzer<> a;
  example(a);
  Estimator<Profile0> counted(a.profile());
  Estimator<Profile0> costed(a.profile());
  costed.cost_every_iteration(true);
  for (int p : procs) {
    SCOPED_TRACE(p);
    const CommEstimate e = counted.estimate(p);
    const CommEstimate every = costed.estimate(p);
    const bool costed = std::find(costed_at.begin(), costed_at.end(), p) != costed_at.end();
    EXPECT_EQ(e.counted_iterations, costed ? 0 : counted_steps);
    EXPECT_EQ(every.counted_iterations, 0u);
    expect_same(e, every);
    if (p > 1) {
      EXPECT_GT(e.p2p_bytes, 0u);
    }
  }
}

TEST(RepeatedIterations, Heat2dCountedEqualsCostedStepByStep) {
  // 10 steps, a mark after each: phases 0..9 are the steps, 10 is empty.
  // Step 2 reads step 1, which read the set-up; from step 3 (phase 2) on
  // each is alike: phases 2 and 3 are costed, 4..9 (six steps) counted.
  expect_counted_equals_costed([](Analyzer<>& a) { examples::heat2d(a, 16, 10); }, 6, {1, 2, 4, 9});
}

// An example recorded both ways: every chain in the flat store, and in the
// tool's flow store, which records an iteration that repeats the one
// before as a replay of it (compressor.h).
struct RecordedBothWays {
  using Varint = Analyzer<PagedShadowMemory<>, UnionDagSlicer, CoalesceExclusiveUpdates, CompactValueStore,
                          VarintFlowStore>;
  template <class Example>
  explicit RecordedBothWays(const Example& example) {
    example(flat);
    example(varint);
  }
  Analyzer<> flat;
  Varint varint;
};

// The signatures take a replay's shape from the iteration it replays
// without reading it: the same iterations repeat, and the estimate is the
// same, as from every chain.
template <class Example>
void expect_replays_found_alike(const Example& example, std::vector<int> procs) {
  RecordedBothWays run(example);
  ASSERT_FALSE(run.varint.profile().flows.replays().empty());
  Estimator<Profile0> from_chains(run.flat.profile());
  Estimator<RecordedBothWays::Varint::ProfileType> from_replays(run.varint.profile());
  for (int p : procs) {
    SCOPED_TRACE(p);
    const CommEstimate e = from_replays.estimate(p);
    const CommEstimate every = from_chains.estimate(p);
    EXPECT_GT(e.counted_iterations, 0u);
    EXPECT_EQ(e.counted_iterations, every.counted_iterations);
    expect_same(e, every);
  }
}

TEST(RepeatedIterations, ReplayedStepsRepeatAsTheirChainsDo) {
  expect_replays_found_alike([](auto& a) { examples::heat2d(a, 16, 10); }, {2, 4});
  expect_replays_found_alike([](auto& a) { relax_with_tail(a, 40, 9); }, {3, 5});
}

// The value graph built without reading the replays whose chains are, in
// graph vertices, those of the iteration they replay (alike_replays.h) is
// the graph of every chain read: the same edges and uses, degrees, work,
// exports, peak degrees within an iteration and uses of every instance.
// `alike_steps`: whether steps replay their reference in its vertices (a
// sum set to zero every step is a new vertex every step, with a new edge).
template <class Example>
void expect_graph_of_every_chain(const Example& example, bool alike_steps) {
  RecordedBothWays run(example);
  auto& flat = run.flat;
  auto& varint = run.varint;
  const ValueGraph every = ValueGraph::build(flat.profile());
  const ValueGraph replayed = ValueGraph::build(varint.profile());
  const AlikeReplays alike = AlikeReplays::of(varint.profile(), [&](VertexId x) { return replayed.local(x); });
  ASSERT_FALSE(varint.profile().flows.replays().empty());
  if (alike_steps) {
    EXPECT_GT(alike.count(), 2u);
    EXPECT_LT(alike.count(), varint.profile().iterations());
  } else {
    EXPECT_EQ(alike.count(), 0u);
  }
  ASSERT_EQ(replayed.vertex_count(), every.vertex_count());
  ASSERT_EQ(replayed.edge_count(), every.edge_count());
  EXPECT_EQ(replayed.peak_phase_vertices(), every.peak_phase_vertices());
  for (ValueGraph::Vertex v = 0; v < every.vertex_count(); ++v) {
    SCOPED_TRACE(v);
    ASSERT_EQ(replayed.global(v), every.global(v));
    EXPECT_EQ(replayed.degree(v), every.degree(v));
    EXPECT_EQ(replayed.peak_phase_degree(v), every.peak_phase_degree(v));
    EXPECT_EQ(replayed.work(v), every.work(v));
    EXPECT_EQ(replayed.exports(v), every.exports(v));
    std::vector<std::pair<ValueGraph::Vertex, std::uint32_t>> a, b;
    for (auto e : boost::make_iterator_range(boost::out_edges(v, every.directed()))) {
      a.emplace_back(boost::target(e, every.directed()), every.directed()[e].uses);
    }
    for (auto e : boost::make_iterator_range(boost::out_edges(v, replayed.directed()))) {
      b.emplace_back(boost::target(e, replayed.directed()), replayed.directed()[e].uses);
    }
    ASSERT_EQ(b, a);
  }
  const std::size_t values = flat.profile().values.count();
  ASSERT_EQ(varint.profile().values.count(), values);
  for (ValueId s = 1; s <= values; ++s) ASSERT_EQ(replayed.source_uses(s), every.source_uses(s)) << s;
}

TEST(AlikeReplays, TheGraphIsTheOneOfEveryChain) {
  expect_graph_of_every_chain([](auto& a) { relax_with_tail(a, 40, 9, /*in_place=*/true); }, true);
  expect_graph_of_every_chain([](auto& a) { relax_with_tail(a, 40, 9); }, false);
  expect_graph_of_every_chain([](auto& a) { examples::heat2d(a, 16, 10); }, false);
}

// y = f(u) each step, y not read before it is overwritten (HPCCG's Ap = A
// p), and u updated in place from y: y's values of every step are computed
// from the same vertices of u, so the graph takes each step's as the first
// step's (site_vertices, graph_vertices.h). Recorded with replays (each step a
// replay of the one before), every step's vertices are still the first
// step's: a pass that left a replay unread would leave them apart.
TEST(SiteVertices, ReplayedStepsMergeAsTheirChainsDo) {
  constexpr std::uint64_t kN = 256;  // arrays of 2 KiB: tracked (TrackedArrays::kMinBytes)
  constexpr int kSteps = 8;
  RecordedBothWays run([](auto& a) {
    const Address u = 0x1000'0000, y = 0x2000'0000;
    a.allocation(u, 8 * kN);
    a.allocation(y, 8 * kN);
    for (std::uint64_t i = 0; i < kN; ++i) a.store(u + 8 * i, 8, kComputedBit);
    a.region_begin();
    for (int t = 0; t < kSteps; ++t) {
      for (std::uint64_t i = 1; i + 1 < kN; ++i) {
        a.store(y + 8 * i, 8, a.join(a.load(u + 8 * (i - 1), 8), a.load(u + 8 * (i + 1), 8)));
      }
      for (std::uint64_t i = 1; i + 1 < kN; ++i) a.store(u + 8 * i, 8, a.join(a.load(u + 8 * i, 8), a.load(y + 8 * i, 8)));
      a.iteration();
    }
    a.region_end();
    a.finish();
  });
  ASSERT_GT(run.varint.profile().flows.replays().replays.size(), 2u);
  const std::vector<VertexId> every = site_vertices(run.flat.profile());
  const std::vector<VertexId> replayed = site_vertices(run.varint.profile());
  std::size_t merged = 0;
  const auto& homes = run.flat.profile().vertex_home;
  for (VertexId x = 0; x < every.size(); ++x) {
    merged += every[x] != x ? 1 : 0;
    ASSERT_EQ(homes[every[x]], homes[x]) << x;  // one element's values only
    ASSERT_EQ(every[every[x]], every[x]) << x;  // into the first of them
  }
  EXPECT_GE(merged, (kN - 2) * (kSteps - 1));  // y's vertex of every step but the first
  EXPECT_EQ(replayed, every);
}

TEST(RepeatedIterations, AStepAfterTheRunReadsItsStandIns) {
  // 9 steps and the last sweep (phase 9): phases 4..8 counted.
  expect_counted_equals_costed([](Analyzer<>& a) { relax_with_tail(a, 40, 9); }, 5, {2, 3, 5});
}

TEST(RepeatedIterations, WhereRecomputationCarriesAcrossStepsEachIsCosted) {
  // At 3 and 5 processes the plan recomputes (a step counted as the one
  // before would read a narrower recomputed cone than it had); at 2 the
  // sum's temporaries change owner from step to step: nothing repeats.
  expect_counted_equals_costed([](Analyzer<>& a) { relax_1d_with_tail(a, 40, 9); }, 5, {2, 3, 5}, {2, 3, 5});
}

// Eight steps, step t relaxing t + 3 elements: no step repeats the one before.
template <class A>
void growing_relaxation(A& a) {
  const Address u = 0x1000'0000;
  a.allocation(u, 8 * 64);
  for (std::uint64_t i = 0; i < 64; ++i) a.store(u + 8 * i, 8, kComputedBit);
  a.region_begin();
  for (int t = 0; t < 8; ++t) {
    for (std::uint64_t i = 1; i < static_cast<std::uint64_t>(t) + 4; ++i) {
      a.store(u + 8 * i, 8, a.join(a.load(u + 8 * (i - 1), 8), a.load(u + 8 * (i + 1), 8)));
    }
    a.iteration();
  }
  a.region_end();
  a.finish();
}

TEST(RepeatedIterations, StepsThatDifferAreEachCosted) {
  Analyzer<> a;
  growing_relaxation(a);
  Estimator<Profile0> est(a.profile());
  EXPECT_EQ(est.estimate(2).counted_iterations, 0u);
  EXPECT_GT(est.estimate(2).p2p_bytes, 0u);
}

TEST(RepeatedIterations, StepsBeyondTheWindowCountAsItsLastCosted) {
  // Ten phases, seven recorded: steps 2..5 alike (2 and 3 costed, 4 and 5
  // counted as 3); 6, the window's look-ahead, and 7..8, empty (the
  // recording ended at the seventh mark; alike among themselves), count as
  // 3 too; 9, after the last mark, is what follows the loop.
  const std::vector<std::uint64_t> signature = {9, 1, 5, 5, 5, 5, 5, 7, 7, 7};
  const RepeatedIterations runs =
      RepeatedIterations::from_runs(signature, 1, [](std::size_t p) { return static_cast<ValueId>(10 * p); });
  const RepeatedIterations r = runs.counting_beyond_window(signature.size(), 7);
  for (std::size_t p : {4, 5, 6, 7, 8}) EXPECT_EQ(r.costed_as(p), 3u) << p;
  for (std::size_t p : {0, 1, 2, 3, 9}) EXPECT_FALSE(r.repeats(p)) << p;
  EXPECT_EQ(r.weight(3), 6u);
  for (std::size_t p : {6, 7, 8}) EXPECT_EQ(r.weight(p), 0u) << p;
  EXPECT_EQ(r.weight(9), 1u);
  EXPECT_EQ(r.window_repeats(), 2u);
  EXPECT_EQ(r.projected(), 3u);
  EXPECT_EQ(r.beyond_window_only().window_repeats(), 0u);
  EXPECT_EQ(r.beyond_window_only().costed_as(7), 5u);
  // Nothing repeating: the steps beyond count as the last costed one.
  const RepeatedIterations alone = RepeatedIterations{}.counting_beyond_window(10, 5);
  for (std::size_t p : {4, 5, 6, 7, 8}) EXPECT_EQ(alone.costed_as(p), 3u) << p;
  EXPECT_EQ(alone.weight(3), 6u);
  // A window of two steps (one costed after what comes before the loop
  // would have nothing to look ahead with), or of every step, counts nothing.
  EXPECT_FALSE(RepeatedIterations{}.counting_beyond_window(10, 2).any());
  EXPECT_FALSE(RepeatedIterations{}.counting_beyond_window(10, 9).any());
}

// The runtime's recording window (instrument/runtime.cpp) over an
// Analyzer: after `record` marks the region ends there, every call is
// dropped, and the marks still made are counted.
struct RecordingWindow {
  Analyzer<>& a;
  std::size_t record;
  bool stopped = false;
  template <class... T>
  void allocation(T... t) {
    if (!stopped) a.allocation(t...);
  }
  template <class... T>
  Label load(T... t) {
    return stopped ? Label{} : a.load(t...);
  }
  template <class... T>
  Label store(T... t) {
    return stopped ? Label{} : a.store(t...);
  }
  Label join(Label x, Label y) { return stopped ? Label{} : a.join(x, y); }
  void region_begin() { a.region_begin(); }
  void iteration() {
    if (stopped) return a.unrecorded_iteration();
    a.iteration();
    if (a.profile().iterations() == record) {
      a.stop_recording();
      stopped = true;
    }
  }
  void region_end() {
    if (!stopped) a.region_end();
  }
  void finish() { a.finish(); }
};

TEST(RecordingWindow, AlikeStepsGiveTheWholeRunFromTheFirstOnes) {
  // Heat2D's steps repeat from the third on, the fourth the first to find
  // what the one before received: four costed (and a fifth recorded) of
  // twelve give the whole run's bytes, messages, collectives and work,
  // step by step.
  Analyzer<> whole, windowed;
  examples::heat2d(whole, 16, 12);
  RecordingWindow window{windowed, 5};
  examples::heat2d(window, 16, 12);
  ASSERT_EQ(windowed.profile().recorded_iterations, 5u);
  ASSERT_EQ(windowed.profile().iterations(), 12u);
  ASSERT_LT(windowed.profile().values.count(), whole.profile().values.count() / 2);
  Estimator<Profile0> from_whole(whole.profile()), from_window(windowed.profile());
  for (int p : {2, 4, 9}) {
    SCOPED_TRACE(p);
    const CommEstimate e = from_window.estimate(p), every = from_whole.estimate(p);
    EXPECT_EQ(e.projected_iterations, 8u);
    EXPECT_EQ(every.projected_iterations, 0u);
    EXPECT_TRUE(e.window_steady);  // its look-ahead repeats the fourth step
    EXPECT_GT(e.p2p_bytes, 0u);
    EXPECT_EQ(e.matrix, every.matrix);
    EXPECT_EQ(e.messages_matrix, every.messages_matrix);
    EXPECT_EQ(e.p2p_messages, every.p2p_messages);
    EXPECT_EQ(e.allreduce_bytes, every.allreduce_bytes);
    EXPECT_EQ(e.allreduces, every.allreduces);
    EXPECT_EQ(e.collective_calls, every.collective_calls);
    EXPECT_EQ(e.phase_bytes, every.phase_bytes);
    EXPECT_EQ(e.phase_work, every.phase_work);
    EXPECT_EQ(e.busiest_work, every.busiest_work);
    EXPECT_DOUBLE_EQ(e.seconds, every.seconds);
    EXPECT_EQ(e.distribution, every.distribution);
  }
}

TEST(RecordingWindow, StepsThatStillChangeAreSaidToBeProjected) {
  // The look-ahead never repeats the last costed step, so the estimate
  // says the steps beyond may cost otherwise.
  Analyzer<> windowed;
  RecordingWindow window{windowed, 4};
  growing_relaxation(window);
  Estimator<Profile0> est(windowed.profile());
  const CommEstimate e = est.estimate(2);
  EXPECT_EQ(e.projected_iterations, 5u);
  EXPECT_FALSE(e.window_steady);
}

TEST(RecordingWindow, WhatRecomputationCarriesIsSaidToBeProjected) {
  // The 1-D relaxation's steps are alike, but at 3 processes the plan
  // recomputes, carrying values from step to step: how much a process
  // receives per step depends on the steps the plan saw, so the steps
  // beyond the window are said to be projected.
  Analyzer<> windowed;
  RecordingWindow window{windowed, 5};
  relax_1d_with_tail(window, 40, 9);
  Estimator<Profile0> est(windowed.profile());
  const CommEstimate e = est.estimate(3);
  EXPECT_GT(e.projected_iterations, 0u);
  EXPECT_TRUE(e.carries_across_iterations);
  EXPECT_FALSE(e.window_steady);
}

}  // namespace
}  // namespace commanalyzer

#include "commanalyzer/record/compressor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "commanalyzer/record/analyzer.h"
#include "commanalyzer/estimate/estimate.h"
#include "tests/event_streams.h"

namespace commanalyzer {
namespace {

template <class F>
std::vector<std::pair<ValueId, std::vector<ValueId>>> dump(const F& flows) {
  std::vector<std::pair<ValueId, std::vector<ValueId>>> out;
  flows.for_each([&](ValueId v, std::span<const ValueId> s) { out.emplace_back(v, std::vector(s.begin(), s.end())); });
  return out;
}

// The scan of a few sources and the binary search of many agree with a
// plain search on either side of the size that switches them.
TEST(Coalescing, ExclusiveUpdateFindsThePreviousValue) {
  std::mt19937 rng(5);
  const CoalesceExclusiveUpdates policy;
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<ValueId> sources(rng() % 40);
    for (ValueId& v : sources) v = 1 + rng() % 60;
    std::sort(sources.begin(), sources.end());
    sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
    const ValueId previous = rng() % 62;
    const bool expected = previous != kNoValue && std::find(sources.begin(), sources.end(), previous) != sources.end();
    ASSERT_EQ(policy.coalesce(previous, sources), expected) << trial;
  }
}

TEST(FlowStores, VarintRoundTripsRandomChains) {
  std::mt19937 rng(3);
  FlatFlowStore flat;
  VarintFlowStore compact;
  ValueId v = 10;
  for (int i = 0; i < 5000; ++i) {
    v += 1 + rng() % 1000;
    std::vector<ValueId> sources;
    for (ValueId s = 1 + rng() % 50; s < v && sources.size() < 20; s += 1 + rng() % (v / 4 + 1)) sources.push_back(s);
    flat.append(v, sources);
    compact.append(v, sources);
  }
  EXPECT_EQ(dump(flat), dump(compact));
  EXPECT_EQ(flat.flow_count(), compact.flow_count());
  EXPECT_EQ(flat.source_count(), compact.source_count());
}

// Runs long enough for their count to outgrow one and two varint bytes
// (the count is rewritten in place while its length stays), each ended by a
// chain that breaks the pattern.
TEST(FlowStores, VarintLongRunsRoundTrip) {
  FlatFlowStore flat;
  VarintFlowStore compact;
  ValueId v = 1000;
  std::vector<ValueId> sources = {3, 7, 8};
  for (const int length : {1, 2, 63, 64, 65, 100, 8191, 8192, 8193, 20000}) {
    for (int i = 0; i < length; ++i) {
      v += 1;
      for (ValueId& s : sources) s += 1;
      flat.append(v, sources);
      compact.append(v, sources);
    }
    v += 5;
    sources.push_back(sources.back() + 2);  // a break: another length
    flat.append(v, sources);
    compact.append(v, sources);
  }
  EXPECT_EQ(dump(flat), dump(compact));
  EXPECT_LT(compact.code().size(), std::size_t{400});
}

// Chains that repeat the previous chain's sources one cell further on (a
// stencil sweep) cost a few bytes each; any break in the pattern (other
// length, other shift, a row boundary) falls back to gaps, exactly.
TEST(FlowStores, VarintRepeatsShiftedPatterns) {
  std::mt19937 rng(9);
  FlatFlowStore flat;
  VarintFlowStore compact;
  ValueId v = 100000;  // sources stay older than their values
  std::vector<ValueId> sources = {100, 101, 1100, 2100, 2101};
  for (int i = 0; i < 20000; ++i) {
    const ValueId delta = rng() % 10 == 0 ? 1 + rng() % 3 : 1;
    v += delta;
    if (rng() % 7 == 0) {
      sources.push_back(sources.back() + 1 + rng() % 5);  // another length
    } else if (rng() % 11 == 0 && sources.size() > 1) {
      sources.erase(sources.begin());
    } else {
      for (ValueId& s : sources) s += rng() % 13 == 0 ? delta + 1 : delta;  // mostly the same shift
    }
    std::sort(sources.begin(), sources.end());
    sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
    flat.append(v, sources);
    compact.append(v, sources);
  }
  compact.append(v + 1, {});  // no sources after a repeat
  flat.append(v + 1, {});
  compact.append(v + 2, std::vector<ValueId>{1});
  flat.append(v + 2, std::vector<ValueId>{1});
  EXPECT_EQ(dump(flat), dump(compact));
  EXPECT_EQ(flat.source_count(), compact.source_count());
  EXPECT_THROW(compact.append(v + 2, std::vector<ValueId>{1}), std::invalid_argument);  // not newer
  EXPECT_THROW(compact.append(v + 3, std::vector<ValueId>{v + 3}), std::invalid_argument);  // not older
  EXPECT_EQ(dump(flat), dump(compact));  // a rejected chain leaves no trace
}

TEST(FlowStores, VarintCodesAStencilSweepInAFewBytesPerCell) {
  VarintFlowStore compact;
  constexpr ValueId n = 1000;
  ValueId v = 10 * n * n;
  for (ValueId i = 1; i + 1 < n; ++i) {
    for (ValueId j = 1; j + 1 < n; ++j) {
      const ValueId c = i * n + j;
      compact.append(++v, std::vector<ValueId>{c - n, c - 1, c, c + 1, c + n});
    }
  }
  // One record per row after its first cell: a few bytes per ~1000 cells.
  EXPECT_LT(compact.code().size() * 50, compact.flow_count());
  FlatFlowStore flat;
  v = 10 * n * n;
  for (ValueId i = 1; i + 1 < n; ++i) {
    for (ValueId j = 1; j + 1 < n; ++j) {
      const ValueId c = i * n + j;
      flat.append(++v, std::vector<ValueId>{c - n, c - 1, c, c + 1, c + n});
    }
  }
  EXPECT_EQ(dump(compact), dump(flat));
}

// Evenly spaced sources (a matrix row and column, a sweep's residual) are
// coded as runs of one gap; runs of every length and at every position
// round-trip exactly.
TEST(FlowStores, VarintCodesRunsOfEqualGaps) {
  VarintFlowStore matmul;
  FlatFlowStore matmul_flat;
  constexpr ValueId n = 64;
  ValueId v = 3 * n * n;
  for (ValueId i = 0; i < n; ++i) {
    for (ValueId j = 0; j < n; ++j) {
      std::vector<ValueId> sources;
      for (ValueId k = 0; k < n; ++k) sources.push_back(1 + i * n + k);          // A row
      for (ValueId k = 0; k < n; ++k) sources.push_back(1 + n * n + k * n + j);  // B column
      matmul.append(++v, sources);
      matmul_flat.append(v, sources);
    }
  }
  EXPECT_EQ(dump(matmul), dump(matmul_flat));
  EXPECT_LT(matmul.code().size(), 16 * matmul.flow_count());  // not ~1.5 bytes x 128 sources

  std::mt19937 rng(21);
  VarintFlowStore compact;
  FlatFlowStore flat;
  v = 1000000;
  for (int i = 0; i < 3000; ++i) {
    v += 1 + rng() % 3;
    std::vector<ValueId> sources;
    ValueId s = 1 + rng() % 10;
    const std::size_t length = rng() % 40;
    while (sources.size() < length && s < v) {
      sources.push_back(s);
      s += 1 + (rng() % 4 == 0 ? rng() % 3 : 0);  // mostly gap 1: runs of varied length
    }
    compact.append(v, sources);
    flat.append(v, sources);
  }
  EXPECT_EQ(dump(compact), dump(flat));
  EXPECT_EQ(compact.source_count(), flat.source_count());
  EXPECT_THROW(compact.append(v + 1, std::vector<ValueId>{5, 5}), std::invalid_argument);
  EXPECT_THROW(compact.append(v + 1, std::vector<ValueId>{6, 5}), std::invalid_argument);
  EXPECT_THROW(compact.append(v + 1, std::vector<ValueId>{0, 5}), std::invalid_argument);
  EXPECT_EQ(dump(compact), dump(flat));
}

// A renumbered store reads back renumbered, keeps its code as recorded,
// and codes it again before a new chain is appended.
TEST(FlowStores, VarintRenumberedReadsBackRenumbered) {
  VarintFlowStore flows;
  // Ids 1..9 are a set-up, of which 3 and 7 are read; the region's chains
  // (10 on) read them and each other, in runs (a repeat) and gap records.
  for (ValueId v = 10; v < 40; ++v) {
    std::vector<ValueId> sources{v % 2 == 0 ? ValueId{3} : ValueId{7}};
    if (v > 10) sources.push_back(v - 1);
    if (v >= 20) sources = {v - 2, v - 1};
    flows.append(v, sources);
  }
  const auto recorded = dump(flows);
  const std::vector<std::uint8_t> code(flows.code().begin(), flows.code().end());
  SetUpRenumbering renumbering{10, 0, RankedBits(10)};
  renumbering.kept.insert(3);
  renumbering.kept.insert(7);
  renumbering.shift = 10 - 1 - renumbering.kept.seal();
  flows.renumber(std::move(renumbering));
  EXPECT_EQ(std::vector<std::uint8_t>(flows.code().begin(), flows.code().end()), code);
  const auto renumbered = dump(flows);
  ASSERT_EQ(renumbered.size(), recorded.size());
  for (std::size_t k = 0; k < recorded.size(); ++k) {
    EXPECT_EQ(renumbered[k].first, recorded[k].first - 7);
    for (std::size_t i = 0; i < recorded[k].second.size(); ++i) {
      const ValueId s = recorded[k].second[i];
      EXPECT_EQ(renumbered[k].second[i], s == 3 ? 1u : s == 7 ? 2u : s - 7) << k;
    }
  }
  flows.append(33, std::vector<ValueId>{1, 32});
  EXPECT_TRUE(flows.renumbering().none());
  auto all = renumbered;
  all.emplace_back(33, std::vector<ValueId>{1, 32});
  EXPECT_EQ(dump(flows), all);
}

// Iterations whose chains are the one before's shifted are replayed, not
// coded again: the chains read back are those appended, in order.
TEST(FlowStores, RepeatedIterationsAreReplayed) {
  FlatFlowStore flat;
  VarintFlowStore flows;
  // Values 1..4 come before the iterations (read every iteration, the same
  // values); each iteration makes 10 values, 8 with chains: each reads the
  // value before it, its cell in the iteration before and value 2 or 3.
  // Iteration 4 reads value 4 instead of 3 in one chain; iteration 7 has a
  // chain fewer. The others repeat the one before.
  ValueId v = 5;
  for (int t = 0; t < 10; ++t) {
    flows.begin_iteration(v);
    const ValueId first = v;
    for (int k = 0; k < 10; ++k, ++v) {
      if (k >= 8 || (t == 7 && k == 5)) continue;
      std::vector<ValueId> sources{k % 2 == 0 ? ValueId{2} : ValueId{3}};
      if (t == 4 && k == 3) sources.back() = 4;
      if (t > 0) sources.push_back(first - 10 + static_cast<ValueId>(k));
      if (k > 0) sources.push_back(v - 1);
      flat.append(v, sources);
      flows.append(v, sources);
    }
  }
  EXPECT_EQ(dump(flows), dump(flat));
  EXPECT_EQ(flows.flow_count(), flat.flow_count());
  EXPECT_EQ(flows.source_count(), flat.source_count());
  // Iteration 9, not ended by a mark, repeats 8 so far: counted and read
  // back, not coded until it differs or is settled.
  EXPECT_FALSE(flows.settled());
  EXPECT_EQ(flows.coded_count(), flat.flow_count() - 4 * 8);
  flows.settle();
  EXPECT_TRUE(flows.settled());
  EXPECT_EQ(dump(flows), dump(flat));
  // Coded: iterations 0 and 1 (the first that reads one before), 4, 5
  // (after one that differs, it reads it), 7, 8 and 9 (undecided); 2, 3
  // and 6 replayed.
  std::vector<std::uint64_t> replayed_at;
  for (const FlowReplay& r : flows.replays().replays) replayed_at.push_back(r.at);
  EXPECT_EQ(replayed_at, (std::vector<std::uint64_t>{16, 16, 32}));
  EXPECT_EQ(flows.coded_count(), flat.flow_count() - 3 * 8);
  EXPECT_EQ(flows.replays().threshold, 5u);

  // Appending after a replay codes against the last chain coded.
  flows.append(v + 3, std::vector<ValueId>{1, v - 1});
  flat.append(v + 3, std::vector<ValueId>{1, v - 1});
  EXPECT_EQ(dump(flows), dump(flat));
}

// A replay is exact: an iteration that reads a value of the one before at
// another offset, or has a chain more, is coded.
TEST(FlowStores, OnlyExactRepeatsAreReplayed) {
  for (int variant = 0; variant < 3; ++variant) {
    FlatFlowStore flat;
    VarintFlowStore flows;
    ValueId v = 2;
    for (int t = 0; t < 4; ++t) {
      flows.begin_iteration(v);
      const ValueId first = v;
      const int cells = variant == 1 && t == 2 ? 5 : 4;
      for (int k = 0; k < cells; ++k, ++v) {
        std::vector<ValueId> sources{1};
        if (t > 0) sources.push_back(first - 4 + static_cast<ValueId>(variant == 2 && t == 2 && k == 1 ? 0 : k));
        flat.append(v, sources);
        flows.append(v, sources);
      }
    }
    flows.begin_iteration(v);
    EXPECT_EQ(dump(flows), dump(flat)) << variant;
    EXPECT_EQ(flows.replays().replays.size(), variant == 0 ? 2u : 0u) << variant;
  }
}

TEST(FlowStores, VarintIsSmallerOnAStencil) {
  Analyzer<> flat_run;
  Analyzer<PagedShadowMemory<>, UnionDagSlicer, CoalesceExclusiveUpdates, CompactValueStore, VarintFlowStore> compact_run;
  const testing::Array u{0x10000}, unew{0x90000};
  testing::jacobi1d(flat_run, u, unew, 4096, 4);
  testing::jacobi1d(compact_run, u, unew, 4096, 4);
  EXPECT_EQ(dump(flat_run.profile().flows), dump(compact_run.profile().flows));
  EXPECT_LT(compact_run.profile().flows.memory_bytes() * 2, flat_run.profile().flows.memory_bytes());
}

TEST(FlowStores, EstimateDoesNotDependOnTheStore) {
  Analyzer<> flat_run;
  Analyzer<PagedShadowMemory<>, UnionDagSlicer, CoalesceExclusiveUpdates, CompactValueStore, VarintFlowStore> compact_run;
  const testing::Array C{0x100000, 8}, A{0x200000, 8}, B{0x300000, 8};
  testing::matmul(flat_run, C, A, B, 8);
  testing::matmul(compact_run, C, A, B, 8);
  flat_run.finish();
  compact_run.finish();
  Estimator<Analyzer<>::ProfileType> flat_est(flat_run.profile());
  Estimator<decltype(compact_run)::ProfileType> compact_est(compact_run.profile());
  for (int n : {2, 4, 8}) {
    const CommEstimate x = flat_est.estimate(n), y = compact_est.estimate(n);
    EXPECT_EQ(x.matrix, y.matrix) << n;
    EXPECT_EQ(x.total_bytes(), y.total_bytes()) << n;
    EXPECT_GT(x.total_bytes(), 0u);
  }
}

}  // namespace
}  // namespace commanalyzer

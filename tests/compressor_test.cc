#include "commanalyzer/compressor.h"

#include <gtest/gtest.h>

#include <random>
#include <span>
#include <utility>
#include <vector>

#include "commanalyzer/analyzer.h"
#include "commanalyzer/estimate.h"
#include "tests/event_streams.h"

namespace commanalyzer {
namespace {

template <class F>
std::vector<std::pair<ValueId, std::vector<ValueId>>> dump(const F& flows) {
  std::vector<std::pair<ValueId, std::vector<ValueId>>> out;
  flows.for_each([&](ValueId v, std::span<const ValueId> s) { out.emplace_back(v, std::vector(s.begin(), s.end())); });
  return out;
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

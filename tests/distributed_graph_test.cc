// The location graph cut into ranks' shares for the distributed
// partitioner: the shares are the whole graph, once, with METIS's weights.
#include "commanalyzer/estimate/distributed_graph.h"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <vector>

#include "commanalyzer/record/analyzer.h"
#include "commanalyzer/estimate/estimate.h"
#include "tools/builtin_examples.h"

namespace commanalyzer {
namespace {

TEST(NodeRanges, CoverEveryNodeOnceWithEveryRankHoldingSome) {
  for (int ranks : {1, 2, 3, 4, 7}) {
    const std::vector<GraphIndex> r = node_ranges(10, ranks);
    ASSERT_EQ(r.size(), static_cast<std::size_t>(ranks) + 1);
    EXPECT_EQ(r.front(), 0);
    EXPECT_EQ(r.back(), 10);
    for (int k = 0; k < ranks; ++k) {
      EXPECT_GE(r[k + 1] - r[k], 1) << ranks << " ranks, rank " << k;
      EXPECT_LE(r[k + 1] - r[k], 10 / ranks + 1);
    }
  }
}

TEST(NodeRanges, FewerNodesThanRanksIsAnError) {
  EXPECT_THROW(node_ranges(3, 4), std::invalid_argument);
  EXPECT_THROW(node_ranges(3, 0), std::invalid_argument);
}

TEST(GraphSlice, SharesAreTheWholeLocationGraph) {
  Analyzer<> a;
  examples::heat2d(a, 16, 3);
  Estimator<Analyzer<>::ProfileType> est(a.profile());
  const LocationIndex& index = est.locations();
  ASSERT_GT(index.node_count(), 8u);
  const std::vector<GraphIndex> ranges = node_ranges(index.node_count(), 3);
  std::vector<GraphIndex> xadj{0}, adjncy, vwgt, adjwgt;
  for (int r = 0; r < 3; ++r) {
    const GraphSlice s = graph_slice(index, ranges[r], ranges[r + 1]);
    EXPECT_EQ(s.first, ranges[r]);
    ASSERT_EQ(s.node_count(), static_cast<std::size_t>(ranges[r + 1] - ranges[r]));
    ASSERT_EQ(s.xadj.back(), static_cast<GraphIndex>(s.adjncy.size()));
    for (std::size_t i = 0; i < s.node_count(); ++i) xadj.push_back(xadj.back() + s.xadj[i + 1] - s.xadj[i]);
    adjncy.insert(adjncy.end(), s.adjncy.begin(), s.adjncy.end());
    adjwgt.insert(adjwgt.end(), s.adjwgt.begin(), s.adjwgt.end());
    vwgt.insert(vwgt.end(), s.vwgt.begin(), s.vwgt.end());
  }
  // The same rows as the index, without self-loops.
  std::vector<GraphIndex> want_xadj{0}, want_adjncy, want_adjwgt;
  for (std::size_t node = 0; node < index.node_count(); ++node) {
    for (std::uint64_t k = index.row_start()[node]; k < index.row_start()[node + 1]; ++k) {
      if (index.neighbour()[k] == node) continue;
      want_adjncy.push_back(static_cast<GraphIndex>(index.neighbour()[k]));
      want_adjwgt.push_back(clamp_weight(index.uses()[k]));
    }
    want_xadj.push_back(static_cast<GraphIndex>(want_adjncy.size()));
    EXPECT_EQ(vwgt[node], std::max<GraphIndex>(1, clamp_weight(index.work()[node])));
  }
  EXPECT_EQ(xadj, want_xadj);
  EXPECT_EQ(adjncy, want_adjncy);
  EXPECT_EQ(adjwgt, want_adjwgt);
  EXPECT_FALSE(adjncy.empty());
}

TEST(GraphSlice, RangeOutsideTheGraphIsAnError) {
  Analyzer<> a;
  examples::heat2d(a, 8, 2);
  Estimator<Analyzer<>::ProfileType> est(a.profile());
  const auto n = static_cast<GraphIndex>(est.locations().node_count());
  EXPECT_THROW(graph_slice(est.locations(), 0, n + 1), std::out_of_range);
  EXPECT_THROW(graph_slice(est.locations(), 2, 1), std::out_of_range);
}

TEST(ClampWeight, StaysFarBelowTheIndexLimit) {
  EXPECT_EQ(clamp_weight(7), 7);
  EXPECT_LE(clamp_weight(~std::uint64_t{0}), std::numeric_limits<GraphIndex>::max() / 64);
}

}  // namespace
}  // namespace commanalyzer

// The location graph contracted before METIS and the hypergraph
// partitioner (location_contraction.h): leaves with their neighbour,
// temporaries with the one location that consumes them; what is
// contracted, and that a partition of the contracted graph costs what the
// same placement of every node costs on the whole graph.
#include "commanalyzer/estimate/location_contraction.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "commanalyzer/estimate/distribution.h"
#include "commanalyzer/estimate/estimate.h"
#include "commanalyzer/estimate/hypergraph.h"
#include "commanalyzer/record/analyzer.h"
#include "event_streams.h"

namespace commanalyzer {
namespace {

using testing::Array;
using Profile0 = Analyzer<>::ProfileType;

// How a row's sum reaches y: directly, or stored first to a stack slot
// (a temporary, as at -O0) and then copied, y[i] = t_i; or y[i] = t_i +
// t_(i-1), each temporary consumed by two rows.
enum class RowSum { kDirect, kThroughTemporary, kSharedTemporaries };

// A sparse matrix-vector product, y = A x, over `steps` sweeps on a ring
// of n rows (n >= 2048: smaller arrays are copied to every process,
// private_arrays.h): row i reads its three entries A[3i..3i+2] (inputs, in an
// array of its own extent, read by that row alone) and x at i-1, i, i+1;
// then x = y.
void ring_spmv(Analyzer<>& a, std::uint64_t n, int steps, RowSum how = RowSum::kDirect) {
  const Array x{0x1000000}, y{0x2000000}, matrix{0x3000000};
  const Address slot = 0x9000000;  // outside every allocation: a local
  a.allocation(x.base, 8 * n);
  a.allocation(y.base, 8 * n);
  a.allocation(matrix.base, 8 * 3 * n);
  a.region_begin();
  for (int t = 0; t < steps; ++t) {
    for (std::uint64_t i = 0; i < n; ++i) {
      Label sum = kNoLabel;
      for (std::uint64_t k = 0; k < 3; ++k) {
        const std::uint64_t column = (i + n - 1 + k) % n;
        sum = a.join(sum, a.join(a.load(matrix.at(3 * i + k), 8), a.load(x.at(column), 8)));
      }
      a.store(how == RowSum::kDirect ? y.at(i) : slot + 8 * i, 8, a.compute(sum));
    }
    for (std::uint64_t i = 0; how != RowSum::kDirect && i < n; ++i) {
      Label value = a.load(slot + 8 * i, 8);
      if (how == RowSum::kSharedTemporaries) value = a.join(value, a.load(slot + 8 * ((i + n - 1) % n), 8));
      a.store(y.at(i), 8, a.compute(value));
    }
    for (std::uint64_t i = 0; i < n; ++i) a.store(x.at(i), 8, a.compute(a.load(y.at(i), 8)));
    a.iteration();
  }
  a.region_end();
  a.finish();
}

// Everything contracted that can be: one balance group, no limit.
LocationContraction contract_all(const LocationIndex& index) {
  return LocationContraction(index, [](LocationIndex::Node) { return std::size_t{0}; }, {~std::uint64_t{0} / 2});
}

std::uint64_t degree(const LocationIndex& index, LocationIndex::Node a) {
  return index.row_start()[a + 1] - index.row_start()[a];
}

TEST(LocationContraction, MatrixEntriesGoWithTheirRow) {
  Analyzer<> a;
  constexpr std::uint64_t n = 2048;
  ring_spmv(a, n, 2);
  const Estimator<Profile0> est(a.profile());
  const LocationIndex& index = est.locations();
  const LocationContraction leaves = contract_all(index);
  std::size_t leaf_count = 0;
  for (LocationIndex::Node n = 0; n < index.node_count(); ++n) {
    if (degree(index, n) != 1) {
      EXPECT_TRUE(leaves.keeps(n) || degree(index, n) == 0);
      continue;
    }
    ++leaf_count;
    const LocationIndex::Node b = index.neighbour()[index.row_start()[n]];
    EXPECT_EQ(leaves.coarse_of(n), leaves.coarse_of(b)) << "leaf " << n << " apart from its neighbour";
  }
  // The 3n entries are leaves; the n rows of x and y (one location each) are not.
  EXPECT_EQ(leaf_count, 3 * n);
  EXPECT_EQ(leaves.coarse_count(), index.node_count() - 3 * n);
  // A coarse vertex's neighbours are the other rows it reads or feeds.
  for (std::uint32_t c = 0; c < leaves.coarse_count(); ++c) {
    leaves.for_each_neighbour(c, [&](std::uint32_t b, std::uint64_t) { EXPECT_NE(b, c); });
  }
}

TEST(LocationContraction, MetisPartitionKeepsEveryLeafWithItsNeighbour) {
  Analyzer<> a;
  ring_spmv(a, 2048, 2);
  const Estimator<Profile0> est(a.profile());
  const LocationIndex& index = est.locations();
  for (int procs : {2, 4, 8}) {
    const std::vector<ProcId> owner = metis_distribution(index, procs);
    ASSERT_EQ(owner.size(), index.node_count());
    std::vector<std::uint64_t> rows(static_cast<std::size_t>(procs), 0);
    for (LocationIndex::Node n = 0; n < index.node_count(); ++n) {
      ASSERT_GE(owner[n], 0);
      ASSERT_LT(owner[n], procs);
      if (degree(index, n) == 1) {
        EXPECT_EQ(owner[n], owner[index.neighbour()[index.row_start()[n]]]);
      }
      if (degree(index, n) > 1) ++rows[static_cast<std::size_t>(owner[n])];
    }
    // A ring in `procs` arcs: every process has rows, and the cut is
    // within twice the arcs' boundaries (4 uses each: two reads a step,
    // two steps), not the entries' edges.
    for (std::uint64_t r : rows) EXPECT_GT(r, 0u) << procs << " processes";
    EXPECT_LE(index.cut(owner), 2 * 4u * static_cast<std::uint64_t>(procs)) << procs << " processes";
  }
}

TEST(LocationContraction, AVertexCarriesNoMoreThanAPartsSlack) {
  Analyzer<> a;
  ring_spmv(a, 2048, 2);
  const Estimator<Profile0> est(a.profile());
  const LocationIndex& index = est.locations();
  auto one_group = [](LocationIndex::Node) { return std::size_t{0}; };
  // No slack: nothing is contracted.
  EXPECT_EQ(LocationContraction(index, one_group, {0}).coarse_count(), index.node_count());
  // Room for a row and one of its entries: each row keeps one, two stay apart.
  std::uint64_t row_work = 0, entry_work = ~std::uint64_t{0};
  for (LocationIndex::Node n = 0; n < index.node_count(); ++n) {
    if (degree(index, n) > 1) row_work = std::max(row_work, index.work()[n]);
    if (degree(index, n) == 1) entry_work = std::min(entry_work, index.work()[n]);
  }
  const LocationContraction one_each(index, one_group, {row_work + entry_work});
  EXPECT_EQ(one_each.coarse_count(), index.node_count() - 2048);
  std::vector<std::uint64_t> carried(one_each.coarse_count(), 0);
  std::vector<int> nodes(one_each.coarse_count(), 0);
  for (LocationIndex::Node n = 0; n < index.node_count(); ++n) {
    carried[one_each.coarse_of(n)] += index.work()[n];
    ++nodes[one_each.coarse_of(n)];
  }
  EXPECT_EQ(one_each.coarse_work(), carried);
  for (std::size_t c = 0; c < carried.size(); ++c) {
    if (nodes[c] > 1) {
      EXPECT_LE(carried[c], row_work + entry_work);
    }
  }
  // A part's slack: 3 % of the mean part. On 8 processes every row takes
  // its three entries; on 2^20, none.
  std::uint64_t total = 0;
  for (std::uint64_t w : index.work()) total += w;
  EXPECT_EQ(LocationContraction(index, one_group, LocationContraction::balance_limits({total}, 8, 30)).coarse_count(),
            index.node_count() - 3 * 2048);
  EXPECT_EQ(LocationContraction(index, one_group, LocationContraction::balance_limits({total}, 1 << 20, 30)).coarse_count(),
            index.node_count());
}

// The hypergraph of the whole location graph, as it was before the
// contraction: a vertex per node, a net per exporting node.
LocationHypergraph whole_hypergraph(const LocationIndex& index) {
  LocationHypergraph h;
  h.vertex_weight.assign(index.work().begin(), index.work().end());
  h.net_start.push_back(0);
  for (LocationIndex::Node n = 0; n < index.node_count(); ++n) {
    if (index.exports()[n] == 0 || degree(index, n) == 0) continue;
    h.pins.push_back(n);
    for (std::uint64_t k = index.row_start()[n]; k < index.row_start()[n + 1]; ++k) h.pins.push_back(index.neighbour()[k]);
    h.net_start.push_back(h.pins.size());
    h.net_weight.push_back(index.exports()[n]);
  }
  return h;
}

TEST(LocationContraction, ContractedHypergraphCostsWhatTheWholeOneCosts) {
  Analyzer<> a;
  ring_spmv(a, 2048, 2);
  const Estimator<Profile0> est(a.profile());
  const LocationIndex& index = est.locations();
  const LocationContraction leaves = contract_all(index);
  const LocationHypergraph h = location_hypergraph(index, leaves), whole = whole_hypergraph(index);
  ASSERT_EQ(h.vertex_count(), leaves.coarse_count());
  ASSERT_LT(h.net_count(), whole.net_count());  // the entries' nets hold one vertex each: left out
  std::uint64_t work = 0, coarse_work = 0;
  for (std::uint64_t w : whole.vertex_weight) work += w;
  for (std::uint64_t w : h.vertex_weight) coarse_work += w;
  EXPECT_EQ(coarse_work, work);
  // Any placement of the coarse vertices: blocks, stripes, one process.
  for (int procs : {1, 2, 3, 5}) {
    for (bool stripes : {false, true}) {
      std::vector<ProcId> coarse_owner(h.vertex_count());
      for (std::size_t c = 0; c < coarse_owner.size(); ++c) {
        coarse_owner[c] = static_cast<ProcId>(stripes ? c % procs : c * procs / coarse_owner.size());
      }
      EXPECT_EQ(h.connectivity_cost(coarse_owner), whole.connectivity_cost(leaves.expand(coarse_owner)))
          << procs << " processes, " << (stripes ? "stripes" : "blocks");
    }
  }
  // A contraction balancing two groups has two weights a vertex: not a hypergraph's one.
  const LocationContraction two_groups(index, [](LocationIndex::Node n) { return std::size_t{n % 2}; },
                                   {~std::uint64_t{0} / 2, ~std::uint64_t{0} / 2});
  EXPECT_THROW(location_hypergraph(index, two_groups), std::invalid_argument);
}

// The cut of a partition of the contracted graph, from its rows (each
// edge seen from both ends).
std::uint64_t coarse_cut(const LocationContraction& contracted, const std::vector<ProcId>& coarse_owner) {
  std::uint64_t twice = 0;
  for (std::uint32_t c = 0; c < contracted.coarse_count(); ++c) {
    contracted.for_each_neighbour(c, [&](std::uint32_t b, std::uint64_t uses) {
      if (coarse_owner[b] != coarse_owner[c]) twice += uses;
    });
  }
  return twice / 2;
}

TEST(LocationContraction, ATemporaryGoesWithTheOneLocationThatConsumesIt) {
  Analyzer<> a;
  constexpr std::uint64_t n = 2048;
  ring_spmv(a, n, 2, RowSum::kThroughTemporary);
  const Estimator<Profile0> est(a.profile());
  const LocationIndex& index = est.locations();
  ASSERT_EQ(index.location_count(), n + 3 * n);  // x[i] with y[i]; the matrix entries
  ASSERT_GT(index.node_count(), index.location_count());  // and a temporary per row and step
  const LocationContraction contracted = contract_all(index);
  for (LocationIndex::Node t = static_cast<LocationIndex::Node>(index.location_count()); t < index.node_count(); ++t) {
    const auto first = index.consumer_start()[t], last = index.consumer_start()[t + 1];
    ASSERT_EQ(last - first, 1u) << "temporary " << t;
    EXPECT_EQ(contracted.coarse_of(t), contracted.coarse_of(index.consumer()[first])) << "temporary " << t;
    EXPECT_FALSE(contracted.keeps(t));
  }
  // What is left is a vertex per row: its x and y, its temporaries, and its
  // matrix entries, whose neighbours (the row's temporaries) are all in it.
  EXPECT_EQ(contracted.coarse_count(), n);
  // Any placement of the rows costs on the contracted graph and hypergraph
  // what it costs on the whole ones.
  const LocationHypergraph h = location_hypergraph(index, contracted), whole = whole_hypergraph(index);
  for (int procs : {2, 3, 8}) {
    for (bool stripes : {false, true}) {
      std::vector<ProcId> coarse_owner(contracted.coarse_count());
      for (std::size_t c = 0; c < coarse_owner.size(); ++c) {
        coarse_owner[c] = static_cast<ProcId>(stripes ? c % procs : c * procs / n);
      }
      const std::vector<ProcId> owner = contracted.expand(coarse_owner);
      EXPECT_EQ(coarse_cut(contracted, coarse_owner), index.cut(owner)) << procs;
      EXPECT_EQ(h.connectivity_cost(coarse_owner), whole.connectivity_cost(owner)) << procs;
    }
  }
}

TEST(LocationContraction, ATemporaryConsumedInTwoPlacesStaysApart) {
  Analyzer<> a;
  constexpr std::uint64_t n = 2048;
  ring_spmv(a, n, 2, RowSum::kSharedTemporaries);
  const Estimator<Profile0> est(a.profile());
  const LocationIndex& index = est.locations();
  const LocationContraction contracted = contract_all(index);
  const auto temporaries = index.node_count() - index.location_count();
  ASSERT_GT(temporaries, 0u);
  for (LocationIndex::Node t = static_cast<LocationIndex::Node>(index.location_count()); t < index.node_count(); ++t) {
    ASSERT_EQ(index.consumer_start()[t + 1] - index.consumer_start()[t], 2u) << "temporary " << t;
    EXPECT_TRUE(contracted.keeps(t)) << "temporary " << t;
  }
  // A matrix entry feeds a temporary of each step, in different vertices:
  // nothing is contracted.
  EXPECT_EQ(contracted.coarse_count(), index.node_count());
  for (int procs : {2, 5}) {
    std::vector<ProcId> coarse_owner(contracted.coarse_count());
    for (std::size_t c = 0; c < coarse_owner.size(); ++c) coarse_owner[c] = static_cast<ProcId>(c % procs);
    EXPECT_EQ(coarse_cut(contracted, coarse_owner), index.cut(contracted.expand(coarse_owner))) << procs;
    const LocationHypergraph h = location_hypergraph(index, contracted), whole = whole_hypergraph(index);
    EXPECT_EQ(h.connectivity_cost(coarse_owner), whole.connectivity_cost(contracted.expand(coarse_owner))) << procs;
  }
}

}  // namespace
}  // namespace commanalyzer

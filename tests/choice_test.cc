#include "commanalyzer/estimate/choice.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace commanalyzer {
namespace {

// A candidate as the cost model leaves it (cost_model.h finish): `busiest`
// and `mean` values of work per process in all, at 1 ns a value, and its
// exchanges.
CommEstimate costed(std::uint64_t busiest, std::uint64_t mean, double exchange_us, std::uint64_t bytes) {
  CommEstimate e;
  e.busiest_work = busiest;
  e.mean_work = mean;
  e.seconds_per_value = 1e-9;
  e.compute_seconds = static_cast<double>(busiest) * e.seconds_per_value;
  e.exchange_seconds = exchange_us * 1e-6;
  e.p2p_bytes = bytes;
  e.process_work = {busiest, mean, mean, 2 * mean - busiest};  // between half and twice the mean
  return e;
}

const std::vector<std::uint64_t> kEvenData{100, 100, 100, 100};

// The slowest process's work is in the time that chooses: sending less
// does not make up for one process computing 1.5 times its share.
TEST(Choice, SlowestProcessWorkCountsInTheTime) {
  // 150 us of work on the busiest process + 10 us of exchanges, against
  // 100 us + 20 us.
  std::vector<CommEstimate> candidates{costed(150'000, 100'000, 10, 1'000), costed(100'000, 100'000, 20, 2'000)};
  for (auto& c : candidates) allow_for_uneven_blocks(c, kEvenData);
  EXPECT_EQ(keep_fastest(candidates, {kEvenData, kEvenData}), 1u);
}

// Work in proportion to uneven data (whole planes of a small grid) is the
// analysis size's: only the work beyond the busiest process's data share
// counts.
TEST(Choice, WorkFollowingUnevenBlocksIsAllowedFor) {
  const std::vector<std::uint64_t> six_and_five{120, 100, 100, 80};  // 1.2 x the mean on one
  CommEstimate planes = costed(120'000, 100'000, 10, 1'000);
  allow_for_uneven_blocks(planes, six_and_five);
  EXPECT_DOUBLE_EQ(planes.compute_seconds, 100e-6);
  // Beyond its data share, work counts: 1.5 x the mean on 1.2 x the data.
  CommEstimate beyond = costed(150'000, 100'000, 10, 1'000);
  allow_for_uneven_blocks(beyond, six_and_five);
  EXPECT_DOUBLE_EQ(beyond.compute_seconds, 125e-6);
  std::vector<CommEstimate> candidates{planes, costed(100'000, 100'000, 20, 2'000)};
  EXPECT_EQ(keep_fastest(candidates, {six_and_five, kEvenData}), 0u);
}

// Times within the balance tolerance of the computation are as fast in
// their work: of those, the one whose exchanges take least (a 2-D grid
// whose interior blocks compute 1 % more than a slab's, and exchange less).
TEST(Choice, WithinTheBalanceToleranceTheExchangesDecide) {
  std::vector<CommEstimate> candidates{costed(100'000, 100'000, 20, 2'000), costed(101'000, 100'000, 19.5, 1'000)};
  EXPECT_EQ(keep_fastest(candidates, {kEvenData, kEvenData}), 1u);
  // Not the fewer bytes where they take longer to exchange.
  candidates = {costed(100'000, 100'000, 19, 2'000), costed(101'000, 100'000, 19.5, 1'000)};
  EXPECT_EQ(keep_fastest(candidates, {kEvenData, kEvenData}), 0u);
  // Beyond the tolerance (3 % of 100 us), the faster.
  candidates = {costed(100'000, 100'000, 20, 2'000), costed(104'000, 100'000, 19.5, 1'000)};
  EXPECT_EQ(keep_fastest(candidates, {kEvenData, kEvenData}), 0u);
  // Exchanges alike: the fewer bytes, then the faster.
  candidates = {costed(100'000, 100'000, 20, 2'000), costed(101'000, 100'000, 20, 1'000)};
  EXPECT_EQ(keep_fastest(candidates, {kEvenData, kEvenData}), 1u);
  candidates = {costed(101'000, 100'000, 20, 1'000), costed(100'000, 100'000, 20, 1'000)};
  EXPECT_EQ(keep_fastest(candidates, {kEvenData, kEvenData}), 1u);
}

// A candidate only compared keeps what the choice reads and lets its
// matrices, trace and sites go: the same candidate is kept, with the same
// bytes and times, from the stripped estimates.
TEST(Choice, ComparedCandidatesKeepWhatTheChoiceReads) {
  std::vector<CommEstimate> full{costed(150'000, 100'000, 10, 1'000), costed(100'000, 100'000, 20, 2'000),
                                 costed(101'000, 100'000, 19.5, 1'500)};
  for (CommEstimate& c : full) {
    c.procs = 4;
    c.matrix.assign(16, 7);
    c.messages_matrix.assign(16, 1);
    c.sites.resize(3);
    allow_for_uneven_blocks(c, kEvenData);
  }
  std::vector<CommEstimate> compared = full;
  for (CommEstimate& c : compared) {
    EXPECT_EQ(&compared_only(c), &c);
    EXPECT_TRUE(c.matrix.empty() && c.matrix.capacity() == 0);
    EXPECT_TRUE(c.messages_matrix.empty() && c.sites.empty());
  }
  const std::vector<std::vector<std::uint64_t>> owned(3, kEvenData);
  EXPECT_EQ(keep_fastest(compared, owned), keep_fastest(full, owned));
  for (std::size_t i = 0; i < full.size(); ++i) {
    EXPECT_EQ(compared[i].total_bytes(), full[i].total_bytes());
    EXPECT_EQ(compared[i].predicted_seconds(), full[i].predicted_seconds());
    EXPECT_EQ(compared[i].process_work, full[i].process_work);
  }
}

}  // namespace
}  // namespace commanalyzer

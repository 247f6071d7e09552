// Message records (messages.h) and their time (time_model.h): records add
// up to the cost model's matrices, and message counts, not only bytes,
// decide the predicted time.
#include "commanalyzer/estimate/messages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "commanalyzer/record/analyzer.h"
#include "commanalyzer/estimate/estimate.h"
#include "commanalyzer/estimate/send_points.h"
#include "commanalyzer/estimate/time_model.h"
#include "tests/event_streams.h"
#include "tools/builtin_examples.h"

namespace commanalyzer {
namespace {

using testing::Array;
using Profile0 = Analyzer<>::ProfileType;

// x[i] += x[K + i] for the first K elements of x, x split in two blocks:
// K values travel from process 1 to process 0, in `rounds` iterations of
// K / rounds values each.
CommEstimate exchange_in_rounds(std::uint64_t k, int rounds, HockneyModel net) {
  Analyzer<> a;
  const Array x{0x10000};
  const std::uint64_t n = 2 * k, per_round = k / rounds;
  a.region_begin();
  for (int r = 0; r < rounds; ++r) {
    for (std::uint64_t i = r * per_round; i < (r + 1) * per_round; ++i) {
      a.store(x.at(i), 8, a.join(a.load(x.at(i), 8), a.load(x.at(k + i), 8)));
    }
    a.iteration();
  }
  a.region_end();
  a.finish();
  OwnerMapPartitioner block{[x, n](Address home, int parts) -> ProcId {
    return x.contains(home, n) ? static_cast<ProcId>(x.index(home) * parts / n) : 0;
  }};
  LogicalVolumeCostModel cost;
  cost.network = net;
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner> est(a.profile(), {}, block, cost);
  return est.estimate(2);
}

// FACT (Zhai et al.): equal volume, 30x the messages, clearly more time.
TEST(TimeModel, MessageCountsNotOnlyVolumeDecideTheTime) {
  const HockneyModel net{1e-6, 1e-10};  // 1 us, 10 GB/s
  const CommEstimate bulk = exchange_in_rounds(120, 1, net), chatty = exchange_in_rounds(120, 30, net);
  EXPECT_EQ(bulk.p2p_bytes, 120u * 8);
  EXPECT_EQ(chatty.p2p_bytes, bulk.p2p_bytes);
  ASSERT_EQ(bulk.trace.messages.size(), 1u);
  ASSERT_EQ(chatty.trace.messages.size(), 30u);
  EXPECT_EQ(bulk.trace.messages[0], (Message{0, 1, 0, 960}));
  for (const Message& m : chatty.trace.messages) EXPECT_EQ(m.bytes, 32u);
  EXPECT_NEAR(bulk.seconds, 1e-6 + 960e-10, 1e-12);
  EXPECT_NEAR(chatty.seconds, 30 * (1e-6 + 32e-10), 1e-12);
  EXPECT_GT(chatty.seconds, 10 * bulk.seconds);
  // Per iteration: each of the 30 rounds costs one message.
  ASSERT_EQ(chatty.phase_seconds.size(), 31u);
  for (int t = 0; t < 30; ++t) EXPECT_NEAR(chatty.phase_seconds[t], 1e-6 + 32e-10, 1e-12) << t;
  EXPECT_EQ(chatty.phase_seconds[30], 0.0);
  // The work per iteration: process 0 computes every x[i].
  EXPECT_EQ(bulk.phase_work, (std::vector<std::uint64_t>{120, 0}));
  for (int t = 0; t < 30; ++t) EXPECT_EQ(chatty.phase_work[t], 4u) << t;
  // Without latency the two are one volume and one time: counts are what differ.
  const HockneyModel no_latency{0, 1e-10};
  EXPECT_NEAR(exchange_in_rounds(120, 1, no_latency).seconds, exchange_in_rounds(120, 30, no_latency).seconds, 1e-15);
}

TEST(TimeModel, CollectivesCostLogRounds) {
  MessageTrace trace{8, 2, {}, {{CollectiveKind::kBcast, 0, 0, 800}, {CollectiveKind::kAllreduce, 1, 0, 800}}};
  const CommTime t = HockneyModel{1e-6, 1e-9}.predict(trace);
  EXPECT_NEAR(t.phase_seconds[0], 3 * (1e-6 + 800e-9), 1e-15);
  EXPECT_NEAR(t.phase_seconds[1], 6 * (1e-6 + 800e-9), 1e-15);
  EXPECT_NEAR(t.total_seconds, 9 * (1e-6 + 800e-9), 1e-15);
}

// The busiest process sets an iteration's time: a process receiving from
// three others waits for three messages.
TEST(TimeModel, BusiestProcessPerIteration) {
  MessageTrace trace{4, 1, {{0, 1, 0, 100}, {0, 2, 0, 100}, {0, 3, 0, 100}}, {}};
  EXPECT_NEAR((HockneyModel{1e-6, 0}.predict(trace).total_seconds), 3e-6, 1e-15);
}

// Records add up exactly to what the cost model counted, for the built-in
// Heat2D at several process counts.
TEST(MessageTrace, RecordsSumToTheMatrices) {
  Analyzer<> a;
  examples::heat2d(a, 34, 5);
  Estimator<Profile0> est(a.profile());
  for (int procs : {2, 3, 4, 8, 16}) {
    const CommEstimate e = est.estimate(procs);
    const MessageTrace& t = e.trace;
    EXPECT_EQ(t.procs, procs);
    EXPECT_EQ(t.phases, e.phase_bytes.size());
    EXPECT_EQ(t.byte_matrix(), e.matrix) << procs;
    EXPECT_EQ(t.message_matrix(), e.messages_matrix) << procs;
    EXPECT_EQ(t.messages.size(), e.p2p_messages);
    EXPECT_EQ(t.collectives.size(), e.collective_calls);
    EXPECT_EQ(t.collective_bytes(), e.collective_bytes());
    std::vector<std::uint64_t> phase_bytes(t.phases, 0);
    for (const Message& m : t.messages) {
      EXPECT_NE(m.from, m.to);
      EXPECT_GT(m.bytes, 0u);
      phase_bytes[m.iteration] += m.bytes;
    }
    for (const CollectiveCall& c : t.collectives) phase_bytes[c.iteration] += c.logical_bytes(procs);
    EXPECT_EQ(phase_bytes, e.phase_bytes) << procs;
    EXPECT_GT(e.seconds, 0);
  }
}

// One message per exchanged buffer: at 2 processes each step sends one
// 32-value halo row each way, as two messages, not 64.
TEST(MessageTrace, OneMessagePerBufferAndIteration) {
  Analyzer<> a;
  examples::heat2d(a, 34, 5);
  Estimator<Profile0> est(a.profile());
  const CommEstimate e = est.estimate(2);
  ASSERT_EQ(e.trace.messages.size(), 10u);
  for (std::uint32_t t = 0; t < 5; ++t) {
    EXPECT_EQ(e.trace.messages[2 * t], (Message{t, 0, 1, 32 * 8}));
    EXPECT_EQ(e.trace.messages[2 * t + 1], (Message{t, 1, 0, 32 * 8}));
  }
  // The global maximum change: one Allreduce of one double per step.
  ASSERT_EQ(e.trace.collectives.size(), 5u);
  for (const CollectiveCall& c : e.trace.collectives) {
    EXPECT_EQ(c.kind, CollectiveKind::kAllreduce);
    EXPECT_EQ(c.bytes, 8u);
  }
}

// A loop is its own file and line (Profile::Site's loop_file, loop_line).
// Values 1-4: the loop at red.c:10, whose statements alternate between one
// of its own (site 3) and one of a header inlined into it (site 1); values
// 5-8: the loop at black.c:10, whose statement is the header's other one
// (site 2). Processes 0 and 1 own two values of each loop in turn.
TEST(SendPoints, ALoopIsItsOwnFileAndLine) {
  Profile0 profile;
  profile.sites = {{1, 4, 10, "relax.h", "red.c"}, {2, 6, 10, "relax.h", "black.c"}, {3, 11, 10, "red.c", "red.c"}};
  for (const auto& run : {Profile0::SiteRun{1, 3}, {2, 1}, {3, 3}, {4, 1}, {5, 2}}) profile.value_sites.push_back(run);
  SendPoints<Profile0> points(profile, 2);
  for (ValueId v = 1; v <= 4; ++v) points.follow(v, v <= 2 ? 0 : 1);
  // One sweep, whichever file each statement is in: a value from before
  // it comes with a message sent as the loop starts; one created in it,
  // as the receiver's stretch starts.
  EXPECT_EQ(points.opens_at(1, 0), 1u);
  EXPECT_EQ(points.opens_at(1, 2), 3u);
  // The loop at the same line of another file is another sweep: a value
  // of the first loop comes with a message sent as it starts.
  for (ValueId v = 5; v <= 8; ++v) points.follow(v, v <= 6 ? 0 : 1);
  EXPECT_EQ(points.opens_at(1, 2), 5u);
  EXPECT_EQ(points.after_sweep_of(2), 5u);
}

}  // namespace
}  // namespace commanalyzer

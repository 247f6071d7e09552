// Algorithm 4 on small event streams with fixed owner maps, so the expected
// bytes can be worked out by hand.
#include "commanalyzer/estimate/cost_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <utility>
#include <vector>

#include "commanalyzer/record/analyzer.h"
#include "commanalyzer/estimate/estimate.h"
#include "tests/event_streams.h"

namespace commanalyzer {
namespace {

using testing::Array;
using Profile0 = Analyzer<>::ProfileType;

// Owner by position in one of several same-length arrays: element i of any
// of them belongs to process floor(i * N / n) (a 1-D block split).
OwnerMapPartitioner block_1d(std::vector<Array> arrays, std::uint64_t n) {
  return {[arrays, n](Address home, int nparts) -> ProcId {
    for (const Array& a : arrays) {
      if (a.contains(home, n)) return static_cast<ProcId>(a.index(home) * nparts / n);
    }
    return 0;
  }};
}

// Figure 5: two values on process 0 use one value of process 1; it travels
// once.
TEST(CostModel, Figure5RemoteValueUsedTwiceCountsOnce) {
  Analyzer<> a;
  const Array x{0x1000};  // x[0], x[1] on process 0; x[2], x[3] on process 1
  a.store(x.at(0), 8, a.join(a.load(x.at(0), 8), a.load(x.at(2), 8)));
  a.store(x.at(1), 8, a.join(a.load(x.at(1), 8), a.load(x.at(2), 8)));
  a.finish();
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner> est(a.profile(), {}, block_1d({x}, 4));
  const CommEstimate e = est.estimate(2);
  EXPECT_EQ(e.p2p_bytes, 8u);
  EXPECT_EQ(e.at(1, 0), 8u);
  EXPECT_EQ(e.at(0, 1), 0u);
  EXPECT_EQ(e.p2p_messages, 1u);
  EXPECT_EQ(e.total_bytes(), 8u);
}

// Pruning is per value instance: a 1-D Jacobi with a 2-way split sends one
// halo value each way every iteration, T times, not once.
TEST(CostModel, JacobiHaloIsCountedEveryIteration) {
  constexpr std::uint64_t n = 32;
  for (int steps : {1, 5, 40}) {
    Analyzer<> a;
    const Array u{0x10000}, unew{0x20000};
    a.region_begin();
    testing::jacobi1d(a, u, unew, n, steps);
    a.region_end();
    Estimator<Profile0, NoSingletons, OwnerMapPartitioner> est(a.profile(), {}, block_1d({u, unew}, n));
    const CommEstimate e = est.estimate(2);
    EXPECT_EQ(e.p2p_bytes, 2u * 8 * steps) << steps;
    EXPECT_EQ(e.at(0, 1), 8u * steps);
    EXPECT_EQ(e.at(1, 0), 8u * steps);
    EXPECT_EQ(e.p2p_messages, 2u * steps);
    EXPECT_EQ(e.iterations, static_cast<std::size_t>(steps));
    EXPECT_DOUBLE_EQ(e.per_iteration_bytes(), 16.0);
    for (int t = 0; t < steps; ++t) EXPECT_EQ(e.phase_bytes[t], 16u) << t;
  }
}

// MatMul with a fixed 2-D block owner map on a q x q grid: each process
// needs the remote part of its block row of A and block column of B,
// 2 n^2 (q-1) doubles in all.
TEST(CostModel, MatMulTwoDimensionalBlocksExactBytes) {
  constexpr std::uint64_t n = 16;
  Analyzer<> a;
  const Array C{0x100000, n}, A{0x200000, n}, B{0x300000, n};
  a.region_begin();
  testing::matmul(a, C, A, B, n);
  a.region_end();
  const OwnerMapPartitioner blocks{[&](Address home, int nparts) -> ProcId {
    const int q = static_cast<int>(std::lround(std::sqrt(nparts)));
    for (const Array* m : {&C, &A, &B}) {
      if (!m->contains(home, n * n)) continue;
      const std::uint64_t i = m->index(home) / n, j = m->index(home) % n;
      return static_cast<ProcId>((i / (n / q)) * q + j / (n / q));
    }
    return 0;
  }};
  Estimator<Profile0, DensityDistanceScorer, OwnerMapPartitioner> est(a.profile(), {}, blocks);
  for (std::uint64_t singleton : est.singletons()) EXPECT_EQ(singleton, 0u);
  for (int procs : {4, 16}) {
    const int q = static_cast<int>(std::lround(std::sqrt(procs)));
    const CommEstimate e = est.estimate(procs);
    EXPECT_EQ(e.total_bytes(), 2 * n * n * (q - 1) * 8) << procs;
    EXPECT_EQ(e.collective_bytes(), 0u);
    // Every process receives from the q-1 others in its block row (A) and
    // the q-1 in its block column (B).
    for (int p = 0; p < procs; ++p) EXPECT_EQ(e.partners(p), 2 * (q - 1));
  }
}

// b[i] = c * a[i]; sum += b[i] (sum kept in memory). The coefficient c and
// the global sum are singletons: c is broadcast once, sum is allreduced
// once, and nothing else moves.
TEST(CostModel, GlobalSumAndCoefficientAreCollectives) {
  constexpr std::uint64_t n = 128;  // arrays of 1 KiB or more are tracked
  Analyzer<> a;
  const Array x{0x10000}, b{0x20000}, c{0x30000}, sum{0x40000};
  a.allocation(x.base, 8 * n);  // heap arrays: distributed alike
  a.allocation(b.base, 8 * n);
  a.store(sum.at(0), 8, kComputedBit);  // sum = 0 (set-up)
  a.region_begin();
  for (std::uint64_t i = 0; i < n; ++i) {
    a.store(b.at(i), 8, a.join(a.load(c.at(0), 8), a.load(x.at(i), 8)));
    a.store(sum.at(0), 8, a.join(a.load(sum.at(0), 8), a.load(b.at(i), 8)));
  }
  a.region_end();
  Estimator<Profile0> est(a.profile());
  const auto& graph = est.graph();
  const auto singleton = [&](Address addr) {
    return est.singletons()[graph.local(a.profile().values.vertex(a.value_at(addr)))] != 0;
  };
  EXPECT_TRUE(singleton(c.at(0)));
  EXPECT_TRUE(singleton(sum.at(0)));
  EXPECT_FALSE(singleton(x.at(3)));
  EXPECT_FALSE(singleton(b.at(3)));
  for (int procs : {2, 4, 8}) {
    const CommEstimate e = est.estimate(procs);
    EXPECT_EQ(e.singleton_vertices, 2u);
    EXPECT_EQ(e.broadcasts, 1u);
    EXPECT_EQ(e.broadcast_bytes, (procs - 1) * 8u);
    EXPECT_EQ(e.allreduces, 1u);
    EXPECT_EQ(e.allreduce_bytes, 2 * (procs - 1) * 8u);
    EXPECT_EQ(e.p2p_bytes, 0u) << "b[i] lives with x[i]";
    EXPECT_EQ(e.collective_calls, 2u);
  }
}

// The owner-computes schedule: b[i] = x[i] + c; sum += b[i]; then x[i] =
// x[i] * sum. Each process computes its n/P values of each loop; the sum is
// ready one step after the last partial (a reduction, not a chain of n
// steps), and the second loop waits for it.
TEST(CostModel, CriticalPathWaitsForTheReductionNotItsChain) {
  constexpr std::uint64_t n = 128;
  Analyzer<> a;
  const Array x{0x10000}, b{0x20000}, c{0x30000}, sum{0x40000};
  a.allocation(x.base, 8 * n);
  a.allocation(b.base, 8 * n);
  a.store(sum.at(0), 8, kComputedBit);
  a.region_begin();
  for (std::uint64_t i = 0; i < n; ++i) {
    a.store(b.at(i), 8, a.join(a.load(c.at(0), 8), a.load(x.at(i), 8)));
    a.store(sum.at(0), 8, a.join(a.load(sum.at(0), 8), a.load(b.at(i), 8)));
  }
  for (std::uint64_t i = 0; i < n; ++i) a.store(x.at(i), 8, a.join(a.load(x.at(i), 8), a.load(sum.at(0), 8)));
  a.region_end();
  Estimator<Profile0> est(a.profile());
  for (int procs : {1, 2, 4, 8}) {
    const CommEstimate e = est.estimate(procs);
    EXPECT_EQ(e.critical_path, 2 * n / procs + 1) << procs;
    EXPECT_DOUBLE_EQ(e.compute_seconds, static_cast<double>(e.critical_path) * LogicalVolumeCostModel{}.seconds_per_value);
    // Every process computes its share and the sum's partials are no one's.
    ASSERT_EQ(e.process_work.size(), static_cast<std::size_t>(procs));
    std::uint64_t distributed = 0;
    for (std::uint64_t w : e.process_work) distributed += w;
    EXPECT_GE(distributed, 2 * n);
  }
}

// Two dependent half-steps, as red-black SOR: x[i] = y[i-1] + y[i+1], then
// y[i] = x[i-1] + x[i+1], split in two blocks. Each process needs its
// neighbour's y from the last step before the first loop, and its
// neighbour's x of this step before the second: two messages each way and
// step (without the loops' sites, the whole step is one sweep, and a
// neighbour's x exists before the receiver's part of it starts).
TEST(CostModel, DependentHalfStepsSendTwoMessagesAStep) {
  constexpr std::uint64_t n = 32;
  constexpr int steps = 3;
  Analyzer<> a;
  const Array x{0x10000}, y{0x20000};
  a.site(1, "sor.c", 11, "sor.c", 10);  // the two loops
  a.site(2, "sor.c", 13, "sor.c", 12);
  for (std::uint64_t i = 0; i < n; ++i) a.store(y.at(i), 8, kComputedBit);
  a.region_begin();
  for (int t = 0; t < steps; ++t) {
    for (std::uint64_t i = 1; i + 1 < n; ++i) {
      a.store(x.at(i), 8, a.join(a.load(y.at(i - 1), 8), a.load(y.at(i + 1), 8)), 1);
    }
    for (std::uint64_t i = 1; i + 1 < n; ++i) {
      a.store(y.at(i), 8, a.join(a.load(x.at(i - 1), 8), a.load(x.at(i + 1), 8)), 2);
    }
    a.iteration();
  }
  a.region_end();
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner> est(a.profile(), {}, block_1d({x, y}, n));
  const CommEstimate e = est.estimate(2);
  EXPECT_EQ(e.p2p_bytes, 2u * 2 * 8 * steps);
  EXPECT_EQ(e.p2p_messages, 2u * 2 * steps);
  EXPECT_EQ(e.phase_bytes.size(), static_cast<std::size_t>(steps) + 1);
  for (const Message& m : e.trace.messages) {
    EXPECT_EQ(m.bytes, 8u);
    EXPECT_LT(m.round, 2u);
  }
  // Jacobi's one exchange a step stays one message.
  Analyzer<> b;
  b.region_begin();
  testing::jacobi1d(b, x, y, n, steps);
  b.region_end();
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner> jacobi(b.profile(), {}, block_1d({x, y}, n));
  EXPECT_EQ(jacobi.estimate(2).p2p_messages, 2u * steps);
}

// A sweep carried along i and j (a[j][i] = a[j][i-1] + a[j-1][i]) split by
// columns is a pipeline: each process needs its left neighbour's value of
// every row before it can start that row, so the values go once a row
// (n - 1 messages per neighbour and step). Split by rows, the lower block
// needs the whole boundary row before it starts: one message.
TEST(CostModel, APipelinedSweepSendsOnceAStageAndABlockedOneOnce) {
  constexpr std::uint64_t n = 16;
  constexpr int steps = 2;
  Analyzer<> a;
  const Array A{0x100000, n};
  a.site(1, "sweep.c", 12, "sweep.c", 11);
  for (std::uint64_t k = 0; k < n * n; ++k) a.store(A.at(k), 8, kComputedBit);
  a.region_begin();
  for (int t = 0; t < steps; ++t) {
    for (std::uint64_t j = 1; j < n; ++j) {
      for (std::uint64_t i = 1; i < n; ++i) {
        a.store(A.at(j, i), 8, a.join(a.load(A.at(j, i - 1), 8), a.load(A.at(j - 1, i), 8)), 1);
      }
    }
    a.iteration();
  }
  a.region_end();
  auto split = [&](bool by_column) {
    return OwnerMapPartitioner{[A, by_column](Address home, int parts) -> ProcId {
      const std::uint64_t k = A.index(home);
      return static_cast<ProcId>((by_column ? k % n : k / n) * parts / n);
    }};
  };
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner> columns(a.profile(), {}, split(true));
  const CommEstimate pipelined = columns.estimate(2);
  EXPECT_EQ(pipelined.p2p_messages, (n - 1) * steps);
  EXPECT_EQ(pipelined.p2p_bytes, (n - 1) * steps * 8);
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner> rows(a.profile(), {}, split(false));
  const CommEstimate blocked = rows.estimate(2);
  EXPECT_EQ(blocked.p2p_messages, 1u * steps);
  EXPECT_EQ(blocked.p2p_bytes, (n - 1) * steps * 8);
}

// Read-only values received in one iteration and used again in later
// ones: a ghost coefficient (one value, less than the 64 a process owns)
// is kept; the other half of a vector, as large as the part a process
// owns, is received again each iteration, as SUMMA receives its panels.
TEST(CostModel, ReceivedValuesAreKeptOnlyWithinGhostMemory) {
  constexpr std::uint64_t n = 128;  // 1 KiB arrays: tracked
  constexpr int steps = 3;
  const Array x{0x10000}, y{0x20000}, c{0x30000};
  auto run = [&](bool whole_half) {
    Analyzer<> a;
    for (const Array& array : {x, y, c}) a.allocation(array.base, 8 * n);  // the rule is per array
    for (std::uint64_t i = 0; i < n; ++i) a.store(x.at(i), 8, kComputedBit), a.store(c.at(i), 8, kComputedBit);
    a.region_begin();
    for (int t = 0; t < steps; ++t) {
      for (std::uint64_t i = whole_half ? 0 : 1; i + !whole_half < n; ++i) {
        const Label read = whole_half ? a.load(x.at((i + n / 2) % n), 8)
                                      : a.join(a.load(c.at(i - 1), 8), a.load(c.at(i + 1), 8));
        a.store(y.at(i), 8, a.join(a.load(y.at(i), 8), read));
      }
      a.iteration();
    }
    a.region_end();
    return a;
  };
  auto estimate = [&](const Analyzer<>& a, double ghost_memory) {
    LogicalVolumeCostModel cost;
    cost.ghost_memory = ghost_memory;
    Estimator<Profile0, NoSingletons, OwnerMapPartitioner, LogicalVolumeCostModel> est(
        a.profile(), {}, block_1d({x, y, c}, n), cost);
    return est.estimate(2);
  };
  const Analyzer<> halo = run(false), half = run(true);
  EXPECT_EQ(estimate(halo, 1.0).p2p_bytes, 2u * 8);
  EXPECT_EQ(estimate(half, 1.0).p2p_bytes, 2u * 64 * 8 * steps);
  EXPECT_EQ(estimate(half, 1.0).p2p_messages, 2u * steps);
  const double keep_all = std::numeric_limits<double>::infinity();
  EXPECT_EQ(estimate(half, keep_all).p2p_bytes, 2u * 64 * 8);
  EXPECT_EQ(estimate(half, 1.5).p2p_bytes, 2u * 64 * 8);
  EXPECT_EQ(estimate(halo, keep_all).p2p_bytes, 2u * 8);
}

// c2 = f(c) in the first iteration, b[i] = c * c2 * x[i] in the second:
// both coefficients are singletons, and c (an input) is broadcast when c2
// is computed from it, in the first iteration, although nothing
// distributed feeds c2.
TEST(CostModel, SingletonComputedFromSingletonsPublishesWhenComputed) {
  constexpr std::uint64_t n = 64;
  Analyzer<> a;
  const Array x{0x10000}, b{0x20000}, c{0x30000}, c2{0x40000};
  a.region_begin();
  a.store(c2.at(0), 8, a.compute(a.load(c.at(0), 8)));
  a.iteration();
  for (std::uint64_t i = 0; i < n; ++i) {
    a.store(b.at(i), 8, a.join(a.join(a.load(c.at(0), 8), a.load(c2.at(0), 8)), a.load(x.at(i), 8)));
  }
  a.region_end();
  Estimator<Profile0, DensityDistanceScorer, OwnerMapPartitioner> est(a.profile(), {}, block_1d({x, b}, n));
  const CommEstimate e = est.estimate(4);
  EXPECT_EQ(e.singleton_vertices, 2u);
  EXPECT_EQ(e.broadcasts, 1u);
  ASSERT_GE(e.phase_bytes.size(), 2u);
  EXPECT_EQ(e.phase_bytes[0], 3 * 8u);
  EXPECT_EQ(e.total_bytes(), 3 * 8u);
}

// A singleton whose value is computed on one process only (an output entry
// computed from one process's data, then used everywhere) is a broadcast,
// not an allreduce.
TEST(CostModel, SingletonFromOneProcessIsABroadcast) {
  constexpr std::uint64_t n = 64;
  Analyzer<> a;
  const Array x{0x10000}, y{0x20000}, s{0x30000};
  a.region_begin();
  // s = x[0] + x[1]: both on process 0 under the block map.
  a.store(s.at(0), 8, a.join(a.load(x.at(0), 8), a.load(x.at(1), 8)));
  for (std::uint64_t i = 0; i < n; ++i) a.store(y.at(i), 8, a.join(a.load(s.at(0), 8), a.load(x.at(i), 8)));
  a.region_end();
  const OwnerMapPartitioner map = block_1d({x, y}, n);
  Estimator<Profile0, DensityDistanceScorer, OwnerMapPartitioner> est(a.profile(), {}, map);
  const CommEstimate e = est.estimate(4);
  EXPECT_EQ(e.broadcasts, 1u);
  EXPECT_EQ(e.allreduces, 0u);
  EXPECT_EQ(e.broadcast_bytes, 3 * 8u);
}

TEST(CostModel, OneProcessCommunicatesNothing) {
  Analyzer<> a;
  const Array u{0x10000}, unew{0x20000};
  testing::jacobi1d(a, u, unew, 64, 3);
  a.finish();
  Estimator<Profile0> est(a.profile());
  const CommEstimate e = est.estimate(1);
  EXPECT_EQ(e.total_bytes(), 0u);
  EXPECT_EQ(e.messages(), 0u);
}

TEST(CostModel, MetisEstimateOfJacobiIsAHaloPerIteration) {
  // With METIS choosing the owners, a 1-D chain splits into N contiguous
  // pieces: 2 (N-1) halo values per iteration.
  constexpr std::uint64_t n = 256;
  constexpr int steps = 10;
  Analyzer<> a;
  const Array u{0x10000}, unew{0x20000};
  a.region_begin();
  testing::jacobi1d(a, u, unew, n, steps);
  a.region_end();
  Estimator<Profile0, DensityDistanceScorer, MetisPartitioner> est(a.profile());
  for (int procs : {2, 4}) {
    const CommEstimate e = est.estimate(procs);
    EXPECT_EQ(e.p2p_bytes, 2u * (procs - 1) * 8 * steps) << procs;
  }
}

// Estimates for several process counts on several threads equal the ones
// made one at a time (METIS's random state is process-wide: concurrent
// calls used to make partitions depend on thread timing).
TEST(CostModel, ThreadedEstimatesEqualSequentialOnes) {
  constexpr std::uint64_t n = 24;
  Analyzer<> a;
  const Array C{0x100000, n}, A{0x200000, n}, B{0x300000, n};
  a.region_begin();
  testing::matmul(a, C, A, B, n);
  a.region_end();
  Estimator<Profile0, DensityDistanceScorer, MetisPartitioner> est(a.profile());
  const std::vector<int> procs = {3, 5, 6, 7, 9, 11, 13, 15};
  std::vector<std::uint64_t> one_at_a_time;
  for (int p : procs) one_at_a_time.push_back(est.estimate(p).total_bytes());
  for (int round = 0; round < 3; ++round) {
    std::vector<int> reported;  // progress: each count once, as it finishes
    const std::vector<CommEstimate> threaded = est.estimate(procs, 4, [&](int p) { reported.push_back(p); });
    for (std::size_t k = 0; k < procs.size(); ++k) EXPECT_EQ(threaded[k].total_bytes(), one_at_a_time[k]) << procs[k];
    std::sort(reported.begin(), reported.end());
    EXPECT_EQ(reported, procs);
  }
}

}  // namespace
}  // namespace commanalyzer

namespace commanalyzer {
namespace {

// T[i] += f(T[i-1], T[i+1]) every step (through a workspace W) and a global
// sum of W every step: T[i]'s coalesced vertex gains 3 neighbours per step,
// 300 in all, more than sqrt(|V|), but it is long-lived, not global; only
// gsum, used by all 400 values of every step, is a singleton.
TEST(Singletons, InPlaceUpdatesAreNotGlobalValues) {
  constexpr std::uint64_t n = 400;
  constexpr int steps = 100;
  Analyzer<> a;
  const Array T{0x100000}, W{0x200000}, gsum{0x300000};
  a.region_begin();
  for (int t = 0; t < steps; ++t) {
    for (std::uint64_t i = 1; i + 1 < n; ++i)
      a.store(W.at(i), 8, a.join(a.load(T.at(i - 1), 8), a.load(T.at(i + 1), 8)));
    Label sum = kNoLabel;
    for (std::uint64_t i = 1; i + 1 < n; ++i) {
      a.store(T.at(i), 8, a.join(a.load(T.at(i), 8), a.load(W.at(i), 8)));
      sum = a.join(sum, a.load(W.at(i), 8));
    }
    a.store(gsum.at(0), 8, a.join(a.load(gsum.at(0), 8), sum));
    a.iteration();
  }
  a.region_end();
  const ValueGraph graph = ValueGraph::build(a.profile());
  const auto floor = std::sqrt(static_cast<double>(graph.peak_phase_vertices()));
  const ValueGraph::Vertex t5 = graph.local(a.profile().values.vertex(a.value_at(T.at(5))));
  ASSERT_NE(t5, ValueGraph::kAbsent);
  EXPECT_GT(static_cast<double>(graph.degree(t5)), floor);  // over all steps: above the floor
  EXPECT_EQ(graph.peak_phase_degree(t5), 3u);                // within one step: 3
  // gsum's 398 neighbours a step are counted up to the floor only.
  const ValueGraph::Vertex sum_vertex = graph.local(a.profile().values.vertex(a.value_at(gsum.at(0))));
  EXPECT_EQ(graph.peak_phase_degree(sum_vertex), static_cast<std::size_t>(std::ceil(floor)));
  const std::vector<std::uint8_t> singleton = DensityDistanceScorer{}.detect(graph);
  std::vector<Address> homes;
  for (ValueGraph::Vertex v = 0; v < graph.vertex_count(); ++v) {
    if (singleton[v]) homes.push_back(graph.home(v));
  }
  EXPECT_EQ(homes, std::vector<Address>{gsum.at(0)});
}

// A minimum over every cell each step is a global value however many steps
// run: the singleton floor is set by one step's values, not the run's.
// Each step computes n fresh temporaries (as a hydro code's element loop
// does); with sqrt(|V|) over the run (|V| ~ steps x n), 400 steps of 100
// cells put the floor at 200, above the minimum's 100 sources.
TEST(Singletons, TheFloorDoesNotGrowWithTheSteps) {
  constexpr std::uint64_t n = 100;
  const Array x{0x100000}, dt{0x300000}, temporaries{0x400000};
  for (int steps : {4, 400}) {
    Analyzer<> a;
    a.region_begin();
    for (int t = 0; t < steps; ++t) {
      Label smallest = kNoLabel;
      for (std::uint64_t i = 0; i < n; ++i) {
        const Address tmp = temporaries.at(static_cast<std::uint64_t>(t) * n + i);
        a.store(tmp, 8, a.compute(a.join(a.load(x.at(i), 8), a.load(dt.at(0), 8))));
        smallest = a.join(smallest, a.load(tmp, 8));
      }
      a.store(dt.at(0), 8, a.compute(smallest));
      a.iteration();
    }
    a.region_end();
    const ValueGraph graph = ValueGraph::build(a.profile());
    EXPECT_GT(graph.vertex_count(), static_cast<std::size_t>(steps) * n) << steps;
    EXPECT_LE(graph.peak_phase_vertices(), 2 * n + 2) << steps;
    const std::vector<std::uint8_t> singleton = DensityDistanceScorer{}.detect(graph);
    std::vector<Address> homes;
    for (ValueGraph::Vertex v = 0; v < graph.vertex_count(); ++v) {
      if (singleton[v]) homes.push_back(graph.home(v));
    }
    EXPECT_EQ(homes.size(), static_cast<std::size_t>(steps) + 1) << steps;  // each step's minimum, the first's input
    EXPECT_TRUE(std::all_of(homes.begin(), homes.end(), [&](Address h) { return h == dt.at(0); })) << steps;
  }
}

// gsum += sum(x) every iteration, gsum only read after the region: one
// Allreduce per iteration (as MiniGhost's MPI version does), not one in all.
TEST(CostModel, SingletonContributionsAreReducedEveryIteration) {
  constexpr std::uint64_t n = 64;
  constexpr int steps = 5;
  Analyzer<> a;
  const testing::Array x{0x10000}, gsum{0x40000};
  a.store(gsum.at(0), 8, kComputedBit);
  a.region_begin();
  for (int t = 0; t < steps; ++t) {
    for (std::uint64_t i = 0; i < n; ++i) a.store(x.at(i), 8, a.compute(a.load(x.at(i), 8)));  // x[i] = f(x[i])
    Label sum = kNoLabel;
    for (std::uint64_t i = 0; i < n; ++i) sum = a.join(sum, a.load(x.at(i), 8));
    a.store(gsum.at(0), 8, a.join(a.load(gsum.at(0), 8), sum));
    a.iteration();
  }
  a.region_end();
  Estimator<Analyzer<>::ProfileType> est(a.profile());
  const CommEstimate e = est.estimate(4);
  EXPECT_EQ(e.allreduces, static_cast<std::uint64_t>(steps));
  EXPECT_EQ(e.allreduce_bytes, steps * 2 * 3 * 8u);
  EXPECT_EQ(e.collective_calls, static_cast<std::uint64_t>(steps));
  for (int t = 0; t < steps; ++t) EXPECT_EQ(e.phase_bytes[t], 2 * 3 * 8u) << t;
}

// A mesh of n elements updated every step from the time step, and a
// domain object (a small tracked array every process holds) with the
// running minimum dtmin and dt = dtmin / 2: LULESH's time constraints.
struct TimeSteppedMesh {
  explicit TimeSteppedMesh(std::uint64_t elements) : n(elements) {
    a.allocation(x.base, 8 * n);
    a.allocation(domain.base, 1312);
    a.store(dt, 8, kComputedBit);
    a.region_begin();
  }
  // x[i] = f(x[i], dt); dtmin = 1e20.
  void begin_step() {
    for (std::uint64_t i = 0; i < n; ++i) a.store(x.at(i), 8, a.join(a.load(x.at(i), 8), a.load(dt, 8)));
    a.store(dtmin, 8, kComputedBit);
  }
  // dt = dtmin / 2.
  void end_step() {
    a.store(dt, 8, a.compute(a.load(dtmin, 8)));
    a.iteration();
  }
  // Ends the region; on each count, no point-to-point byte and no
  // broadcast, and one Allreduce of one value a step, one call each.
  void expect_one_allreduce_a_step(int steps, std::initializer_list<int> counts) {
    a.region_end();
    Estimator<Profile0> est(a.profile());
    for (int procs : counts) {
      const CommEstimate e = est.estimate(procs);
      EXPECT_EQ(e.p2p_bytes, 0u) << procs;
      EXPECT_EQ(e.broadcasts, 0u) << procs;
      EXPECT_EQ(e.allreduces, static_cast<std::uint64_t>(steps)) << procs;
      EXPECT_EQ(e.allreduce_bytes, steps * 2 * (procs - 1) * 8u) << procs;
      EXPECT_EQ(e.collective_calls, static_cast<std::uint64_t>(steps)) << procs;
    }
  }
  std::uint64_t n;
  Analyzer<> a;
  const Array x{0x100000}, domain{0x400000};
  const Address dtmin = domain.at(0), dt = domain.at(1);
};

// Region minima (LULESH 2.0's time constraints): each step updates x, then
// takes the minimum of x over regions of 4096, 2048, ..., 1 elements in turn,
// each starting from the last one's result kept in a domain block every
// process holds; the time step is computed from the last. Every region's
// minimum is a reduction (the smallest ones too: recorded by loop_result
// as reductions once one region's is), the regions' partial minima fold
// into one, and the time step is computed from it: one Allreduce of one
// value a step, nothing sent point to point.
TEST(CostModel, RegionMinimaFoldIntoOneAllreduceAStep) {
  constexpr std::uint64_t n = 8192;  // the domain block is less than a process's share: each holds it
  constexpr int steps = 3;
  TimeSteppedMesh mesh(n);
  Analyzer<>& a = mesh.a;
  for (int t = 0; t < steps; ++t) {
    mesh.begin_step();
    std::uint64_t first = 0;
    for (std::uint64_t size = n / 2; first < n; size = std::max<std::uint64_t>(size / 2, 1)) {
      Label m = a.load(mesh.dtmin, 8);
      for (std::uint64_t i = first; i < std::min(first + size, n); ++i) m = a.join(m, a.load(mesh.x.at(i), 8));
      a.store(mesh.dtmin, 8, a.loop_result(m, 5));
      first += size;
    }
    mesh.end_step();
  }
  mesh.expect_one_allreduce_a_step(steps, {2, 4, 8});
}

// A loop's results the program never reads or decides on are not reduced:
// each region's minimum also yields the element where it is reached, only
// tested for whether the region had one (which the pass does not report),
// and nothing reads it. One Allreduce of one value a step, the minimum.
TEST(CostModel, ResultsTheProgramNeverUsesAreNotReduced) {
  constexpr std::uint64_t n = 4096, regions = 4;
  constexpr int steps = 3;
  TimeSteppedMesh mesh(n);
  Analyzer<>& a = mesh.a;
  for (int t = 0; t < steps; ++t) {
    mesh.begin_step();
    for (std::uint64_t r = 0; r < regions; ++r) {
      Label m = a.load(mesh.dtmin, 8), where = kNoLabel;
      for (std::uint64_t i = r * (n / regions); i < (r + 1) * (n / regions); ++i) {
        m = a.join(m, a.load(mesh.x.at(i), 8));
        where = a.join(where, a.load(mesh.x.at(i), 8));
      }
      a.loop_result(where, 6);  // the element index: never used
      a.store(mesh.dtmin, 8, a.loop_result(m, 5));
    }
    mesh.end_step();
  }
  mesh.expect_one_allreduce_a_step(steps, {2, 4});
}

// LULESH 2.0's hydro constraint: besides the minimum over the whole mesh
// (a reduction), a second one over the few elements the shock has reached
// (4 of 8192, all in one process's block), fewer values than any
// reduction's sqrt(D), kept in another domain scalar. The time step is
// computed from the second after a decision compares the two (`if (dthydro
// < gnewdt)`, gnewdt from the first). Compared with a reduction, the small
// minimum is one too: an Allreduce each step wherever its elements lie,
// not a broadcast from their owner; nothing point to point.
TEST(CostModel, AMinimumComparedWithAReductionIsOneWhateverItsSize) {
  constexpr std::uint64_t n = 8192, active = 4;
  constexpr int steps = 3;
  TimeSteppedMesh mesh(n);
  Analyzer<>& a = mesh.a;
  const Address dthydro = mesh.domain.at(2);
  for (int t = 0; t < steps; ++t) {
    mesh.begin_step();
    Label m = a.load(mesh.dtmin, 8);
    for (std::uint64_t i = 0; i < n; ++i) m = a.join(m, a.load(mesh.x.at(i), 8));
    a.store(mesh.dtmin, 8, a.loop_result(m, 5));
    a.store(dthydro, 8, kComputedBit);
    Label h = a.load(dthydro, 8);
    for (std::uint64_t i = 0; i < active; ++i) h = a.join(h, a.load(mesh.x.at(i), 8));
    a.store(dthydro, 8, a.loop_result(h, 7));
    a.use(a.join(a.load(dthydro, 8), a.compute(a.load(mesh.dtmin, 8))), 9);
    a.store(mesh.dt, 8, a.compute(a.load(dthydro, 8)));
    a.iteration();
  }
  a.region_end();
  Estimator<Profile0> est(a.profile());
  for (int procs : {2, 4, 8}) {
    const CommEstimate e = est.estimate(procs);
    EXPECT_EQ(e.p2p_bytes, 0u) << procs;
    EXPECT_EQ(e.broadcasts, 0u) << procs;
    EXPECT_EQ(e.collective_calls, static_cast<std::uint64_t>(steps)) << procs;
    EXPECT_EQ(e.allreduces, 2u * steps) << procs << ": both minima, one call a step";
  }
}

// A residual only tested by a branch (`if (resid < tol) break;`) is read
// there (Analyzer::use records the decision): an Allreduce every step. The
// last step's is not tested (the loop ends on its count) but is reduced
// too, as every earlier one was used.
TEST(CostModel, AResidualOnlyTestedIsReducedEveryStep) {
  constexpr std::uint64_t n = 4096;
  constexpr int steps = 4;
  Analyzer<> a;
  const Array x{0x100000};
  a.allocation(x.base, 8 * n);
  a.region_begin();
  for (int t = 0; t < steps; ++t) {
    for (std::uint64_t i = 0; i < n; ++i) a.store(x.at(i), 8, a.compute(a.load(x.at(i), 8)));
    Label sum = kNoLabel;
    for (std::uint64_t i = 0; i < n; ++i) sum = a.join(sum, a.load(x.at(i), 8));
    const Label resid = a.loop_result(sum, 7);
    if (t + 1 < steps) a.use(resid | kComputedBit, 9);
    a.iteration();
  }
  a.region_end();
  Estimator<Profile0> est(a.profile());
  for (int procs : {2, 4}) {
    const CommEstimate e = est.estimate(procs);
    EXPECT_EQ(e.p2p_bytes, 0u) << procs;
    EXPECT_EQ(e.allreduces, static_cast<std::uint64_t>(steps)) << procs;
  }
}

// A reduction over the elements a filter passes, all of which lie in one
// process's block this step (LULESH 2.0's shock near one corner): still an
// Allreduce, which every process of an MPI code calls with its part or the
// identity, not a broadcast from the one process that contributed.
TEST(CostModel, AReductionIsAnAllreduceWhereverItsContributionsLie) {
  constexpr std::uint64_t n = 4096, active = 512;
  constexpr int steps = 3;
  TimeSteppedMesh mesh(n);
  Analyzer<>& a = mesh.a;
  for (int t = 0; t < steps; ++t) {
    mesh.begin_step();
    Label m = a.load(mesh.dtmin, 8);
    for (std::uint64_t i = 0; i < active; ++i) m = a.join(m, a.load(mesh.x.at(i), 8));
    a.store(mesh.dtmin, 8, a.loop_result(m, 5));
    mesh.end_step();
  }
  mesh.expect_one_allreduce_a_step(steps, {2, 4});
}

// Conjugate gradients: rho = r.r, beta = rho / rho_old, p = r + beta p,
// pAp = p.Ap, alpha = rho / pAp, x += alpha p, r -= alpha p. beta and
// alpha are computed from reductions, not continuations of them: each dot
// product is its own Allreduce, two a step, as every MPI CG code does.
TEST(CostModel, ValuesComputedFromReductionsReduceThemFirst) {
  constexpr std::uint64_t n = 512;
  constexpr int steps = 4;
  Analyzer<> a;
  const Array x{0x100000}, r{0x200000}, p{0x300000};
  const Address rho = 0x900000, rho_old = 0x900008, beta = 0x900010, pap = 0x900018, alpha = 0x900020;
  for (const Array& v : {x, r, p}) a.allocation(v.base, 8 * n);
  a.store(rho, 8, kComputedBit);
  a.region_begin();
  for (int t = 0; t < steps; ++t) {
    a.store(rho_old, 8, a.load(rho, 8));
    Label dot = kNoLabel;
    for (std::uint64_t i = 0; i < n; ++i) dot = a.join(dot, a.load(r.at(i), 8));
    a.store(rho, 8, a.loop_result(dot, 1));
    a.store(beta, 8, a.join(a.load(rho, 8), a.load(rho_old, 8)));
    for (std::uint64_t i = 0; i < n; ++i) {
      a.store(p.at(i), 8, a.join(a.join(a.load(r.at(i), 8), a.load(beta, 8)), a.load(p.at(i), 8)));
    }
    dot = kNoLabel;
    for (std::uint64_t i = 0; i < n; ++i) dot = a.join(dot, a.load(p.at(i), 8));
    a.store(pap, 8, a.loop_result(dot, 2));
    a.store(alpha, 8, a.join(a.load(rho, 8), a.load(pap, 8)));
    for (std::uint64_t i = 0; i < n; ++i) {
      a.store(x.at(i), 8, a.join(a.join(a.load(x.at(i), 8), a.load(alpha, 8)), a.load(p.at(i), 8)));
      a.store(r.at(i), 8, a.join(a.join(a.load(r.at(i), 8), a.load(alpha, 8)), a.load(p.at(i), 8)));
    }
    a.iteration();
  }
  a.region_end();
  Estimator<Profile0> est(a.profile());
  for (int procs : {2, 4}) {
    const CommEstimate e = est.estimate(procs);
    EXPECT_EQ(e.p2p_bytes, 0u) << procs;
    EXPECT_EQ(e.broadcasts, 1u) << procs << ": rho from before the region, an input";
    EXPECT_EQ(e.allreduces, 2u * steps) << procs;
  }
}

// f[0] += g[i] for four g's of process 1, f[0] on process 0 (a scatter-add
// of element forces into a node): process 1 combines its contributions and
// sends one partial per iteration, not four values.
TEST(CostModel, RemoteContributionsToAnUpdateAreCombined) {
  constexpr int steps = 3;
  const Array f{0x10000}, g{0x20000}, w{0x30000};
  Analyzer<> a;
  a.region_begin();
  for (int t = 0; t < steps; ++t) {
    for (std::uint64_t i = 0; i < 4; ++i) a.store(g.at(i), 8, a.compute(a.load(w.at(i), 8)));  // g[i] = h(w[i])
    a.store(f.at(0), 8, kComputedBit);                                                        // f[0] = 0
    for (std::uint64_t i = 0; i < 4; ++i) a.store(f.at(0), 8, a.join(a.load(f.at(0), 8), a.load(g.at(i), 8)));
    a.iteration();
  }
  a.region_end();
  const OwnerMapPartitioner map{
      [&](Address home, int) -> ProcId { return g.contains(home, 4) || w.contains(home, 4) ? 1 : 0; }};
  LogicalVolumeCostModel plain;
  plain.combine_partial_updates = false;
  plain.recompute_when_cheaper = false;  // else process 0 would receive w once and compute g itself
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner> combined(a.profile(), {}, map);
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner, LogicalVolumeCostModel> separate(a.profile(), {}, map, plain);
  EXPECT_EQ(separate.estimate(2).p2p_bytes, steps * 4 * 8u);
  const CommEstimate e = combined.estimate(2);
  EXPECT_EQ(e.p2p_bytes, steps * 8u);
  EXPECT_EQ(e.at(1, 0), steps * 8u);
  EXPECT_EQ(e.p2p_messages, static_cast<std::uint64_t>(steps));
}

// A contribution whose inputs also serve other values is not combined: its
// inputs travel once and serve everything (C += A x B in memory).
TEST(CostModel, SharedContributionInputsAreSentNotCombined) {
  const Array f{0x10000}, g{0x20000};
  Analyzer<> a;
  a.region_begin();
  for (std::uint64_t j = 0; j < 2; ++j)
    for (std::uint64_t i = 0; i < 4; ++i) a.store(f.at(j), 8, a.join(a.load(f.at(j), 8), a.load(g.at(i), 8)));
  a.region_end();
  const OwnerMapPartitioner map{[&](Address home, int) -> ProcId { return g.contains(home, 4) ? 1 : 0; }};
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner> est(a.profile(), {}, map);
  EXPECT_EQ(est.estimate(2).p2p_bytes, 4 * 8u);  // g[0..3] once, not a partial per f[j]
}

// f[j] += p * b[j] for j = 0..3 with f on process 0 and p, b on process 1
// (an element's pressure times its shape derivatives, scattered to its
// nodes): p serves every contribution, yet one combined partial per f[j]
// (8 bytes) is cheaper than p and b[j] (16 bytes), so process 1 computes
// the contributions: 4 partials, not p and the four b[j].
TEST(CostModel, ContributionsAreCombinedWhenCheaperThanTheirInputs) {
  const Array f{0x10000}, b{0x20000}, p{0x30000};
  Analyzer<> a;
  a.region_begin();
  for (std::uint64_t j = 0; j < 4; ++j) {
    a.store(f.at(j), 8, a.join(a.load(f.at(j), 8), a.compute(a.join(a.load(p.at(0), 8), a.load(b.at(j), 8)))));
  }
  a.region_end();
  const OwnerMapPartitioner map{[&](Address home, int) -> ProcId { return f.contains(home, 4) ? 0 : 1; }};
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner> est(a.profile(), {}, map);
  EXPECT_EQ(est.estimate(2).p2p_bytes, 4 * 8u);
  LogicalVolumeCostModel separate;
  separate.combine_partial_updates = false;
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner, LogicalVolumeCostModel> sending(a.profile(), {}, map, separate);
  EXPECT_EQ(sending.estimate(2).p2p_bytes, 5 * 8u);
}

// f[0] += p * (x[0] + x[1]) with f[0] and x[0] on process 0, p and x[1] on
// process 1, which has x[0] already (it computes y[0] from x[0] and x[1]
// first): process 1 holds every input of the contribution and sends one
// partial per step, although process 0 holds one of them (a shared node's
// coordinate used by a neighbouring element's force).
TEST(CostModel, ContributorHoldingTheReceiversInputsCombines) {
  constexpr int steps = 3;
  const Array f{0x10000}, x{0x20000}, p{0x30000}, y{0x40000};
  Analyzer<> a;
  a.region_begin();
  for (int t = 0; t < steps; ++t) {
    a.store(p.at(0), 8, a.compute(a.load(p.at(0), 8)));  // p and x[1] change every step
    a.store(x.at(1), 8, a.compute(a.load(x.at(1), 8)));
    a.store(y.at(0), 8, a.compute(a.join(a.load(x.at(0), 8), a.load(x.at(1), 8))));
    a.store(f.at(0), 8, kComputedBit);
    const Label g = a.compute(a.join(a.load(p.at(0), 8), a.join(a.load(x.at(0), 8), a.load(x.at(1), 8))));
    a.store(f.at(0), 8, a.join(a.load(f.at(0), 8), g));
    a.iteration();
  }
  a.region_end();
  const OwnerMapPartitioner map{[&](Address home, int) -> ProcId {
    return f.contains(home, 1) || x.contains(home, 1) ? 0 : 1;  // x[0] on 0, x[1] on 1
  }};
  LogicalVolumeCostModel no_recompute;
  no_recompute.recompute_when_cheaper = false;  // process 0 could compute p and x[1] from their first values
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner, LogicalVolumeCostModel> est(a.profile(), {}, map, no_recompute);
  const CommEstimate e = est.estimate(2);
  EXPECT_EQ(e.at(0, 1), 8u);          // x[0] once
  EXPECT_EQ(e.at(1, 0), steps * 8u);  // one partial per step, not p and x[1] (16 bytes)
}

// The estimates for 2 processes under `map` without and with recomputation.
std::pair<CommEstimate, CommEstimate> sending_and_recomputing(const Profile0& profile, const OwnerMapPartitioner& map) {
  LogicalVolumeCostModel send_all;
  send_all.recompute_when_cheaper = false;
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner, LogicalVolumeCostModel> sending(profile, {}, map, send_all);
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner> recomputing(profile, {}, map);
  return {sending.estimate(2), recomputing.estimate(2)};
}

// Process 1 reads x[0] (old), then xd[0] and x[0] after x[0] += xd[0]: it
// holds both inputs of the new x[0] anyway, so it recomputes it. Keeping
// its own copy of x[0] current, it sets the old x[0] up before the region.
TEST(CostModel, ValuesComputableFromReceivedInputsAreRecomputed) {
  const Array x{0x10000}, xd{0x20000}, y{0x30000};
  Analyzer<> a;
  a.region_begin();
  a.store(y.at(0), 8, a.compute(a.load(x.at(0), 8)));                          // y[0] = h(x[0])
  a.store(xd.at(0), 8, a.compute(a.load(xd.at(0), 8)));                        // xd[0] = h(xd[0])
  a.store(x.at(0), 8, a.join(a.load(x.at(0), 8), a.load(xd.at(0), 8)));       // x[0] += xd[0]
  a.store(y.at(1), 8, a.join(a.load(x.at(0), 8), a.load(xd.at(0), 8)));       // y[1] = x[0] + xd[0]
  a.region_end();
  const OwnerMapPartitioner map{[&](Address home, int) -> ProcId { return y.contains(home, 2) ? 1 : 0; }};
  const auto [sending, recomputing] = sending_and_recomputing(a.profile(), map);
  EXPECT_EQ(sending.p2p_bytes, 3 * 8u);      // old x, new xd, new x
  EXPECT_EQ(recomputing.p2p_bytes, 8u);  // new xd
  EXPECT_EQ(recomputing.at(0, 1), 8u);
}

// Process 1 uses h = f(a, b), p = g(w) and r = k(w), all computed on
// process 0. Receiving w and computing p and r itself (8 bytes) beats
// receiving both; h is cheaper than a and b together, so it is received.
TEST(CostModel, RecomputesOnlyWhereEarlierValuesAreCheaper) {
  const Array in{0x10000}, mid{0x20000}, y{0x30000};
  Analyzer<> a;
  a.region_begin();
  a.store(mid.at(0), 8, a.join(a.load(in.at(0), 8), a.load(in.at(1), 8)));  // h = f(a, b)
  a.store(mid.at(1), 8, a.compute(a.load(in.at(2), 8)));                     // p = g(w)
  a.store(mid.at(2), 8, a.compute(a.load(in.at(2), 8)));                     // r = k(w)
  for (std::uint64_t i = 0; i < 3; ++i) a.store(y.at(i), 8, a.compute(a.load(mid.at(i), 8)));
  a.region_end();
  const OwnerMapPartitioner map{[&](Address home, int) -> ProcId { return y.contains(home, 3) ? 1 : 0; }};
  const auto [sending, recomputing] = sending_and_recomputing(a.profile(), map);
  EXPECT_EQ(sending.p2p_bytes, 3 * 8u);      // h, p, r
  EXPECT_EQ(recomputing.p2p_bytes, 2 * 8u);  // h, w
}

// After a sum f: v += f and x += v (the new v kept in a register for x),
// then y[i] = h(x, v) for i = 0, 1, 2 (y[i] on process i in the tests).
void use_sum_in_x_and_v(Analyzer<>& a, const Array& f, const Array& x, const Array& v, const Array& y) {
  const Label new_v = a.join(a.load(v.at(0), 8), a.load(f.at(0), 8));
  a.store(v.at(0), 8, new_v);
  a.store(x.at(0), 8, a.join(a.load(x.at(0), 8), new_v));
  for (std::uint64_t i = 0; i < 3; ++i) {
    a.store(y.at(i), 8, a.compute(a.join(a.load(x.at(0), 8), a.load(v.at(0), 8))));
  }
}

// A node shared by three processes (LULESH): each element i on process i
// reads the node's x and v, adds its force g[i] into f, the node's owner
// (process 0) updates v and x from f, and every element reads the new x
// and v. Processes 1 and 2 recompute x and v from the force sum (8 bytes
// instead of 16); exchanging partials, every sharer sends its partial to
// every other (3 x 2 partials) instead of partials to the owner and the sum
// back (2 + 2).
TEST(CostModel, SharersExchangePartialsWhenAsked) {
  const Array f{0x10000}, x{0x20000}, v{0x30000}, e{0x40000}, g{0x50000}, y{0x60000};
  Analyzer<> a;
  a.region_begin();
  for (std::uint64_t i = 0; i < 3; ++i) {
    const Label old_xv = a.join(a.load(x.at(0), 8), a.load(v.at(0), 8));
    a.store(g.at(i), 8, a.compute(a.join(a.load(e.at(i), 8), old_xv)));
  }
  a.store(f.at(0), 8, kComputedBit);
  for (std::uint64_t i = 0; i < 3; ++i) a.store(f.at(0), 8, a.join(a.load(f.at(0), 8), a.load(g.at(i), 8)));
  use_sum_in_x_and_v(a, f, x, v, y);
  a.region_end();
  const OwnerMapPartitioner map{[&](Address home, int) -> ProcId {
    for (const Array& element_array : {e, g, y}) {
      if (element_array.contains(home, 3)) return static_cast<ProcId>(element_array.index(home));
    }
    return 0;
  }};
  LogicalVolumeCostModel owner_sums, exchanging;  // exchanging is the default
  owner_sums.exchange_partials = false;
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner, LogicalVolumeCostModel> to_owner(a.profile(), {}, map,
                                                                                           owner_sums);
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner, LogicalVolumeCostModel> among_sharers(a.profile(), {}, map,
                                                                                                exchanging);
  // Processes 1 and 2 keep their own copies of x and v (old x and v set
  // up before the region); their partials go to 0 (16 bytes).
  const CommEstimate reduced = to_owner.estimate(3);
  EXPECT_EQ(reduced.p2p_bytes, 16u + 2 * 8u);  // + the force sum back to 1 and 2
  EXPECT_EQ(reduced.at(1, 2), 0u);
  const CommEstimate exchanged = among_sharers.estimate(3);
  EXPECT_EQ(exchanged.p2p_bytes, 3 * 2 * 8u);
  EXPECT_EQ(exchanged.at(1, 2), 8u);
  EXPECT_EQ(exchanged.at(2, 1), 8u);
  EXPECT_EQ(exchanged.at(0, 1), 8u);  // 0's own partial
}

// A node shared by two elements over three steps: element i on process i
// reads the node's velocity v, adds its force g[i] into f, and the node's
// owner (process 0) updates v = v + f / m with the node's mass m, which
// the region only reads. Receiving the new v is 8 bytes a step, as few as
// receiving the sum f, plus m once: bytes alone keep owner-computes, whose
// new v depends on process 1's own partial of the same step (a round
// trip: two dependent rounds). Process 1 gets process 0's partial instead
// and updates its own copy of v; m and the first v are set up before the
// region, as a code with duplicated nodes does.
TEST(CostModel, RoundTripThroughASumBecomesAnExchange) {
  constexpr int steps = 3;
  const Array f{0x10000}, v{0x20000}, m{0x30000}, e{0x40000}, g{0x50000};
  Analyzer<> a;
  a.region_begin();
  for (int t = 0; t < steps; ++t) {
    for (std::uint64_t i = 0; i < 2; ++i) {
      a.store(g.at(i), 8, a.compute(a.join(a.load(e.at(i), 8), a.load(v.at(0), 8))));
    }
    a.store(f.at(0), 8, kComputedBit);
    for (std::uint64_t i = 0; i < 2; ++i) a.store(f.at(0), 8, a.join(a.load(f.at(0), 8), a.load(g.at(i), 8)));
    a.store(v.at(0), 8, a.compute(a.join(a.load(v.at(0), 8), a.join(a.load(f.at(0), 8), a.load(m.at(0), 8)))));
    a.iteration();
  }
  a.region_end();
  const OwnerMapPartitioner map{[&](Address home, int) -> ProcId {
    if (e.contains(home, 2)) return static_cast<ProcId>(e.index(home));
    if (g.contains(home, 2)) return static_cast<ProcId>(g.index(home));
    return 0;
  }};
  LogicalVolumeCostModel owner_sums;
  owner_sums.exchange_partials = false;
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner, LogicalVolumeCostModel> to_owner(a.profile(), {}, map,
                                                                                           owner_sums);
  const CommEstimate reduced = to_owner.estimate(2);
  EXPECT_EQ(reduced.at(1, 0), steps * 8u);  // process 1's partial every step
  EXPECT_EQ(reduced.at(0, 1), steps * 8u);  // the first v, then the new v of steps 0 and 1
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner> exchanging(a.profile(), {}, map);
  const CommEstimate exchanged = exchanging.estimate(2);
  EXPECT_EQ(exchanged.at(1, 0), steps * 8u);        // process 1's partial every step
  EXPECT_EQ(exchanged.at(0, 1), (steps - 1) * 8u);  // process 0's partial where process 1 needs the sum
}

// The sharers of a sum are those of the run's own decisions, taken with
// what had been delivered at the time: process 1's 16-byte contribution
// g[1] is combined into one 8-byte partial when f is summed, although
// process 0 receives g[1] itself later (for z). Counting g[1] as already
// there would make process 0 compute that contribution, and process 1 no
// sharer of the sum.
TEST(CostModel, SharersFollowWhatWasDeliveredAtTheTime) {
  const Array f{0x10000}, x{0x20000}, v{0x30000}, e{0x40000}, g{0x50000}, y{0x60000}, z{0x70000};
  Analyzer<> a;
  a.region_begin();
  for (std::uint64_t i = 0; i < 3; ++i) {
    const Label old_xv = a.join(a.load(x.at(0), 8), a.load(v.at(0), 8));
    a.store(g.at(2 * i), 16, a.compute(a.join(a.load(e.at(2 * i), 16), old_xv)));
  }
  a.store(f.at(0), 8, kComputedBit);
  for (std::uint64_t i = 0; i < 3; ++i) a.store(f.at(0), 8, a.join(a.load(f.at(0), 8), a.load(g.at(2 * i), 16)));
  use_sum_in_x_and_v(a, f, x, v, y);
  a.store(z.at(0), 8, a.compute(a.load(g.at(2), 16)));
  a.region_end();
  const OwnerMapPartitioner map{[&](Address home, int) -> ProcId {
    if (e.contains(home, 6) || g.contains(home, 6)) return static_cast<ProcId>(e.contains(home, 6) ? e.index(home) / 2 : g.index(home) / 2);
    if (y.contains(home, 3)) return static_cast<ProcId>(y.index(home));
    return 0;
  }};
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner> est(a.profile(), {}, map);
  const CommEstimate exchanged = est.estimate(3);
  // Partials among the three sharers (6 x 8), g[1] to 0 (16); old x and v
  // are set up before the region.
  EXPECT_EQ(exchanged.p2p_bytes, 3 * 2 * 8u + 16u);
  EXPECT_EQ(exchanged.at(1, 0), 8u + 16u);
  EXPECT_EQ(exchanged.at(1, 2), 8u);
}

// The replay decides each contribution afresh, as the run did: process 1's
// first contribution to f (h, 8 bytes, also used elsewhere) is not combined
// but sent to f's owner, process 0, which adds it itself; its second (g[1],
// 16 bytes) is combined into a partial. So process 0 is a sharer of the
// sum too. Seeing process 1's partial as under way from the start (it is,
// by the end of the run) would combine h into it, and leave process 0 out.
TEST(CostModel, ReplayDecidesEachContributionAsTheRunDid) {
  const Array f{0x10000}, x{0x20000}, v{0x30000}, e{0x40000}, g{0x50000}, y{0x60000}, h{0x70000}, w{0x80000};
  Analyzer<> a;
  a.region_begin();
  for (std::uint64_t i = 1; i < 3; ++i) {
    const Label old_xv = a.join(a.load(x.at(0), 8), a.load(v.at(0), 8));
    a.store(g.at(2 * i), 16, a.compute(a.join(a.load(e.at(2 * i), 16), old_xv)));
  }
  a.store(h.at(0), 8, a.compute(a.load(w.at(0), 8)));
  a.store(w.at(1), 8, a.compute(a.load(h.at(0), 8)));
  a.store(f.at(0), 8, kComputedBit);
  a.store(f.at(0), 8, a.join(a.load(f.at(0), 8), a.load(h.at(0), 8)));
  for (std::uint64_t i = 1; i < 3; ++i) a.store(f.at(0), 8, a.join(a.load(f.at(0), 8), a.load(g.at(2 * i), 16)));
  use_sum_in_x_and_v(a, f, x, v, y);
  a.region_end();
  const OwnerMapPartitioner map{[&](Address home, int) -> ProcId {
    if (e.contains(home, 6) || g.contains(home, 6)) return static_cast<ProcId>(e.contains(home, 6) ? e.index(home) / 2 : g.index(home) / 2);
    if (y.contains(home, 3)) return static_cast<ProcId>(y.index(home));
    if (h.contains(home, 1) || w.contains(home, 2)) return 1;
    return 0;
  }};
  Estimator<Profile0, NoSingletons, OwnerMapPartitioner> est(a.profile(), {}, map);
  const CommEstimate exchanged = est.estimate(3);
  // h to 0 (8), the partials of 1 and 2 to 0 (16), then each of 1 and 2
  // receives the other two sharers' (32); old x and v are set up before
  // the region.
  EXPECT_EQ(exchanged.p2p_bytes, 8u + 16u + 32u);
  EXPECT_EQ(exchanged.at(0, 1), 8u);
  EXPECT_EQ(exchanged.at(0, 2), 8u);
  EXPECT_EQ(exchanged.at(1, 0), 8u + 8u);
  EXPECT_EQ(exchanged.at(1, 2), 8u);
  EXPECT_EQ(exchanged.at(2, 1), 8u);
}

}  // namespace
}  // namespace commanalyzer

// Rank lists (ranklist.h) and the generated benchmark (benchgen.h): compact
// whatever the process and iteration counts of a stencil.
#include "commanalyzer/act/benchgen.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "commanalyzer/record/analyzer.h"
#include "commanalyzer/estimate/estimate.h"
#include "commanalyzer/act/ranklist.h"
#include "tools/builtin_examples.h"

namespace commanalyzer {
namespace {

std::vector<ProcId> expand_all(const std::vector<RankList>& lists) {
  std::vector<ProcId> out;
  for (const RankList& l : lists) {
    const std::vector<ProcId> e = l.expand();
    out.insert(out.end(), e.begin(), e.end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(RankList, GridOfAProcessGridIsOneList) {
  // Every rank of a 4 x 3 grid but the last column.
  const std::vector<ProcId> ranks = {0, 1, 3, 4, 6, 7, 9, 10};
  const std::vector<RankList> lists = compress_ranks(ranks);
  ASSERT_EQ(lists.size(), 1u);
  EXPECT_EQ(lists[0].start, 0);
  EXPECT_EQ(lists[0].dims, (std::vector<std::pair<int, int>>{{4, 3}, {2, 1}}));
  EXPECT_EQ(lists[0].expand(), ranks);
}

TEST(RankList, ThreeDimensionalBlockAndSingletons) {
  std::vector<ProcId> ranks;  // a 2 x 2 x 3 block of a 4 x 4 x 4 grid, from 5
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k) ranks.push_back(5 + 16 * i + 4 * j + k);
  const std::vector<RankList> lists = compress_ranks(ranks);
  ASSERT_EQ(lists.size(), 1u);
  EXPECT_EQ(lists[0].dims.size(), 3u);
  EXPECT_EQ(lists[0].expand(), ranks);
  EXPECT_EQ(compress_ranks(std::vector<ProcId>{7})[0].expand(), std::vector<ProcId>{7});
}

TEST(RankList, IrregularSetsSplitIntoRunsThatCoverThemExactly) {
  const std::vector<ProcId> ranks = {0, 1, 2, 5, 9, 13, 14, 20};
  const std::vector<RankList> lists = compress_ranks(ranks);
  EXPECT_GT(lists.size(), 1u);
  EXPECT_EQ(expand_all(lists), ranks);
}

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

GeneratedBenchmark heat2d_benchmark(std::uint64_t n, int steps, int procs) {
  Analyzer<> a;
  examples::heat2d(a, n, steps);
  Estimator<Analyzer<>::ProfileType> est(a.profile());
  return generate_benchmark(est.estimate(procs).trace);
}

// A stencil's benchmark: as many lines for 3 steps as for 12, for 16
// processes as for 64 (4 x 4 and 8 x 8 grids, blocks of 16 and 8 rows and
// columns), and every message is in it. (A 2 x 2 grid has no middle
// blocks, whose halos are longer than the boundary blocks': it needs fewer
// calls.)
TEST(Benchgen, StencilBenchmarkDoesNotGrowWithStepsOrProcesses) {
  const GeneratedBenchmark short_run = heat2d_benchmark(64, 3, 16), long_run = heat2d_benchmark(64, 12, 16);
  EXPECT_EQ(lines(short_run.source), lines(long_run.source));
  EXPECT_NE(long_run.source.find("i < 12"), std::string::npos) << long_run.source;
  const GeneratedBenchmark p64 = heat2d_benchmark(64, 3, 64);
  EXPECT_EQ(lines(short_run.source), lines(p64.source)) << short_run.source << p64.source;
  EXPECT_EQ(lines(short_run.header), lines(p64.header));
  EXPECT_NE(p64.header.find("#define BENCH_PROCS 64"), std::string::npos);
  EXPECT_NE(short_run.source.find("bench_allreduce(b, 8);"), std::string::npos);
  EXPECT_NE(short_run.source.find("bench_exchange("), std::string::npos);
}

// Iterations that differ are kept apart, in order; the phase after the
// last mark is not an iteration.
TEST(Benchgen, RunsFollowTheTrace) {
  MessageTrace trace{2, 5, {{0, 0, 1, 8}, {1, 0, 1, 8}, {2, 1, 0, 16}, {3, 0, 1, 8}}, {}};
  const std::string src = generate_benchmark(trace).source;
  const auto first = src.find("/* iterations 0-1 */"), second = src.find("/* iteration 2 */"),
             third = src.find("/* iteration 3 */");
  ASSERT_NE(first, std::string::npos) << src;
  ASSERT_NE(second, std::string::npos) << src;
  ASSERT_NE(third, std::string::npos) << src;
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  EXPECT_NE(src.find("bench_exchange(b, RANKS(1), -1, 16);"), std::string::npos) << src;
  EXPECT_EQ(src.find("after the last iteration"), std::string::npos) << src;  // nothing happens there
}

// An iteration's rounds are completed one after another (a pipeline's
// stages); equal rounds run as one loop.
TEST(Benchgen, RoundsWaitInTurnAndRepeatAsALoop) {
  MessageTrace trace{3, 2, {}, {}};
  for (std::uint32_t r = 0; r < 5; ++r) {
    trace.messages.push_back({0, 0, 1, 8, 0, r});
    trace.messages.push_back({0, 1, 2, 8, 0, r});
  }
  trace.messages.push_back({0, 2, 0, 16, 0, 0});
  std::sort(trace.messages.begin(), trace.messages.end(), [](const Message& a, const Message& b) {
    return std::tie(a.from, a.to, a.round) < std::tie(b.from, b.to, b.round);
  });
  const std::string src = generate_benchmark(trace).source;
  const std::string first_round =
      "  bench_exchange(b, RANKS(0, 2, 1), +1, 8);\n  bench_exchange(b, RANKS(2), -2, 16);\n  bench_wait(b);\n";
  const std::string later_rounds =
      "  for (int r = 0; r < 4; ++r) {\n    bench_exchange(b, RANKS(0, 2, 1), +1, 8);\n    bench_wait(b);\n  }\n";
  EXPECT_NE(src.find(first_round + later_rounds), std::string::npos) << src;
  EXPECT_NE(src.find("11 point-to-point messages"), std::string::npos) << src;
}

// Compute delays (from the work per iteration) go before the iteration's
// communication; iterations with different delays are different runs.
TEST(Benchgen, ComputeDelaysPerIteration) {
  MessageTrace trace{2, 4, {{0, 0, 1, 8}, {1, 0, 1, 8}, {2, 0, 1, 8}}, {}};
  BenchmarkOptions options;
  options.compute_seconds = {2e-6, 2e-6, 5e-6, 0};
  const std::string src = generate_benchmark(trace, options).source;
  EXPECT_NE(src.find("{ bench_compute(2e-06); pattern_0(&bench); bench_end_iteration(&bench); } /* iterations 0-1 */"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("bench_compute(5e-06); pattern_0(&bench); bench_end_iteration(&bench); /* iteration 2 */"),
            std::string::npos)
      << src;
}

TEST(Benchgen, RejectsMessagesPastMpiCounts) {
  MessageTrace trace{2, 2, {{0, 0, 1, std::uint64_t{1} << 33}}, {}};
  EXPECT_THROW(generate_benchmark(trace), std::invalid_argument);
}

}  // namespace
}  // namespace commanalyzer

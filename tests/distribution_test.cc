// Ownership by data distribution (locations.h, distribution.h): fixed owners
// per location, aligned arrays, the candidate portfolio, user maps.
#include "commanalyzer/estimate/distribution.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "commanalyzer/record/analyzer.h"
#include "commanalyzer/estimate/estimate.h"
#include "event_streams.h"

namespace commanalyzer {
namespace {

using testing::Array;
using Profile0 = Analyzer<>::ProfileType;

// The textbook 2-D Jacobi with a pointer swap: n x n, fixed boundary, u and
// v trade roles every step (no copy back). n >= 12: arrays of 1 KiB or more
// are tracked (Analyzer::kMinTrackedAllocation). With `coefficients`, each
// cell also reads its own four stencil weights, packed cell after cell (a
// variable-coefficient operator stored as a matrix's rows).
void jacobi_swap(Analyzer<>& a, std::uint64_t n, int steps, bool coefficients = false) {
  Array u{0x1000000, n}, v{0x2000000, n}, c{0x3000000, 4};
  a.allocation(u.base, 8 * n * n);
  a.allocation(v.base, 8 * n * n);
  if (coefficients) a.allocation(c.base, 8 * 4 * n * n);
  for (std::uint64_t i = 0; i < n * n; ++i) {
    a.store(u.at(i), 8, kComputedBit);
    a.store(v.at(i), 8, kComputedBit);
    for (std::uint64_t k = 0; coefficients && k < 4; ++k) a.store(c.at(i, k), 8, kComputedBit);
  }
  a.region_begin();
  for (int t = 0; t < steps; ++t) {
    for (std::uint64_t i = 1; i + 1 < n; ++i) {
      for (std::uint64_t j = 1; j + 1 < n; ++j) {
        Label sum = a.join(a.join(a.load(u.at(i - 1, j), 8), a.load(u.at(i + 1, j), 8)),
                           a.join(a.load(u.at(i, j - 1), 8), a.load(u.at(i, j + 1), 8)));
        for (std::uint64_t k = 0; coefficients && k < 4; ++k) sum = a.join(sum, a.load(c.at(i * n + j, k), 8));
        a.store(v.at(i, j), 8, a.compute(sum));
      }
    }
    std::swap(u, v);
    a.iteration();
  }
  a.region_end();
  a.finish();
}

DistributionMap map_of(const std::string& text) {
  std::istringstream in(text);
  return DistributionMap::parse(in, "map");
}

// The kept candidate: the fastest of those that share data and work
// between half and twice the mean; else of those sharing data; else any.
TEST(Distribution, KeptCandidateSharesTheWork) {
  auto candidate = [](double seconds, std::vector<std::uint64_t> work) {
    CommEstimate e;
    e.exchange_seconds = seconds;
    e.process_work = std::move(work);
    return e;
  };
  const std::vector<std::uint64_t> even_data{100, 100, 100, 100};
  // Faster, but one process computes 2.3 times the mean (LULESH's
  // proportional cut at 64 processes): the balanced one is kept.
  std::vector<CommEstimate> costed{candidate(1.0, {230, 57, 57, 56}), candidate(1.1, {100, 100, 100, 100})};
  EXPECT_EQ(keep_fastest(costed, {even_data, even_data}), 1u);
  // Twice the mean is still a share.
  costed[0].process_work = {200, 67, 67, 66};
  EXPECT_EQ(keep_fastest(costed, {even_data, even_data}), 0u);
  // Work uneven in every candidate (the program's own): the data decides.
  costed = {candidate(1.0, {300, 40, 30, 30}), candidate(1.1, {300, 40, 30, 30}), candidate(0.9, {400, 0, 0, 0})};
  EXPECT_EQ(keep_fastest(costed, {even_data, even_data, {400, 0, 0, 0}}), 0u);
  // Nothing shares the data: the fastest.
  EXPECT_EQ(keep_fastest(costed, {{400, 0, 0, 0}, {400, 0, 0, 0}, {0, 400, 0, 0}}), 2u);
}

TEST(Distribution, PointerSwapJacobiUnderTwoByTwoBlocksSendsEachHaloBothWays) {
  constexpr std::uint64_t n = 18;
  constexpr int steps = 6;
  Analyzer<> a;
  jacobi_swap(a, n, steps);
  DistributionPortfolio user;
  user.map = map_of("grid 1 18x18 2x2  # u; v is aligned with it\n");
  Estimator<Profile0, DensityDistanceScorer, DistributionPortfolio> est(a.profile(), {}, user);
  const CommEstimate e = est.estimate(4);
  EXPECT_EQ(e.distribution, "user map");
  // 2 cuts x 2 directions x (n - 2) interior points x 8 bytes, every step.
  EXPECT_EQ(e.p2p_bytes, 2u * 2 * (n - 2) * 8 * steps);
  EXPECT_EQ(e.collective_bytes(), 0u);
  // Every process sends to its two grid neighbours only.
  for (int p = 0; p < 4; ++p) EXPECT_EQ(e.partners(p), 2) << p;
}

TEST(Distribution, PortfolioFindsTheCartesianGridOfAStencil) {
  constexpr std::uint64_t n = 18;
  constexpr int steps = 6;
  Analyzer<> a;
  jacobi_swap(a, n, steps);
  Estimator<Profile0> est(a.profile());  // the default: ownership by location
  const CommEstimate four = est.estimate(4);
  EXPECT_EQ(four.distribution, "cartesian 2x2");
  EXPECT_EQ(four.p2p_bytes, 2u * 2 * (n - 2) * 8 * steps);
  // Slabs (block) cost more at 4: 3 cuts instead of 2 half-length ones.
  ASSERT_GE(four.candidates.size(), 2u);
  EXPECT_EQ(four.candidates.front().name, "block");
  EXPECT_EQ(four.candidates.front().bytes, 3u * 2 * (n - 2) * 8 * steps);
  // No array indexed indirectly: no graph partition is offered.
  for (const CandidateCost& c : four.candidates) EXPECT_NE(c.name, "metis");
}

// A candidate kept by name (a model's one decomposition for every size)
// is the only one costed where it is offered; where it is not, all are
// compared and the caller is told.
TEST(Distribution, ACandidateKeptByNameIsTheOnlyOneCostedWhereOffered) {
  constexpr std::uint64_t n = 18;
  constexpr int steps = 6;
  Analyzer<> a;
  jacobi_swap(a, n, steps);
  std::vector<std::string> notes;
  DistributionPortfolio slabs;
  slabs.keep = {{4, "block"}, {9, "cartesian 9x9"}};
  slabs.note = [&](const std::string& why) { notes.push_back(why); };
  Estimator<Profile0, DensityDistanceScorer, DistributionPortfolio> est(a.profile(), {}, slabs);
  const CommEstimate four = est.estimate(4);
  EXPECT_EQ(four.distribution, "block");  // where the grid alone would keep cartesian 2x2
  ASSERT_EQ(four.candidates.size(), 1u);
  EXPECT_EQ(four.p2p_bytes, 3u * 2 * (n - 2) * 8 * steps);
  EXPECT_TRUE(notes.empty());
  const CommEstimate nine = est.estimate(9);
  EXPECT_GT(nine.candidates.size(), 1u);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("'cartesian 9x9' is not a candidate for 9 processes"), std::string::npos) << notes[0];
}

// The stencil's weights, which the region only reads, stay with the cells
// that read them whatever shape their index order suggests (four entries
// per cell: strides 1 to 3): the grid is chosen by the arrays computed.
TEST(Distribution, ReadOnlyArraysDoNotChooseTheGrid) {
  constexpr std::uint64_t n = 18;
  constexpr int steps = 6;
  Analyzer<> a;
  jacobi_swap(a, n, steps, /*coefficients=*/true);
  Estimator<Profile0> est(a.profile());
  for (const int procs : {4, 9}) {
    const CommEstimate e = est.estimate(procs);
    const int side = procs == 4 ? 2 : 3;
    EXPECT_EQ(e.distribution, "cartesian " + std::to_string(side) + "x" + std::to_string(side));
    // As without the weights: (side - 1) cuts each way, both directions.
    EXPECT_EQ(e.p2p_bytes, 2u * (side - 1) * 2 * (n - 2) * 8 * steps) << procs;
  }
}

TEST(Distribution, AlignedArraysShareOwnersAndTheOwnerMapSaysSo) {
  Analyzer<> a;
  jacobi_swap(a, 12, 2);
  Estimator<Profile0> est(a.profile());
  const CommEstimate e = est.estimate(2);
  std::vector<OwnerRun> u, v;
  for (const OwnerRun& run : e.owner_map) {
    (run.array == 1 ? u : v).push_back(run);
    EXPECT_LT(run.rank, 2);
  }
  ASSERT_FALSE(u.empty());
  ASSERT_EQ(u.size(), v.size());
  for (std::size_t k = 0; k < u.size(); ++k) {
    EXPECT_EQ(u[k].first, v[k].first);
    EXPECT_EQ(u[k].last, v[k].last);
    EXPECT_EQ(u[k].rank, v[k].rank);
  }
}

TEST(Distribution, LocationGraphDoesNotGrowWithTimeSteps) {
  Analyzer<> two, eight;
  jacobi_swap(two, 12, 2);
  jacobi_swap(eight, 12, 8);
  const Estimator<Profile0> a(two.profile()), b(eight.profile());
  // A vertex per value chain grows with the steps; by location, the
  // estimate's graph has a vertex per location, as the location graph.
  EXPECT_GT(ValueGraph::build(eight.profile()).vertex_count(), 2 * ValueGraph::build(two.profile()).vertex_count());
  EXPECT_EQ(a.graph().vertex_count(), b.graph().vertex_count());
  EXPECT_EQ(b.graph().vertex_count(), b.locations().node_count());
  EXPECT_EQ(a.locations().node_count(), b.locations().node_count());
  // u and v aligned: one node per (i, j) but the four corners, which no
  // stencil reads.
  EXPECT_EQ(a.locations().location_count(), 12u * 12 - 4);
  // The census (the tool's summary line) counts the same nodes without a graph.
  const LocationIndex::Census census = b.location_census();
  EXPECT_EQ(census.locations, b.locations().location_count());
  EXPECT_EQ(census.temporaries, b.locations().node_count() - b.locations().location_count());
  EXPECT_EQ(census.classes, 1u);  // u and v, aligned
}

// y[i] = sum over a few random columns of x, read at indices from an
// array (as x[col[k]]): the graph partition is a candidate too.
TEST(Distribution, IndirectlyIndexedArraysAreOfferedAGraphPartition) {
  constexpr std::uint64_t n = 256;
  for (const bool indirect : {false, true}) {
    Analyzer<> a;
    const Array x{0x1000000}, y{0x2000000};
    a.allocation(x.base, 8 * n);
    a.allocation(y.base, 8 * n);
    a.region_begin();
    std::uint64_t seed = 7;
    for (std::uint64_t i = 0; i < n; ++i) {
      Label sum = a.load(x.at(i), 8);
      for (int k = 0; k < 3; ++k) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        const Address at = x.at((seed >> 33) % n);
        if (indirect) a.indexed_indirectly(at);
        sum = a.join(sum, a.load(at, 8));
      }
      a.store(y.at(i), 8, a.compute(sum));
    }
    a.region_end();
    a.finish();
    EXPECT_EQ(a.profile().arrays[0].indexed_indirectly, indirect);
    EXPECT_FALSE(a.profile().arrays[1].indexed_indirectly);
    Estimator<Profile0> est(a.profile());
    const CommEstimate e = est.estimate(4);
    bool offered = false;
    for (const CandidateCost& c : e.candidates) offered |= c.name == "metis";
    EXPECT_EQ(offered, indirect);
    // The one kept is the fastest predicted, within the balance tolerance
    // of its computation (choice.h).
    for (const CandidateCost& c : e.candidates) {
      EXPECT_GE(c.seconds() + as_fast_margin_seconds(e), e.predicted_seconds()) << c.name;
    }
  }
}

// A distributed partitioner (LocationPartitioner, e.g. ParmetisPartitioner)
// in the portfolio: its owners are the "parmetis" candidate, offered where
// an array is indexed indirectly, also in a copy of the portfolio.
struct EveryOtherNode {
  std::vector<ProcId> partition(const LocationIndex& index, int procs) const {
    std::vector<ProcId> owner(index.node_count());
    for (std::size_t a = 0; a < owner.size(); ++a) owner[a] = static_cast<ProcId>(a % procs);
    return owner;
  }
};
static_assert(LocationPartitioner<EveryOtherNode>);

TEST(Distribution, ADistributedPartitionerIsTheParmetisCandidate) {
  constexpr std::uint64_t n = 64;
  Analyzer<> a;
  const Array x{0x1000000}, y{0x2000000};
  a.allocation(x.base, 8 * n);
  a.allocation(y.base, 8 * n);
  a.region_begin();
  for (std::uint64_t i = 0; i < n; ++i) {
    const Address at = x.at((i * 7) % n);
    a.indexed_indirectly(at);
    a.store(y.at(i), 8, a.compute(a.join(a.load(x.at(i), 8), a.load(at, 8))));
  }
  a.region_end();
  a.finish();
  DistributionPortfolio only_distributed(false, false, false);
  int calls = 0;
  only_distributed.distributed = [&calls](const LocationIndex& index, int procs) {
    ++calls;
    return EveryOtherNode{}.partition(index, procs);
  };
  const DistributionPortfolio copy = only_distributed;
  Estimator<Profile0, DensityDistanceScorer, DistributionPortfolio> est(a.profile(), {}, copy);
  const CommEstimate e = est.estimate(4);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(e.distribution, "parmetis");
  ASSERT_EQ(e.candidates.size(), 1u);
  // Round-robin owners put every element's neighbour elsewhere: it sends.
  EXPECT_GT(e.total_bytes(), 0u);
  for (const OwnerRun& run : e.owner_map) {
    EXPECT_EQ(run.first, run.last);  // no two consecutive elements share an owner
    EXPECT_EQ(run.rank, static_cast<ProcId>(run.first % 4));
  }
}

// B += A^T, A += 1 (PRK's transpose), with A and B of one extent, so aligned: a graph partition would
// put A(i,j) with B(j,i) and send nothing, a distribution no MPI transpose
// has. Every index is computed from loop counters: blocks only, and the
// all-to-all of a block-distributed transpose.
TEST(Distribution, ATransposeIsDistributedInBlocks) {
  constexpr std::uint64_t n = 16;
  constexpr int P = 4;
  Analyzer<> a;
  const Array A{0x1000000}, B{0x2000000};
  a.allocation(A.base, 8 * n * n);
  a.allocation(B.base, 8 * n * n);
  a.region_begin();
  for (int step = 0; step < 2; ++step) {
    for (std::uint64_t i = 0; i < n; ++i) {
      for (std::uint64_t j = 0; j < n; ++j) {
        a.store(B.at(i * n + j), 8, a.join(a.load(B.at(i * n + j), 8), a.load(A.at(j * n + i), 8)));
      }
    }
    for (std::uint64_t i = 0; i < n * n; ++i) a.store(A.at(i), 8, a.compute(a.load(A.at(i), 8)));  // A += 1
    a.iteration();
  }
  a.region_end();
  a.finish();
  Estimator<Profile0> est(a.profile());
  const CommEstimate e = est.estimate(P);
  for (const CandidateCost& c : e.candidates) EXPECT_NE(c.name, "metis");
  // Rows in blocks: of A's n x n elements, those outside the diagonal
  // blocks go to B's owner, every step.
  EXPECT_EQ(e.distribution, "block");
  EXPECT_EQ(e.p2p_bytes, 2u * 8 * n * n * (P - 1) / P);
}

// PRK's Synch_p2p: A(i,j) = A(i-1,j) + A(i,j-1) - A(i-1,j-1), i fastest
// in memory, swept j outer. Cut across j (blocks, or squares) a process
// waits for the one before it to finish; cut across i the processes
// pipeline, one row apart. The kept distribution is the fastest, though
// squares send fewer bytes.
TEST(Distribution, APipelinedSweepIsCutAcrossItsInnerDimension) {
  constexpr std::uint64_t n = 32;
  constexpr int P = 4;
  Analyzer<> a;
  const Array A{0x1000000};
  a.allocation(A.base, 8 * n * n);
  auto at = [&](std::uint64_t i, std::uint64_t j) { return A.at(i + j * n); };
  for (std::uint64_t k = 0; k < n * n; ++k) a.store(A.at(k), 8, kComputedBit);
  a.region_begin();
  for (int step = 0; step < 3; ++step) {
    for (std::uint64_t j = 1; j < n; ++j) {
      for (std::uint64_t i = 1; i < n; ++i) {
        const Label s = a.join(a.join(a.load(at(i - 1, j), 8), a.load(at(i, j - 1), 8)), a.load(at(i - 1, j - 1), 8));
        a.store(at(i, j), 8, a.compute(s));
      }
    }
    a.iteration();
  }
  a.region_end();
  a.finish();
  Estimator<Profile0> est(a.profile());
  const CommEstimate e = est.estimate(P);
  EXPECT_EQ(e.distribution, "cartesian 1x4");
  const auto named = [&](const std::string& name) {
    const auto it = std::find_if(e.candidates.begin(), e.candidates.end(),
                                 [&](const CandidateCost& c) { return c.name == name; });
    EXPECT_NE(it, e.candidates.end()) << name;
    return it == e.candidates.end() ? CandidateCost{} : *it;
  };
  // Blocks of j: the processes run one after another; squares: two stages
  // of a quarter each at best; slabs of i: one process's share and the fill.
  EXPECT_GT(named("block").compute_seconds, 2 * e.compute_seconds);
  EXPECT_LT(named("cartesian 2x2").bytes, e.total_bytes());
  EXPECT_GT(named("cartesian 2x2").compute_seconds, e.compute_seconds);
  EXPECT_GT(named("cartesian 2x2").seconds(), e.predicted_seconds());
  EXPECT_LT(e.critical_path, 3 * (n - 1) * (n - 1) / P + 3 * n);
}

// A sweep done in chunks, each with a work array allocated and freed in
// the chunk (a hydro code's per-region temporaries): the work arrays are
// each process's own memory, so the estimate is the plain sweep's, whatever
// the chunk size.
TEST(Distribution, ScratchArraysDoNotChangeTheEstimate) {
  constexpr std::uint64_t n = 1024;
  constexpr int steps = 3, P = 4;
  const Array u{0x1000000}, unew{0x2000000}, work{0x3000000};
  auto run = [&](std::uint64_t chunk) {  // 0: no work array
    Analyzer<> a;
    testing::sweep_arrays(a, u, unew, n);
    a.region_begin();
    for (int t = 0; t < steps; ++t) {
      for (std::uint64_t c = 0; c < n; c += chunk == 0 ? n : chunk) {
        const std::uint64_t end = chunk == 0 ? n : c + chunk;
        if (chunk != 0) a.allocation(work.base, 8 * chunk);
        for (std::uint64_t i = std::max<std::uint64_t>(c, 1); i < std::min(end, n - 1); ++i) {
          const Label s = a.join(a.join(a.load(u.at(i - 1), 8), a.load(u.at(i), 8)), a.load(u.at(i + 1), 8));
          if (chunk == 0) {
            a.store(unew.at(i), 8, a.compute(s));
          } else {
            a.store(work.at(i - c), 8, a.compute(s));
            a.store(unew.at(i), 8, a.load(work.at(i - c), 8));
          }
        }
        if (chunk != 0) a.release(work.base);
      }
      for (std::uint64_t i = 1; i + 1 < n; ++i) a.store(u.at(i), 8, a.load(unew.at(i), 8));
      a.iteration();
    }
    a.region_end();
    a.finish();
    return a;
  };
  const Analyzer<> plain = run(0);
  const CommEstimate reference = Estimator<Profile0>(plain.profile()).estimate(P);
  EXPECT_GT(reference.p2p_bytes, 0u);
  for (std::uint64_t chunk : {128, 256, 512}) {
    const Analyzer<> chunked = run(chunk);
    ASSERT_TRUE(std::all_of(chunked.profile().arrays.begin() + 2, chunked.profile().arrays.end(),
                            [](const auto& array) { return array.scratch; }));
    const CommEstimate e = Estimator<Profile0>(chunked.profile()).estimate(P);
    EXPECT_EQ(e.p2p_bytes, reference.p2p_bytes) << chunk;
    EXPECT_EQ(e.distribution, reference.distribution) << chunk;
  }
}

// A parameter block every cell reads (a domain object's scalars, 1,312 B
// like LULESH's) is each process's own copy, as in an MPI code, also when
// a result is stored in it: the estimate is the one without it. A
// parameter block as large as the data is not copied (each process could
// not hold it) and is read remotely.
TEST(Distribution, SmallParameterBlocksAreEveryProcesssOwn) {
  constexpr std::uint64_t n = 1024;
  constexpr int steps = 3, P = 4;
  const Array u{0x1000000}, unew{0x2000000}, params{0x3000000};
  auto run = [&](std::uint64_t param_slots) {  // 0: no parameter block
    Analyzer<> a;
    testing::sweep_arrays(a, u, unew, n);
    if (param_slots != 0) a.allocation(params.base, 8 * param_slots);
    for (std::uint64_t k = 0; k < param_slots; ++k) a.store(params.at(k), 8, kComputedBit);
    a.region_begin();
    testing::jacobi1d(a, u, unew, n, steps, [&](std::uint64_t i) {
      return param_slots == 0 ? kNoLabel : a.load(params.at(i % 4 + (i % 2) * (param_slots - 4)), 8);
    });
    if (param_slots != 0) {  // a result kept in a local, then stored in the block (a time step)
      const Label dt = a.store(0x9000000, 8, a.compute(a.load(u.at(1), 8)));
      a.store(params.at(0), 8, dt);
    }
    a.region_end();
    a.finish();
    return a;
  };
  const Analyzer<> plain = run(0);
  const CommEstimate reference = Estimator<Profile0>(plain.profile()).estimate(P);
  EXPECT_GT(reference.p2p_bytes, 0u);
  const Analyzer<> with_block = run(164);
  EXPECT_FALSE(with_block.profile().arrays[2].copied_into);  // a scalar stored in it is not an array's copy
  const CommEstimate copied = Estimator<Profile0>(with_block.profile()).estimate(P);
  EXPECT_EQ(copied.p2p_bytes, reference.p2p_bytes);
  EXPECT_EQ(copied.p2p_messages, reference.p2p_messages);
  EXPECT_EQ(copied.collective_bytes(), reference.collective_bytes());
  // 2 n slots: more than a process's share of all the data (4 n / P).
  const Analyzer<> with_table = run(2 * n);
  EXPECT_GT(Estimator<Profile0>(with_table.profile()).estimate(P).total_bytes(), reference.total_bytes());
}

// Candidates: blocks, and everything on process 0 (what a partitioner can
// return on a graph dominated by temporaries). The latter sends nothing
// and its mean work equals the blocks'; it is not a decomposition on P
// processes, so the blocks are kept.
struct BlocksOrAllOnOne {
  std::vector<Distribution> candidates(const LocationIndex& index, int procs) const {
    Distribution blocks{"block", std::vector<ProcId>(index.node_count(), 0), {}};
    for (std::size_t node = 0; node < index.location_count(); ++node) {
      blocks.node_owner[node] = static_cast<ProcId>(node * procs / index.location_count());
    }
    for (std::size_t node = index.location_count(); node < index.node_count(); ++node) blocks.node_owner[node] = 0;
    return {Distribution{"one", std::vector<ProcId>(index.node_count(), 0), {}}, blocks};
  }
};

TEST(Distribution, EveryProcessOwnsPartOfTheData) {
  constexpr std::uint64_t n = 256;
  Analyzer<> a;
  const Array u{0x1000000}, unew{0x2000000};
  a.allocation(u.base, 8 * n);
  a.allocation(unew.base, 8 * n);
  a.region_begin();
  testing::jacobi1d(a, u, unew, n, 3);
  a.region_end();
  a.finish();
  using TwoCandidates = Estimator<Profile0, DensityDistanceScorer, BlocksOrAllOnOne>;
  const CommEstimate e = TwoCandidates(a.profile()).estimate(4);
  EXPECT_EQ(e.distribution, "block");
  EXPECT_GT(e.p2p_bytes, 0u);
  ASSERT_EQ(e.candidates.size(), 2u);
  EXPECT_EQ(e.candidates[0].bytes, 0u);  // costed, and listed, but not kept
  EXPECT_LE(e.candidates[0].seconds(), e.candidates[1].seconds());
  for (std::uint64_t bytes : e.process_memory) EXPECT_GT(bytes, 0u);
  // With one process every candidate is whole: the first is kept.
  EXPECT_EQ(TwoCandidates(a.profile()).estimate(1).distribution, "one");
}

// A stencil that copies its new values back (u[i] = unew[i]) holds copies
// of values homed in unew: its first values are no one's own copy, even
// where every process could hold all of u. With an unbounded ghost budget
// (every array small enough to copy) the halo of the first step is still
// sent: the estimate is the one with nothing copied. (unew has a row of
// padding: not aligned with u, its values do not mark u's elements.)
TEST(Distribution, ArraysCopiedIntoAreNotPrivateCopies) {
  constexpr std::uint64_t n = 512;
  const Array u{0x1000000}, unew{0x2000000};
  Analyzer<> a;
  testing::sweep_arrays(a, u, unew, n, /*unew_padding=*/8);
  a.region_begin();
  testing::jacobi1d(a, u, unew, n, 3);
  a.region_end();
  a.finish();
  EXPECT_TRUE(a.profile().arrays[0].copied_into);
  EXPECT_FALSE(a.profile().arrays[1].copied_into);
  LogicalVolumeCostModel unbounded, none;
  unbounded.ghost_memory = std::numeric_limits<double>::infinity();
  none.ghost_memory = 0;
  using Portfolio = Estimator<Profile0, DensityDistanceScorer, DistributionPortfolio>;
  const CommEstimate copies_all = Portfolio(a.profile(), {}, {}, unbounded).estimate(4);
  const CommEstimate copies_none = Portfolio(a.profile(), {}, {}, none).estimate(4);
  EXPECT_GT(copies_none.p2p_bytes, 0u);
  EXPECT_EQ(copies_all.p2p_bytes, copies_none.p2p_bytes);
}

// Counts that copy other small arrays have location graphs of their own;
// estimating several counts at once lets each go after its last count,
// and gives what estimating them one at a time gives.
TEST(Distribution, CountsWithTheirOwnLocationGraphsEstimateAsAlone) {
  constexpr std::uint64_t n = 1024;
  const Array u{0x1000000}, unew{0x2000000}, c{0x3000000}, d{0x4000000};
  Analyzer<> a;
  a.allocation(u.base, 8 * n);
  a.allocation(unew.base, 8 * n);
  a.allocation(c.base, 8 * 128);  // copied at 2 and 8 processes (ghost budget: all arrays' bytes / P)
  a.allocation(d.base, 8 * 256);  // copied at 2
  for (std::uint64_t i = 0; i < n; ++i) a.store(u.at(i), 8, a.compute(a.load(unew.at(i), 8)));
  for (std::uint64_t i = 0; i < 256; ++i) a.store(d.at(i), 8, a.compute(a.load(c.at(i % 128), 8)));
  a.region_begin();
  for (int t = 0; t < 3; ++t) {
    for (std::uint64_t i = 1; i + 1 < n; ++i) {
      const Label near = a.join(a.load(u.at(i - 1), 8), a.load(u.at(i + 1), 8));
      a.store(unew.at(i), 8, a.compute(a.join(near, a.join(a.load(c.at(i % 128), 8), a.load(d.at(i % 256), 8)))));
    }
    for (std::uint64_t i = 1; i + 1 < n; ++i) a.store(u.at(i), 8, a.compute(a.load(unew.at(i), 8)));
    a.iteration();
  }
  a.region_end();
  a.finish();
  using Portfolio = Estimator<Profile0, DensityDistanceScorer, DistributionPortfolio>;
  const std::vector<int> procs = {2, 8, 32, 4};
  Portfolio alone(a.profile());
  EXPECT_NE(&alone.locations(2), &alone.locations(8));
  EXPECT_NE(&alone.locations(8), &alone.locations(32));
  std::vector<CommEstimate> one_at_a_time;
  for (int p : procs) one_at_a_time.push_back(alone.estimate(p));
  for (int round = 0; round < 3; ++round) {
    Portfolio together(a.profile());
    together.locations(1);  // a graph no count asked for (the tool's summary line)
    const std::vector<CommEstimate> all = together.estimate(procs, 2);
    for (std::size_t k = 0; k < procs.size(); ++k) {
      EXPECT_EQ(all[k].matrix, one_at_a_time[k].matrix) << procs[k];
      EXPECT_EQ(all[k].distribution, one_at_a_time[k].distribution) << procs[k];
    }
  }
}

// Candidates: 1-D blocks, and the same cuts moved so that process 0 owns
// 5/8 of the array (the others 1/8 each): as many cuts, as many bytes, as
// fast by messages, but process 0 holds and computes 2.5x the mean.
struct SkewedOrBlocks {
  std::vector<Distribution> candidates(const LocationIndex& index, int procs) const {
    const std::size_t L = index.location_count();
    auto split = [&](std::string name, auto owner_of) {
      Distribution d{std::move(name), std::vector<ProcId>(index.node_count(), 0), {}};
      for (std::size_t node = 0; node < L; ++node) d.node_owner[node] = owner_of(index.element(node));
      return d;
    };
    std::uint64_t n = 0;  // elements per array
    for (std::size_t node = 0; node < L; ++node) n = std::max(n, index.element(node) + 1);
    auto skewed = [&](std::uint64_t i) {
      const std::uint64_t first = 5 * n / 8;
      return i < first ? ProcId{0} : static_cast<ProcId>(1 + (i - first) * (procs - 1) / (n - first));
    };
    auto blocks = [&](std::uint64_t i) { return static_cast<ProcId>(i * procs / n); };
    return {split("skewed", skewed), split("block", blocks)};
  }
};

TEST(Distribution, EveryProcessHasItsShareOfTheData) {
  constexpr std::uint64_t n = 256;
  constexpr int P = 4;
  Analyzer<> a;
  const Array u{0x1000000}, unew{0x2000000};
  a.allocation(u.base, 8 * n);
  a.allocation(unew.base, 8 * n);
  a.region_begin();
  testing::jacobi1d(a, u, unew, n, 3);
  a.region_end();
  a.finish();
  const CommEstimate e = Estimator<Profile0, DensityDistanceScorer, SkewedOrBlocks>(a.profile()).estimate(P);
  ASSERT_EQ(e.candidates.size(), 2u);
  EXPECT_EQ(e.candidates[0].bytes, e.candidates[1].bytes);  // same cuts: as cheap by messages
  EXPECT_EQ(e.distribution, "block");
  for (const auto* share : {&e.process_work, &e.process_memory}) {
    const auto [least, most] = std::minmax_element(share->begin(), share->end());
    EXPECT_LE(*most, 2 * *least);
  }
}

TEST(Distribution, MapErrorsNameTheLineAndTheProblem) {
  auto error_of = [](const std::string& text) {
    try {
      map_of(text);
    } catch (const DistributionError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("array 1 0 9\n"), "map:1: expected 'array ID FIRST LAST RANK' with 0 <= FIRST <= LAST and RANK >= 0");
  EXPECT_EQ(error_of("# fine\narray 1 9 0 0\n"),
            "map:2: expected 'array ID FIRST LAST RANK' with 0 <= FIRST <= LAST and RANK >= 0");
  EXPECT_EQ(error_of("slab 1\n"), "map:1: unknown directive 'slab' (expected 'array' or 'grid')");
  EXPECT_EQ(error_of("grid 1 8x8 2x2x2\n"),
            "map:1: '8x8' and '2x2x2' must be 1 to 3 positive extents of one rank, as 64x64 2x2");
  EXPECT_EQ(error_of("grid 1 8x8 16x1\n"), "map:1: process grid 16x1 is finer than the array 8x8");
  EXPECT_EQ(error_of("array 0 0 1 0\n"), "map:1: array numbers start at 1");
  EXPECT_EQ(error_of("array 1 0 1 0 extra\n"), "map:1: unexpected 'extra'");
  EXPECT_EQ(error_of("# nothing\n"), "map: no 'array' or 'grid' line");

  const DistributionMap map = map_of("array 2 0 99 3\ngrid 1 4x4 2x2\n");
  EXPECT_EQ(map.max_rank(), 3);
  EXPECT_NO_THROW(map.check(2, 4));
  EXPECT_THROW(map.check(1, 4), DistributionError);  // names array 2 of 1
  try {
    map.check(2, 2);
    ADD_FAILURE() << "rank 3 of 2 processes accepted";
  } catch (const DistributionError& e) {
    EXPECT_EQ(std::string(e.what()), "distribution uses rank 3, but only 2 processes are estimated");
  }
}

TEST(Distribution, RangesAssignElementsAndTheRestIsBlock) {
  Analyzer<> a;
  jacobi_swap(a, 12, 1);
  Estimator<Profile0> est(a.profile());
  const LocationIndex& index = est.locations();
  std::uint64_t uncovered = 0;
  // Elements 0..23 (the first two rows) on rank 1; nothing else named.
  const std::vector<ProcId> owner = map_of("array 1 0 23 1\n").owners(index, 2, &uncovered);
  EXPECT_EQ(uncovered, index.location_count() - (24 - 2));  // rows 0 and 1 but the corners
  for (LocationIndex::Node node = 0; node < index.location_count(); ++node) {
    const std::uint64_t i = index.element(node);
    EXPECT_EQ(owner[node], i < 24 ? 1 : static_cast<ProcId>(i * 2 / 144)) << i;
  }
}

// A map must fit the arrays it names: a grid of all their elements, ranges
// within them; else the estimate would silently cost another distribution.
TEST(Distribution, MapsThatDoNotFitTheArrayAreErrors) {
  Analyzer<> a;
  jacobi_swap(a, 12, 1);
  Estimator<Profile0> est(a.profile());
  const LocationIndex& index = est.locations();
  EXPECT_NO_THROW(map_of("grid 1 12x12 2x2\n").owners(index, 4));
  EXPECT_NO_THROW(map_of("array 1 0 143 1\n").owners(index, 2));
  for (const char* text : {"grid 1 24x24 2x2\n", "grid 1 12x6 2x1\n", "array 1 100 144 1\n"}) {
    try {
      map_of(text).owners(index, 4);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const DistributionError& e) {
      EXPECT_NE(std::string(e.what()).find("array 1 has 144 elements of 8 B"), std::string::npos) << e.what();
    }
  }
}

// A growing buffer (realloc, std::vector): values born in the freed block
// live on where the copy put them, aligned with arrays of the new extent.
TEST(Distribution, AGrownArraysValuesLiveWhereTheCopyPutThem) {
  Analyzer<> a;
  const Address first = 0x100000, grown = 0x200000, other = 0x300000;
  a.allocation(first, 1024);
  for (Address i = 0; i < 128; ++i) a.store(first + 8 * i, 8, kComputedBit);
  a.allocation(grown, 2048);
  a.copy(grown, first, 1024);
  a.release(first);
  for (Address i = 128; i < 256; ++i) a.store(grown + 8 * i, 8, kComputedBit);
  a.allocation(other, 2048);
  a.region_begin();
  for (Address i = 1; i + 1 < 256; ++i) {
    a.store(other + 8 * i, 8, a.compute(a.join(a.load(grown + 8 * (i - 1), 8), a.load(grown + 8 * (i + 1), 8))));
  }
  a.region_end();
  a.finish();
  ASSERT_EQ(a.profile().moves.size(), 1u);
  EXPECT_TRUE(a.profile().arrays[0].freed);
  Estimator<Profile0> est(a.profile());
  const LocationIndex& index = est.locations();
  std::size_t live = 0;
  for (const auto& c : index.classes()) live += c.locations != 0;
  EXPECT_EQ(live, 1u);  // grown and other, aligned; nothing left in the freed block
  EXPECT_EQ(index.location_count(), 256u);
  // Block on 2: element 127 (born in the freed block) and 128 sit on either
  // side of the cut: other[127] and other[128] each read one remote value.
  EXPECT_EQ(est.estimate(2).p2p_bytes, 2u * 8);
}

// Where values of freed arrays live: the last move covering their byte,
// followed through every freed array on the way.
TEST(Distribution, LiveHomeFollowsTheLastMoveCoveringEachByte) {
  const std::vector<ArrayExtent> arrays{{0, 100, true}, {1000, 64, true}, {2000, 200, false}};
  const std::vector<ArrayMove> moves{{1, 2, 0, 0, 64}, {1, 3, 32, 100, 16}, {2, 3, 0, 0, 16}};
  const LastMoves last(moves, arrays.size());
  using Home = std::pair<std::uint32_t, std::uint64_t>;
  EXPECT_EQ(live_home(1, 40, arrays, last), (Home{3, 108}));  // the later move, over the first
  EXPECT_EQ(live_home(1, 8, arrays, last), (Home{3, 8}));     // 1 -> 2 -> 3
  EXPECT_EQ(live_home(1, 56, arrays, last), (Home{2, 56}));   // no move out of 2 covers it
  EXPECT_EQ(live_home(1, 80, arrays, last), (Home{1, 80}));   // never copied
}

// The painted intervals answer as a scan of every move would: the last
// one in recorded order whose source range holds the byte.
TEST(Distribution, LastMovesAgreesWithAScanOfEveryMove) {
  std::vector<ArrayMove> moves;
  std::uint64_t seed = 12345;
  auto next = [&](std::uint64_t bound) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (seed >> 33) % bound;
  };
  for (int k = 0; k < 300; ++k) {
    const auto from = static_cast<std::uint32_t>(1 + next(3));
    const std::uint64_t first = next(1000);
    moves.push_back({from, static_cast<std::uint32_t>(1 + next(3)), first, next(500), next(1000 - first)});
  }
  const LastMoves last(moves, 3);
  for (std::uint32_t g = 1; g <= 3; ++g) {
    for (std::uint64_t offset = 0; offset < 1000; ++offset) {
      const ArrayMove* scanned = nullptr;
      for (const ArrayMove& m : moves) {
        if (m.from == g && offset >= m.from_offset && offset < m.from_offset + m.bytes) scanned = &m;
      }
      ASSERT_EQ(last.covering(g, offset), scanned) << "array " << g << " offset " << offset;
    }
  }
}

// The Parallel Research Kernels' stencil refreshes its input every step
// (`in[i] += 1.0`): a ghost copy is received again each step, not kept
// current from the ghost copy before (which no SPMD code does).
TEST(Distribution, GhostUpdatesAreReceivedEveryStep) {
  constexpr Address n = 256;
  constexpr int steps = 5;
  Analyzer<> a;
  const Address in = 0x1000000, out = 0x2000000;
  a.allocation(in, 8 * n);
  a.allocation(out, 8 * n);
  for (Address i = 0; i < n; ++i) a.store(in + 8 * i, 8, kComputedBit);
  a.region_begin();
  for (int t = 0; t < steps; ++t) {
    for (Address i = 1; i + 1 < n; ++i) {
      const Label sum = a.join(a.load(in + 8 * (i - 1), 8), a.load(in + 8 * (i + 1), 8));
      a.store(out + 8 * i, 8, a.compute(a.join(a.load(out + 8 * i, 8), sum)));
    }
    for (Address i = 0; i < n; ++i) a.store(in + 8 * i, 8, a.compute(a.load(in + 8 * i, 8)));
    a.iteration();
  }
  a.region_end();
  a.finish();
  Estimator<Profile0> est(a.profile());
  // Block on 2: in[127] and in[128] cross the cut, each way, every step.
  EXPECT_EQ(est.estimate(2).p2p_bytes, 2u * 8 * steps);
}

TEST(Distribution, GridOwnerCutsEveryDimensionInBalancedBlocks) {
  using distribution_internal::grid_owner;
  const std::vector<std::uint64_t> dims{4, 6}, grid{2, 3};
  EXPECT_EQ(grid_owner(0, dims, grid), 0);
  EXPECT_EQ(grid_owner(5, dims, grid), 2);   // row 0, column 5
  EXPECT_EQ(grid_owner(12, dims, grid), 3);  // row 2, column 0
  EXPECT_EQ(grid_owner(23, dims, grid), 5);
  // By index: a 5 x 7 array cut where the 4 x 6 one is; the extra row and
  // column go to the last blocks.
  const std::vector<std::uint64_t> big{5, 7};
  EXPECT_EQ(grid_owner(2 * 7 + 1, big, grid, &dims), grid_owner(2 * 6 + 1, dims, grid));
  EXPECT_EQ(grid_owner(4 * 7 + 6, big, grid, &dims), 5);
}

TEST(Distribution, ATallyGoesToTheMostVotedLowestProcess) {
  distribution_internal::ProcessTally tally(8);
  tally.add(6, 2);
  tally.add(3, 1);
  tally.add(5, 2);
  EXPECT_EQ(tally.take_most(), 5);  // 5 and 6 tie: the lower
  tally.add(7, 1);                  // the last node's votes are gone
  EXPECT_EQ(tally.take_most(), 7);
  tally.add(4, 0);                  // no weight: as max_element over zeros
  EXPECT_EQ(tally.take_most(), 0);
}

TEST(Distribution, GridOwnersOfAWholeArrayAreEachElementsGridOwner) {
  using distribution_internal::grid_owner;
  using distribution_internal::grid_owners;
  const std::vector<std::uint64_t> cut{4, 5, 3};
  for (const auto& [dims, grid] : std::vector<std::pair<std::vector<std::uint64_t>, std::vector<std::uint64_t>>>{
           {{30}, {4}}, {{5, 7}, {2, 3}}, {{6, 5, 4}, {3, 1, 2}}, {{4, 9, 3}, {2, 2, 3}}}) {
    const std::vector<ProcId> all = grid_owners(dims, grid);
    const bool cuttable = dims.size() == cut.size();
    const std::vector<ProcId> by_index = cuttable ? grid_owners(dims, grid, &cut) : std::vector<ProcId>{};
    std::uint64_t elements = 1;
    for (std::uint64_t d : dims) elements *= d;
    ASSERT_EQ(all.size(), elements);
    for (std::uint64_t i = 0; i < elements; ++i) {
      EXPECT_EQ(all[i], grid_owner(i, dims, grid)) << i;
      if (cuttable) {
        EXPECT_EQ(by_index[i], grid_owner(i, dims, grid, &cut)) << i;
      }
    }
  }
}

// The learning window: candidates compared on the whole run projected
// from the first iterations, the one kept costed on the whole run. A 2-D
// five-point sweep repeats the same halo exchange every step: projected
// from one iteration or three, each candidate costs what the whole run
// costs it (the first step's traffic once, the last step's for each later
// one), more than a run that stops there, and the kept estimate is the
// whole run's.
TEST(Distribution, CandidatesComparedOnTheFirstIterationsKeepTheWholeRunsChoice) {
  constexpr std::uint64_t n = 24;
  constexpr int kSteps = 12, kWindow = 3, P = 4;
  const Array u{0x1000000, n}, v{0x2000000, n};
  auto sweep = [&](Analyzer<>& a, int steps) {
    a.allocation(u.base, 8 * n * n);
    a.allocation(v.base, 8 * n * n);
    for (std::uint64_t k = 0; k < n * n; ++k) a.store(u.at(k), 8, kComputedBit);
    a.region_begin();
    for (int step = 0; step < steps; ++step) {
      for (std::uint64_t i = 1; i + 1 < n; ++i) {
        for (std::uint64_t j = 1; j + 1 < n; ++j) {
          Label s = a.join(a.load(u.at(i - 1, j), 8), a.load(u.at(i + 1, j), 8));
          s = a.join(s, a.join(a.load(u.at(i, j - 1), 8), a.load(u.at(i, j + 1), 8)));
          a.store(v.at(i, j), 8, a.compute(a.join(s, a.load(u.at(i, j), 8))));
        }
      }
      for (std::uint64_t i = 1; i + 1 < n; ++i) {
        for (std::uint64_t j = 1; j + 1 < n; ++j) a.store(u.at(i, j), 8, a.load(v.at(i, j), 8));
      }
      a.iteration();
    }
    a.region_end();
    a.finish();
  };
  Analyzer<> long_run;
  sweep(long_run, kSteps);
  Estimator<Profile0> whole(long_run.profile());
  const CommEstimate w = whole.estimate(P);
  EXPECT_EQ(w.learned_iterations, 0u);
  for (int window : {1, kWindow}) {
    SCOPED_TRACE(window);
    Analyzer<> short_run;
    sweep(short_run, window + 1);  // the window: what comes before the first mark, and `window` iterations
    Estimator<Profile0> learning(long_run.profile()), stopped(short_run.profile());
    learning.learn_from(window);
    const CommEstimate l = learning.estimate(P), s = stopped.estimate(P);
    EXPECT_EQ(l.learned_iterations, static_cast<std::size_t>(window));
    EXPECT_EQ(l.distribution, w.distribution);
    EXPECT_EQ(l.total_bytes(), w.total_bytes());
    EXPECT_EQ(l.messages(), w.messages());
    EXPECT_EQ(l.phase_bytes, w.phase_bytes);
    ASSERT_EQ(l.candidates.size(), w.candidates.size());
    ASSERT_GT(l.candidates.size(), 1u);
    for (std::size_t c = 0; c < l.candidates.size(); ++c) {
      EXPECT_EQ(l.candidates[c].name, w.candidates[c].name);
      EXPECT_GT(s.candidates[c].bytes, 0u) << l.candidates[c].name;
      EXPECT_LT(s.candidates[c].bytes, l.candidates[c].bytes) << l.candidates[c].name;
      EXPECT_EQ(l.candidates[c].bytes, w.candidates[c].bytes) << l.candidates[c].name;
      EXPECT_NEAR(l.candidates[c].exchange_seconds, w.candidates[c].exchange_seconds,
                  1e-9 * w.candidates[c].exchange_seconds)
          << l.candidates[c].name;
      EXPECT_NEAR(l.candidates[c].compute_seconds, w.candidates[c].compute_seconds,
                  1e-9 * w.candidates[c].compute_seconds)
          << l.candidates[c].name;
    }
  }
  // A window that reaches the last mark is the whole run.
  Estimator<Profile0> all(long_run.profile());
  all.learn_from(kSteps - 1);
  EXPECT_EQ(all.estimate(P).learned_iterations, 0u);
}

}  // namespace
}  // namespace commanalyzer

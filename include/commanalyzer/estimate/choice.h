// Which candidate distribution an MPI programmer keeps (Estimator::estimate):
// the one that runs fastest, not the one that sends least, as processes
// that wait for each other within an iteration (a pipelined sweep cut
// across its direction) lose what fewer bytes would save, and a process
// with more than its share of the work holds every other one up.
//
//   CommEstimate e = project_run(stopped_before, stopped_after, iterations);  // a window's
//   allow_for_uneven_blocks(e, owned[i]);                                     // each candidate's time
//   compared_only(e);                                                         // ... all it keeps
//   std::size_t kept = keep_fastest(costed, owned);
#ifndef COMMANALYZER_CHOICE_H_
#define COMMANALYZER_CHOICE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "commanalyzer/estimate/comm_estimate.h"
#include "commanalyzer/estimate/partitioner.h"

namespace commanalyzer {

// Work within this share of the mean is balanced: METIS's default
// imbalance (kMetisImbalancePermille), the tolerance the partitioned
// candidates are cut to (tools/zoltan_phg.cc's IMBALANCE_TOL too). A
// decomposition is balanced only to within it, so computations closer
// than that share do not tell two decompositions apart (keep_fastest).
inline constexpr double kBalanceTolerance = kMetisImbalancePermille / 1000.0;

// The largest share, as a multiple of the mean (0 where all are 0).
inline double largest_share(const std::vector<std::uint64_t>& share) {
  std::uint64_t total = 0, most = 0;
  for (std::uint64_t x : share) {
    total += x;
    most = std::max(most, x);
  }
  return total == 0 ? 0.0 : static_cast<double>(most) * static_cast<double>(share.size()) / static_cast<double>(total);
}

// Every process has between half and twice the mean share.
inline bool balanced(const std::vector<std::uint64_t>& share) {
  if (share.empty()) return true;
  std::uint64_t total = 0;
  for (std::uint64_t x : share) total += x;
  return std::all_of(share.begin(), share.end(), [&](std::uint64_t x) {
    const std::uint64_t scaled = x * share.size();  // x / mean = scaled / total
    return 2 * scaled >= total && scaled <= 2 * total;
  });
}

// The computation in a candidate's predicted time is its slowest
// process's work (the cost model's busiest_work). Where the candidate's
// data is itself uneven, a process owning d times the mean bytes (whole
// planes of a small grid: 11 node planes split 6 and 5; a mesh's shared
// nodes on one side), work in the same proportion is the analysis size's,
// not the decomposition's: it shrinks as the blocks grow to the size the
// program runs at. Only the work beyond the data's share counts: the
// busiest process's over d, and never less than the mean.
inline void allow_for_uneven_blocks(CommEstimate& e, const std::vector<std::uint64_t>& owned) {
  const double data_share = largest_share(owned);
  if (data_share == 0 || e.busiest_work <= e.mean_work) return;
  const double counted = std::max(static_cast<double>(e.mean_work), static_cast<double>(e.busiest_work) / data_share);
  e.compute_seconds = (counted + static_cast<double>(e.waiting)) * e.seconds_per_value;
}

// A candidate's whole run of `iterations` marked steps, projected from the
// run stopped at mark k (`last`: the k + 1 steps up to it, the first being
// what comes before the first mark) and at mark k - 1 (`before`): the last
// step's costs, last's minus before's, stand for each later step, as a
// time loop repeats its exchanges, while the first step's (data received
// once and kept) count once, as in the whole run. Only what the comparison
// reads is projected (keep_fastest, CandidateCost): bytes, messages,
// collectives, work, waiting and times.
inline CommEstimate project_run(const CommEstimate& before, CommEstimate last, std::size_t iterations) {
  if (iterations <= last.iterations + 1) return last;
  const std::uint64_t repeats = iterations - (last.iterations + 1);
  // Later costs never undo earlier ones: a run stopped later holds all of an earlier stop's.
  auto grow = [&]<class T>(T& x, T earlier) { x += static_cast<T>(repeats) * (x > earlier ? x - earlier : T{0}); };
  grow(last.p2p_bytes, before.p2p_bytes);
  grow(last.p2p_messages, before.p2p_messages);
  grow(last.broadcast_bytes, before.broadcast_bytes);
  grow(last.allreduce_bytes, before.allreduce_bytes);
  grow(last.broadcasts, before.broadcasts);
  grow(last.allreduces, before.allreduces);
  grow(last.collective_calls, before.collective_calls);
  grow(last.critical_path, before.critical_path);
  grow(last.mean_work, before.mean_work);
  grow(last.busiest_work, before.busiest_work);
  grow(last.waiting, before.waiting);
  for (std::size_t p = 0; p < last.process_work.size() && p < before.process_work.size(); ++p) {
    grow(last.process_work[p], before.process_work[p]);
  }
  grow(last.compute_seconds, before.compute_seconds);
  grow(last.exchange_seconds, before.exchange_seconds);
  grow(last.seconds, before.seconds);
  last.iterations = iterations;
  return last;
}

// A candidate compared on its projection (project_run) and not kept as
// it is (the one kept is costed again on the whole run) needs only what
// keep_fastest and CandidateCost read: its P x P matrices, message trace
// and sites are let go as soon as its time is predicted. At 3,375
// processes the two matrices are 182 MB per candidate.
inline CommEstimate& compared_only(CommEstimate& e) {
  std::vector<std::uint64_t>().swap(e.matrix);
  std::vector<std::uint64_t>().swap(e.messages_matrix);
  e.trace = {};
  e.sites = {};
  return e;
}

// How much longer than `e` a candidate may take and still be as fast in
// its work: the balance tolerance of e's mean computation.
inline double as_fast_margin_seconds(const CommEstimate& e) {
  return kBalanceTolerance * static_cast<double>(e.mean_work) * e.seconds_per_value;
}

// What a candidate's time adds to its work: its exchanges and the time its
// processes wait for each other's values.
inline double beyond_work_seconds(const CommEstimate& e) {
  return e.exchange_seconds + static_cast<double>(e.waiting) * e.seconds_per_value;
}

// The fastest candidate among those that give every process a share of
// the data (bytes owned, `owned`) and of the work (values computed)
// between half and twice the mean: more than twice, and that process's
// work and memory are no smaller than on half the processes; less than
// half, and it idles more than half the time. Failing any, among those
// balanced in data alone: where the program's own work is uneven (a region
// costed ten times another), every decomposition of its data is, as its
// MPI version is. Failing that, any. Candidates within the balance
// tolerance of the fastest's computation (kBalanceTolerance of its mean
// work) are as fast in their work: of those, the one whose exchanges and
// waiting take least, then the one sending fewest bytes, then the first.
inline std::size_t keep_fastest(const std::vector<CommEstimate>& costed,
                                const std::vector<std::vector<std::uint64_t>>& owned) {
  // Tier 0: data and work shared; 1: data shared; 2: any.
  auto eligible = [&](int tier, std::size_t i) {
    const bool data = std::none_of(owned[i].begin(), owned[i].end(), [](std::uint64_t b) { return b == 0; }) &&
                      balanced(owned[i]);
    return tier == 2 || (data && (tier == 1 || balanced(costed[i].process_work)));
  };
  for (int tier = 0; tier < 3; ++tier) {
    std::size_t fastest = costed.size();
    for (std::size_t i = 0; i < costed.size(); ++i) {
      if (eligible(tier, i) &&
          (fastest == costed.size() || costed[i].predicted_seconds() < costed[fastest].predicted_seconds())) {
        fastest = i;
      }
    }
    if (fastest == costed.size()) continue;
    const CommEstimate& f = costed[fastest];
    const double as_fast = f.predicted_seconds() + as_fast_margin_seconds(f);
    std::size_t kept = fastest;
    for (std::size_t i = 0; i < costed.size(); ++i) {
      const CommEstimate& c = costed[i];
      if (!eligible(tier, i) || c.predicted_seconds() > as_fast) continue;
      const CommEstimate& k = costed[kept];
      if (beyond_work_seconds(c) < beyond_work_seconds(k) ||
          (beyond_work_seconds(c) == beyond_work_seconds(k) && c.total_bytes() < k.total_bytes())) {
        kept = i;
      }
    }
    return kept;
  }
  return 0;
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_CHOICE_H_

// What the cost model (cost_model.h) predicts for one distribution on N
// processes: bytes and messages, point-to-point and collective, per pair,
// iteration and process; the trace of every message and its predicted time;
// the work each process computes; and, filled in by the estimate
// (estimate.h), the distribution kept and every candidate's cost.
//
//   CommEstimate e = model.estimate(profile, graph, owner, procs);
//   e.total_bytes(); e.messages(); e.at(from, to); e.predicted_seconds();
#ifndef COMMANALYZER_COMM_ESTIMATE_H_
#define COMMANALYZER_COMM_ESTIMATE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "commanalyzer/estimate/locations.h"
#include "commanalyzer/estimate/messages.h"
#include "commanalyzer/estimate/site_attribution.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

// A distribution the estimate costed: its total bytes and predicted time
// (CommEstimate::predicted_seconds: computation and exchanges).
struct CandidateCost {
  std::string name;
  std::uint64_t bytes = 0;
  double compute_seconds = 0;
  double exchange_seconds = 0;
  // The most work (values computed) and array bytes any process has, as
  // multiples of the mean (choice.h keeps those between half and twice).
  double most_work = 0;
  double most_data = 0;
  double seconds() const { return compute_seconds + exchange_seconds; }
};

struct CommEstimate {
  int procs = 0;
  std::vector<std::uint64_t> matrix;           // procs x procs, p2p bytes row -> column
  std::vector<std::uint64_t> messages_matrix;  // procs x procs, p2p messages
  std::uint64_t p2p_bytes = 0;
  std::uint64_t p2p_messages = 0;
  std::uint64_t broadcast_bytes = 0;
  std::uint64_t allreduce_bytes = 0;
  std::uint64_t broadcasts = 0;        // published instances costed as Bcast
  std::uint64_t allreduces = 0;        // ... as Allreduce
  std::uint64_t collective_calls = 0;  // distinct (kind, iteration)
  std::vector<std::uint64_t> phase_bytes;  // per iteration (last: after the last mark)
  std::vector<std::uint64_t> phase_work;   // per iteration: value instances the busiest process computes
  std::vector<std::uint64_t> process_work;  // per process: value instances it computes in the region
  std::vector<std::uint64_t> process_memory;  // per process: bytes of array locations it owns (by location)
  std::size_t iterations = 0;
  std::size_t singleton_vertices = 0;
  // Every message and collective call (messages.h), and their predicted
  // time (time_model.h): per iteration and in all.
  MessageTrace trace;
  std::vector<double> phase_seconds;
  double seconds = 0;
  // The predicted run time of the region, what the distribution kept
  // minimises (choice.h): the computation, at the cost model's seconds per
  // value, and the exchanges (HockneyModel::exchange_seconds). The
  // computation is the slowest process's: per iteration, its busiest
  // process's work (busiest_work values in all), and the time processes
  // wait for values of the same iteration from others beyond it (waiting:
  // the owner-computes schedule's critical path; a sweep cut across its
  // direction waits, a pipelined one barely). mean_work: a process's share.
  std::uint64_t critical_path = 0;
  std::uint64_t mean_work = 0;
  std::uint64_t busiest_work = 0;
  std::uint64_t waiting = 0;
  double seconds_per_value = 0;  // the price compute_seconds counts a value at
  double compute_seconds = 0;
  double exchange_seconds = 0;
  // Ownership by location (distribution.h): the distribution kept, every
  // candidate's cost, and the kept owner map as runs of elements.
  std::string distribution;
  std::vector<CandidateCost> candidates;
  std::size_t learned_iterations = 0;  // candidates costed over the first ones only (0: the whole run)
  // Iterations counted as the one before them, which they repeat, rather
  // than costed one by one (repeated_iterations.h).
  std::size_t counted_iterations = 0;
  // Iterations beyond a recording window (Profile::recorded_iterations),
  // counted as its last costed one.
  std::size_t projected_iterations = 0;
  // The window's look-ahead repeats its last costed iteration (else the
  // iterations counted as that one may not cost what it did).
  bool window_steady = true;
  // Whole-run rules changed what processes receive: the recomputation
  // plan replaced receptions (a process carries what it recomputed from
  // one iteration to the next), or the ghost memory rule had values
  // received again. What they decide per iteration depends on how many
  // iterations they saw.
  bool carries_across_iterations = false;
  std::vector<OwnerRun> owner_map;
  // Grid shapes of arrays (array id, dimensions) where the distribution
  // knows one: the owner map can be drawn.
  std::vector<std::pair<std::uint32_t, std::vector<std::uint64_t>>> array_shapes;
  // Where the traffic is consumed in the source (site_attribution.h),
  // largest first.
  std::vector<SiteTraffic> sites;

  std::uint64_t collective_bytes() const { return broadcast_bytes + allreduce_bytes; }
  std::uint64_t total_bytes() const { return p2p_bytes + collective_bytes(); }
  std::uint64_t messages() const { return p2p_messages + collective_calls; }
  double predicted_seconds() const { return compute_seconds + exchange_seconds; }
  double per_iteration_bytes() const {
    return iterations == 0 ? static_cast<double>(total_bytes())
                           : static_cast<double>(total_bytes()) / static_cast<double>(iterations);
  }
  std::uint64_t at(int from, int to) const { return matrix[static_cast<std::size_t>(from) * procs + to]; }
  // Processes q that p sends point-to-point data to.
  int partners(int p) const {
    int count = 0;
    for (int q = 0; q < procs; ++q) count += at(p, q) > 0;
    return count;
  }
};
}  // namespace commanalyzer

#endif  // COMMANALYZER_COMM_ESTIMATE_H_

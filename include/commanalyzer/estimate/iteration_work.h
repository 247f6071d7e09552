// The computation the cost model (cost_model.h) counts, an iteration at a
// time: the value instances each process computes, what the busiest one
// computes (CommEstimate::phase_work, busiest_work), each process's share
// (mean_work) and how long the owner-computes schedule (schedule.h) makes
// processes wait for each other's values beyond that (waiting).
//
//   IterationWork work(procs);
//   work.computed_by(q);                                // q, or kReplicated: all
//   work.compute(v, q, sources, is_input, in_chain);    // ComputeSchedule::compute
//   work.close(phase, first_of_next, result);           // at each iteration's end
#ifndef COMMANALYZER_ITERATION_WORK_H_
#define COMMANALYZER_ITERATION_WORK_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "commanalyzer/estimate/comm_estimate.h"
#include "commanalyzer/estimate/schedule.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

class IterationWork {
 public:
  explicit IterationWork(int procs) : n_(procs), work_(static_cast<std::size_t>(procs), 0), schedule_(procs) {}

  // One value instance computed by q (kReplicated: by every process).
  void computed_by(ProcId q) {
    if (q == kReplicated) {
      ++replicated_work_;
    } else {
      ++work_[q];
    }
  }

  // When v is computed (ComputeSchedule::compute).
  template <class IsInput, class InChain>
  void compute(ValueId v, ProcId q, std::span<const ValueId> sources, const IsInput& is_input,
               const InChain& in_chain) {
    schedule_.compute(v, q, sources, is_input, in_chain);
  }

  // Ends iteration `phase` (the next one costed begins at `next_first`):
  // the values the busiest process computes in it (every process computes
  // the replicated ones), each process's, and the time spent waiting;
  // `weight`: the iterations it stands for (repeated_iterations.h).
  void close(std::size_t phase, ValueId next_first, CommEstimate& result, std::uint64_t weight = 1) {
    const std::uint64_t busiest = *std::max_element(work_.begin(), work_.end());
    result.phase_work[phase] = replicated_work_ + busiest;
    for (int p = 0; p < n_; ++p) result.process_work[p] += weight * (replicated_work_ + work_[p]);
    // The iteration's exchanges wait for every process (ComputeSchedule); what
    // its critical path adds to its busiest process's work is waiting.
    const std::uint64_t span = schedule_.next_iteration(next_first);
    repeated_span_ += (weight - 1) * span;
    std::uint64_t total = 0;
    for (std::uint64_t w : work_) total += w;
    result.waiting += weight * (span > busiest ? span - busiest : 0);
    result.busiest_work += weight * busiest;
    result.mean_work += weight * ((total + static_cast<std::uint64_t>(n_) - 1) / static_cast<std::uint64_t>(n_));
    std::fill(work_.begin(), work_.end(), 0);
    replicated_work_ = 0;
  }

  std::uint64_t critical_path() const { return schedule_.critical_path() + repeated_span_; }

 private:
  const int n_;
  std::vector<std::uint64_t> work_;  // values each process computed in the current iteration
  std::uint64_t replicated_work_ = 0;
  ComputeSchedule schedule_;  // when each value is computed
  std::uint64_t repeated_span_ = 0;  // the critical path of the iterations not costed
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_ITERATION_WORK_H_

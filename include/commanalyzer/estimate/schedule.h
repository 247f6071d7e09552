// The owner-computes schedule the cost model times computation by
// (cost_model.h): each process computes its values in the sequential
// order, one a time step, each once its sources are done (received values
// waited for, not priced: the exchanges are). The processes start each
// iteration together, as an SPMD code's iteration starts with its
// exchange. Within an iteration a pipelined sweep overlaps its processes
// and a sweep cut across its direction runs them one after another.
//
//   ComputeSchedule schedule(procs);
//   schedule.compute(v, q, sources, is_input, in_chain);  // every value, in creation order
//   std::uint64_t span = schedule.next_iteration(first);   // at each iteration mark
//
// Only the current iteration's values are timed one by one: a value of an
// earlier iteration was done when this one started, so the schedule's
// memory is one iteration's values, not the run's.
#ifndef COMMANALYZER_ESTIMATE_SCHEDULE_H_
#define COMMANALYZER_ESTIMATE_SCHEDULE_H_

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "commanalyzer/record/types.h"

namespace commanalyzer {

class ComputeSchedule {
 public:
  explicit ComputeSchedule(int procs) : clock_(static_cast<std::size_t>(procs), 0) {}

  // Value v computed by process q (kReplicated: by every process) from
  // `sources`. is_input(s): s was read from before the region (done from
  // its start); in_chain(s): s is an earlier instance of the replicated v's
  // own chain. A replicated value is a reduction's partial: ready when its
  // last contribution is, its chain not a sequence of steps (each process
  // sums its own part).
  template <class IsInput, class InChain>
  void compute(ValueId v, ProcId q, std::span<const ValueId> sources, const IsInput& is_input,
               const InChain& in_chain) {
    std::uint32_t ready = 0, chained = 0;
    for (ValueId s : sources) {
      const std::uint32_t t = is_input(s) ? 0 : done_at(s);
      if (q == kReplicated && in_chain(s)) {
        chained = std::max(chained, t);
      } else {
        ready = std::max(ready, t);
      }
    }
    if (q == kReplicated) {
      set_done(v, std::max(chained, ready + 1));
      return;
    }
    std::uint64_t& c = clock_[static_cast<std::size_t>(q)];
    c = std::max<std::uint64_t>(c, ready) + 1;
    set_done(v, clamped(c));
  }

  // Starts the iteration whose values begin at `first` once every process
  // is done with the last; returns how long the last one took (its
  // critical path).
  std::uint64_t next_iteration(ValueId first) {
    const std::uint64_t end = critical_path();
    const std::uint64_t span = end - start_;
    std::fill(clock_.begin(), clock_.end(), end);
    start_ = end;
    first_ = first;
    done_at_.clear();
    return span;
  }

  // When the slowest process is done with its values so far.
  std::uint64_t critical_path() const { return *std::max_element(clock_.begin(), clock_.end()); }

 private:
  static std::uint32_t clamped(std::uint64_t t) { return static_cast<std::uint32_t>(std::min<std::uint64_t>(t, ~std::uint32_t{0})); }

  std::uint32_t done_at(ValueId s) const {
    if (s < first_) return clamped(start_);  // an earlier iteration's
    const std::uint64_t i = s - first_;
    return i < done_at_.size() ? done_at_[i] : 0;
  }
  void set_done(ValueId v, std::uint32_t t) {
    const std::uint64_t i = v - first_;
    if (i >= done_at_.size()) done_at_.resize(i + 1, 0);
    done_at_[i] = t;
  }

  std::vector<std::uint64_t> clock_;  // when each process is done with its values so far
  std::uint64_t start_ = 0;           // when the current iteration's processes started
  ValueId first_ = 1;                 // the current iteration's first value (ids from 1)
  std::vector<std::uint32_t> done_at_;  // by value from first_: when it is computed
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_ESTIMATE_SCHEDULE_H_

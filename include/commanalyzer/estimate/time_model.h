// Time model: predicted communication time of a message trace, per
// iteration and in total.
//
//   HockneyModel net{.alpha_seconds = 1e-6, .seconds_per_byte = 1e-10};  // 1 us, 10 GB/s
//   CommTime t = net.predict(estimate.trace);
//   t.total_seconds; t.phase_seconds[k];
//
// Hockney (alpha-beta): a message of m bytes costs alpha + m * beta. Per
// iteration, processes exchange concurrently and wait for each other (the
// iteration's Waitall and collectives synchronise them), so an iteration
// costs its busiest process's point-to-point time — the larger of what it
// sends and what it receives, as a link is full duplex — plus its
// collective calls: ceil(log2 N) rounds of alpha + m * beta for a
// binomial-tree Bcast, twice that for an Allreduce (reduce, then
// broadcast). The total is the sum over iterations. Message counts matter
// as much as bytes: 30 small messages cost 30 alphas where one message of
// the same bytes costs one (FACT, Zhai et al.).
#ifndef COMMANALYZER_TIME_MODEL_H_
#define COMMANALYZER_TIME_MODEL_H_

#include <algorithm>
#include <cmath>
#include <concepts>
#include <vector>

#include "commanalyzer/estimate/messages.h"

namespace commanalyzer {

struct CommTime {
  std::vector<double> phase_seconds;  // per iteration (last: after the last mark)
  double total_seconds = 0;
};

template <class T>
concept TimeModel = requires(const T& model, const MessageTrace& trace) {
  { model.predict(trace) } -> std::same_as<CommTime>;
};

struct HockneyModel {
  double alpha_seconds = 1e-6;      // latency per message
  double seconds_per_byte = 1e-10;  // 1 / bandwidth: 10 GB/s

  double message_seconds(std::uint64_t bytes) const {
    return alpha_seconds + static_cast<double>(bytes) * seconds_per_byte;
  }

  double collective_seconds(const CollectiveCall& call, int procs) const {
    if (procs < 2) return 0;
    const double rounds = std::ceil(std::log2(static_cast<double>(procs)));
    return (call.kind == CollectiveKind::kAllreduce ? 2 : 1) * rounds * message_seconds(call.bytes);
  }

  CommTime predict(const MessageTrace& trace) const {
    CommTime time;
    time.phase_seconds.assign(trace.phases, 0.0);
    busiest_per_iteration(
        trace, [&](const Message& m) { return message_seconds(m.bytes); },
        [&](std::uint32_t phase, double busiest) { time.phase_seconds[phase] += busiest; });
    for (const CollectiveCall& c : trace.collectives) {
      time.phase_seconds[c.iteration] += collective_seconds(c, trace.procs);
    }
    for (double s : time.phase_seconds) time.total_seconds += s;
    return time;
  }

  // The same trace as an SPMD code posts it: an iteration's sends and
  // receives together (Isend/Irecv to every partner, one Waitall), so their
  // latencies overlap and one latency is paid per iteration that exchanges;
  // the busiest process's bytes still pass its link one after another.
  // What distinguishes decompositions as the problem grows (the bytes), not
  // what the analysis size happens to make of latency. An iteration's later
  // rounds (Message::round) are not charged a latency each: red-black's
  // second round is the same for every decomposition, and a pipeline's
  // stages overlap its computation, whose waiting the cost model counts.
  double exchange_seconds(const MessageTrace& trace) const {
    double total = 0;
    busiest_per_iteration(
        trace, [](const Message& m) { return static_cast<double>(m.bytes); },
        [&](std::uint32_t, double bytes) { total += message_seconds(static_cast<std::uint64_t>(bytes)); });
    for (const CollectiveCall& c : trace.collectives) total += collective_seconds(c, trace.procs);
    return total;
  }

 private:
  // For each iteration with messages, done(iteration, the largest of any
  // process's summed weight(message) sent or received). Messages are sorted
  // by iteration: one pass, one iteration at a time.
  template <class Weight, class Done>
  static void busiest_per_iteration(const MessageTrace& trace, Weight weight, Done done) {
    const auto n = static_cast<std::size_t>(std::max(trace.procs, 0));
    std::vector<double> sending(n), receiving(n);
    for (std::size_t i = 0; i < trace.messages.size();) {
      const std::uint32_t phase = trace.messages[i].iteration;
      std::fill(sending.begin(), sending.end(), 0.0);
      std::fill(receiving.begin(), receiving.end(), 0.0);
      for (; i < trace.messages.size() && trace.messages[i].iteration == phase; ++i) {
        const Message& m = trace.messages[i];
        const double w = weight(m);
        sending[m.from] += w;
        receiving[m.to] += w;
      }
      done(phase, std::max(*std::max_element(sending.begin(), sending.end()),
                           *std::max_element(receiving.begin(), receiving.end())));
    }
  }
};
static_assert(TimeModel<HockneyModel>);

}  // namespace commanalyzer

#endif  // COMMANALYZER_TIME_MODEL_H_

// Every byte the cost model (cost_model.h) prices, booked once: the pair
// and message matrices and bytes per phase of the result, the message log
// (messages, phases and the time model's trace) and the sites the sends
// serve.
//
//   MessageLedger<ProfileT> ledger(profile, procs, result);
//   ledger.serve(v);                          // the sends below serve v
//   ledger.send(p, q, bytes, phase, s, created, opens_at);
//   ledger.collective(CollectiveKind::kAllreduce, 0, s, phase);
//   ledger.finish(repeats);                   // trace and sites into result
//
// A costed iteration that others repeat (repeated_iterations.h) is booked
// once per iteration it stands for; the trace gets a copy of its records
// for each of them.
#ifndef COMMANALYZER_MESSAGE_LEDGER_H_
#define COMMANALYZER_MESSAGE_LEDGER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "commanalyzer/estimate/comm_estimate.h"
#include "commanalyzer/estimate/messages.h"
#include "commanalyzer/estimate/repeated_iterations.h"
#include "commanalyzer/estimate/site_attribution.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

template <class ProfileT>
class MessageLedger {
 public:
  MessageLedger(const ProfileT& profile, int procs, CommEstimate& result, const RepeatedIterations& repeats)
      : profile_(profile), n_(procs), result_(result), repeats_(repeats), log_(procs, profile.phase_count()),
        where_(procs, profile.phase_count()) {}

  // The value whose computation the following sends serve: their site.
  void serve(ValueId consumer) { consumer_ = consumer; }

  // `what`: the value sent (its array names the exchange); it exists from
  // position `created` on, and opens a message sent at `opens_at` if none
  // sent later carries it (MessageLog::send). Returns the message it joined.
  std::uint32_t send(ProcId p, ProcId q, std::uint64_t bytes, std::size_t phase, ValueId what, ValueId created,
                     ValueId opens_at) {
    const MessageLog::Sent sent = log_.send(p, q, bytes, phase, created, opens_at, profile_.site_of(consumer_));
    const std::uint64_t times = repeats_.weight(phase);
    where_.send(profile_.site_of(consumer_), p, q, phase, sent.message, bytes, array_of(what), times);
    const std::size_t cell = static_cast<std::size_t>(p) * n_ + q;
    result_.matrix[cell] += times * bytes;
    result_.p2p_bytes += times * bytes;
    result_.phase_bytes[phase] += bytes;
    if (sent.opened) {
      result_.messages_matrix[cell] += times;
      result_.p2p_messages += times;
    }
    return sent.message;
  }

  void unsend(ProcId p, ProcId q, std::uint64_t bytes, std::size_t phase, ValueId what, std::uint32_t message) {
    const std::uint64_t times = repeats_.weight(phase);
    where_.unsend(profile_.site_of(consumer_), p, q, phase, message, bytes, array_of(what), times);
    const std::size_t cell = static_cast<std::size_t>(p) * n_ + q;
    result_.matrix[cell] -= times * bytes;
    result_.p2p_bytes -= times * bytes;
    result_.phase_bytes[phase] -= bytes;
    if (log_.unsend(p, q, bytes, phase, message, profile_.site_of(consumer_))) {
      result_.messages_matrix[cell] -= times;
      result_.p2p_messages -= times;
    }
  }

  // Instance s reduced (Allreduce) or broadcast from `root`.
  void collective(CollectiveKind kind, ProcId root, ValueId s, std::size_t phase) {
    if (n_ == 1) return;
    const std::uint64_t m = profile_.values.size_bytes(s);
    const bool allreduce = kind == CollectiveKind::kAllreduce;
    const std::uint64_t bytes = (allreduce ? 2 : 1) * static_cast<std::uint64_t>(n_ - 1) * m;
    const std::uint64_t times = repeats_.weight(phase);
    (allreduce ? result_.allreduce_bytes : result_.broadcast_bytes) += times * bytes;
    // A reduction is where its value is computed; an input's broadcast where it is used.
    where_.collective(profile_.site_of(profile_.values.is_input(s) ? consumer_ : s), allreduce, bytes, times);
    (allreduce ? result_.allreduces : result_.broadcasts) += times;
    result_.phase_bytes[phase] += bytes;
    if (log_.collective(kind, root, m, phase)) result_.collective_calls += times;
  }

  // The trace (with its sites' names) and the sites into the result.
  void finish() {
    result_.trace = std::move(log_).finish(repeats_);
    for (const auto& site : profile_.sites) {
      result_.trace.site_names.emplace_back(site.id, site.file + ":" + std::to_string(site.line));
    }
    result_.sites = where_.finish(profile_);
  }

 private:
  std::uint32_t array_of(ValueId v) const {
    return v == kNoValue ? 0 : profile_.vertex_group[profile_.values.vertex(v)];
  }

  const ProfileT& profile_;
  const int n_;
  CommEstimate& result_;
  const RepeatedIterations& repeats_;
  MessageLog log_;
  SiteAttribution where_;
  ValueId consumer_ = 0;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_MESSAGE_LEDGER_H_

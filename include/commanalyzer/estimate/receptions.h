// The values each process receives under owner-computes in the cost model
// (cost_model.h): each (instance, process) pair once, sent when the
// receiver first needs it; the later iterations' uses of what was
// received (kept, or received again by the ghost memory rule); and the
// log of the sends that recomputation (recomputation.h) may withdraw.
//
//   Receptions<ProfileT> receptions(owners, ledger, points, log_sends);
//   receptions.receive(s, p, q, v, phase);   // q needs s (owned by p) for v
//   receptions.withdraw(keys);               // q recomputes those instead
//   receptions.receive_early(s, q);          // ... from s, which q receives
//   receptions.receive_again_beyond_ghost_memory(factor, still_received);
#ifndef COMMANALYZER_RECEPTIONS_H_
#define COMMANALYZER_RECEPTIONS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "commanalyzer/estimate/instance_owners.h"
#include "commanalyzer/estimate/message_ledger.h"
#include "commanalyzer/estimate/recomputation.h"
#include "commanalyzer/estimate/send_points.h"
#include "commanalyzer/estimate/value_graph.h"
#include "commanalyzer/record/ranked_bits.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

template <class ProfileT>
class Receptions {
 public:
  // A send of the run, for withdraw(): the value and its receiver, the
  // use it was sent for and the message it joined (MessageLog::Sent).
  struct LoggedSend {
    std::uint64_t key;  // key(value, receiver)
    ValueId first_use;
    std::uint32_t message;
  };

  Receptions(const InstanceOwners<ProfileT>& owners, MessageLedger<ProfileT>& ledger, SendPoints<ProfileT>& points,
             bool log_sends)
      : owners_(owners), profile_(owners.profile), ledger_(ledger), points_(points), log_sends_(log_sends) {}

  // q, computing v in `phase`, needs s, which p owns: sent the first time,
  // kept (or received again, the ghost memory rule) in later iterations.
  void receive(ValueId s, ProcId p, ProcId q, ValueId v, std::size_t phase) {
    const std::uint64_t k = owners_.key(s, q);
    const auto [seen, fresh] = delivered_.try_emplace(k, static_cast<std::uint32_t>(phase));
    if (!fresh) {
      if (seen->second != phase) {  // kept from an earlier iteration
        seen->second = static_cast<std::uint32_t>(phase);
        kept_uses_.push_back({k, v, static_cast<std::uint32_t>(phase), points_.opens_at(q, owners_.created_at(s))});
      }
      return;
    }
    const std::uint32_t message = ledger_.send(p, q, profile_.values.size_bytes(s), phase, s, owners_.created_at(s),
                                               points_.opens_at(q, owners_.created_at(s)));
    if (log_sends_) send_log_.push_back({k, v, message});
  }

  // Whether the pair `k` (owners.key) has been received.
  bool received(std::uint64_t k) const { return delivered_.contains(k); }
  // Records the pair as received in `phase`; false if it already was.
  bool receive_once(std::uint64_t k, std::size_t phase) {
    return delivered_.try_emplace(k, static_cast<std::uint32_t>(phase)).second;
  }
  // key(instance, receiving process) -> the last phase it was used in.
  const absl::flat_hash_map<std::uint64_t, std::uint32_t>& delivered() const { return delivered_; }
  // receive()'s sends in order (if logged).
  const std::vector<LoggedSend>& send_log() const { return send_log_; }

  // s reaches q although owner-computes would not send it: the receiver
  // recomputes later values from it (see recomputation.h).
  void receive_early(ValueId s, ProcId q) {
    if (!receive_once(owners_.key(s, q), profile_.phase_of(s))) return;
    ledger_.serve(s);
    ledger_.send(owners_.owner_of(s), q, profile_.values.size_bytes(s), profile_.phase_of(s), s,
                 owners_.created_at(s), points_.after_sweep_of(s));
  }

  // Takes back the sends of `keys` (their receivers compute the values).
  void withdraw(const absl::flat_hash_set<std::uint64_t>& keys) {
    for (const auto& [k, first_use, message] : send_log_) {
      if (!keys.contains(k)) continue;
      const ValueId s = owners_.value_of(k);
      ledger_.serve(first_use);
      ledger_.unsend(owners_.owner_of(s), owners_.process_of(k), profile_.values.size_bytes(s),
                     profile_.phase_of(first_use), s, message);
    }
  }

  // Receptions of values from before the region (no recorded flow) that
  // feed an update of a location the receiver recomputes (v = f(v', ...),
  // v' the location's previous instance): it keeps its own copy of that
  // location, set up before the region with what the update reads.
  absl::flat_hash_set<std::uint64_t> set_up_before_region(const ReceptionPlan& plan) const {
    absl::flat_hash_set<std::uint64_t> set_up;
    if (plan.recomputed.empty()) return set_up;
    absl::flat_hash_map<ValueId, std::vector<ProcId>> recomputed_by;
    for (std::uint64_t k : plan.recomputed) recomputed_by[owners_.value_of(k)].push_back(owners_.process_of(k));
    const absl::flat_hash_set<std::uint64_t> extra(plan.extra.begin(), plan.extra.end());
    // Flows come in creation order, so a source's own flow, if any, has
    // been seen by the time it is read.
    RankedBits has_flow(profile_.values.count() + 1);
    owners_.for_each_flow([&](ValueId v, std::span<const ValueId> sources) {
      has_flow.insert(v);
      const auto it = recomputed_by.find(v);
      if (it == recomputed_by.end()) return;
      const VertexId location = profile_.values.vertex(v);
      const bool update = std::any_of(sources.begin(), sources.end(),
                                      [&](ValueId s) { return profile_.values.vertex(s) == location; });
      if (!update) return;
      for (ValueId s : sources) {
        if (has_flow.contains(s)) continue;
        for (ProcId q : it->second) {
          const std::uint64_t k = owners_.key(s, q);
          if (delivered_.contains(k) || extra.contains(k)) set_up.insert(k);
        }
      }
    });
    return set_up;
  }

  // The ghost memory rule (LogicalVolumeCostModel::ghost_memory): where q
  // would keep more of an array's received values for later iterations
  // than `ghost_memory` times its own part of that array, it receives
  // them again in every iteration that uses them. `received(k)`: q still
  // receives the value (recomputation has not replaced it).
  template <class Received>
  // Returns whether any value is received again.
  bool receive_again_beyond_ghost_memory(double ghost_memory, Received received) {
    if (kept_uses_.empty()) return false;
    const int n = owners_.n;
    absl::flat_hash_map<std::uint64_t, std::uint64_t> own, kept;  // by group * n + process: locations
    auto cell = [&](std::uint32_t group, ProcId q) { return static_cast<std::uint64_t>(group) * n + q; };
    // A process's part of an array: the site vertices it owns there (a
    // graph vertex by location holds several, of aligned arrays).
    for (VertexId x = 0; x < profile_.vertex_count(); ++x) {
      const ValueGraph::Vertex at = owners_.graph.local(x);
      if (at == ValueGraph::kAbsent || !owners_.graph.own_site(x) || owners_.owner[at] < 0) continue;
      ++own[cell(profile_.vertex_group[x], owners_.owner[at])];
    }
    absl::flat_hash_set<std::uint64_t> counted;  // (location, process)
    for (const KeptUse& u : kept_uses_) {
      const ValueId s = owners_.value_of(u.key);
      const ProcId q = owners_.process_of(u.key);
      const VertexId location = profile_.values.vertex(s);
      if (received(u.key) && counted.insert(static_cast<std::uint64_t>(location) * n + q).second) {
        ++kept[cell(profile_.vertex_group[location], q)];
      }
    }
    bool again = false;
    for (const KeptUse& u : kept_uses_) {
      const ValueId s = owners_.value_of(u.key);
      const ProcId q = owners_.process_of(u.key);
      const std::uint64_t c = cell(profile_.vertex_group[profile_.values.vertex(s)], q);
      if (!received(u.key) || static_cast<double>(kept[c]) < ghost_memory * static_cast<double>(own[c])) continue;
      ledger_.serve(u.use);
      ledger_.send(owners_.owner_of(s), q, profile_.values.size_bytes(s), u.phase, s, owners_.created_at(s),
                   u.opens_at);
      again = true;
    }
    return again;
  }

 private:
  // A use of a received value in a later iteration than it came in (the
  // first in each iteration): kept, or received again (ghost memory).
  struct KeptUse {
    std::uint64_t key;
    ValueId use;
    std::uint32_t phase;
    ValueId opens_at;
  };

  const InstanceOwners<ProfileT>& owners_;
  const ProfileT& profile_;
  MessageLedger<ProfileT>& ledger_;
  SendPoints<ProfileT>& points_;
  const bool log_sends_;
  absl::flat_hash_map<std::uint64_t, std::uint32_t> delivered_;  // key(instance, receiving process) -> last phase used
  std::vector<KeptUse> kept_uses_;
  std::vector<LoggedSend> send_log_;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_RECEPTIONS_H_

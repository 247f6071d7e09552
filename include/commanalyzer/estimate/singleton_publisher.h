// The collectives of the cost model (cost_model.h): when a singleton
// (replicated) value instance is published to every process, and how.
// A singleton's contributors are the processes that own its distributed
// sources, accumulated along its chain of exclusive updates; it is
// published the first time another vertex uses it, and an instance still
// unreduced at the end of an iteration is reduced there:
//  - contributors on several processes, or a reduction (a loop's, or
//    computed from them) wherever its contributors lie: Allreduce;
//  - contributors on one process, or an input read once: Bcast;
//  - no contributors and not an input: nothing, every process computes it.
//
//   SingletonPublisher<ProfileT> publisher(owners, ledger);
//   publisher.accumulate(v, sources, phase);  // a replicated v's flow
//   publisher.publish(s, phase);              // s read by a distributed value
//   publisher.publish_pending(phase);         // at the end of each iteration
#ifndef COMMANALYZER_SINGLETON_PUBLISHER_H_
#define COMMANALYZER_SINGLETON_PUBLISHER_H_

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "commanalyzer/estimate/instance_owners.h"
#include "commanalyzer/estimate/message_ledger.h"
#include "commanalyzer/estimate/messages.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

template <class ProfileT>
class SingletonPublisher {
 public:
  SingletonPublisher(const InstanceOwners<ProfileT>& owners, MessageLedger<ProfileT>& ledger)
      : owners_(owners), profile_(owners.profile), graph_(owners.graph), ledger_(ledger) {}

  // The replicated value v computed from `sources`: its contributors are
  // those of its distributed sources and of the unreduced instances it
  // continues; the other singletons it reads are published.
  void accumulate(ValueId v, std::span<const ValueId> sources, std::size_t phase) {
    const VertexId chain = profile_.values.vertex(v);
    ProcId c = kNone;
    for (ValueId s : sources) {
      const ProcId p = owners_.owner_of(s);
      if (p != kReplicated) {
        c = merge(c, p);
      } else if (profile_.values.vertex(s) == chain) {
        if (!published_.contains(s)) {
          auto it = contributors_.find(s);
          if (it != contributors_.end()) c = merge(c, it->second);
        }
      } else if (continues_reduction(chain, s)) {
        c = merge(c, contributors_.find(s)->second);
      } else {
        publish(s, phase);
      }
    }
    if (c != kNone) {
      contributors_[v] = c;
      pending_[chain] = v;  // the newest unreduced instance of this chain
    }
  }

  void publish(ValueId s, std::size_t phase) {
    if (!published_.insert(s).second) return;
    no_longer_pending(s);
    auto it = contributors_.find(s);
    const ProcId c = it == contributors_.end() ? kNone : it->second;
    // A reduction is an Allreduce whichever processes hold its
    // contributions this time: every process of an MPI code calls it,
    // with its part or the operation's identity.
    if (c == kMany || (c != kNone && is_reduction(s))) {
      ledger_.collective(CollectiveKind::kAllreduce, 0, s, phase);
    } else if (c != kNone || profile_.values.is_input(s)) {
      ledger_.collective(CollectiveKind::kBcast, c == kNone ? 0 : c, s, phase);  // an input: read by process 0
    }
  }

  // Reduces every chain's newest instance that still carries unreduced
  // contributions (in vertex order: deterministic), except the results of
  // a loop the program never uses (ValueGraph::unused_loop_result).
  void publish_pending(std::size_t phase) {
    std::vector<ValueId> due;
    due.reserve(pending_.size());
    for (const auto& [vertex, instance] : pending_) {
      if (!graph_.unused_loop_result(instance)) due.push_back(instance);
    }
    std::sort(due.begin(), due.end());
    for (ValueId s : due) publish(s, phase);
    pending_.clear();
  }

 private:
  // Contributors of a singleton instance: none, exactly one process, many.
  static constexpr ProcId kNone = -1;
  static constexpr ProcId kMany = -2;

  static ProcId merge(ProcId a, ProcId b) {
    if (a == kNone) return b;
    if (b == kNone || a == b) return a;
    return kMany;
  }

  // A loop's reduction whose accumulator starts from another reduction's
  // unreduced result (the minimum over one region after another) continues
  // it: each process folds its part of s into its part of the new one, and
  // s is reduced on its own only if something else reads it, as an MPI
  // code reduces the minimum over all regions once. A value computed from
  // a reduction (beta = rho / rho_old) is not a continuation: s is
  // reduced first.
  bool continues_reduction(VertexId chain, ValueId s) {
    if (published_.contains(s) || !contributors_.contains(s)) return false;
    if (!graph_.loop_reduction(graph_.local(chain)) || !is_reduction(s)) return false;
    no_longer_pending(s);
    return true;
  }

  bool is_reduction(ValueId s) const { return graph_.reduction(graph_.local(profile_.values.vertex(s))); }

  // s is reduced (or folded into another reduction): its chain's end of
  // iteration has nothing of s left to reduce.
  void no_longer_pending(ValueId s) {
    if (auto p = pending_.find(profile_.values.vertex(s)); p != pending_.end() && p->second == s) pending_.erase(p);
  }

  const InstanceOwners<ProfileT>& owners_;
  const ProfileT& profile_;
  const ValueGraph& graph_;
  MessageLedger<ProfileT>& ledger_;
  absl::flat_hash_set<ValueId> published_;
  absl::flat_hash_map<ValueId, ProcId> contributors_;
  absl::flat_hash_map<VertexId, ValueId> pending_;  // singleton chain -> newest unreduced instance
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_SINGLETON_PUBLISHER_H_

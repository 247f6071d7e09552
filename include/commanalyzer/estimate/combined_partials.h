// Combined partial updates in the cost model (cost_model.h): an exclusive
// update of a location (`f[n] += g(...)`) whose other sources one remote
// process p holds is computed on p when one partial costs fewer bytes than
// the sources the owner lacks, and p's contributions to that location in
// one iteration are sent as one partial value. The processes that
// contribute to a location's sum are its sharers: where one of them needs
// the sum itself, it may receive every other sharer's partial instead
// (exchange_partials).
//
//   CombinedPartials<ProfileT> partials(owners, ledger, points, receptions, publisher, on);
//   partials.combine_or_note_sharer(v, sources, q, phase);  // in the run's flow
//   partials.track_sharers_of(v); partials.replay_sharers();  // after the run
//   partials.receive_partials(v, q);                          // q needs the sum v
#ifndef COMMANALYZER_COMBINED_PARTIALS_H_
#define COMMANALYZER_COMBINED_PARTIALS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "commanalyzer/estimate/instance_owners.h"
#include "commanalyzer/estimate/message_ledger.h"
#include "commanalyzer/estimate/partial_sharers.h"
#include "commanalyzer/estimate/receptions.h"
#include "commanalyzer/estimate/send_points.h"
#include "commanalyzer/estimate/singleton_publisher.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

template <class ProfileT>
class CombinedPartials {
 public:
  CombinedPartials(const InstanceOwners<ProfileT>& owners, MessageLedger<ProfileT>& ledger,
                   SendPoints<ProfileT>& points, Receptions<ProfileT>& receptions,
                   SingletonPublisher<ProfileT>& publisher, bool combine_partial_updates)
      : owners_(owners), profile_(owners.profile), ledger_(ledger), points_(points), receptions_(receptions),
        publisher_(publisher), combine_partial_updates_(combine_partial_updates) {}

  // The part of the run's flow the sharers of a location depend on: v,
  // owned by q, is a combined partial (true), or q's own update of the
  // location.
  bool combine_or_note_sharer(ValueId v, std::span<const ValueId> sources, ProcId q, std::size_t phase) {
    if (combine_partial_updates_ && partial_update(v, sources, q, phase)) return true;
    if (tracks_sharers(v)) {
      const VertexId chain = profile_.values.vertex(v);
      for (ValueId s : sources) {
        if (profile_.values.vertex(s) == chain) {
          sharers_.add(chain, phase, v, q);
          break;
        }
      }
    }
    return false;
  }

  // q sent a combined partial to s's location in s's iteration.
  bool contributed_partial(ValueId s, ProcId q) const {
    return partial_sent_.contains(
        {static_cast<std::uint64_t>(profile_.values.vertex(s)) * owners_.n + q, profile_.phase_of(s)});
  }

  // Track the sharers of v's location in v's phase (receive_partials(v, ...)).
  void track_sharers_of(ValueId v) {
    sharers_.track(profile_.values.vertex(v), profile_.phase_of(v), profile_.vertex_count());
  }

  // Finds the sharers of the tracked locations (track_sharers_of) after
  // the run: their flows again, deciding each combination as the run did
  // (with what had been delivered by then), sending nothing.
  void replay_sharers() {
    for (auto it = partial_sent_.begin(); it != partial_sent_.end();) {
      const auto chain = static_cast<VertexId>(it->first / owners_.n);
      if (sharers_.tracks(chain)) {
        partial_sent_.erase(it++);
      } else {
        ++it;
      }
    }
    replaying_ = true;
    const auto& send_log = receptions_.send_log();
    std::size_t logged = 0;
    owners_.for_each_flow([&](ValueId v, std::span<const ValueId> sources) {
      if (!tracks_sharers(v)) return;
      const ProcId q = owners_.owner_of(v);
      if (q == kReplicated) return;
      for (; logged < send_log.size() && send_log[logged].first_use < v; ++logged) {
        delivered_before_.insert(send_log[logged].key);
      }
      combine_or_note_sharer(v, sources, q, profile_.phase_of(v));
    });
    replaying_ = false;
    delivered_before_ = {};
  }

  // q needs the sum v and contributed to it: it receives every other
  // sharer's partial instead of v (exchange_partials). False when v is
  // not such a sum.
  bool receive_partials(ValueId v, ProcId q) {
    const std::size_t phase = profile_.phase_of(v);
    const std::vector<ProcId>* sharing = sharers_.of_newest(profile_.values.vertex(v), phase, v);
    if (sharing == nullptr) return false;
    const std::vector<ProcId>& procs = *sharing;
    if (std::find(procs.begin(), procs.end(), q) == procs.end()) return false;
    if (!receptions_.receive_once(owners_.key(v, q), phase)) return true;
    ledger_.serve(v);
    for (ProcId p : procs) {
      if (p != q) ledger_.send(p, q, profile_.values.size_bytes(v), phase, v, v, points_.after_sweep_of(v));
    }
    return true;
  }

 private:
  static constexpr ProcId kNoContributor = -1;

  bool tracks_sharers(ValueId v) const { return sharers_.tracks(profile_.values.vertex(v)); }

  // v = v' (+) g(others), v' the previous instance of v's location: when
  // one process p holds every source of g (owns it or has received it),
  // p may compute g and send one combined partial per (location, p,
  // iteration) instead of the inputs q lacks. It does when that costs
  // fewer bytes than those inputs (nothing once the partial is under
  // way); on a tie only when the inputs serve no other value, since an
  // input sent once serves every later use at q.
  bool partial_update(ValueId v, std::span<const ValueId> sources, ProcId q, std::size_t phase) {
    const VertexId chain = profile_.values.vertex(v);
    // (value, process) pairs received so far
    auto received = [&](std::uint64_t k) {
      return replaying_ ? delivered_before_.contains(k) : receptions_.received(k);
    };
    // Only an update of its location is a partial (most flows are not:
    // a row's product, a new value): looked at before what q lacks.
    if (std::none_of(sources.begin(), sources.end(), [&](ValueId s) { return profile_.values.vertex(s) == chain; })) {
      return false;
    }
    bool inputs_single_use = true;
    std::uint64_t input_bytes = 0;
    // Processes owning one of g's inputs that q lacks: the candidates to compute g.
    absl::InlinedVector<ProcId, 8> candidates;
    for (ValueId s : sources) {
      if (profile_.values.vertex(s) == chain) continue;
      const ProcId p = owners_.owner_of(s);
      if (p == q || p == kReplicated || received(owners_.key(s, q))) continue;
      input_bytes += profile_.values.size_bytes(s);
      inputs_single_use = inputs_single_use && owners_.graph.source_uses(s) <= 1;
      if (std::find(candidates.begin(), candidates.end(), p) == candidates.end()) candidates.push_back(p);
    }
    if (candidates.empty()) return false;
    // The contributor computes g from all of its inputs, so it must hold
    // every one: own it or have received it (a shared node's coordinates,
    // which the owner of the neighbouring element uses anyway). Else g
    // is split across processes and is not combined.
    ProcId contributor = kNoContributor;
    for (const ProcId p : candidates) {
      const bool holds_all = std::all_of(sources.begin(), sources.end(), [&](ValueId s) {
        const ProcId o = owners_.owner_of(s);
        return profile_.values.vertex(s) == chain || o == p || o == kReplicated || received(owners_.key(s, p));
      });
      if (holds_all) {
        contributor = p;
        break;
      }
    }
    if (contributor == kNoContributor) return false;
    const std::pair<std::uint64_t, std::size_t> partial{static_cast<std::uint64_t>(chain) * owners_.n + contributor,
                                                        phase};
    const bool under_way = partial_sent_.contains(partial);
    const std::uint64_t partial_bytes = profile_.values.size_bytes(v);
    if (!under_way && !(partial_bytes < input_bytes || (partial_bytes == input_bytes && inputs_single_use))) {
      return false;
    }
    if (!under_way) partial_sent_.insert(partial);
    if (!replaying_) {
      ValueId created = 0;  // the partial, once its contributor's inputs exist
      for (ValueId s : sources) {
        if (profile_.values.vertex(s) == chain) continue;
        if (owners_.owner_of(s) == kReplicated) publisher_.publish(s, phase);
        created = std::max(created, owners_.created_at(s));
      }
      if (!under_way) {
        ledger_.send(contributor, q, partial_bytes, phase, v, created, points_.opens_at(q, created));
      }
    }
    if (tracks_sharers(v)) sharers_.add(chain, phase, v, contributor);
    return true;
  }

  const InstanceOwners<ProfileT>& owners_;
  const ProfileT& profile_;
  MessageLedger<ProfileT>& ledger_;
  SendPoints<ProfileT>& points_;
  Receptions<ProfileT>& receptions_;
  SingletonPublisher<ProfileT>& publisher_;
  const bool combine_partial_updates_;
  absl::flat_hash_set<std::pair<std::uint64_t, std::size_t>> partial_sent_;  // (location, contributor), phase
  PartialSharers sharers_;  // the tracked (location, phase)s' contributors
  bool replaying_ = false;  // replay_sharers(): sends nothing
  absl::flat_hash_set<std::uint64_t> delivered_before_;  // ... and sees these as delivered
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_COMBINED_PARTIALS_H_

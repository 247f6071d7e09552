// Round trips through a sum's owner (cost_model.h, exchange_partials).
//
// q sends its partial of a shared location's sum to the sum's owner. A
// value the owner then computes from that sum, and q uses, would come
// back to q in a second, dependent round of the same iteration. SPMD
// codes that duplicate shared entities (LULESH's boundary nodes,
// finite-element assembly) compute such values on every sharer instead,
// from the exchanged partials. A value is *derived* for q when it is
// computed from a sum q contributed to, or from values derived for q, and
// otherwise only from what q holds anyway: its own and replicated values,
// values from before the region (set up with the shared entity), and the
// previous value of its own location (q's copy). So a chain of the
// owner's steps (LULESH 2.0's force -> acceleration -> velocity ->
// position) is a round trip however many of its steps the program stores
// in arrays and however many it keeps in registers.
//
//   RoundTrips<ProfileT> trips(owners, partials);  // a pass over the flows, if any partial was sent
//   trips(v, q);         // q receiving v is a round trip
//   trips.derived(v);    // v is derived for some process
//   trips.for_each_process(v, f);  // f(q) for each of them
#ifndef COMMANALYZER_ROUND_TRIPS_H_
#define COMMANALYZER_ROUND_TRIPS_H_

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "commanalyzer/estimate/instance_owners.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

template <class ProfileT>
class RoundTrips {
 public:
  using Processes = absl::InlinedVector<ProcId, 4>;

  // None: no sum is shared.
  explicit RoundTrips(const InstanceOwners<ProfileT>& owners) : profile_(owners.profile) {}

  // `partials.for_each_partial_sent(f)`: f(location, contributor, phase)
  // for every combined partial sent in the run (CombinedPartials).
  template <class Partials>
  RoundTrips(const InstanceOwners<ProfileT>& owners, const Partials& partials) : profile_(owners.profile) {
    partials.for_each_partial_sent([&](VertexId location, ProcId contributor, std::size_t phase) {
      Processes& sharers = contributors_[{location, phase}];
      if (std::find(sharers.begin(), sharers.end(), contributor) == sharers.end()) sharers.push_back(contributor);
    });
    if (contributors_.empty()) return;
    std::vector<bool> has_flow(profile_.values.count() + 1, false);
    owners.for_each_flow([&](ValueId v, std::span<const ValueId> sources) {
      has_flow[v] = true;
      const ProcId owner = owners.owner_of(v);
      if (owner == kReplicated || contributors_of(v) != nullptr) return;  // a sum is not derived from itself
      Processes candidates;
      for (ValueId s : sources) {
        for (const Processes* from : {contributors_of(s), derived_for(s)}) {
          if (from == nullptr) continue;
          for (ProcId q : *from) {
            if (q != owner && std::find(candidates.begin(), candidates.end(), q) == candidates.end()) {
              candidates.push_back(q);
            }
          }
        }
      }
      const VertexId location = profile_.values.vertex(v);
      for (ProcId q : candidates) {
        const bool held_or_derived = std::all_of(sources.begin(), sources.end(), [&](ValueId s) {
          const ProcId p = owners.owner_of(s);
          return p == q || p == kReplicated || profile_.values.is_input(s) || !has_flow[s] ||
                 profile_.values.vertex(s) == location || contains(contributors_of(s), q) ||
                 contains(derived_for(s), q);
        });
        if (held_or_derived) derived_[v].push_back(q);
      }
    });
  }

  bool operator()(ValueId v, ProcId q) const { return contains(derived_for(v), q); }
  bool derived(ValueId v) const { return derived_.contains(v); }

  template <class F>
  void for_each_process(ValueId v, F f) const {
    if (const Processes* processes = derived_for(v)) {
      for (ProcId q : *processes) f(q);
    }
  }

 private:
  static bool contains(const Processes* processes, ProcId q) {
    return processes != nullptr && std::find(processes->begin(), processes->end(), q) != processes->end();
  }

  const Processes* contributors_of(ValueId s) const {
    const auto it = contributors_.find(std::pair{profile_.values.vertex(s), profile_.phase_of(s)});
    return it == contributors_.end() ? nullptr : &it->second;
  }

  const Processes* derived_for(ValueId s) const {
    const auto it = derived_.find(s);
    return it == derived_.end() ? nullptr : &it->second;
  }

  const ProfileT& profile_;
  absl::flat_hash_map<std::pair<VertexId, std::size_t>, Processes> contributors_;  // (location, phase) of a sum
  absl::flat_hash_map<ValueId, Processes> derived_;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_ROUND_TRIPS_H_

// Which process owns each value instance of a profile under a distribution
// of its value graph (owner by graph vertex, kReplicated for a singleton),
// and the numbering of (instance, process) pairs that the cost model's
// parts (cost_model.h) share:
//
//   InstanceOwners<ProfileT> owners(profile, graph, owner, procs);
//   owners.owner_of(v);                // process, or kReplicated
//   std::uint64_t k = owners.key(s, q);  // s received by q
//   owners.value_of(k); owners.process_of(k);
//   owners.for_each_flow(f);           // the flows costed (a prefix: the learning window)
#ifndef COMMANALYZER_INSTANCE_OWNERS_H_
#define COMMANALYZER_INSTANCE_OWNERS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "commanalyzer/estimate/value_graph.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

template <class ProfileT>
struct InstanceOwners {
  ProcId owner_of(ValueId v) const { return owner[graph.local(profile.values.vertex(v))]; }
  std::uint64_t key(ValueId s, ProcId q) const { return static_cast<std::uint64_t>(s) * n + q; }
  ValueId value_of(std::uint64_t k) const { return static_cast<ValueId>(k / n); }
  ProcId process_of(std::uint64_t k) const { return static_cast<ProcId>(k % n); }
  // Values read from before the region exist from its start, whenever
  // they were first read.
  ValueId created_at(ValueId s) const { return profile.values.is_input(s) ? 0 : s; }

  // f(value, sources) for the flows of the iterations costed, in creation
  // order: every pass of the cost model's parts over the run stops where
  // the run costed stops.
  template <class F>
  void for_each_flow(F f) const {
    profile.flows.for_each([&](ValueId v, std::span<const ValueId> sources) {
      if (v >= end) return false;
      f(v, sources);
      return true;
    });
  }

  static constexpr ValueId kNoEnd = ~ValueId{0};
  const ProfileT& profile;
  const ValueGraph& graph;
  const std::vector<ProcId>& owner;
  const int n;
  const ValueId end = kNoEnd;  // the first value not costed (kNoEnd: the whole run)
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_INSTANCE_OWNERS_H_

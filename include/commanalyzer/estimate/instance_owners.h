// Which process owns each value instance of a profile under a distribution
// of its value graph (owner by graph vertex, kReplicated for a singleton),
// and the numbering of (instance, process) pairs that the cost model's
// parts (cost_model.h) share:
//
//   InstanceOwners<ProfileT> owners(profile, graph, owner, procs);
//   owners.owner_of(v);                // process, or kReplicated
//   std::uint64_t k = owners.key(s, q);  // s received by q
//   owners.value_of(k); owners.process_of(k);
//   owners.for_each_flow(f);           // the flows costed (a prefix: the learning window;
//                                      // without the iterations that repeat others)
#ifndef COMMANALYZER_INSTANCE_OWNERS_H_
#define COMMANALYZER_INSTANCE_OWNERS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "commanalyzer/estimate/repeated_iterations.h"
#include "commanalyzer/estimate/value_graph.h"
#include "commanalyzer/record/compressor.h"
#include "commanalyzer/record/profile.h"
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
  // the run costed stops, and skips the iterations that repeat a costed one
  // (repeated_iterations.h); a value read from one of those is named by
  // its stand-in. f may return false to stop.
  template <class F>
  void for_each_flow(F f) const {
    std::vector<ValueId> held;
    PhaseCursor phase_of(profile.iteration_marks);
    auto flow = [&](ValueId v, std::span<const ValueId> sources) {
      if (v >= end) return false;
      if (!repeats.any()) return flow_store_internal::visit(f, v, sources);
      const std::size_t phase = phase_of(v);
      if (repeats.repeats(phase)) return true;
      // Most sources are of this iteration (costed) or the one before.
      const ValueId first = phase == 0 ? 0 : profile.iteration_marks[phase - 1];
      const ValueId before = phase < 2 ? 0 : profile.iteration_marks[phase - 2];
      held.assign(sources.begin(), sources.end());
      for (ValueId& s : held) {
        if (s >= first) continue;
        s = repeats.stand_in(s, s >= before ? phase - 1 : profile.phase_of(s));
      }
      return flow_store_internal::visit(f, v, std::span<const ValueId>(held));
    };
    // A replayed iteration (flow_replays.h) that repeats a costed one is not read.
    if constexpr (requires { profile.flows.for_each_unless([](ValueId) { return false; }, flow); }) {
      profile.flows.for_each_unless([&](ValueId v) { return v < end && repeats.repeats(profile.phase_of(v)); }, flow);
    } else {
      profile.flows.for_each(flow);
    }
  }

  static constexpr ValueId kNoEnd = ~ValueId{0};
  const ProfileT& profile;
  const ValueGraph& graph;
  const std::vector<ProcId>& owner;
  const int n;
  const ValueId end = kNoEnd;  // the first value not costed (kNoEnd: the whole run)
  const RepeatedIterations& repeats = kNoRepeats;  // iterations not costed, for they repeat others

  static inline const RepeatedIterations kNoRepeats{};
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_INSTANCE_OWNERS_H_

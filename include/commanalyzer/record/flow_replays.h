// Flow replays: an iteration whose value flows are the iteration before it
// shifted by one iteration is recorded once. Its chains are not coded
// again; the code says "here the chains of that earlier iteration come
// again, shifted" (VarintFlowStore keeps the replays beside its code).
//
// A time-stepped stencil's or a CG solver's iterations repeat the one
// before them: each new value at the same offset in its iteration, read
// from values at the same offsets in the iterations as old, or from the
// same values from before the iterations. A replay gives those chains
// back exactly: the recorded iteration's chains with `shift` added to each
// value and to each source at or past the threshold (the first iteration's
// first value); a source older than that is the same value every
// iteration. So every reader of the flows sees the run as it ran, and the
// code grows with the iterations that differ, not with the run's length.
//
//   FlowReplays r;  // r.refs: where recorded iterations start; r.replays: where they come again
//   r.replay<flow_code::Decoder>(r.replays[i], get, f);  // f(value, sources) for each chain
#ifndef COMMANALYZER_FLOW_REPLAYS_H_
#define COMMANALYZER_FLOW_REPLAYS_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "commanalyzer/record/types.h"

namespace commanalyzer {

// Where an iteration's chains start in a flow code: a record starts at
// byte `pos`, which is the `index`-th chain coded, after the chain
// (value, sources).
struct FlowCheckpoint {
  std::size_t pos = 0;
  std::uint64_t index = 0;
  ValueId value = 0;
  std::vector<ValueId> sources;
};

// Before the coded chain `at`: the `chains` chains coded from checkpoint
// `ref` on (`sources` sources in all), each shifted by `shift`.
struct FlowReplay {
  std::uint64_t at = 0;
  std::uint32_t ref = 0;
  std::uint64_t chains = 0;
  std::uint64_t sources = 0;
  ValueId shift = 0;
  bool operator==(const FlowReplay&) const = default;
};

struct FlowReplays {
  ValueId threshold = 0;             // sources from this value on shift with their chain
  std::vector<FlowCheckpoint> refs;  // in code order
  std::vector<FlowReplay> replays;   // by `at`

  bool empty() const { return replays.empty(); }
  void clear() { *this = {}; }
  ValueId shifted(ValueId s, ValueId shift) const { return s >= threshold ? s + shift : s; }

  // f(value, sources) for the chains of replay r, until f returns false
  // (then false). `Decoder` reads the code's chains (flow_code::Decoder),
  // `get(pos)` the code's varint at byte pos, advancing pos. `skip(value)`:
  // true if the replay whose first chain is that value's is not wanted
  // (then it is not read further).
  template <class Decoder, class Get, class F, class Skip>
  bool replay(const FlowReplay& r, Get&& get, F&& f, Skip&& skip) const {
    const FlowCheckpoint& ref = refs[r.ref];
    std::size_t pos = ref.pos;
    // Decoded from the shifted chain before it, the code gives every id
    // shifted (it codes differences); the sources older than the
    // threshold, a prefix as sources are sorted, are shifted back.
    ValueId value = ref.value + r.shift;
    std::vector<ValueId> sources = ref.sources, moved;
    for (ValueId& x : sources) x += r.shift;
    const ValueId unshifted_below = threshold + r.shift;
    Decoder decoder;
    auto next = [&] { return get(pos); };
    for (std::uint64_t c = 0; c < r.chains; ++c) {
      decoder.next_chain(next, value, sources);
      if (c == 0 && skip(value)) return true;
      std::span<const ValueId> chain(sources);
      if (!sources.empty() && sources.front() < unshifted_below) {
        moved = sources;
        for (std::size_t k = 0; k < moved.size() && moved[k] < unshifted_below; ++k) moved[k] -= r.shift;
        chain = moved;
      }
      if (!f(value, chain)) return false;
    }
    return true;
  }
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_FLOW_REPLAYS_H_

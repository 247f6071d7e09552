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
//   r.replay<flow_code::Decoder>(r.replays[i], get, f, skip);  // f(value, sources) for each chain
//   ReplayCursor<flow_code::Decoder> c(r.refs[k], shift, r.threshold);  // a ref's chains, shifted, one at a time
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

// The chains coded from a checkpoint on, shifted, one at a time. Decoded
// from the shifted chain before them, the code gives every id shifted (it
// codes differences); the sources older than the threshold, a prefix as
// sources are sorted, are shifted back.
template <class Decoder>
class ReplayCursor {
 public:
  ReplayCursor() = default;
  ReplayCursor(const FlowCheckpoint& from, ValueId shift, ValueId threshold)
      : pos_(from.pos), value_(from.value + shift), before_(&from.sources), shift_(shift),
        unshifted_below_(threshold + shift) {}

  // The next chain's sources (its value: value()). `get(pos)` reads the
  // code's varint at byte pos, advancing pos.
  template <class Get>
  std::span<const ValueId> next(Get&& get) {
    if (before_) {
      // The chain before the first is only needed if the first repeats
      // it: an iteration's last chain can be a residual over a whole array.
      std::size_t at = pos_;
      if (Decoder::repeats_chain_before([&] { return get(at); })) {
        sources_ = *before_;
        for (ValueId& x : sources_) x += shift_;
      }
      before_ = nullptr;
    }
    decoder_.next_chain([&] { return get(pos_); }, value_, sources_);
    if (sources_.empty() || sources_.front() >= unshifted_below_) return sources_;
    moved_ = sources_;
    for (std::size_t k = 0; k < moved_.size() && moved_[k] < unshifted_below_; ++k) moved_[k] -= shift_;
    return moved_;
  }
  ValueId value() const { return value_; }

 private:
  std::size_t pos_ = 0;
  ValueId value_ = 0;
  const std::vector<ValueId>* before_ = nullptr;  // the chain before the first, until it is read
  std::vector<ValueId> sources_, moved_;
  ValueId shift_ = 0, unshifted_below_ = 0;
  Decoder decoder_;
};

struct FlowReplays {
  ValueId threshold = 0;             // sources from this value on shift with their chain
  std::vector<FlowCheckpoint> refs;  // in code order
  std::vector<FlowReplay> replays;   // by `at`

  bool empty() const { return replays.empty(); }
  void clear() { *this = {}; }

  // f(value, sources) for the chains of replay r, until f returns false
  // (then false). `Decoder` reads the code's chains (flow_code::Decoder),
  // `get(pos)` the code's varint at byte pos, advancing pos. `skip(value)`:
  // true if the replay whose first chain is that value's is not wanted
  // (then it is not read further).
  template <class Decoder, class Get, class F, class Skip>
  bool replay(const FlowReplay& r, Get&& get, F&& f, Skip&& skip) const {
    ReplayCursor<Decoder> chains(refs[r.ref], r.shift, threshold);
    for (std::uint64_t c = 0; c < r.chains; ++c) {
      const std::span<const ValueId> sources = chains.next(get);
      if (c == 0 && skip(chains.value())) return true;
      if (!f(chains.value(), sources)) return false;
    }
    return true;
  }
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_FLOW_REPLAYS_H_

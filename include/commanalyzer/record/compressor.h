// Compressor: shrinks what the analysis keeps without changing the estimate.
//
//  - Coalescing policies decide which vertex a new value instance joins. The
//    default merges successive exclusive updates of one location (the new
//    value reads the value it overwrites: `C[i][j] += ...`, `sum += ...`,
//    `u[i] = f(u[i], ...)`) into one vertex, so a time-stepped location is
//    one vertex, not one per step. A workspace slot refilled with unrelated
//    data does not read its previous content, so it is never merged into a
//    hub (DESIGN.md, "Coalescing").
//  - Flow stores keep the value-flow chains (new value, source set) in
//    creation order: flat arrays by default, delta/varint-coded bytes as the
//    compact alternative.
#ifndef COMMANALYZER_COMPRESSOR_H_
#define COMMANALYZER_COMPRESSOR_H_

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "commanalyzer/record/big_array.h"
#include "commanalyzer/record/flow_replays.h"
#include "commanalyzer/record/ranked_bits.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

// ---------------------------------------------------------------- coalescing

template <class C>
concept CoalescingPolicy = requires(const C& policy, ValueId previous, std::span<const ValueId> sources) {
  // Should a new value with these sources, stored over `previous`, join
  // previous's vertex?
  { policy.coalesce(previous, sources) } -> std::same_as<bool>;
};

struct CoalesceExclusiveUpdates {
  bool coalesce(ValueId previous, std::span<const ValueId> sources) const {
    if (previous == kNoValue) return false;
    // A store's handful of sources: one compare each, no branch on where
    // the previous value lies (a binary search's compares mispredict).
    if (sources.size() <= kScanned) {
      bool found = false;
      for (const ValueId v : sources) found |= v == previous;
      return found;
    }
    return std::binary_search(sources.begin(), sources.end(), previous);
  }
  // Up to this many sources a scan costs no more than a binary search's
  // log2(16) = 4 probes with their mispredicted branches.
  static constexpr std::size_t kScanned = 16;
};

// Every value instance its own vertex: the uncompressed VCG.
struct NoCoalescing {
  bool coalesce(ValueId, std::span<const ValueId>) const { return false; }
};

static_assert(CoalescingPolicy<CoalesceExclusiveUpdates>);
static_assert(CoalescingPolicy<NoCoalescing>);

// --------------------------------------------------------------- flow stores

namespace flow_store_internal {
// f(value, sources); false if f returns a bool and it is false: the walk
// stops there (a prefix of the run: the first iterations).
template <class F>
bool visit(F& f, ValueId value, std::span<const ValueId> sources) {
  if constexpr (std::is_same_v<std::invoke_result_t<F&, ValueId, std::span<const ValueId>>, bool>) {
    return f(value, sources);
  } else {
    f(value, sources);
    return true;
  }
}
}  // namespace flow_store_internal

template <class F>
concept FlowStore = requires(F flows, const F& const_flows, ValueId v, std::span<const ValueId> sources) {
  // Appends the chain of v; v grows from call to call.
  { flows.append(v, sources) };
  { const_flows.flow_count() } -> std::convertible_to<std::size_t>;
  { const_flows.source_count() } -> std::convertible_to<std::size_t>;
  { const_flows.memory_bytes() } -> std::convertible_to<std::size_t>;
  { flows.clear() };
};

// Default: CSR-style flat arrays. 4 bytes per source, 12 per chain.
class FlatFlowStore {
 public:
  FlatFlowStore() { offsets_.push_back(0); }

  void append(ValueId v, std::span<const ValueId> sources) {
    values_.push_back(v);
    sources_.append(sources.data(), sources.data() + sources.size());
    offsets_.push_back(sources_.size());
  }

  // f(ValueId value, std::span<const ValueId> sources), in creation order,
  // until f returns false (if it returns a bool).
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t i = 0; i < values_.size(); ++i) {
      if (!flow_store_internal::visit(f, values_[i],
                                      std::span<const ValueId>(sources_.data() + offsets_[i],
                                                               sources_.data() + offsets_[i + 1]))) {
        return;
      }
    }
  }

  std::size_t flow_count() const { return values_.size(); }
  std::size_t source_count() const { return sources_.size(); }
  std::size_t memory_bytes() const {
    return values_.capacity() * sizeof(ValueId) + sources_.capacity() * sizeof(ValueId) +
           offsets_.capacity() * sizeof(std::uint64_t);
  }
  void clear() {
    values_.clear();
    sources_.clear();
    offsets_.assign(1, 0);
  }

 private:
  BigArray<ValueId> values_;
  BigArray<ValueId> sources_;
  BigArray<std::uint64_t> offsets_;
};

// The coding of VarintFlowStore (and of the flows in a version-4 profile
// file). Records, each given the chain before it (value 0, no sources, at
// the start):
//   varint(d) varint(2 * m + 1), m >= 1: m chains, each d after the one
//               before it, with the previous chain's sources each shifted
//               by d. A stencil sweep is mostly such runs: the next cell
//               reads the next cells; one record holds a whole row.
//   varint(d) varint(2 * n): one chain d after the one before, with n
//               sources as gaps going *backwards* from its value (sources
//               are older than their value and sorted, so gaps are small in
//               stencil and streaming codes), run-length coded:
//               varint(2 * gap + run), and for run = 1 varint(k): the same
//               gap k more times (a matrix row or column, a whole sweep
//               under one residual).
namespace flow_code {

inline std::uint8_t* put(std::uint8_t* out, std::uint64_t x) {
  while (x >= 0x80) {
    *out++ = static_cast<std::uint8_t>(x | 0x80);
    x >>= 7;
  }
  *out++ = static_cast<std::uint8_t>(x);
  return out;
}

// Reads the chains back one at a time.
class Decoder {
 public:
  // The chain after (value, sources), in place. next() returns the next
  // varint of the code. False if the code cannot be right (a source not
  // older than its value, a repeat of nothing).
  template <class Next>
  bool next_chain(Next&& next, ValueId& value, std::vector<ValueId>& sources) {
    if (run_left_ == 0) {
      const std::uint64_t delta = next();
      const std::uint64_t header = next();
      if (delta == 0 || delta > ~ValueId{0}) return false;
      if ((header & 1) == 0) return gaps(next, delta, header >> 1, value, sources);
      if (header >> 1 == 0 || sources.empty()) return false;
      run_left_ = header >> 1;
      run_delta_ = static_cast<ValueId>(delta);
    }
    if (run_delta_ > ~ValueId{0} - value) return false;
    --run_left_;
    value += run_delta_;
    for (ValueId& s : sources) s += run_delta_;
    return true;
  }
  // Chains announced by a run record but not read yet.
  std::uint64_t run_left() const { return run_left_; }
  // Whether the record whose varints next() gives repeats the chain
  // before it (a run record), the only kind that reads that chain.
  template <class Next>
  static bool repeats_chain_before(Next&& next) {
    next();  // delta
    return (next() & 1) != 0;
  }

 private:
  template <class Next>
  static bool gaps(Next&& next, std::uint64_t delta, std::uint64_t n, ValueId& value, std::vector<ValueId>& sources) {
    if (delta > ~ValueId{0} - value || n > ~ValueId{0}) return false;
    value += static_cast<ValueId>(delta);
    sources.resize(n);
    ValueId cursor = value;
    for (std::uint64_t k = 0; k < n;) {
      const std::uint64_t token = next();
      const std::uint64_t gap = token >> 1;
      const std::uint64_t times = (token & 1) != 0 ? 1 + next() : 1;
      if (gap == 0 || times > n - k || gap * times >= cursor) return false;
      for (std::uint64_t r = 0; r < times; ++r, ++k) {
        cursor -= static_cast<ValueId>(gap);
        sources[n - 1 - k] = cursor;
      }
    }
    return true;
  }

  std::uint64_t run_left_ = 0;
  ValueId run_delta_ = 0;
};

}  // namespace flow_code

// Ids as recorded to ids once the set-up's unread values are dropped
// (unread_set_up.h): a kept set-up value (below `first`) is 1 + the kept
// ones below it, and every later id moves down by `shift`. None while
// `first` is 0.
struct SetUpRenumbering {
  ValueId first = 0;
  ValueId shift = 0;
  RankedBits kept{0};  // sealed
  bool none() const { return first == 0; }
  ValueId operator()(ValueId v) const { return v < first ? 1 + kept.rank(v) : v - shift; }
};

// Compact: chains as flow_code codes them. Typically 1-3 bytes per source
// instead of 4, 2 bytes per chain instead of 12, a few bytes for a whole row
// of chains that repeat their predecessor's pattern one cell further on,
// and a few bytes for an evenly spaced run of sources of any length.
// Told where iterations begin (begin_iteration), it codes an iteration
// that repeats the one before it shifted as a replay (flow_replays.h).
class VarintFlowStore {
 public:
  void append(ValueId v, std::span<const ValueId> sources) {
    if (!renumbering_.none()) [[unlikely]] code_renumbered();
    if (iteration_.alike) {
      // While an iteration repeats the one it is compared with, its chains
      // are counted, not coded: most such iterations end as a replay, and
      // coding them only to drop the code took a tenth of a Heat2D run.
      if (iteration_.matches(*this, v, sources)) {
        ++flows_;
        source_total_ += sources.size();
        return;
      }
      settle();  // it differs: its chains so far are coded, then this one
    }
    code(v, sources);
    ++flows_;
    source_total_ += sources.size();
  }

  // Codes the chains an iteration has repeated so far (counted by append,
  // not coded): the iteration is no longer compared. Readers see them
  // either way; a writer of the code calls this first.
  void settle() {
    Iteration& now = iteration_;
    if (!now.alike) return;
    now.alike = false;
    ReplayCursor<flow_code::Decoder> chains(replays_.refs.back(), now.shift, replays_.threshold);
    for (std::uint64_t c = 0; c < now.matched; ++c) {
      const std::span<const ValueId> sources = chains.next([&](std::size_t& pos) { return get(pos); });
      code(chains.value(), sources);
    }
  }
  // No chain counted but not coded (settle()).
  bool settled() const { return !iteration_.alike || iteration_.matched == 0; }

  // The iteration that began at the last call ends here, and one whose
  // first value is `first` begins. The one ending is coded as a replay if
  // its chains are the last recorded iteration's, shifted by the distance
  // between their first values (sources from before the first iteration
  // unshifted). Every iteration starts a record of the code.
  void begin_iteration(ValueId first) {
    if (!renumbering_.none()) [[unlikely]] code_renumbered();
    if (replays_.threshold == 0) replays_.threshold = first;
    Iteration& now = iteration_;
    if (now.open && now.alike && now.matched == now.ref_chains && now.matched != 0) {
      // Nothing of it was coded: the next chain is coded after the one before it.
      replays_.replays.push_back({coded_, static_cast<std::uint32_t>(replays_.refs.size() - 1), now.matched,
                                  source_total_ - now.sources_at_start, now.shift});
    } else {
      settle();  // it repeated the start of the one before only
      const std::uint64_t chains = coded_ - now.start.index;
      if (now.open && chains != 0) {
        now.ref_first = now.first;
        now.ref_chains = chains;
        replays_.refs.push_back(std::move(now.start));
      }
    }
    now.open = true;
    now.start = here();
    now.sources_at_start = source_total_;
    now.first = first;
    now.alike = !replays_.refs.empty();
    if (now.alike) {
      now.shift = first - now.ref_first;
      now.reference = ReplayCursor<flow_code::Decoder>(replays_.refs.back(), now.shift, replays_.threshold);
      now.matched = 0;
    }
  }

  // For a reader of a coded profile: an iteration recorded from here on
  // (the index of its checkpoint), and a replay of one here.
  std::uint32_t checkpoint() {
    if (!renumbering_.none()) [[unlikely]] code_renumbered();
    replays_.refs.push_back(here());
    return static_cast<std::uint32_t>(replays_.refs.size() - 1);
  }
  void replay(std::uint32_t ref, std::uint64_t chains, std::uint64_t sources, ValueId shift, ValueId threshold) {
    replays_.threshold = threshold;
    replays_.replays.push_back({coded_, ref, chains, sources, shift});
    flows_ += chains;
    source_total_ += sources;
  }

  template <class F>
  void for_each(F&& f) const {
    for_each_unless([](ValueId) { return false; }, f);
  }
  // for_each without the replayed iterations whose first value v has
  // skip(v) true: they are not read (what a replay saves a pass that
  // does not need it).
  template <class Skip, class F>
  void for_each_unless(Skip&& skip, F&& f) const {
    if (renumbering_.none()) {
      decode_each(skip, [&](ValueId v, std::span<const ValueId> sources) { return flow_store_internal::visit(f, v, sources); });
      return;
    }
    std::vector<ValueId> renumbered;
    decode_each([&](ValueId v) { return skip(renumbering_(v)); }, [&](ValueId v, std::span<const ValueId> sources) {
      renumbered.clear();
      for (ValueId s : sources) renumbered.push_back(renumbering_(s));  // order kept: still sorted
      return flow_store_internal::visit(f, renumbering_(v), std::span<const ValueId>(renumbered));
    });
  }

  // f(first, shift) for each replayed iteration, in order: the value of
  // its first chain and how far it is from the first chain's of the
  // iteration it replays, as the chains read back (renumbered; no
  // renumbering maps every id to itself). A pass that knows what it made
  // of that iteration need not read the replay.
  template <class F>
  void for_each_replay(F&& f) const {
    for (const FlowReplay& r : replays_.replays) {
      ReplayCursor<flow_code::Decoder> chains(replays_.refs[r.ref], r.shift, replays_.threshold);
      chains.next([&](std::size_t& at) { return get(at); });
      const ValueId first = renumbering_(chains.value());
      f(first, first - renumbering_(chains.value() - r.shift));
    }
  }
  // The first value whose sources shift with a replay's chains, as read
  // back (0: no replays).
  ValueId replay_threshold() const { return replays_.empty() ? 0 : renumbering_(replays_.threshold); }

  // From now on the chains read back renumbered (the set-up's unread
  // values dropped). The code stays as it was recorded, and a profile file
  // carries the renumbering with it (profile_io.h): coding every chain
  // again would cost a pass over the whole run at its end.
  void renumber(SetUpRenumbering renumbering) {
    code_renumbered();
    renumbering_ = std::move(renumbering);
  }
  const SetUpRenumbering& renumbering() const { return renumbering_; }

  std::size_t flow_count() const { return flows_; }
  std::size_t source_count() const { return source_total_; }
  // The chains coded (not replayed), and the replays.
  std::size_t coded_count() const { return coded_; }
  const FlowReplays& replays() const { return replays_; }
  std::size_t memory_bytes() const { return bytes_.capacity() + previous_.capacity() * sizeof(ValueId); }
  // The coded chains (the flows section of a version-4 profile file), with
  // their ids as recorded: renumbering() maps them.
  std::span<const std::uint8_t> code() const { return {bytes_.data(), bytes_.size()}; }
  // Drops the code so far but not the last chain: what follows is coded as
  // the continuation of the same stream (to hand a long code over in
  // pieces). A run in progress is closed: the next chain starts a record.
  void restart() {
    bytes_.clear();
    run_start_ = kNoRun;
  }
  void clear() {
    bytes_.clear();
    previous_.clear();
    shift_ = 0;
    run_start_ = kNoRun;
    flows_ = coded_ = source_total_ = 0;
    last_value_ = 0;
    renumbering_ = {};
    replays_.clear();
    iteration_ = {};
  }

 private:
  static constexpr std::size_t kNoRun = ~std::size_t{0};

  // Codes one chain after the last one coded.
  void code(ValueId v, std::span<const ValueId> sources) {
    if (v <= last_value_) throw std::invalid_argument("commanalyzer: value-flow chains must come in creation order");
    const ValueId delta = v - last_value_;
    bool repeat = !sources.empty() && sources.size() == previous_.size();
    const ValueId step = shift_ + delta;
    const ValueId* const before = previous_.data();
    for (std::size_t k = 0; repeat && k < sources.size(); ++k) repeat = sources[k] == before[k] + step;
    if (repeat) {
      // Extend the run record at the end of the code, or start one.
      if (run_start_ != kNoRun && run_delta_ == delta) {
        ++run_length_;
        // Only the count changes; in place while its varint keeps its
        // length (a row of a sweep: every chain but a few).
        const std::uint64_t count = 2 * run_length_ + 1;
        const std::size_t length = static_cast<std::size_t>(std::bit_width(count) + 6) / 7;
        if (length == bytes_.size() - run_count_at_) {
          flow_code::put(bytes_.data() + run_count_at_, count);
        } else {
          bytes_.truncate(run_count_at_);
          std::uint8_t* const first = bytes_.extend(10);
          bytes_.truncate(run_count_at_ + static_cast<std::size_t>(flow_code::put(first, count) - first));
        }
      } else {
        run_start_ = bytes_.size();
        run_delta_ = delta;
        run_length_ = 1;
        std::uint8_t* const first = bytes_.extend(20);
        std::uint8_t* out = flow_code::put(first, delta);
        run_count_at_ = run_start_ + static_cast<std::size_t>(out - first);
        out = flow_code::put(out, 2 * run_length_ + 1);
        bytes_.truncate(run_start_ + static_cast<std::size_t>(out - first));
      }
      shift_ += delta;
    } else {
      if (!sources.empty()) {
        bool valid = sources.front() != kNoValue && sources.back() < v;
        for (std::size_t k = 1; valid && k < sources.size(); ++k) valid = sources[k - 1] < sources[k];
        if (!valid) throw std::invalid_argument("commanalyzer: sources must be sorted, unique and older than their value");
      }
      // Room for the worst case (5 bytes per 32-bit varint, 10 for the
      // header), written through a pointer, the rest given back.
      const std::size_t start = bytes_.size();
      std::uint8_t* const first = bytes_.extend(5 + 10 + 5 * sources.size());
      std::uint8_t* out = flow_code::put(first, delta);
      out = flow_code::put(out, 2 * std::uint64_t{sources.size()});
      ValueId cursor = v;
      for (std::size_t k = sources.size(); k > 0;) {
        const ValueId gap = cursor - sources[k - 1];
        // How many more sources below go down by the same gap.
        std::size_t more = 0;
        while (k - more >= 2 && sources[k - 1 - more] - sources[k - 2 - more] == gap) ++more;
        out = flow_code::put(out, 2 * std::uint64_t{gap} + (more != 0 ? 1 : 0));
        if (more != 0) out = flow_code::put(out, more);
        cursor = sources[k - 1 - more];
        k -= 1 + more;
      }
      bytes_.truncate(start + static_cast<std::size_t>(out - first));
      previous_.assign(sources.begin(), sources.end());
      shift_ = 0;
      run_start_ = kNoRun;
    }
    last_value_ = v;
    ++coded_;
  }

  // f(value, sources) for the chains as coded and replayed, until f
  // returns false.
  template <class Skip, class F>
  void decode_each(Skip&& skip, F&& f) const {
    std::vector<ValueId> sources;
    std::size_t pos = 0;
    ValueId value = 0;
    flow_code::Decoder decoder;
    auto next = [&] { return get(pos); };
    auto get_at = [&](std::size_t& at) { return get(at); };
    std::size_t i = 0;
    auto coded_until = [&](std::size_t end) {
      for (; i < end; ++i) {
        decoder.next_chain(next, value, sources);
        if (!f(value, std::span<const ValueId>(sources))) return false;
      }
      return true;
    };
    for (const FlowReplay& r : replays_.replays) {
      if (!coded_until(r.at) || !replays_.replay<flow_code::Decoder>(r, get_at, f, skip)) return;
    }
    if (!coded_until(coded_) || settled()) return;
    // The chains of the iteration under way, as its reference's (settle()).
    const FlowReplay pending{coded_, static_cast<std::uint32_t>(replays_.refs.size() - 1), iteration_.matched, 0,
                             iteration_.shift};
    replays_.replay<flow_code::Decoder>(pending, get_at, f, [](ValueId) { return false; });
  }

  // Where the next chain will be coded, a record starting there.
  FlowCheckpoint here() {
    run_start_ = kNoRun;
    FlowCheckpoint c{bytes_.size(), coded_, last_value_, previous_};
    for (ValueId& s : c.sources) s += shift_;
    return c;
  }

  // The iteration under way, compared chain by chain with the last one
  // recorded (its reference).
  struct Iteration {
    bool open = false;
    bool alike = false;  // every chain so far the reference's, shifted
    FlowCheckpoint start;
    std::size_t sources_at_start = 0;
    ValueId first = 0, shift = 0;
    ValueId ref_first = 0;
    std::uint64_t ref_chains = 0;
    ReplayCursor<flow_code::Decoder> reference;  // its chains read back, shifted
    std::uint64_t matched = 0;  // chains so far, each the reference's (counted, not coded)

    bool matches(const VarintFlowStore& store, ValueId v, std::span<const ValueId> chain) {
      if (matched == ref_chains) return false;
      const std::span<const ValueId> expected = reference.next([&](std::size_t& pos) { return store.get(pos); });
      if (v != reference.value() || !std::equal(chain.begin(), chain.end(), expected.begin(), expected.end())) {
        return false;
      }
      ++matched;
      return true;
    }
  };

  // The chains coded again with their ids renumbered (before an append).
  void code_renumbered() {
    if (renumbering_.none()) return;
    VarintFlowStore coded;
    for_each([&](ValueId v, std::span<const ValueId> sources) { coded.append(v, sources); });
    *this = std::move(coded);
  }

  std::uint64_t get(std::size_t& pos) const {
    std::uint64_t x = 0;
    for (unsigned shift = 0;; shift += 7) {
      const std::uint8_t byte = bytes_[pos++];
      x |= std::uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) return x;
    }
  }

  BigArray<std::uint8_t> bytes_;
  std::vector<ValueId> previous_;  // the sources of the last chain coded with gaps ...
  ValueId shift_ = 0;              // ... plus this: the sources of the last chain
  std::size_t run_start_ = kNoRun;  // where the run record at the end of bytes_ starts
  std::size_t run_count_at_ = 0;    // ... and its count (the varint after the delta)
  ValueId run_delta_ = 0;
  std::uint64_t run_length_ = 0;
  std::size_t flows_ = 0;  // chains coded and replayed
  std::size_t coded_ = 0;  // chains coded
  std::size_t source_total_ = 0;
  ValueId last_value_ = 0;
  SetUpRenumbering renumbering_;  // none, or pending: for_each applies it
  FlowReplays replays_;
  Iteration iteration_;
};

static_assert(FlowStore<FlatFlowStore>);
static_assert(FlowStore<VarintFlowStore>);

}  // namespace commanalyzer

#endif  // COMMANALYZER_COMPRESSOR_H_

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
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "commanalyzer/big_array.h"
#include "commanalyzer/types.h"

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
    return previous != kNoValue && std::binary_search(sources.begin(), sources.end(), previous);
  }
};

// Every value instance its own vertex: the uncompressed VCG.
struct NoCoalescing {
  bool coalesce(ValueId, std::span<const ValueId>) const { return false; }
};

static_assert(CoalescingPolicy<CoalesceExclusiveUpdates>);
static_assert(CoalescingPolicy<NoCoalescing>);

// --------------------------------------------------------------- flow stores

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

  // f(ValueId value, std::span<const ValueId> sources), in creation order.
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t i = 0; i < values_.size(); ++i) {
      f(values_[i], std::span<const ValueId>(sources_.data() + offsets_[i],
                                             sources_.data() + offsets_[i + 1]));
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

// Compact: each chain is varint(v - previous v), varint(|sources|), then the
// sources as varint gaps going *backwards* from v (sources are older than v
// and sorted, so gaps are small in stencil and streaming codes). Typically
// 1-3 bytes per source instead of 4, and 2 bytes per chain instead of 12.
class VarintFlowStore {
 public:
  void append(ValueId v, std::span<const ValueId> sources) {
    // Room for the worst case (5 bytes per 32-bit varint, 10 for the
    // count), written through a pointer, the rest given back.
    const std::size_t start = bytes_.size();
    std::uint8_t* const first = bytes_.extend(5 + 10 + 5 * sources.size());
    std::uint8_t* out = first;
    out = put(out, v - last_value_);
    out = put(out, sources.size());
    ValueId cursor = v;
    for (auto it = sources.rbegin(); it != sources.rend(); ++it) {
      if (*it >= cursor) {
        bytes_.truncate(start);
        throw std::invalid_argument("commanalyzer: a source must be older than its value");
      }
      out = put(out, cursor - *it);
      cursor = *it;
    }
    bytes_.truncate(start + static_cast<std::size_t>(out - first));
    last_value_ = v;
    ++flows_;
    source_total_ += sources.size();
  }

  template <class F>
  void for_each(F&& f) const {
    std::vector<ValueId> sources;
    std::size_t pos = 0;
    ValueId value = 0;
    for (std::size_t i = 0; i < flows_; ++i) {
      value += static_cast<ValueId>(get(pos));
      const std::uint64_t n = get(pos);
      sources.resize(n);
      ValueId cursor = value;
      for (std::uint64_t k = 0; k < n; ++k) {
        cursor -= static_cast<ValueId>(get(pos));
        sources[n - 1 - k] = cursor;
      }
      f(value, std::span<const ValueId>(sources));
    }
  }

  std::size_t flow_count() const { return flows_; }
  std::size_t source_count() const { return source_total_; }
  std::size_t memory_bytes() const { return bytes_.capacity(); }
  // The coded chains (the flows section of a version-4 profile file).
  std::span<const std::uint8_t> code() const { return {bytes_.data(), bytes_.size()}; }
  void clear() {
    bytes_.clear();
    flows_ = source_total_ = 0;
    last_value_ = 0;
  }

 private:
  static std::uint8_t* put(std::uint8_t* out, std::uint64_t x) {
    while (x >= 0x80) {
      *out++ = static_cast<std::uint8_t>(x | 0x80);
      x >>= 7;
    }
    *out++ = static_cast<std::uint8_t>(x);
    return out;
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
  std::size_t flows_ = 0;
  std::size_t source_total_ = 0;
  ValueId last_value_ = 0;
};

static_assert(FlowStore<FlatFlowStore>);
static_assert(FlowStore<VarintFlowStore>);

}  // namespace commanalyzer

#endif  // COMMANALYZER_COMPRESSOR_H_

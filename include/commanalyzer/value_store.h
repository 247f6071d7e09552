// Value store: the value instances seen so far, as compact arrays indexed by
// ValueId: size in bytes, whether it is an input, how many shadow words hold
// it (live-copy count), and the graph vertex it belongs to.
//
// Liveness (DESIGN.md): a value is live while at least one location holds
// it; live at program/region end = output, killed earlier = intermediate.
#ifndef COMMANALYZER_VALUE_STORE_H_
#define COMMANALYZER_VALUE_STORE_H_

#include <cassert>
#include <concepts>
#include <cstddef>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "commanalyzer/big_array.h"
#include "commanalyzer/types.h"

namespace commanalyzer {

enum class ValueKind : std::uint8_t {
  kInput,         // first read of a location that held no value
  kIntermediate,  // created by a store, killed before the end
  kOutput,        // created by a store, live at the end
};

template <class S>
concept ValueStore = requires(S store, const S& const_store, ValueId v, VertexId x, std::uint32_t n) {
  { store.create(n, true, x) } -> std::same_as<ValueId>;
  { const_store.count() } -> std::convertible_to<std::size_t>;
  { const_store.size_bytes(v) } -> std::convertible_to<std::uint32_t>;
  { const_store.is_input(v) } -> std::same_as<bool>;
  { const_store.vertex(v) } -> std::same_as<VertexId>;
  { const_store.live_copies(v) } -> std::convertible_to<std::uint32_t>;
  { store.add_copy(v) };
  // Returns the copies left.
  { store.drop_copy(v) } -> std::convertible_to<std::uint32_t>;
  { const_store.memory_bytes() } -> std::convertible_to<std::size_t>;
};

// The vertex of every value, ~1.1 bytes per value instead of 4: blocks of
// 64 values hold a base vertex and a signed byte per value. Values created
// one after another mostly land in neighbouring vertices (the cells of a
// sweep, each coalesced into its location's vertex; fresh vertices are
// numbered in creation order); a block where some value lies more than 127
// vertices from the block's first one keeps all 64 as plain 32-bit ids.
class VertexColumn {
 public:
  void push_back(VertexId x) {
    const std::size_t i = delta_.size();
    if ((i & 63) == 0) blocks_.push_back({x, kNarrow});
    Block& block = blocks_[i >> 6];
    const std::int64_t diff = std::int64_t{x} - std::int64_t{block.base};
    if (block.wide == kNarrow && diff >= -128 && diff <= 127) {
      delta_.push_back(static_cast<std::int8_t>(diff));
      return;
    }
    if (block.wide == kNarrow) {  // widen: the block's values so far, as plain ids
      block.wide = static_cast<std::uint32_t>(wide_.size() / 64);
      VertexId* ids = wide_.extend(64);
      for (std::size_t k = i & ~std::size_t{63}; k < i; ++k) ids[k & 63] = block.base + static_cast<VertexId>(delta_[k]);
    }
    wide_[std::size_t{block.wide} * 64 + (i & 63)] = x;
    delta_.push_back(0);
  }
  VertexId operator[](std::size_t i) const {
    const Block& block = blocks_[i >> 6];
    return block.wide == kNarrow ? block.base + static_cast<VertexId>(delta_[i])
                                 : wide_[std::size_t{block.wide} * 64 + (i & 63)];
  }
  std::size_t size() const { return delta_.size(); }
  std::size_t memory_bytes() const {
    return blocks_.capacity() * sizeof(Block) + delta_.capacity() + wide_.capacity() * sizeof(VertexId);
  }

 private:
  static constexpr std::uint32_t kNarrow = ~std::uint32_t{0};
  struct Block {
    VertexId base;       // the vertex of the block's first value
    std::uint32_t wide;  // kNarrow, or the index of the block's 64 plain ids in wide_
  };
  BigArray<Block> blocks_;
  BigArray<std::int8_t> delta_;  // per value: vertex - base (narrow blocks)
  BigArray<VertexId> wide_;
};

// Default: structure of arrays, ~3 bytes per value: size and input flag in
// one byte, the live-copy count in one byte, the vertex in ~1.1
// (VertexColumn). The rare values that do not fit (128 bytes or more; 255 or
// more live copies) keep the rest in small side maps, so every query is
// exact.
class CompactValueStore {
 public:
  CompactValueStore() {
    // Slot 0 is kNoValue, so ids index the arrays directly.
    size_input_.push_back(0);
    live_.push_back(0);
    vertex_.push_back(kNoVertex);
  }

  ValueId create(std::uint32_t size_bytes, bool input, VertexId vertex) {
    if (vertex_.size() > kMaxValues) {
      throw std::length_error("commanalyzer: more than 2^32-2 value instances");
    }
    const auto id = static_cast<ValueId>(vertex_.size());
    const std::uint32_t size = size_bytes > 0xffff ? 0xffff : size_bytes;
    if (size >= kLargeSize) large_size_[id] = static_cast<std::uint16_t>(size);
    size_input_.push_back(static_cast<std::uint8_t>((size >= kLargeSize ? kLargeSize : size) | (input ? kInputBit : 0)));
    live_.push_back(0);
    vertex_.push_back(vertex);
    return id;
  }

  std::size_t count() const { return vertex_.size() - 1; }
  std::uint32_t size_bytes(ValueId v) const {
    const std::uint32_t size = size_input_[v] & ~kInputBit;
    return size == kLargeSize ? large_size_.at(v) : size;
  }
  bool is_input(ValueId v) const { return (size_input_[v] & kInputBit) != 0; }
  VertexId vertex(ValueId v) const { return vertex_[v]; }
  std::uint32_t live_copies(ValueId v) const {
    if (live_[v] != kManyCopies) return live_[v];
    const auto it = many_copies_.find(v);
    return kManyCopies + (it == many_copies_.end() ? 0 : it->second);
  }

  void add_copy(ValueId v) {
    if (live_[v] != kManyCopies) {
      ++live_[v];
    } else {
      ++many_copies_[v];
    }
  }
  std::uint32_t drop_copy(ValueId v) {
    assert(live_[v] > 0);
    if (live_[v] == kManyCopies) {
      if (auto it = many_copies_.find(v); it != many_copies_.end()) {
        const std::uint32_t more = --it->second;
        if (more == 0) many_copies_.erase(it);
        return kManyCopies + more;
      }
    }
    return --live_[v];
  }

  ValueKind kind(ValueId v) const {
    if (is_input(v)) return ValueKind::kInput;
    return live_[v] > 0 ? ValueKind::kOutput : ValueKind::kIntermediate;
  }

  std::size_t memory_bytes() const {
    return size_input_.capacity() + live_.capacity() + vertex_.memory_bytes() +
           (large_size_.size() + many_copies_.size()) * 32;
  }

 private:
  static constexpr std::size_t kMaxValues = 0xfffffffe;
  static constexpr std::uint8_t kInputBit = 0x80;
  static constexpr std::uint32_t kLargeSize = 0x7f;   // size byte: see large_size_
  static constexpr std::uint8_t kManyCopies = 0xff;   // live byte: 255 + many_copies_
  BigArray<std::uint8_t> size_input_;
  BigArray<std::uint8_t> live_;
  VertexColumn vertex_;
  std::unordered_map<ValueId, std::uint16_t> large_size_;
  std::unordered_map<ValueId, std::uint32_t> many_copies_;
};

static_assert(ValueStore<CompactValueStore>);

}  // namespace commanalyzer

#endif  // COMMANALYZER_VALUE_STORE_H_

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

// Default: structure of arrays, 11 bytes per value.
class CompactValueStore {
 public:
  CompactValueStore() {
    // Slot 0 is kNoValue, so ids index the arrays directly.
    size_.push_back(0);
    input_.push_back(0);
    live_.push_back(0);
    vertex_.push_back(kNoVertex);
  }

  ValueId create(std::uint32_t size_bytes, bool input, VertexId vertex) {
    if (size_.size() > kMaxValues) {
      throw std::length_error("commanalyzer: more than 2^32-2 value instances");
    }
    const auto id = static_cast<ValueId>(size_.size());
    size_.push_back(static_cast<std::uint16_t>(size_bytes > 0xffff ? 0xffff : size_bytes));
    input_.push_back(input ? 1 : 0);
    live_.push_back(0);
    vertex_.push_back(vertex);
    return id;
  }

  std::size_t count() const { return size_.size() - 1; }
  std::uint32_t size_bytes(ValueId v) const { return size_[v]; }
  bool is_input(ValueId v) const { return input_[v] != 0; }
  VertexId vertex(ValueId v) const { return vertex_[v]; }
  std::uint32_t live_copies(ValueId v) const { return live_[v]; }

  void add_copy(ValueId v) { ++live_[v]; }
  std::uint32_t drop_copy(ValueId v) {
    assert(live_[v] > 0);
    return --live_[v];
  }

  ValueKind kind(ValueId v) const {
    if (is_input(v)) return ValueKind::kInput;
    return live_[v] > 0 ? ValueKind::kOutput : ValueKind::kIntermediate;
  }

  std::size_t memory_bytes() const {
    return size_.capacity() * sizeof(std::uint16_t) + input_.capacity() +
           live_.capacity() * sizeof(std::uint32_t) + vertex_.capacity() * sizeof(VertexId);
  }

  // Raw columns, for serialisation.
  const BigArray<std::uint16_t>& sizes() const { return size_; }
  const BigArray<std::uint8_t>& inputs() const { return input_; }
  const BigArray<VertexId>& vertices() const { return vertex_; }

 private:
  static constexpr std::size_t kMaxValues = 0xfffffffe;
  BigArray<std::uint16_t> size_;
  BigArray<std::uint8_t> input_;
  BigArray<std::uint32_t> live_;
  BigArray<VertexId> vertex_;
};

static_assert(ValueStore<CompactValueStore>);

}  // namespace commanalyzer

#endif  // COMMANALYZER_VALUE_STORE_H_

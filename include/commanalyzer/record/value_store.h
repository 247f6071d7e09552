// Value store: the value instances seen so far, as compact arrays indexed by
// ValueId: size in bytes, whether it is an input, how many shadow words hold
// it (live-copy count; or only whether any does at the end), and the graph
// vertex it belongs to.
//
// Liveness (DESIGN.md): a value is live while at least one location holds
// it; live at program/region end = output, killed earlier = intermediate.
#ifndef COMMANALYZER_VALUE_STORE_H_
#define COMMANALYZER_VALUE_STORE_H_

#include <algorithm>
#include <cassert>
#include <concepts>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "commanalyzer/record/big_array.h"
#include "commanalyzer/record/ranked_bits.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

enum class ValueKind : std::uint8_t {
  kInput,         // first read of a location that held no value
  kIntermediate,  // created by a store, killed before the end
  kOutput,        // created by a store, live at the end
};

template <class S>
concept ValueStoreColumns = requires(S store, const S& const_store, ValueId v, VertexId x, std::uint32_t n) {
  { store.create(n, true, x) } -> std::same_as<ValueId>;
  { const_store.count() } -> std::convertible_to<std::size_t>;
  { const_store.size_bytes(v) } -> std::convertible_to<std::uint32_t>;
  { const_store.is_input(v) } -> std::same_as<bool>;
  { const_store.vertex(v) } -> std::same_as<VertexId>;
  { const_store.kind(v) } -> std::same_as<ValueKind>;
  { const_store.memory_bytes() } -> std::convertible_to<std::size_t>;
};

// Liveness, one of two ways. Counting: every shadow word that takes or
// loses a value changes its live-copy count, and kind() is exact at any
// time.
template <class S>
concept CountsCopies = requires(S store, const S& const_store, ValueId v) {
  { const_store.live_copies(v) } -> std::convertible_to<std::uint32_t>;
  { store.add_copy(v) };
  // Returns the copies left.
  { store.drop_copy(v) } -> std::convertible_to<std::uint32_t>;
};

// Marking at the end: the analyzer marks the values the shadow memory holds
// when it finishes, and kind() is exact from then on. Nothing per store.
template <class S>
concept MarksLiveAtEnd = requires(S store, ValueId v) {
  { store.reset_live() };
  { store.mark_live(v) };
};

template <class S>
concept ValueStore = ValueStoreColumns<S> && (CountsCopies<S> || MarksLiveAtEnd<S>);

// The vertex of every value, in blocks of 64 values. Values created one
// after another mostly land in neighbouring vertices (the cells of a sweep,
// each coalesced into its location's vertex; fresh vertices are numbered in
// creation order), so a block is, from the cheapest:
//   - a step block: the k-th value is in vertex base + step * k, step 0 or
//     1 (a sweep's row; an accumulator's updates): 8 bytes for 64 values;
//   - a narrow block: base and a signed byte per value (~1.1 bytes each);
//   - a wide block, where some value lies more than 127 vertices from the
//     first one: all 64 as plain 32-bit ids.
// A block starts as a step block and is widened when a value breaks the
// pattern.
class VertexColumn {
 public:
  void push_back(VertexId x) {
    const std::size_t i = size_++;
    const std::size_t k = i & 63;
    if (k == 0) {
      blocks_.push_back({x, kStepOne});
      return;
    }
    Block& block = blocks_[i >> 6];
    switch (block.where) {
      case kStepOne:
        if (x == block.base + static_cast<VertexId>(k)) return;
        if (k == 1 && x == block.base) {
          block.where = kStepZero;
          return;
        }
        break;
      case kStepZero:
        if (x == block.base) return;
        break;
      default:
        break;
    }
    store(block, k, x);
  }
  VertexId operator[](std::size_t i) const {
    const Block& block = blocks_[i >> 6];
    const std::size_t k = i & 63;
    switch (block.where) {
      case kStepOne: return block.base + static_cast<VertexId>(k);
      case kStepZero: return block.base;
      default: {
        const std::size_t at = std::size_t{block.where >> 1} * 64 + k;
        return (block.where & 1) != 0 ? wide_[at] : block.base + static_cast<VertexId>(delta_[at]);
      }
    }
  }
  std::size_t size() const { return size_; }
  std::size_t memory_bytes() const {
    return blocks_.capacity() * sizeof(Block) + delta_.capacity() + wide_.capacity() * sizeof(VertexId);
  }
  // The 64 entries from `first` (a multiple of 64, all present) into
  // out[0..64): one look at the block, not one per entry.
  void block64(std::size_t first, VertexId* out) const {
    const Block& block = blocks_[first >> 6];
    switch (block.where) {
      case kStepOne:
        for (std::size_t k = 0; k < 64; ++k) out[k] = block.base + static_cast<VertexId>(k);
        return;
      case kStepZero:
        for (std::size_t k = 0; k < 64; ++k) out[k] = block.base;
        return;
      default: {
        const std::size_t at = std::size_t{block.where >> 1} * 64;
        if ((block.where & 1) != 0) {
          for (std::size_t k = 0; k < 64; ++k) out[k] = wide_[at + k];
        } else {
          for (std::size_t k = 0; k < 64; ++k) out[k] = block.base + static_cast<VertexId>(delta_[at + k]);
        }
      }
    }
  }
  // Entries [first, first + n) into out[0..n): whole blocks through
  // block64, the ends one by one.
  void copy(std::size_t first, std::size_t n, VertexId* out) const {
    const std::size_t end = first + n;
    std::size_t i = first;
    for (; i < end && (i & 63) != 0; ++i) *out++ = (*this)[i];
    for (; i + 64 <= end; i += 64, out += 64) block64(i, out);
    for (; i < end; ++i) *out++ = (*this)[i];
  }
  // Is the block of the 64 entries from `first` (a multiple of 64, all
  // present) a step block? Then entry first + k is base + step * k.
  bool step_block(std::size_t first, VertexId& base, VertexId& step) const {
    const Block& block = blocks_[first >> 6];
    if (block.where != kStepOne && block.where != kStepZero) return false;
    base = block.base;
    step = block.where == kStepOne ? 1 : 0;
    return true;
  }

 private:
  // Block::where: a step block, or (offset << 1 | wide): the block's 64
  // deltas at delta_[64 * offset], or its 64 ids at wide_[64 * offset].
  static constexpr std::uint32_t kStepOne = ~std::uint32_t{0};
  static constexpr std::uint32_t kStepZero = ~std::uint32_t{0} - 1;
  struct Block {
    VertexId base;        // the vertex of the block's first value
    std::uint32_t where;
  };

  // x as the k-th value of a block that is not (or no longer) a step block.
  [[gnu::noinline]] void store(Block& block, std::size_t k, VertexId x) {
    const std::int64_t diff = std::int64_t{x} - std::int64_t{block.base};
    const bool fits = diff >= -128 && diff <= 127;
    if (block.where == kStepOne || block.where == kStepZero) {
      // The first k values: base + step * j (j < 64: a narrow delta when
      // step is 1 or 0).
      const VertexId step = block.where == kStepOne ? 1 : 0;
      if (fits) {
        if (delta_.size() / 64 >= kMaxOffset) throw std::length_error("commanalyzer: vertex column full");
        block.where = static_cast<std::uint32_t>(delta_.size() / 64) << 1;
        std::int8_t* deltas = delta_.extend(64);
        for (std::size_t j = 0; j < k; ++j) deltas[j] = static_cast<std::int8_t>(step * j);
        deltas[k] = static_cast<std::int8_t>(diff);
        return;
      }
      if (wide_.size() / 64 >= kMaxOffset) throw std::length_error("commanalyzer: vertex column full");
      block.where = (static_cast<std::uint32_t>(wide_.size() / 64) << 1) | 1;
      VertexId* ids = wide_.extend(64);
      for (std::size_t j = 0; j < k; ++j) ids[j] = block.base + step * static_cast<VertexId>(j);
      ids[k] = x;
      return;
    }
    const std::size_t at = std::size_t{block.where >> 1} * 64;
    if ((block.where & 1) != 0) {
      wide_[at + k] = x;
      return;
    }
    if (fits) {
      delta_[at + k] = static_cast<std::int8_t>(diff);
      return;
    }
    // Widen: the block's values so far, as plain ids.
    if (wide_.size() / 64 >= kMaxOffset) throw std::length_error("commanalyzer: vertex column full");
    const std::uint32_t offset = static_cast<std::uint32_t>(wide_.size() / 64);
    VertexId* ids = wide_.extend(64);
    for (std::size_t j = 0; j < k; ++j) ids[j] = block.base + static_cast<VertexId>(delta_[at + j]);
    ids[k] = x;
    block.where = (offset << 1) | 1;
  }

  static constexpr std::size_t kMaxOffset = (std::size_t{1} << 31) - 2;  // where stays below kStepZero
  BigArray<Block> blocks_;
  BigArray<std::int8_t> delta_;  // 64 per narrow block
  BigArray<VertexId> wide_;      // 64 per wide block
  std::size_t size_ = 0;
};

// A byte per value in blocks of 4096 values; a block whose values all have
// the same byte keeps only that byte (a sweep creates millions of values of
// one size, none of them inputs).
class ByteColumn {
 public:
  // The common case inline (every store creates a value: the call cost
  // more than the test), the rest out of line.
  [[gnu::always_inline]] void push_back(std::uint8_t b) {
    if ((size_ & kMask) != 0 && b == last_same_) [[likely]] {
      ++size_;
      return;
    }
    push_back_slow(b);
  }
  std::uint8_t operator[](std::size_t i) const {
    const Block& block = blocks_[i >> kBits];
    return block.bytes.empty() ? block.same : block.bytes[i & kMask];
  }
  std::size_t size() const { return size_; }
  // Do all entries of i's block have one byte? Then that byte.
  bool uniform_at(std::size_t i, std::uint8_t& byte) const {
    const Block& block = blocks_[i >> kBits];
    byte = block.same;
    return block.bytes.empty();
  }
  std::size_t memory_bytes() const {
    std::size_t bytes = blocks_.capacity() * sizeof(Block);
    for (const Block& block : blocks_) bytes += block.bytes.capacity();
    return bytes;
  }

 private:
  static constexpr unsigned kBits = 12;
  static constexpr std::size_t kBlock = std::size_t{1} << kBits, kMask = kBlock - 1;
  struct Block {
    std::vector<std::uint8_t> bytes;  // empty: every value has `same`
    std::uint8_t same;
  };
  // No byte is 0x100: the last block is not uniform (or there is none).
  static constexpr unsigned kNotUniform = 0x100;

  [[gnu::noinline]] void push_back_slow(std::uint8_t b) {
    const std::size_t i = size_++;
    const std::size_t k = i & kMask;
    if (k == 0) {
      blocks_.push_back({{}, b});
      last_same_ = b;
      return;
    }
    Block& block = blocks_.back();
    if (block.bytes.empty()) {
      if (b == block.same) return;
      block.bytes.assign(kBlock, block.same);
      last_same_ = kNotUniform;
    }
    block.bytes[k] = b;
  }

  std::vector<Block> blocks_;
  std::size_t size_ = 0;
  unsigned last_same_ = kNotUniform;  // the last block's one byte, while it has one
};

// The live-copy count of every value, a byte each, in blocks of 4096
// values. Most values die soon after they are made (a sweep overwrites last
// step's cells), so a block whose counts are all zero gives its memory back
// (an empty block reads as zeros and is made again if a dead value is copied
// anew from a register). Blocks are given back lazily, when a block of new
// values starts: a value that dies and revives over and over costs at most
// one block per 4096 new values.
class LiveCounts {
 public:
  LiveCounts() = default;
  LiveCounts(LiveCounts&&) noexcept = default;
  LiveCounts& operator=(LiveCounts&&) noexcept = default;
  LiveCounts(const LiveCounts& other) : nonzero_(other.nonzero_), idle_(other.idle_), size_(other.size_) {
    blocks_.reserve(other.blocks_.size());
    for (const auto& block : other.blocks_) {
      blocks_.emplace_back();
      if (block) {
        blocks_.back() = std::make_unique<std::uint8_t[]>(kBlock);
        std::copy(block.get(), block.get() + kBlock, blocks_.back().get());
      }
    }
  }
  LiveCounts& operator=(const LiveCounts& other) {
    if (this != &other) *this = LiveCounts(other);
    return *this;
  }

  void push_back() {  // the count of a new value: 0
    const std::size_t i = size_++;
    if ((i & kMask) != 0) return;
    blocks_.emplace_back();
    nonzero_.push_back(0);
    for (const std::size_t b : idle_) {
      if (nonzero_[b] == 0) blocks_[b].reset();
    }
    idle_.clear();
  }
  std::uint8_t operator[](std::size_t i) const {
    const std::uint8_t* block = blocks_[i >> kBits].get();
    return block == nullptr ? 0 : block[i & kMask];
  }
  // The count of value i, which the caller is about to increment.
  [[gnu::always_inline]] std::uint8_t& add(std::size_t i) {
    std::unique_ptr<std::uint8_t[]>& block = blocks_[i >> kBits];
    if (block == nullptr) [[unlikely]] block = std::make_unique<std::uint8_t[]>(kBlock);  // zeroed
    std::uint8_t& count = block[i & kMask];
    if (count == 0) ++nonzero_[i >> kBits];
    return count;
  }
  // The count of value i (> 0), which the caller is about to decrement
  // (unless it is 255 and the side map holds more).
  [[gnu::always_inline]] std::uint8_t& drop(std::size_t i) {
    std::uint8_t& count = blocks_[i >> kBits][i & kMask];
    if (count == 1 && --nonzero_[i >> kBits] == 0) [[unlikely]] went_idle(i >> kBits);
    return count;
  }
  std::size_t memory_bytes() const {
    std::size_t bytes = blocks_.capacity() * sizeof(blocks_[0]) + nonzero_.capacity() * sizeof(std::uint32_t) +
                        idle_.capacity() * sizeof(std::size_t);
    for (const auto& block : blocks_) bytes += block ? kBlock : 0;
    return bytes;
  }

 private:
  static constexpr unsigned kBits = 12;
  static constexpr std::size_t kBlock = std::size_t{1} << kBits, kMask = kBlock - 1;
  [[gnu::noinline]] void went_idle(std::size_t block) { idle_.push_back(block); }

  std::vector<std::unique_ptr<std::uint8_t[]>> blocks_;  // null: all zero
  std::vector<std::uint32_t> nonzero_;                   // per block: counts > 0
  std::vector<std::size_t> idle_;                        // blocks whose last count went to 0
  std::size_t size_ = 0;
};

// A bit per value: held by some location when the analyzer finished
// (MarksLiveAtEnd). In pages (RankedBits): the values held at the end are
// mostly the last iteration's, so the pages of the others are never made.
class LiveAtEnd {
 public:
  void push_back() {}  // a new value is unmarked; the bits grow when marked
  std::uint8_t operator[](std::size_t i) const { return i < bits_.room() && bits_.contains(i) ? 1 : 0; }
  void mark(std::size_t i) {
    bits_.grow_to(i + 1);  // the page table grows by doubling (std::vector)
    bits_.insert(i);
  }
  void reset() { *this = {}; }
  // f(i) for the marked values, ascending.
  template <class F>
  void for_each(F&& f) const {
    bits_.for_each(f);
  }
  std::size_t memory_bytes() const { return bits_.memory_bytes(); }

 private:
  RankedBits bits_{0};
};

// Structure of arrays: size and input flag in one byte, liveness (Liveness:
// LiveCounts, a live-copy count in one byte; or LiveAtEnd, a bit), the
// vertex (VertexColumn), each column in blocks that shrink to almost nothing
// when their values are alike (one size, neighbouring vertices) or dead. The
// rare values that do not fit (128 bytes or more; 255 or more live copies)
// keep the rest in small side maps, so every query is exact.
template <class Liveness>
class BasicCompactValueStore {
  static constexpr bool kCounts = std::same_as<Liveness, LiveCounts>;

 public:
  BasicCompactValueStore() {
    // Slot 0 is kNoValue, so ids index the arrays directly.
    size_input_.push_back(0);
    live_.push_back();
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
    live_.push_back();
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
  // The vertices of values [first, first + n) into out[0..n).
  void vertices(ValueId first, std::size_t n, VertexId* out) const { vertex_.copy(first, n, out); }
  std::uint32_t live_copies(ValueId v) const
    requires kCounts
  {
    if (live_[v] != kManyCopies) return live_[v];
    const auto it = many_copies_.find(v);
    return kManyCopies + (it == many_copies_.end() ? 0 : it->second);
  }

  // Inline for the common counts; the side map out of line (every store
  // and copy changes two counts).
  [[gnu::always_inline]] void add_copy(ValueId v)
    requires kCounts
  {
    std::uint8_t& count = live_.add(v);
    if (count != kManyCopies) [[likely]] {
      ++count;
    } else {
      add_many(v);
    }
  }
  [[gnu::always_inline]] std::uint32_t drop_copy(ValueId v)
    requires kCounts
  {
    std::uint8_t& count = live_.drop(v);
    assert(count > 0);
    if (count == kManyCopies) [[unlikely]] return drop_many(v, count);
    return --count;
  }

  // Are the 64 values from `first` (a multiple of 64; all created) alike:
  // one size (below 127 bytes) and input flag, and vertices base + step * k
  // (step 0 or 1)? For readers that go through all values (profile files).
  bool alike64(ValueId first, std::uint32_t& size, bool& input, VertexId& base, VertexId& step) const {
    std::uint8_t byte;
    if (!size_input_.uniform_at(first, byte) || !vertex_.step_block(first, base, step)) return false;
    size = byte & ~kInputBit;
    input = (byte & kInputBit) != 0;
    return size != kLargeSize;
  }

  // The 64 values from `first` (a multiple of 64; all created) when they
  // have one size (below 127 bytes) and input flag: their vertices into
  // out[0..64). For readers that go through all values.
  bool same_size64(ValueId first, std::uint32_t& size, bool& input, VertexId* out) const {
    std::uint8_t byte;
    if (!size_input_.uniform_at(first, byte) || (byte & ~kInputBit) == kLargeSize) return false;
    size = byte & ~kInputBit;
    input = (byte & kInputBit) != 0;
    vertex_.block64(first, out);
    return true;
  }

  void reset_live()
    requires(!kCounts)
  {
    live_.reset();
  }
  void mark_live(ValueId v)
    requires(!kCounts)
  {
    live_.mark(v);
  }
  // f(v) for the values marked live, ascending.
  template <class F>
  void for_each_live(F&& f) const
    requires(!kCounts)
  {
    live_.for_each([&](std::size_t i) { f(static_cast<ValueId>(i)); });
  }

  ValueKind kind(ValueId v) const {
    if (is_input(v)) return ValueKind::kInput;
    return live_[v] > 0 ? ValueKind::kOutput : ValueKind::kIntermediate;
  }

  std::size_t memory_bytes() const {
    return size_input_.memory_bytes() + live_.memory_bytes() + vertex_.memory_bytes() +
           (large_size_.size() + many_copies_.size()) * 32;
  }

 private:
  [[gnu::noinline]] void add_many(ValueId v) { ++many_copies_[v]; }
  [[gnu::noinline]] std::uint32_t drop_many(ValueId v, std::uint8_t& count) {
    if (auto it = many_copies_.find(v); it != many_copies_.end()) {
      const std::uint32_t more = --it->second;
      if (more == 0) many_copies_.erase(it);
      return kManyCopies + more;
    }
    return --count;
  }

  static constexpr std::size_t kMaxValues = 0xfffffffe;
  static constexpr std::uint8_t kInputBit = 0x80;
  static constexpr std::uint32_t kLargeSize = 0x7f;   // size byte: see large_size_
  static constexpr std::uint8_t kManyCopies = 0xff;   // live byte: 255 + many_copies_
  ByteColumn size_input_;
  Liveness live_;
  VertexColumn vertex_;
  std::unordered_map<ValueId, std::uint16_t> large_size_;
  std::unordered_map<ValueId, std::uint32_t> many_copies_;
};

// The default counts live copies, as DESIGN.md describes the value store.
using CompactValueStore = BasicCompactValueStore<LiveCounts>;
// The same columns without a count to keep up on every store and copy:
// outputs are marked once, at the end (the runtime's choice: on a 2-D
// Jacobi the counts took a sixth of the instrumented run, and only kind()
// reads them).
using LiveAtEndValueStore = BasicCompactValueStore<LiveAtEnd>;

static_assert(ValueStore<CompactValueStore> && CountsCopies<CompactValueStore>);
static_assert(ValueStore<LiveAtEndValueStore> && !CountsCopies<LiveAtEndValueStore>);

}  // namespace commanalyzer

#endif  // COMMANALYZER_VALUE_STORE_H_

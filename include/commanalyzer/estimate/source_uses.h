// How often each value instance of a run is read as a source, saturating
// at 2 (read once, or more: what the cost model's combined partials ask,
// combined_partials.h), for every instance of the run.
//
//   SourceUses uses(values);   // all 0
//   uses.add(s);               // while the flows are read
//   uses.seal();               // then only read
//   uses[s];                   // 0, 1 or 2
//
// Two bits per instance while the flows are read. Sealed, a block of 4096
// instances that all have one count keeps only that count: in a sweep
// nearly every block is read twice or more (a stencil's cells) or never
// (the last step's), so the instances of a long run cost next to nothing,
// where a byte each was the largest part of the estimate that grew with
// the time steps.
#ifndef COMMANALYZER_SOURCE_USES_H_
#define COMMANALYZER_SOURCE_USES_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "commanalyzer/record/types.h"

namespace commanalyzer {

class SourceUses {
 public:
  SourceUses() = default;
  explicit SourceUses(std::size_t values)
      : packed_((values + 3) / 4, 0), block_count_((values + kBlock - 1) / kBlock, kMixed) {
    where_.resize(block_count_.size());
    for (std::size_t b = 0; b < where_.size(); ++b) where_[b] = static_cast<std::uint32_t>(b);
  }

  // Before seal() only.
  void add(ValueId s) {
    std::uint8_t& byte = packed_[s / 4];
    const unsigned shift = 2 * (s % 4);
    if (((byte >> shift) & 3) < 2) byte = static_cast<std::uint8_t>(byte + (1u << shift));
  }

  std::uint8_t operator[](ValueId s) const {
    const std::uint8_t count = block_count_[s / kBlock];
    if (count != kMixed) return count;
    const std::size_t at = std::size_t{where_[s / kBlock]} * kBytesPerBlock + (s % kBlock) / 4;
    return static_cast<std::uint8_t>((packed_[at] >> (2 * (s % 4))) & 3);
  }

  // Blocks of one count keep only it; the others' bytes move to the front.
  void seal() {
    std::size_t kept = 0, bytes = 0;
    for (std::size_t b = 0; b < block_count_.size(); ++b) {
      const std::size_t first = b * kBytesPerBlock;
      const std::size_t end = std::min(first + kBytesPerBlock, packed_.size());
      // (The last block, partly past the run's instances, keeps its bytes.)
      const std::uint8_t count = b + 1 == block_count_.size() ? kMixed : one_count(first, end);
      block_count_[b] = count;
      if (count != kMixed) continue;
      for (std::size_t i = first; i < end; ++i) packed_[bytes++] = packed_[i];
      where_[b] = static_cast<std::uint32_t>(kept++);
    }
    packed_.resize(bytes);
    packed_.shrink_to_fit();
  }

  std::size_t memory_bytes() const {
    return packed_.capacity() + block_count_.capacity() + where_.capacity() * sizeof(std::uint32_t);
  }

 private:
  static constexpr std::size_t kBlock = 4096;  // instances
  static constexpr std::size_t kBytesPerBlock = kBlock / 4;
  static constexpr std::uint8_t kMixed = 3;  // not a count: the block keeps its bytes

  // The count every instance of bytes [first, end) has, or kMixed.
  std::uint8_t one_count(std::size_t first, std::size_t end) const {
    const auto all = static_cast<std::uint8_t>((packed_[first] & 3) * 0x55);
    for (std::size_t i = first; i < end; ++i) {
      if (packed_[i] != all) return kMixed;
    }
    return all & 3;
  }

  std::vector<std::uint8_t> packed_;       // 4 instances a byte; sealed: the mixed blocks only
  std::vector<std::uint8_t> block_count_;  // per block: its one count, or kMixed
  std::vector<std::uint32_t> where_;       // per mixed block: its place in packed_
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_SOURCE_USES_H_

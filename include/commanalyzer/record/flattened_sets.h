// The source sets of labels flattened lately, by node label, for the
// union slicer (slicer.h):
//
//   FlattenedSets kept;
//   kept.keep(node, sources);                       // after a large flatten
//   if (const auto* set = kept.find(node)) ...      // a later node with its operands
//   kept.clear();                                   // node slots were reused
//
// A big label is usually built on a result flattened just before: a loop's
// result is flattened when the loop leaves (Analyzer::loop_result), then
// scaled and stored, or added into an array element. Walking such a label
// down to its leaves again repeats the walk of the loop result; the set
// kept for it replaces that part of the walk.
//
// Sets are kept by a node's operands, not by its slot: the set of a node
// is the union of its operands' sets, so two nodes with the same operands
// have the same set. The pass makes nodes inline without the join memo
// (runtime_abi.h), so one sum computed again in every pass of a loop (the
// same three cofactors added up for each corner of an element) is a new
// node each time, with the same operands.
#ifndef COMMANALYZER_RECORD_FLATTENED_SETS_H_
#define COMMANALYZER_RECORD_FLATTENED_SETS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "commanalyzer/record/label_bits.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

// Direct-mapped, by a multiply-shift hash of the operands: a lookup is one
// probe of a table that stays in L1, cheap enough to try at every node of a
// walk. A set is valid while the operands' slots are not reused: the user
// clears the table whenever the node arena collects.
class FlattenedSets {
 public:
  // The kept source set of a node with these operands, or null.
  const std::vector<ValueId>* find(const UnionNode& node) const {
    const std::size_t slot = slot_of(node);
    return keys_[slot].a == node.a && keys_[slot].b == node.b ? &sets_[slot] : nullptr;
  }
  bool empty() const { return count_ == 0; }

  void keep(const UnionNode& node, std::span<const ValueId> sources) {
    const std::size_t slot = slot_of(node);
    if (keys_[slot].a == kNoLabel) ++count_;
    keys_[slot] = node;
    sets_[slot].assign(sources.begin(), sources.end());
  }

  void clear() {
    if (count_ == 0) return;
    keys_.fill(UnionNode{kNoLabel, kNoLabel});
    count_ = 0;
  }

  std::size_t memory_bytes() const {
    std::size_t bytes = sizeof(keys_);
    for (const auto& set : sets_) bytes += set.capacity() * sizeof(ValueId);
    return bytes;
  }

 private:
  // Room for the loop results of one pass of a kernel's inner loops (a
  // result per output component) and their operands, which the loop
  // results and stores right after them reuse; the keys (4 KiB) stay in L1.
  static constexpr unsigned kSlotBits = 8;
  static constexpr std::size_t kSlots = std::size_t{1} << kSlotBits;

  static std::size_t slot_of(const UnionNode& node) {
    const std::uint64_t h = (node.a * 0x9E3779B97F4A7C15ull) ^ (node.b + 0x632BE59BD9B4E019ull);
    return static_cast<std::size_t>((h * 0xD6E8FEB86659FD93ull) >> (64 - kSlotBits));
  }

  std::array<UnionNode, kSlots> keys_{};
  std::array<std::vector<ValueId>, kSlots> sets_;
  std::size_t count_ = 0;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_RECORD_FLATTENED_SETS_H_

// The bit layout of a slicer label, shared by both slicers (slicer.h), the
// node arena and the large-union walk, and the pass's inline code
// (instrument/runtime_abi.h states the same layout in C):
//
//   0                  no data dependence
//   v (bits 0..31)     a leaf: exactly one value instance, straight from a load
//   kPairBit | lo, hi  two leaves below kPairLimit, held in the label itself
//   kNodeBit | i       an interior node of the slicer's own structure
//   | kComputedBit     (types.h) at least one computation step
#ifndef COMMANALYZER_RECORD_LABEL_BITS_H_
#define COMMANALYZER_RECORD_LABEL_BITS_H_

#include <algorithm>

#include "commanalyzer/record/types.h"

namespace commanalyzer {

inline constexpr Label kNodeBit = Label{1} << 62;
inline constexpr Label kPayloadMask = ~(kComputedBit | kNodeBit);
// A pair is the union of two leaves below kPairLimit (the smaller id in bits
// 30..59, the larger in 0..29), so the commonest join -- a * b of two
// loaded values -- needs no node, and a walk finds both leaves without a
// memory access.
inline constexpr Label kPairBit = Label{1} << 61;
inline constexpr unsigned kPairShift = 30;
inline constexpr Label kPairLimit = Label{1} << kPairShift;

// An interior node: the union of its operands (labels with the computed bit
// cleared, in either order). The pass writes nodes too (runtime_abi.h), so
// the layout is fixed: two words.
struct UnionNode {
  Label a, b;
};

namespace slicer_internal {
inline constexpr ValueId leaf_value(Label a) {
  return (a & (kComputedBit | kNodeBit | kPairBit)) == 0 ? static_cast<ValueId>(a) : kNoValue;
}
// A node or pair label only comes from joining two distinct non-empty
// labels: it names >= 2 values.
inline constexpr bool is_compound(Label a) { return (a & (kNodeBit | kPairBit)) != 0; }
inline constexpr bool is_node(Label a) { return (a & kNodeBit) != 0; }
// The pair of distinct leaves a and b, both non-zero and below kPairLimit.
inline constexpr Label make_pair(Label a, Label b) {
  return kPairBit | (std::min(a, b) << kPairShift) | std::max(a, b);
}
inline constexpr ValueId pair_low(Label p) { return static_cast<ValueId>((p >> kPairShift) & (kPairLimit - 1)); }
inline constexpr ValueId pair_high(Label p) { return static_cast<ValueId>(p & (kPairLimit - 1)); }
// f(v) for the value of a leaf label, or for both values of a pair.
template <class F>
[[gnu::always_inline]] inline void for_each_leaf(Label leaf_or_pair, F&& f) {
  if ((leaf_or_pair & kPairBit) != 0) {
    f(pair_low(leaf_or_pair));
    f(pair_high(leaf_or_pair));
  } else {
    f(static_cast<ValueId>(leaf_or_pair));
  }
}
// Joins that need no structure (with nothing, or with itself). Clears the
// computed bits of a and b; returns kNoLabel when a real join is needed.
inline constexpr Label trivial_join(Label& a, Label& b) {
  a &= ~kComputedBit;
  b &= ~kComputedBit;
  if (a == kNoLabel || a == b) return b | kComputedBit;
  if (b == kNoLabel) return a | kComputedBit;
  return kNoLabel;
}
}  // namespace slicer_internal

}  // namespace commanalyzer

#endif  // COMMANALYZER_RECORD_LABEL_BITS_H_

// The small walk of the union-DAG slicer (slicer.h): the label of one
// store is usually a small expression tree, walked without visit marks for
// at most kSmallWalk steps (duplicates from shared operands are removed by
// the sort after). Each step pops one label and pushes at most two: the
// stack never holds more than kSmallWalk + 1 labels; each step finds at
// most one leaf or pair. A label too big for it goes on to the large-union
// walk (large_union.h) from where it stopped.
//
//   SmallWalk walk;
//   if (small_walk(arena, root, walk)) { /* walk.leaves[0, walk.found) */ }
//   else { /* walk.stack[0, walk.top) is still to expand */ }
#ifndef COMMANALYZER_RECORD_SMALL_WALK_H_
#define COMMANALYZER_RECORD_SMALL_WALK_H_

#include <array>
#include <cstddef>

#include "commanalyzer/record/label_bits.h"
#include "commanalyzer/record/node_arena.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

// Steps of the small walk: a store's expression tree fits.
inline constexpr std::size_t kSmallWalk = 128;

struct SmallWalk {
  std::array<Label, kSmallWalk + 1> stack;
  std::array<ValueId, 2 * kSmallWalk> leaves;
  std::size_t top = 0, found = 0;
};

// Gathers the leaves below `root` into walk.leaves[0, found). False when
// the label is too big: then walk.stack[0, top) holds what is still to
// expand. The walk goes down the first operands in a register and leaves
// only the second ones on the stack: a round trip through memory per
// node would make the walk one long chain of dependent loads.
[[gnu::always_inline]] inline bool small_walk(const NodeArena& arena, Label root, SmallWalk& walk) {
  std::size_t top = 0, found = 0;
  Label label = root;
  for (std::size_t steps = 0;; ++steps) {
    if (steps == kSmallWalk) [[unlikely]] {
      walk.stack[top++] = label;
      walk.top = top;
      walk.found = found;
      return false;
    }
    if ((label & kNodeBit) != 0) {
      const UnionNode& node = arena[label & kPayloadMask];
      walk.stack[top++] = node.b;
      label = node.a;
      continue;
    }
    slicer_internal::for_each_leaf(label, [&](ValueId v) { walk.leaves[found++] = v; });
    if (top == 0) break;
    label = walk.stack[--top];
  }
  walk.top = top;
  walk.found = found;
  return true;
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_RECORD_SMALL_WALK_H_

// Flattening a union too big for the slicer's small walk: a store of a
// long accumulator, the residual of a whole sweep (millions of nodes).
//
//   LargeUnionWalk walk;
//   out = {leaves found so far};                          // maybe repeated
//   walk.flatten(nodes, node_count, pending, out, unmarked);  // out: sorted, unique
//   bool met = walk.flatten(nodes, node_count, {root}, out, 0, stop_index);
//
// The walk keeps its bitmaps between calls (all zero between them), so a
// call costs what it visits, not the size of the DAG or of the id range.
#ifndef COMMANALYZER_RECORD_LARGE_UNION_H_
#define COMMANALYZER_RECORD_LARGE_UNION_H_

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "commanalyzer/record/big_array.h"
#include "commanalyzer/record/id_sort.h"
#include "commanalyzer/record/label_bits.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

// An iterative DFS over union nodes. A visit bitmap (cleared after the call,
// word by word) visits each shared node once, so the cost is linear in the
// DAG below the roots, never exponential. Leaves are deduplicated on the fly
// with a bitmap over value ids; the unique leaves then come out in order
// either by scanning the bitmap (when they are dense in their id range, as
// the residual of a stencil sweep is) or by a radix sort, never by a
// comparison sort of a set that can hold millions of ids.
class LargeUnionWalk {
 public:
  static constexpr std::size_t kNoStop = ~std::size_t{0};

  // `out` holds leaves found so far (maybe repeated); `pending` the labels
  // still to expand; nodes[0, node_count) the DAG. On return `out` is the
  // source set: sorted, unique.
  // The first `unmarked` nodes are expanded without visit marks: a label
  // of a few hundred nodes (a dot product's accumulator) is usually a tree,
  // and the marks (a bitmap word per node, set and cleared) cost a third of
  // such a walk. A label with more nodes, or one whose leaves the walk
  // meets again more often than it finds new ones (a DAG: an element's
  // forces built on its shared shape derivatives, whose nodes an unmarked
  // walk expands once per path to them), goes on with marks (a node
  // expanded before may be expanded once more, no more). A tree whose
  // leaves recur (a stencil's residual reads each cell from its
  // neighbours) goes on with marks too, which costs it the marks; a DAG
  // saves the walk of every path to a shared node but one.
  // Leaves are deduplicated through the leaf bitmap either way.
  // With a `stop` node index (only when unmarked == 0), the walk does not
  // expand it; returns whether it met it.
  //
  // The walk keeps every array it touches in a Cursor's pointers
  // (refreshed only when one grows), a local the compiler keeps in
  // registers: through the members, each step would reload them, since a
  // store to a bitmap word may alias them as far as the compiler knows. It
  // is the inner loop of every big flatten.
  [[gnu::noinline]] bool flatten(const UnionNode* nodes, std::size_t node_count, std::span<const Label> pending,
                                 std::vector<ValueId>& out, std::size_t unmarked, std::size_t stop = kNoStop) {
    if (visited_.size() * 64 < node_count) visited_.resize((node_count + 63) / 64, 0);
    if (visited_words_.size() < 64) visited_words_.resize(64);
    // The stack starts with the pending labels and room for a node's two
    // operands; it doubles when a push finds it full.
    if (stack_.size() < pending.size() + 2) stack_.resize(std::max(pending.size() + 2, 2 * stack_.size()));
    std::copy(pending.begin(), pending.end(), stack_.begin());
    Cursor c(*this, nodes, out, pending.size(), stop);
    // Down the first operands in a register (a round trip through memory
    // per node would make the walk one long chain of dependent loads);
    // first without marks (its own loop: a test per node would slow the
    // marked walk).
    c.walk_unmarked(unmarked);
    c.walk_marked();
    out.resize(c.kept);
    for (std::size_t i = 0; i < c.touched_count; ++i) c.visited[c.touched[i]] = 0;
    if (!out.empty()) sort_and_clear_leaves(out, c.lo_word, c.hi_word);
    return c.met_stop;
  }

  std::size_t memory_bytes() const {
    return visited_.capacity() * sizeof(std::uint64_t) + visited_words_.capacity() * sizeof(std::size_t) +
           seen_.capacity() * sizeof(std::uint64_t) + seen_words_.capacity() * sizeof(std::uint64_t);
  }

 private:
  // One flatten's state: the walk's arrays as pointers, their sizes, and
  // what it has found.
  struct Cursor {
    Cursor(LargeUnionWalk& walk, const UnionNode* nodes_in, std::vector<ValueId>& out_in, std::size_t pending,
           std::size_t stop_in)
        : self(walk),
          nodes(nodes_in),
          out(out_in),
          visited(walk.visited_.data()),
          seen(walk.seen_.data()),
          seen_words(walk.seen_words_.data()),
          seen_size(walk.seen_.size()),
          touched(walk.visited_words_.data()),
          touched_room(walk.visited_words_.size()),
          stack(walk.stack_.data()),
          top(pending),
          stack_room(walk.stack_.size()),
          stop(stop_in) {
      // Unique leaves go to out[0, kept), grown by doubling.
      for (const ValueId v : out) {
        if (add_leaf(v)) {
          out[kept++] = v;
        } else {
          ++met_again;
        }
      }
      out.resize(std::max<std::size_t>(out.size(), 64));
      leaves = out.data();
      leaf_room = out.size();
      // The stop node counts as visited from the start; meeting it again is
      // the one visited check that says so.
      if (stop != kNoStop) {
        visited[stop >> 6] |= std::uint64_t{1} << (stop & 63);
        touched[touched_count++] = stop >> 6;
      }
    }

    // Sets v's bit in the leaf bitmap; false if it was set already. The
    // summary and the span change only when a word gets its first bit.
    [[gnu::always_inline]] bool add_leaf(ValueId v) {
      const std::size_t word = v >> 6;
      if (word >= seen_size) [[unlikely]] {
        self.grow_seen(word);
        seen = self.seen_.data();
        seen_words = self.seen_words_.data();
        seen_size = self.seen_.size();
      }
      const std::uint64_t bit = std::uint64_t{1} << (v & 63);
      const std::uint64_t had = seen[word];
      if ((had & bit) != 0) return false;
      seen[word] = had | bit;
      if (had == 0) {
        seen_words[word >> 6] |= std::uint64_t{1} << (word & 63);
        lo_word = std::min(lo_word, word);
        hi_word = std::max(hi_word, word);
      }
      return true;
    }

    [[gnu::always_inline]] void take_leaves(Label leaf_or_pair) {
      slicer_internal::for_each_leaf(leaf_or_pair, [&](ValueId v) __attribute__((always_inline)) {
        if (!add_leaf(v)) {
          ++met_again;
          return;
        }
        if (kept == leaf_room) [[unlikely]] {
          out.resize(2 * leaf_room);
          leaves = out.data();
          leaf_room = out.size();
        }
        leaves[kept++] = v;
      });
    }

    [[gnu::always_inline]] void push(Label label) {
      if (top == stack_room) [[unlikely]] {
        self.stack_.resize(2 * stack_room);
        stack = self.stack_.data();
        stack_room = self.stack_.size();
      }
      stack[top++] = label;
    }

    // The operand to go down next: a leaf operand is taken at once, so a
    // chain (an accumulator: one node per term) needs no stack traffic.
    [[gnu::always_inline]] Label expand(const UnionNode& node) {
      if ((node.a & kNodeBit) == 0) {
        take_leaves(node.a);
        return node.b;
      }
      if ((node.b & kNodeBit) == 0) take_leaves(node.b);
      else push(node.b);
      return node.a;
    }

    // The first `unmarked` nodes, without visit marks.
    [[gnu::always_inline]] void walk_unmarked(std::size_t unmarked) {
      while (top != 0 && unmarked != 0) {
        for (Label label = stack[--top];;) {
          if ((label & kNodeBit) == 0) {
            take_leaves(label);
            break;
          }
          if (unmarked == 0 || met_again > kept) {  // the marked walk goes on from here
            push(label);
            unmarked = 0;
            break;
          }
          --unmarked;
          label = expand(nodes[label & kPayloadMask]);
        }
      }
    }

    // The rest, each node expanded once.
    [[gnu::always_inline]] void walk_marked() {
      while (top != 0) {
        for (Label label = stack[--top];;) {
          if ((label & kNodeBit) == 0) {
            take_leaves(label);
            break;
          }
          const std::size_t index = label & kPayloadMask;
          const std::uint64_t bit = std::uint64_t{1} << (index & 63);
          const std::uint64_t word = visited[index >> 6];
          if ((word & bit) != 0) {
            met_stop |= index == stop;
            break;
          }
          if (word == 0) {
            if (touched_count == touched_room) [[unlikely]] {
              self.visited_words_.resize(2 * touched_room);
              touched = self.visited_words_.data();
              touched_room = self.visited_words_.size();
            }
            touched[touched_count++] = index >> 6;
          }
          visited[index >> 6] = word | bit;
          label = expand(nodes[index]);
        }
      }
    }

    LargeUnionWalk& self;
    const UnionNode* const nodes;
    std::vector<ValueId>& out;
    std::uint64_t* const visited;
    std::uint64_t* seen;
    std::uint64_t* seen_words;
    std::size_t seen_size;
    std::size_t lo_word = ~std::size_t{0}, hi_word = 0;  // the leaf bitmap's words in use span [lo_word, hi_word]
    ValueId* leaves = nullptr;
    std::size_t kept = 0, leaf_room = 0;
    std::size_t met_again = 0;  // leaves found again (a shared node expanded again, if unmarked)
    std::size_t* touched;  // visited bitmap words set, for clearing them afterwards
    std::size_t touched_count = 0, touched_room;
    Label* stack;
    std::size_t top, stack_room;
    const std::size_t stop;
    bool met_stop = false;
  };

  // Read the leaf bitmap back when its summary has at most this many words
  // per unique leaf (else radix-sort the leaves): both then cost a few
  // steps per leaf.
  static constexpr std::size_t kScanWordsPerLeaf = 4;

  // Puts the unique leaves `out` in order and clears their bits from the
  // leaf bitmap, whose words in use span [lo_word, hi_word]. The bitmap has
  // a summary level (a bit per non-empty word), so reading it back costs
  // one step per 4096 ids of the range plus one per non-empty word,
  // whatever the range; when that is more than a few steps per leaf, the
  // leaves are radix-sorted instead.
  void sort_and_clear_leaves(std::vector<ValueId>& out, std::size_t lo_word, std::size_t hi_word) {
    const std::size_t first_summary = lo_word >> 6, last_summary = hi_word >> 6;
    if (last_summary - first_summary < kScanWordsPerLeaf * out.size()) {
      std::uint64_t* const seen = seen_.data();
      std::uint64_t* const seen_words = seen_words_.data();
      ValueId* const leaves = out.data();
      std::size_t k = 0;
      for (std::size_t s = first_summary; s <= last_summary; ++s) {
        std::uint64_t words = seen_words[s];
        seen_words[s] = 0;
        while (words != 0) {
          const std::size_t w = (s << 6) | static_cast<std::size_t>(std::countr_zero(words));
          words &= words - 1;
          std::uint64_t bits = seen[w];
          seen[w] = 0;
          while (bits != 0) {
            leaves[k++] = static_cast<ValueId>((w << 6) | static_cast<std::size_t>(std::countr_zero(bits)));
            bits &= bits - 1;
          }
        }
      }
      return;
    }
    for (const ValueId v : out) {
      seen_[v >> 6] = 0;
      seen_words_[v >> 12] = 0;
    }
    slicer_internal::sort_unique_ids(out, static_cast<ValueId>(lo_word << 6), static_cast<ValueId>((hi_word << 6) | 63),
                                     sort_scratch_);
  }

  // The leaf bitmap must hold ids up to `word` * 64 + 63. Sized lazily:
  // only labels too big for the small walk need it.
  [[gnu::noinline]] void grow_seen(std::size_t word) {
    seen_.resize(std::max<std::size_t>(word + 1, 2 * seen_.size()), 0);
    seen_words_.resize((seen_.size() + 63) / 64, 0);
  }

  // Nodes visited, a bit each, and the words set: a bitmap is 32x smaller
  // than per-node stamps, so a walk over millions of nodes finds it in cache.
  BigArray<std::uint64_t> visited_;
  std::vector<std::size_t> visited_words_;
  std::vector<Label> stack_;
  std::vector<std::uint64_t> seen_;        // the leaf bitmap
  std::vector<std::uint64_t> seen_words_;  // its summary: a bit per non-empty word of seen_
  std::vector<ValueId> sort_scratch_;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_RECORD_LARGE_UNION_H_

// Where the union slicer's nodes live, and how their slots are reused:
//
//   NodeArena arena;
//   arena.enable_collection(min_nodes);                  // reuse slots no root names
//   if (arena.run_empty()) {
//     if (arena.collection_due()) {                      // mark, then sweep lazily
//       arena.begin_collection(a, b);                    // then every other root:
//       arena.mark_roots(begin, end);
//       collected = arena.end_collection(/*all_roots_seen=*/true);
//     }
//     arena.refill();
//   }
//   Label node = arena.take(a, b);                       // kNodeBit | kComputedBit | slot
//   arena[node & kPayloadMask]                           // {a, b}
//
// New nodes take the slots of a *run* in order; the pass's inline code
// takes them the same way (NodeRun, runtime_abi.h), so a join needs no call.
#ifndef COMMANALYZER_RECORD_NODE_ARENA_H_
#define COMMANALYZER_RECORD_NODE_ARENA_H_

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "commanalyzer/record/big_array.h"
#include "commanalyzer/record/label_bits.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

class NodeArena {
 public:
  // New nodes take the slots [next, end) of `base` (the arena) in order.
  // Shared (share_run), the run lets code outside make nodes as take does:
  // a join of distinct labels a and b, both non-zero with their computed
  // bits cleared, may write {a, b} at base[next], take kNodeBit |
  // kComputedBit | next as its label and advance next, while next != end.
  // Only refill refills the run (and moves the arena).
  struct NodeRun {
    UnionNode* base = nullptr;
    std::uint64_t next = 0;
    std::uint64_t end = 0;
  };
  // Keep the run in `storage` from now on (which must outlive this object).
  void share_run(NodeRun* storage) {
    *storage = own_run_;
    shared_run_ = storage;
  }

  const UnionNode& operator[](std::size_t index) const { return nodes_[index]; }
  const UnionNode* data() const { return nodes_.data(); }
  // Slots, live or not, including the unused tail of the run.
  std::size_t size() const { return nodes_.size(); }

  bool run_empty() const { return run().next == run().end; }
  // A new node {a, b} in the run's next slot (the run must not be empty).
  [[gnu::always_inline]] Label take(Label a, Label b) {
    NodeRun& run = this->run();
    const std::uint64_t index = run.next++;
    nodes_[index] = {a, b};
    return kNodeBit | kComputedBit | static_cast<Label>(index);
  }

  // A new run of slots: free ones from the lazy sweep, else new ones at the
  // end of the arena. (A collection, if one is due, runs first: see
  // collection_due.)
  [[gnu::noinline]] void refill() {
    NodeRun& run = this->run();
    while (free_slots_ != 0) {
      // The next slot not in use, from the cursor up, and the free slots
      // right after it in the same bitmap word, and in the words after it
      // while they are free.
      std::size_t word = alloc_cursor_ >> 6;
      std::uint64_t open = ~in_use_[word] & (~std::uint64_t{0} << (alloc_cursor_ & 63));
      while (open == 0) open = ~in_use_[++word];
      const unsigned bit = static_cast<unsigned>(std::countr_zero(open));
      const unsigned length = static_cast<unsigned>(std::countr_one(open >> bit));
      in_use_[word] |= (length == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << length) - 1) << bit;
      const std::size_t first = (word << 6) | bit;
      std::size_t end = first + length;
      if (bit + length == 64) {
        while (end < nodes_.size() && in_use_[end >> 6] == 0) {
          in_use_[end >> 6] = ~std::uint64_t{0};
          end += 64;
        }
      }
      alloc_cursor_ = end;
      free_slots_ -= end - first;
      // A shorter gap between live nodes (a sweep's running result keeps
      // every few nodes alive) stays unused until the next collection:
      // handed out, nearly every join of the inline code would call the
      // runtime to refill the run.
      if (end - first < kMinRun) continue;
      run = {nodes_.data(), first, end};
      run_is_tail_ = false;
      return;
    }
    const std::size_t first = nodes_.size();
    if (first >= kPayloadMask) throw std::length_error("commanalyzer: label DAG full");
    const std::size_t length = std::min<std::size_t>(kTailRun, kPayloadMask - first);
    nodes_.resize(first + length, UnionNode{});  // zero operands: harmless to a stray mark
    run = {nodes_.data(), first, first + length};
    run_is_tail_ = true;
  }

  // ------------------------------------------------- reclaiming slots
  //
  // Nodes are never freed by default: the arena cannot know which labels
  // its user still holds. A user that can enumerate every place a label may
  // be enables collection. Once the arena holds `min_nodes` nodes and no
  // slot is free, a collection is due before the next refill: the user
  // reports every word that may be a label through mark_roots()
  // (conservatively: any word whose bits name a node keeps it), everything
  // reachable from those is kept, and the slots of the other nodes are
  // reused. A user that cannot see all roots (e.g. called on a foreign
  // stack) says so, and nothing is reclaimed. (The user runs the scan
  // itself, so that a conservative scan of its stack sees the frames it
  // expects, no more.)
  void enable_collection(std::size_t min_nodes) {
    min_nodes_ = std::max<std::size_t>(min_nodes, 1);
    collect_at_ = std::max(min_nodes_, nodes_.size());
  }

  // Roots for a collection in progress: every word in [begin, end) that
  // names a node keeps that node and everything below it.
  void mark_roots(const std::uint64_t* begin, const std::uint64_t* end) {
    root_words_ += static_cast<std::size_t>(end - begin);
    for (const std::uint64_t* p = begin; p != end; ++p) mark_root(*p);
  }
  void mark_root(std::uint64_t word) {
    const Label label = word & ~kComputedBit;
    if ((label & kNodeBit) == 0 || (label & kPayloadMask) >= nodes_.size()) return;
    mark_from(static_cast<std::size_t>(label & kPayloadMask));
  }

  std::size_t collections() const { return collections_; }
  // Nodes in use (all of them when nothing was ever collected).
  std::size_t live_node_count() const { return nodes_.size() - free_slots_ - unused_run(); }
  // Node slots (live or reusable).
  std::size_t node_count() const { return nodes_.size() - (run_is_tail_ ? unused_run() : 0); }

  std::size_t memory_bytes() const {
    return nodes_.capacity() * sizeof(UnionNode) + in_use_.capacity() * sizeof(std::uint64_t);
  }

  bool collection_due() const { return free_slots_ == 0 && nodes_.size() >= collect_at_; }
  // A collection: marks from a and b (the operands of the node about to be
  // made); the user then marks every other root.
  void begin_collection(Label a, Label b) {
    in_use_.assign((nodes_.size() + 63) / 64, 0);
    marked_ = 0;
    root_words_ = 0;
    mark_root(a);
    mark_root(b);
  }
  // Ends it: refill then reuses every unmarked slot. Returns whether any
  // may be reused (labels of such slots, kept anywhere, are then stale).
  bool end_collection(bool all_roots_seen) {
    if (!all_roots_seen) {
      // Roots unknown: keep everything, try again after some growth.
      in_use_.clear();
      collect_at_ = nodes_.size() + std::max(min_nodes_, nodes_.size() / 2);
      return false;
    }
    ++collections_;
    // Slots past the end of the arena in the last bitmap word are not slots.
    if (const std::size_t tail = nodes_.size() & 63; tail != 0) in_use_.back() |= ~std::uint64_t{0} << tail;
    free_slots_ = nodes_.size() - marked_;
    alloc_cursor_ = 0;
    // Grow when more than a third of the arena is live (else reuse it), to
    // 3 times what is live, and so that the nodes made until the next
    // collection outnumber the words it scans: the nodes made between two
    // collections are then at least twice the ones the second one marks,
    // half a mark per node made. A sweep's labels live until its residual
    // is tested, then all die: with a margin of half the live set, a big
    // sweep's collections marked two nodes for every one they freed.
    collect_at_ = std::max({min_nodes_, 3 * marked_, marked_ + root_words_});
    return true;
  }

 private:
  // Slots per run at the end of the arena: the inline code's refill call
  // is then rare, and the unused tail of a run stays small.
  static constexpr std::size_t kTailRun = 1024;
  // The shortest run of reused slots: a bitmap word's. A gap between live
  // nodes shorter than that waits for the next collection, when the nodes
  // around it may have died too.
  static constexpr std::size_t kMinRun = 64;

  NodeRun& run() { return shared_run_ != nullptr ? *shared_run_ : own_run_; }
  const NodeRun& run() const { return shared_run_ != nullptr ? *shared_run_ : own_run_; }
  std::size_t unused_run() const { return run().end - run().next; }

  // Marks node `index` and everything below it (in_use_ bits), counting
  // the newly marked in marked_. Local pointers, as in LargeUnionWalk: a
  // collection walks every live node.
  void mark_from(std::size_t index) {
    std::uint64_t* const in_use = in_use_.data();
    const UnionNode* const nodes = nodes_.data();
    std::size_t marked = 0;
    auto mark = [&](std::size_t i) {
      std::uint64_t& word = in_use[i >> 6];
      const std::uint64_t bit = std::uint64_t{1} << (i & 63);
      if ((word & bit) != 0) return false;
      word |= bit;
      ++marked;
      return true;
    };
    if (!mark(index)) return;
    // Down one newly marked operand in a register, the other on the stack.
    if (stack_.size() < 64) stack_.resize(64);
    std::size_t* stack = stack_.data();
    std::size_t top = 0, room = stack_.size();
    for (;;) {
      const UnionNode& node = nodes[index];
      const Label a = node.a, b = node.b;
      const bool into_a = (a & kNodeBit) != 0 && mark(a & kPayloadMask);
      const bool into_b = (b & kNodeBit) != 0 && mark(b & kPayloadMask);
      if (into_a) {
        if (into_b) {
          if (top == room) [[unlikely]] {
            stack_.resize(2 * room);
            stack = stack_.data();
            room = stack_.size();
          }
          stack[top++] = b & kPayloadMask;
        }
        index = a & kPayloadMask;
      } else if (into_b) {
        index = b & kPayloadMask;
      } else if (top != 0) {
        index = stack[--top];
      } else {
        break;
      }
    }
    marked_ += marked;
  }

  BigArray<UnionNode> nodes_;
  // Slots for new nodes (see share_run); the tail of the arena, or slots
  // the sweep handed out. Both are out of free_slots_.
  NodeRun own_run_;
  NodeRun* shared_run_ = nullptr;
  bool run_is_tail_ = false;

  // Collection (enable_collection); off by default.
  std::size_t min_nodes_ = 0;
  std::size_t collect_at_ = ~std::size_t{0};
  std::vector<std::uint64_t> in_use_;  // since the last collection: slots marked or reused
  std::vector<std::size_t> stack_;     // mark_from's
  std::size_t marked_ = 0;
  std::size_t root_words_ = 0;
  std::size_t free_slots_ = 0;
  std::size_t alloc_cursor_ = 0;
  std::size_t collections_ = 0;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_RECORD_NODE_ARENA_H_

// Slicer: the thin dynamic slice of every register value, kept as a label.
// A load yields a leaf label (one value instance); each computation joins
// labels; a store flattens the label into the *source set* of the value it
// creates: the value instances that reached it through data dependences,
// each once, in ascending id order.
#ifndef COMMANALYZER_SLICER_H_
#define COMMANALYZER_SLICER_H_

#include <algorithm>
#include <array>
#include <bit>
#include <concepts>
#include <iterator>
#include <span>
#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "commanalyzer/record/big_array.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

template <class S>
concept Slicer = requires(S slicer, const S& const_slicer, Label a, Label b, ValueId v,
                          std::vector<ValueId>& out) {
  // The label of a register loaded from a location holding v.
  { const_slicer.leaf(v) } -> std::same_as<Label>;
  // The label of a computation with operands a and b (marked computed).
  { slicer.join(a, b) } -> std::same_as<Label>;
  // Is the label exactly one value straight from a load (a replication)?
  { const_slicer.leaf_value(a) } -> std::same_as<ValueId>;
  // Does the label name two or more values (an interior node)? False for
  // 0, a leaf, and a leaf or 0 marked computed.
  { const_slicer.is_compound(a) } -> std::same_as<bool>;
  // Writes the source set of `a` into out (cleared first), sorted, unique.
  { slicer.flatten(a, out) };
  { const_slicer.memory_bytes() } -> std::convertible_to<std::size_t>;
};

// Bits 0..31 of a leaf label hold the value id; bit 62 marks an interior
// node of the slicer's own structure. Both slicers below share this layout.
inline constexpr Label kNodeBit = Label{1} << 62;
inline constexpr Label kPayloadMask = ~(kComputedBit | kNodeBit);
// Bit 61 marks a *pair*: the union of two leaves below kPairLimit, held in
// the label itself (the smaller id in bits 30..59, the larger in 0..29), so
// the commonest join -- a * b of two loaded values -- needs no node, and a
// walk finds both leaves without a memory access.
inline constexpr Label kPairBit = Label{1} << 61;
inline constexpr unsigned kPairShift = 30;
inline constexpr Label kPairLimit = Label{1} << kPairShift;

namespace slicer_internal {
inline constexpr ValueId leaf_value(Label a) {
  return (a & (kComputedBit | kNodeBit | kPairBit)) == 0 ? static_cast<ValueId>(a) : kNoValue;
}
// A node or pair label only comes from joining two distinct non-empty
// labels: it names >= 2 values.
inline constexpr bool is_compound(Label a) { return (a & (kNodeBit | kPairBit)) != 0; }
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

// Sorts and deduplicates a[0, n) in place; returns how many ids are kept.
// The few leaves of a small walk (a stencil's five) by insertion sort:
// std::sort's insertion step calls memmove per element, which costs more
// than the whole sort of five ids. Over 32 ids, std::sort.
inline std::size_t sort_unique_small(ValueId* a, std::size_t n) {
  if (n > 32) {
    std::sort(a, a + n);
    return static_cast<std::size_t>(std::unique(a, a + n) - a);
  }
  std::size_t kept = 0;  // a[0, kept) is sorted and unique
  for (std::size_t i = 0; i < n; ++i) {
    const ValueId x = a[i];
    // Shift while comparing (a separate shift loop becomes a memmove call).
    std::size_t j = kept;
    while (j > 0 && a[j - 1] > x) {
      a[j] = a[j - 1];
      --j;
    }
    if (j > 0 && a[j - 1] == x) {  // a duplicate: close the gap again
      for (; j < kept; ++j) a[j] = a[j + 1];
      continue;
    }
    a[j] = x;
    ++kept;
  }
  return kept;
}

inline void sort_unique_small(std::vector<ValueId>& ids) { ids.resize(sort_unique_small(ids.data(), ids.size())); }

// Sorts distinct ids, all in [lo, hi], ascending: std::sort for short
// lists, else an LSD radix sort on (id - lo), 11 bits per pass, as many
// passes as the range needs (one or two for the sets of a sweep).
inline void sort_unique_ids(std::vector<ValueId>& ids, ValueId lo, ValueId hi, std::vector<ValueId>& scratch) {
  constexpr unsigned kBits = 11;
  constexpr std::size_t kBuckets = std::size_t{1} << kBits;
  if (ids.size() < 1024) {
    std::sort(ids.begin(), ids.end());
    return;
  }
  const unsigned width = static_cast<unsigned>(std::bit_width(static_cast<std::uint32_t>(hi - lo)));
  scratch.resize(ids.size());
  ValueId* from = ids.data();
  ValueId* to = scratch.data();
  const std::size_t n = ids.size();
  for (unsigned shift = 0; shift < width; shift += kBits) {
    std::array<std::size_t, kBuckets> count{};
    for (std::size_t i = 0; i < n; ++i) ++count[((from[i] - lo) >> shift) & (kBuckets - 1)];
    std::size_t sum = 0;
    for (std::size_t& c : count) {
      const std::size_t here = c;
      c = sum;
      sum += here;
    }
    for (std::size_t i = 0; i < n; ++i) to[count[((from[i] - lo) >> shift) & (kBuckets - 1)]++] = from[i];
    std::swap(from, to);
  }
  if (from != ids.data()) std::copy(from, from + n, ids.data());
}
}  // namespace slicer_internal

// Default: labels form a DAG of binary union nodes, created in O(1) per
// computation and flattened only at stores. A long register accumulator
// (`s += a[i]` over n elements) costs n nodes, not the n^2/2 set entries an
// eager set representation would need. A bounded direct-mapped memo returns
// the same node for the same operand pair (loop-invariant subexpressions);
// its default 4096 slots (96 KiB) stay in cache: a memo that misses the
// cache on every join costs more than the nodes it saves.
class UnionDagSlicer {
 public:
  explicit UnionDagSlicer(std::size_t memo_slots = std::size_t{1} << 12)
      : memo_(std::bit_ceil(std::max<std::size_t>(memo_slots, 1))) {}

  Label leaf(ValueId v) const { return v; }
  ValueId leaf_value(Label a) const { return slicer_internal::leaf_value(a); }
  bool is_compound(Label a) const { return slicer_internal::is_compound(a); }

  // The node arena: node label kNodeBit | i names nodes()[i], the union of
  // its operands (labels with the computed bit cleared, in either order).
  struct Node {
    Label a, b;
  };

  // New nodes take the slots [next, end) of `base` (the arena) in order.
  // Shared (share_run), the run lets code outside make nodes as join does,
  // without the memo: a join of distinct labels a and b, both non-zero
  // with their computed bits cleared, may write {a, b} at base[next], take
  // kNodeBit | kComputedBit | next as its label and advance next, while
  // next != end. Only join refills the run (and moves the arena).
  struct NodeRun {
    Node* base = nullptr;
    std::uint64_t next = 0;
    std::uint64_t end = 0;
  };
  // Keep the run in `storage` from now on (which must outlive this object).
  void share_run(NodeRun* storage) {
    *storage = own_run_;
    shared_run_ = storage;
  }

  Label join(Label a, Label b) {
    if (const Label done = slicer_internal::trivial_join(a, b); done != kNoLabel) return done;
    if ((a | b) < kPairLimit) return slicer_internal::make_pair(a, b) | kComputedBit;
    if (a > b) std::swap(a, b);  // union is commutative: one memo entry
    // a (+) b is b itself when a is an operand of node b (x + f(x)), and
    // vice versa: no new node. Node labels sort after leaves, so only the
    // larger label can be a node with the smaller one as operand, unless
    // both are nodes. (Likewise a pair, after leaves: c (+) {c, x}.)
    if ((b & kPairBit) != 0 && (a == slicer_internal::pair_low(b) || a == slicer_internal::pair_high(b))) {
      return b | kComputedBit;
    }
    if ((b & kNodeBit) != 0) {
      const Node& nb = nodes_[b & kPayloadMask];
      if (nb.a == a || nb.b == a) return b | kComputedBit;
      if ((a & kNodeBit) != 0) {
        const Node& na = nodes_[a & kPayloadMask];
        if (na.a == b || na.b == b) return a | kComputedBit;
      }
    }
    MemoEntry& slot = memo_[memo_slot(a, b)];
    // A memo entry is written only when a node is made, and names operands
    // older than that node: the newest node is in no entry yet, so a chain
    // s = s (+) x (b newest, as the larger label) skips the probe.
    const bool b_is_newest = b == newest_;
    if (!b_is_newest && slot.a == a && slot.b == b) return slot.node;
    const Label node = new_node(a, b);
    slot = {a, b, node};
    return node;
  }

  // A multiply-shift hash of the pair (a join is too cheap for a general
  // hash: absl::HashOf cost as much as the rest of the join). Only the
  // memo's hit rate depends on it, never a result.
  std::size_t memo_slot(Label a, Label b) const {
    const std::uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (b + 0x632BE59BD9B4E019ull);
    return static_cast<std::size_t>((h * 0xD6E8FEB86659FD93ull) >> 32) & (memo_.size() - 1);
  }

  // ------------------------------------------------- reclaiming nodes
  //
  // Nodes are never freed by default: the slicer cannot know which labels
  // its user still holds. A user that can enumerate every place a label may
  // be (the runtime: labels live only in registers, on the stack and in a
  // few thread-local slots) installs a root scanner. Once the DAG holds
  // `min_nodes` nodes and no slot is free, the next new node first runs a
  // collection: the scanner reports every word that may be a label through
  // mark_roots() (conservatively: any word whose bits name a node keeps it),
  // everything reachable from those is kept, and the slots of the other
  // nodes are reused. A collection also forgets the memo. A scanner that
  // cannot see all roots (e.g. called on a foreign stack) returns false and
  // nothing is reclaimed. Flattened sets never change: a label's node is
  // only reused once no root names it.
  using RootScanner = bool (*)(void* context, UnionDagSlicer& slicer);

  void enable_collection(RootScanner scanner, void* context, std::size_t min_nodes = std::size_t{1} << 16) {
    scanner_ = scanner;
    scanner_context_ = context;
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

  void flatten(Label root, std::vector<ValueId>& out) {
    out.clear();
    root &= ~kComputedBit;
    if (root == kNoLabel) return;
    if ((root & kNodeBit) == 0) {
      slicer_internal::for_each_leaf(root, [&](ValueId v) { out.push_back(v); });
      return;
    }
    // The label of one store is usually a small expression tree: walk it
    // without visit marks, for at most kSmallWalk steps (duplicates from
    // shared operands are removed below).
    // Each step pops one label and pushes at most two: the stack never
    // holds more than kSmallWalk + 1 labels.
    // Leaves are gathered in a local array (each step finds at most one).
    // The walk goes down the first operands in a register and leaves only
    // the second ones on the stack: a round trip through memory per node
    // would make the walk one long chain of dependent loads.
    std::array<Label, kSmallWalk + 1> stack;
    std::array<ValueId, 2 * kSmallWalk> leaves;  // a pair gives two
    std::size_t top = 0, found = 0;
    Label label = root;
    for (std::size_t steps = 0;; ++steps) {
      if (steps == kSmallWalk) [[unlikely]] {
        // Too big for the arrays here: go on in flatten_large.
        stack[top++] = label;
        out.assign(leaves.data(), leaves.data() + found);
        flatten_large(std::span<const Label>(stack.data(), top), out, kUnmarkedNodes);
        return;
      }
      if ((label & kNodeBit) != 0) {
        const Node& node = nodes_[label & kPayloadMask];
        stack[top++] = node.b;
        label = node.a;
        continue;
      }
      slicer_internal::for_each_leaf(label, [&](ValueId v) { leaves[found++] = v; });
      if (top == 0) break;
      label = stack[--top];
    }
    // push_back, not assign: assign copies through a memmove call, which
    // costs more than the handful of ids a store usually has.
    const std::size_t kept = slicer_internal::sort_unique_small(leaves.data(), found);
    for (std::size_t i = 0; i < kept; ++i) out.push_back(leaves[i]);
  }

  // flatten(root, out) when the source set of `known` is at hand (sorted,
  // unique): the walk does not go below `known` and merges its set in if it
  // meets it. A label that extends one flattened before (a loop's running
  // result, tested at every exit of an inner loop) costs its new part, not
  // the whole DAG again.
  void flatten_extending(Label root, Label known, std::span<const ValueId> known_sources, std::vector<ValueId>& out) {
    root &= ~kComputedBit;
    known &= ~kComputedBit;
    if (root == known) {
      out.assign(known_sources.begin(), known_sources.end());
      return;
    }
    if ((root & kNodeBit) == 0 || (known & kNodeBit) == 0) {
      flatten(root, out);
      return;
    }
    out.clear();
    const bool met = flatten_large(std::span<const Label>(&root, 1), out, 0, known & kPayloadMask);
    if (!met) return;
    merge_scratch_.resize(out.size() + known_sources.size());
    const auto end = std::set_union(out.begin(), out.end(), known_sources.begin(), known_sources.end(),
                                    merge_scratch_.begin());
    merge_scratch_.resize(static_cast<std::size_t>(end - merge_scratch_.begin()));
    std::swap(out, merge_scratch_);
  }

  // Node slots (live or reusable).
  std::size_t node_count() const { return nodes_.size() - (run_is_tail_ ? unused_run() : 0); }

  std::size_t memory_bytes() const {
    return nodes_.capacity() * sizeof(Node) + visited_.capacity() * sizeof(std::uint64_t) +
           visited_words_.capacity() * sizeof(std::size_t) +
           memo_.size() * sizeof(MemoEntry) + seen_.capacity() * sizeof(std::uint64_t) +
           in_use_.capacity() * sizeof(std::uint64_t) + seen_words_.capacity() * sizeof(std::uint64_t);
  }

 private:
  [[gnu::always_inline]] Label new_node(Label a, Label b) {
    NodeRun& run = this->run();
    if (run.next == run.end) [[unlikely]] refill(a, b);
    const std::uint64_t index = run.next++;
    nodes_[index] = {a, b};
    newest_ = kNodeBit | static_cast<Label>(index);
    return newest_ | kComputedBit;
  }

  // A new run of slots: free ones from the lazy sweep (after a collection,
  // if one is due), else new ones at the end of the arena.
  [[gnu::noinline]] void refill(Label a, Label b) {
    if (free_slots_ == 0 && nodes_.size() >= collect_at_) collect(a, b);
    NodeRun& run = this->run();
    if (free_slots_ != 0) {
      // The next slot not in use, from the cursor up, and the free slots
      // right after it in the same bitmap word.
      std::size_t word = alloc_cursor_ >> 6;
      std::uint64_t open = ~in_use_[word] & (~std::uint64_t{0} << (alloc_cursor_ & 63));
      while (open == 0) open = ~in_use_[++word];
      const unsigned bit = static_cast<unsigned>(std::countr_zero(open));
      const unsigned length = static_cast<unsigned>(std::countr_one(open >> bit));
      in_use_[word] |= (length == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << length) - 1) << bit;
      const std::size_t first = (word << 6) | bit;
      alloc_cursor_ = first + length;
      free_slots_ -= length;
      run = {nodes_.data(), first, first + length};
      run_is_tail_ = false;
      return;
    }
    const std::size_t first = nodes_.size();
    if (first >= kPayloadMask) throw std::length_error("commanalyzer: label DAG full");
    const std::size_t length = std::min<std::size_t>(kTailRun, kPayloadMask - first);
    nodes_.resize(first + length, Node{});  // zero operands: harmless to a stray mark
    run = {nodes_.data(), first, first + length};
    run_is_tail_ = true;
  }

  NodeRun& run() { return shared_run_ != nullptr ? *shared_run_ : own_run_; }
  const NodeRun& run() const { return shared_run_ != nullptr ? *shared_run_ : own_run_; }
  std::size_t unused_run() const { return run().end - run().next; }

  // Mark (from the scanner's roots and the operands of the join under way),
  // then let new_node reuse every unmarked slot.
  [[gnu::noinline]] void collect(Label a, Label b) {
    in_use_.assign((nodes_.size() + 63) / 64, 0);
    marked_ = 0;
    root_words_ = 0;
    mark_root(a);
    mark_root(b);
    if (!scanner_(scanner_context_, *this)) {
      // Roots unknown: keep everything, try again after some growth.
      in_use_.clear();
      collect_at_ = nodes_.size() + std::max(min_nodes_, nodes_.size() / 2);
      return;
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
    std::fill(memo_.begin(), memo_.end(), MemoEntry{});
    newest_ = kNoLabel;
  }

  // Marks node `index` and everything below it (in_use_ bits), counting
  // the newly marked in marked_. Local pointers, as in flatten_large: a
  // collection walks every live node.
  void mark_from(std::size_t index) {
    std::uint64_t* const in_use = in_use_.data();
    const Node* const nodes = nodes_.data();
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
    Label* stack = stack_.data();
    std::size_t top = 0, room = stack_.size();
    for (;;) {
      const Node& node = nodes[index];
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

  static constexpr std::size_t kNoStop = ~std::size_t{0};
  static constexpr std::size_t kSmallWalk = 128;
  static constexpr std::size_t kUnmarkedNodes = 2048;
  // Read the leaf bitmap back when its summary has at most this many words
  // per unique leaf (else radix-sort the leaves).
  static constexpr std::size_t kScanWordsPerLeaf = 4;

  // Iterative DFS; a visit bitmap (cleared after the call, word by word)
  // visits each shared node once, so the cost is linear in the DAG below
  // the root, never exponential. The bitmap is sized lazily: only labels
  // too big for the small walk need it.
  // Leaves are deduplicated on the fly with a bitmap over value ids; the
  // unique leaves then come out in order either by scanning the bitmap
  // (when they are dense in their id range, as the residual of a stencil
  // sweep is) or by a radix sort, never by a comparison sort of a set that
  // can hold millions of ids.
  // The leaf bitmap must hold ids up to `word` * 64 + 63.
  [[gnu::noinline]] void grow_seen(std::size_t word) {
    seen_.resize(std::max<std::size_t>(word + 1, 2 * seen_.size()), 0);
    seen_words_.resize((seen_.size() + 63) / 64, 0);
  }

  // `out` holds leaves found so far (maybe repeated); `pending` the labels
  // still to expand.
  // The first `unmarked` nodes are expanded without visit marks: a label
  // of a few hundred nodes (a dot product's accumulator) is usually
  // a tree, and the marks (a bitmap word per node, set and cleared) cost a
  // third of such a walk. A label with more nodes -- a big DAG, or a small
  // one whose shared nodes the unmarked walk would expand again and again
  // -- goes on with marks (a node expanded before may be expanded once
  // more, no more). Leaves are deduplicated through the leaf bitmap either
  // way.
  // The walk keeps every array it touches in local pointers (refreshed only
  // when one grows): through the members, each step would reload them,
  // since a store to a bitmap word may alias them as far as the compiler
  // knows. It is the inner loop of every big flatten (a residual over a
  // whole sweep: millions of nodes).
  // With a `stop` node (only when unmarked == 0), the walk does not expand
  // it; returns whether it met it.
  [[gnu::noinline]] bool flatten_large(std::span<const Label> pending, std::vector<ValueId>& out,
                                        std::size_t unmarked, std::size_t stop = kNoStop) {
    if (visited_.size() * 64 < nodes_.size()) visited_.resize((nodes_.size() + 63) / 64, 0);
    const Node* const nodes = nodes_.data();
    std::uint64_t* const visited = visited_.data();
    std::uint64_t* seen = seen_.data();
    std::uint64_t* seen_words = seen_words_.data();
    std::size_t seen_size = seen_.size();
    // The bitmap words in use span [lo_word, hi_word].
    std::size_t lo_word = ~std::size_t{0}, hi_word = 0;
    // Sets v's bit in the leaf bitmap; false if it was set already. The
    // summary and the span change only when a word gets its first bit.
    auto add_leaf = [&](ValueId v) __attribute__((always_inline)) {
      const std::size_t word = v >> 6;
      if (word >= seen_size) [[unlikely]] {
        grow_seen(word);
        seen = seen_.data();
        seen_words = seen_words_.data();
        seen_size = seen_.size();
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
    };
    // Unique leaves go to out[0, kept), grown by doubling.
    std::size_t kept = 0;
    for (const ValueId v : out) {
      if (add_leaf(v)) out[kept++] = v;
    }
    out.resize(std::max<std::size_t>(out.size(), 64));
    ValueId* leaves = out.data();
    std::size_t leaf_room = out.size();
    // Visited bitmap words set, for clearing them afterwards.
    if (visited_words_.size() < 64) visited_words_.resize(64);
    std::size_t* touched = visited_words_.data();
    std::size_t touched_count = 0, touched_room = visited_words_.size();
    // The stop node counts as visited from the start; meeting it again is
    // the one visited check that says so.
    bool met_stop = false;
    if (stop != kNoStop) {
      visited[stop >> 6] |= std::uint64_t{1} << (stop & 63);
      touched[touched_count++] = stop >> 6;
    }
    // The stack starts with the pending labels and room for a node's two
    // operands; it doubles when a push finds it full.
    std::size_t top = pending.size();
    if (stack_.size() < top + 2) stack_.resize(std::max(top + 2, 2 * stack_.size()));
    std::copy(pending.begin(), pending.end(), stack_.begin());
    Label* stack = stack_.data();
    std::size_t stack_room = stack_.size();
    auto take_leaves = [&](Label leaf_or_pair) __attribute__((always_inline)) {
      slicer_internal::for_each_leaf(leaf_or_pair, [&](ValueId v) __attribute__((always_inline)) {
        if (!add_leaf(v)) return;
        if (kept == leaf_room) [[unlikely]] {
          out.resize(2 * leaf_room);
          leaves = out.data();
          leaf_room = out.size();
        }
        leaves[kept++] = v;
      });
    };
    auto push = [&](Label label) __attribute__((always_inline)) {
      if (top == stack_room) [[unlikely]] {
        stack_.resize(2 * stack_room);
        stack = stack_.data();
        stack_room = stack_.size();
      }
      stack[top++] = label;
    };
    // The operand to go down next: a leaf operand is taken at once, so a
    // chain (an accumulator: one node per term) needs no stack traffic.
    auto expand = [&](const Node& node) __attribute__((always_inline)) {
      if ((node.a & kNodeBit) == 0) {
        take_leaves(node.a);
        return node.b;
      }
      if ((node.b & kNodeBit) == 0) take_leaves(node.b);
      else push(node.b);
      return node.a;
    };
    // Down the first operands in a register, as in flatten; first without
    // marks (its own loop: a test per node would slow the marked walk).
    while (top != 0 && unmarked != 0) {
      for (Label label = stack[--top];;) {
        if ((label & kNodeBit) == 0) {
          take_leaves(label);
          break;
        }
        if (unmarked == 0) {  // the marked walk goes on from here
          push(label);
          break;
        }
        --unmarked;
        label = expand(nodes[label & kPayloadMask]);
      }
    }
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
            visited_words_.resize(2 * touched_room);
            touched = visited_words_.data();
            touched_room = visited_words_.size();
          }
          touched[touched_count++] = index >> 6;
        }
        visited[index >> 6] = word | bit;
        label = expand(nodes[index]);
      }
    }
    out.resize(kept);
    for (std::size_t i = 0; i < touched_count; ++i) visited[touched[i]] = 0;
    if (out.empty()) return met_stop;
    // The bitmap has a summary level (a bit per non-empty word), so reading
    // it back costs one step per 4096 ids of the range plus one per
    // non-empty word, whatever the range.
    const std::size_t first_summary = lo_word >> 6, last_summary = hi_word >> 6;
    if (last_summary - first_summary < kScanWordsPerLeaf * out.size()) {
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
      return met_stop;
    }
    for (const ValueId v : out) {
      seen_[v >> 6] = 0;
      seen_words_[v >> 12] = 0;
    }
    slicer_internal::sort_unique_ids(out, static_cast<ValueId>(lo_word << 6), static_cast<ValueId>((hi_word << 6) | 63),
                                     sort_scratch_);
    return met_stop;
  }

  struct MemoEntry {
    Label a = kNoLabel, b = kNoLabel, node = kNoLabel;
  };

  BigArray<Node> nodes_;
  // Nodes flatten_large has visited, a bit each (all zero between calls),
  // and the words it set: a bitmap is 32x smaller than per-node stamps, so a
  // walk over millions of nodes finds it in cache.
  BigArray<std::uint64_t> visited_;
  std::vector<std::size_t> visited_words_;
  std::vector<MemoEntry> memo_;
  std::vector<Label> stack_;
  std::vector<std::uint64_t> seen_;        // leaf bitmap of flatten_large, all zero between calls
  std::vector<std::uint64_t> seen_words_;  // its summary: a bit per non-empty word of seen_
  std::vector<ValueId> sort_scratch_;
  std::vector<ValueId> merge_scratch_;  // flatten_extending's union
  Label newest_ = kNoLabel;  // the node made last (in no memo entry yet)
  // Slots for new nodes (see share_run); the tail of the arena, or slots
  // the sweep handed out. Both are out of free_slots_.
  static constexpr std::size_t kTailRun = 1024;
  NodeRun own_run_;
  NodeRun* shared_run_ = nullptr;
  bool run_is_tail_ = false;

  // Collection (enable_collection); off by default.
  RootScanner scanner_ = nullptr;
  void* scanner_context_ = nullptr;
  std::size_t min_nodes_ = 0;
  std::size_t collect_at_ = ~std::size_t{0};
  std::vector<std::uint64_t> in_use_;  // since the last collection: slots marked or reused
  std::size_t marked_ = 0;
  std::size_t root_words_ = 0;
  std::size_t free_slots_ = 0;
  std::size_t alloc_cursor_ = 0;
  std::size_t collections_ = 0;
};

// Alternative: every label is an interned, sorted set of value ids; a join
// merges two sets. Flattening is a copy, but accumulators cost quadratic
// memory. Kept as the simple reference the DAG slicer is tested against.
class InternedSetSlicer {
 public:
  InternedSetSlicer() { sets_.emplace_back(); }  // index 0 unused

  Label leaf(ValueId v) const { return v; }
  ValueId leaf_value(Label a) const { return slicer_internal::leaf_value(a); }
  bool is_compound(Label a) const { return slicer_internal::is_compound(a); }

  Label join(Label a, Label b) {
    if (const Label done = slicer_internal::trivial_join(a, b); done != kNoLabel) return done;
    std::vector<ValueId> merged;
    const std::vector<ValueId> left = members(a), right = members(b);
    std::set_union(left.begin(), left.end(), right.begin(), right.end(), std::back_inserter(merged));
    auto [it, inserted] = intern_.try_emplace(merged, sets_.size());
    if (inserted) sets_.push_back(std::move(merged));
    return kNodeBit | kComputedBit | static_cast<Label>(it->second);
  }

  void flatten(Label a, std::vector<ValueId>& out) { out = members(a & ~kComputedBit); }

  std::size_t memory_bytes() const {
    std::size_t bytes = 0;
    for (const auto& set : sets_) bytes += 2 * set.capacity() * sizeof(ValueId);
    return bytes;
  }

 private:
  std::vector<ValueId> members(Label a) const {
    if (a == kNoLabel) return {};
    if ((a & kNodeBit) == 0) return {static_cast<ValueId>(a)};
    return sets_[a & kPayloadMask];
  }

  std::vector<std::vector<ValueId>> sets_;
  absl::flat_hash_map<std::vector<ValueId>, std::size_t> intern_;
};

static_assert(Slicer<UnionDagSlicer>);
static_assert(Slicer<InternedSetSlicer>);

}  // namespace commanalyzer

#endif  // COMMANALYZER_SLICER_H_

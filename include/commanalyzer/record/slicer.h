// Slicer: the thin dynamic slice of every register value, kept as a label.
// A load yields a leaf label (one value instance); each computation joins
// labels; a store flattens the label into the *source set* of the value it
// creates: the value instances that reached it through data dependences,
// each once, in ascending id order.
//
//   UnionDagSlicer s;
//   Label x = s.leaf(v), y = s.join(x, s.leaf(w));  // v (+) w, computed
//   s.flatten(y, sources);                          // {v, w}
//
// The parts of the default slicer, one header each: label_bits.h (what a
// label's bits mean), node_arena.h (where union nodes live and how their
// slots are reused), large_union.h (flattening a union of many nodes),
// flattened_sets.h (the sets of recent large flattens, for the labels built
// on them), small_walk.h (flattening a small expression tree), id_sort.h
// (sorting the ids of a source set).
#ifndef COMMANALYZER_SLICER_H_
#define COMMANALYZER_SLICER_H_

#include <algorithm>
#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <iterator>
#include <span>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "commanalyzer/record/flattened_sets.h"
#include "commanalyzer/record/id_sort.h"
#include "commanalyzer/record/label_bits.h"
#include "commanalyzer/record/large_union.h"
#include "commanalyzer/record/node_arena.h"
#include "commanalyzer/record/small_walk.h"
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

  // Node label kNodeBit | i names the node in slot i of the arena.
  using Node = UnionNode;
  using NodeRun = NodeArena::NodeRun;
  // Keep the run of free node slots in `storage` from now on (which must
  // outlive this object): code outside may make nodes from it as join does,
  // without the memo (NodeArena::NodeRun).
  void share_run(NodeRun* storage) { arena_.share_run(storage); }

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
      const Node& nb = arena_[b & kPayloadMask];
      if (nb.a == a || nb.b == a) return b | kComputedBit;
      if ((a & kNodeBit) != 0) {
        const Node& na = arena_[a & kPayloadMask];
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
    slot = {a, b, node};  // after new_node: a collection there forgets the memo
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
  // few thread-local slots) installs a root scanner, which reports them
  // through mark_roots() when a collection runs (NodeArena, "reclaiming
  // slots"). A collection also forgets the memo. Flattened sets never
  // change: a label's node is only reused once no root names it.
  using RootScanner = bool (*)(void* context, UnionDagSlicer& slicer);

  void enable_collection(RootScanner scanner, void* context, std::size_t min_nodes = std::size_t{1} << 16) {
    scanner_ = scanner;
    scanner_context_ = context;
    arena_.enable_collection(min_nodes);
  }
  void mark_roots(const std::uint64_t* begin, const std::uint64_t* end) { arena_.mark_roots(begin, end); }
  void mark_root(std::uint64_t word) { arena_.mark_root(word); }
  std::size_t collections() const { return arena_.collections(); }
  std::size_t live_node_count() const { return arena_.live_node_count(); }
  // Node slots (live or reusable).
  std::size_t node_count() const { return arena_.node_count(); }
  // Whether a flatten since the last call met a label of more than a small
  // walk's sources (a sweep's running result): its frames left that
  // label's nodes named on the stack, below the caller, where a
  // conservative root scan may find them later (the runtime clears them).
  bool walked_big_label() { return std::exchange(walked_big_, false); }

  void flatten(Label root, std::vector<ValueId>& out) {
    out.clear();
    root &= ~kComputedBit;
    if (root == kNoLabel) return;
    if ((root & kNodeBit) == 0) {
      slicer_internal::for_each_leaf(root, [&](ValueId v) { out.push_back(v); });
      return;
    }
    if (!kept_.empty()) {
      flatten_with_kept(root, kNoLabel, {}, out);
      return;
    }
    SmallWalk walk;
    if (!small_walk(arena_, root, walk)) [[unlikely]] {
      // Too big for the small walk, and no sets kept to take (checked
      // above): the union of its operands' sets.
      flatten_by_operands(root, out);
      return;
    }
    // push_back, not assign: assign copies through a memmove call, which
    // costs more than the handful of ids a store usually has.
    const std::size_t kept = slicer_internal::sort_unique_small(walk.leaves.data(), walk.found);
    for (std::size_t i = 0; i < kept; ++i) out.push_back(walk.leaves[i]);
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
    flatten_with_kept(root, known, known_sources, out);
  }

  std::size_t memory_bytes() const {
    return arena_.memory_bytes() + large_.memory_bytes() + memo_.size() * sizeof(MemoEntry) + kept_.memory_bytes();
  }

 private:
  // Nodes the large walk expands without visit marks after the small walk
  // (kSmallWalk steps, small_walk.h; LargeUnionWalk::flatten): a store's
  // expression tree fits the first, a dot product's accumulator the second.
  static constexpr std::size_t kUnmarkedNodes = 2048;

  // The small walk again, taking the kept set of every node that has one
  // instead of walking below it (FlattenedSets), and not walking below
  // `known` (kNoLabel: none), whose set known_sources is merged in if the
  // walk meets it. Past kSmallWalk steps, the label is its operands' sets
  // (flatten_by_operands), or with `known` the large-union walk goes on
  // from where it stopped. Keeps the set for later walks.
  [[gnu::noinline]] void flatten_with_kept(Label root, Label known, std::span<const ValueId> known_sources,
                                           std::vector<ValueId>& out) {
    // Leaves in an array; the kept sets met as spans, merged in at the end
    // (each is sorted already: merging costs less than sorting them again).
    std::array<Label, kSmallWalk + 1> stack;
    std::array<ValueId, 2 * kSmallWalk> leaves;
    // (Plain arrays, left uninitialised: an array of spans would be zeroed
    // on every call, which cost more than the walk.)
    const std::vector<ValueId>* sets[kSmallWalk];
    std::size_t top = 0, found = 0, set_count = 0;
    bool met = false;
    Label label = root;
    bool large = false;
    for (std::size_t steps = 0;; ++steps) {
      if (steps == kSmallWalk) [[unlikely]] {
        if (known == kNoLabel) {
          flatten_by_operands(root, out);
          return;
        }
        large = true;
        stack[top++] = label;
        out.assign(leaves.data(), leaves.data() + found);
        for (std::size_t i = 0; i < set_count; ++i) out.insert(out.end(), sets[i]->begin(), sets[i]->end());
        met |= large_.flatten(arena_.data(), arena_.size(), std::span<const Label>(stack.data(), top), out, 0,
                              known & kPayloadMask);
        break;
      }
      if (label == known) {
        met = true;
      } else if ((label & kNodeBit) != 0) {
        const Node& node = arena_[label & kPayloadMask];
        if (const std::vector<ValueId>* set = kept_.find(node); set != nullptr) {
          sets[set_count++] = set;
        } else {
          stack[top++] = node.b;
          label = node.a;
          continue;
        }
      } else {
        slicer_internal::for_each_leaf(label, [&](ValueId v) { leaves[found++] = v; });
      }
      if (top == 0) {
        const std::size_t kept = slicer_internal::sort_unique_small(leaves.data(), found);
        out.assign(leaves.data(), leaves.data() + kept);
        for (std::size_t i = 0; i < set_count; ++i) merge_into(out, *sets[i]);
        break;
      }
      label = stack[--top];
    }
    if (met) merge_into(out, known_sources);
    walked_big_ |= out.size() > 2 * kSmallWalk;
    // What cost a large walk is kept with its operands' sets (a loop's
    // next result may be a new node on the same operands); a walk that
    // took kept sets is kept for the labels built on it.
    if (large) {
      keep(root, out, /*with_operands=*/true);
    } else if (set_count != 0) {
      keep(root, out, /*with_operands=*/false);
    }
  }

  // A label too big for the small walk: the union of its operands' sets,
  // each kept (FlattenedSets) for the labels built on the same operands (a
  // loop's next result, each corner's sum of the same cofactors). Walking
  // the two operands costs what walking the label does; walking the label
  // and then its operands to keep their sets cost half as much again.
  void flatten_by_operands(Label root, std::vector<ValueId>& out) {
    const Node node = arena_[root & kPayloadMask];
    operand_set(node.a, out);
    operand_set(node.b, operand_sources_);
    merge_into(out, operand_sources_);
    walked_big_ |= out.size() > 2 * kSmallWalk;
    keep(root, out, /*with_operands=*/false);
  }
  // The sorted, unique source set of one operand: its leaves, its kept
  // set, or a large walk's (kept if small enough to be, see keep()).
  void operand_set(Label operand, std::vector<ValueId>& set) {
    set.clear();
    if ((operand & kNodeBit) == 0) {
      slicer_internal::for_each_leaf(operand, [&](ValueId v) { set.push_back(v); });
      set.resize(slicer_internal::sort_unique_small(set.data(), set.size()));
      return;
    }
    const Node& node = arena_[operand & kPayloadMask];
    if (const std::vector<ValueId>* kept = kept_.find(node); kept != nullptr) {
      set.assign(kept->begin(), kept->end());
      return;
    }
    large_.flatten(arena_.data(), arena_.size(), std::span<const Label>(&operand, 1), set, kUnmarkedNodes);
    if (set.size() <= 2 * kSmallWalk) kept_.keep(node, set);
  }

  // out = out (+) more, both sorted and unique.
  void merge_into(std::vector<ValueId>& out, std::span<const ValueId> more) {
    merge_scratch_.resize(out.size() + more.size());
    const auto end = std::set_union(out.begin(), out.end(), more.begin(), more.end(), merge_scratch_.begin());
    merge_scratch_.resize(static_cast<std::size_t>(end - merge_scratch_.begin()));
    std::swap(out, merge_scratch_);
  }

  // Keeps the source set of `root` (and of its operands) for the labels
  // built on them or on the same operands (FlattenedSets). A set too big for
  // the small walk's leaf array is a sweep's running result, which
  // RunningLoopResult keeps already.
  void keep(Label root, const std::vector<ValueId>& sources, bool with_operands) {
    if (sources.size() > 2 * kSmallWalk) return;
    const Node node = arena_[root & kPayloadMask];
    kept_.keep(node, sources);
    if (!with_operands) return;
    for (const Label operand : {node.a, node.b}) {
      if ((operand & kNodeBit) == 0 || kept_.find(arena_[operand & kPayloadMask]) != nullptr) continue;
      operand_sources_.clear();
      large_.flatten(arena_.data(), arena_.size(), std::span<const Label>(&operand, 1), operand_sources_,
                     kUnmarkedNodes);
      kept_.keep(arena_[operand & kPayloadMask], operand_sources_);
    }
  }

  [[gnu::always_inline]] Label new_node(Label a, Label b) {
    if (arena_.run_empty()) [[unlikely]] refill(a, b);
    const Label node = arena_.take(a, b);
    newest_ = node & ~kComputedBit;
    return node;
  }
  // A new run of node slots, after a collection if one is due. The scanner
  // is called from collect itself, two small frames below join: a
  // conservative scan of the stack reads every word of the frames between,
  // and a stale word there that names a dead node keeps it, and all below
  // it, alive.
  [[gnu::noinline]] void refill(Label a, Label b) {
    if (arena_.collection_due()) collect(a, b);
    arena_.refill();
  }
  void collect(Label a, Label b) {
    arena_.begin_collection(a, b);
    if (arena_.end_collection(scanner_(scanner_context_, *this))) {
      std::fill(memo_.begin(), memo_.end(), MemoEntry{});
      newest_ = kNoLabel;
      kept_.clear();
    }
  }

  struct MemoEntry {
    Label a = kNoLabel, b = kNoLabel, node = kNoLabel;
  };

  NodeArena arena_;
  LargeUnionWalk large_;
  FlattenedSets kept_;  // sets of large flattens, for labels built on them
  std::vector<MemoEntry> memo_;
  std::vector<ValueId> merge_scratch_;    // the union with a known set
  std::vector<ValueId> operand_sources_;  // keep's
  Label newest_ = kNoLabel;  // the node made last (in no memo entry yet)
  bool walked_big_ = false;  // see walked_big_label
  RootScanner scanner_ = nullptr;
  void* scanner_context_ = nullptr;
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

// Analyzer: composes shadow memory, slicer, value store, coalescing and flow
// storage at compile time and exposes the event API that an instrumented
// program (instrument/runtime.cpp) or a test drives:
//
//   Label l = a.load(addr, size);       // a value read from memory
//   Label r = a.join(l1, l2);           // a computation on two operands
//   Label c = a.compute(l);             // a computation on one operand
//   a.store(addr, size, r, site);       // Algorithm 2: create or replicate
//   a.site(id, "f.c", 47, "f.c", 45);   // site `id` is f.c:47, in the loop at f.c:45
//   a.copy(dst, src, size);             // memcpy: replicate
//   a.fill(dst, size);                  // memset: new constant values
//   a.use(l, site);                     // l decides a branch: consumed
//   a.allocation(p, n); a.release(p);   // heap arrays (for balance groups)
//   a.indexed_indirectly(addr);         // x[col[k]]: addr's array is irregular
//   a.region_begin(); a.iteration(); a.region_end(); a.finish();
//
// The result is a Profile (profile.h), which estimate.h turns into the
// predicted communication for any number of processes.
#ifndef COMMANALYZER_ANALYZER_H_
#define COMMANALYZER_ANALYZER_H_

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <concepts>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "commanalyzer/record/compressor.h"
#include "commanalyzer/record/profile.h"
#include "commanalyzer/record/row_tables.h"
#include "commanalyzer/record/shadow_memory.h"
#include "commanalyzer/record/slicer.h"
#include "commanalyzer/record/types.h"
#include "commanalyzer/record/value_store.h"

namespace commanalyzer {

struct AnalyzerStats {
  std::uint64_t loads = 0;
  std::uint64_t stores = 0;
  std::uint64_t replications = 0;  // stores that copied a value
  std::uint64_t creations = 0;     // stores that created a value
  std::uint64_t inputs = 0;        // values created by a first read
  std::uint64_t uses = 0;          // branch decisions recorded (compound labels, reductions)
                                   // (also counted in stores and creations)
};

template <ShadowMemory Shadow = PagedShadowMemory<>, Slicer SlicerT = UnionDagSlicer,
          CoalescingPolicy Coalescing = CoalesceExclusiveUpdates, ValueStore Values = CompactValueStore,
          FlowStore Flows = FlatFlowStore>
class Analyzer {
 public:
  using ProfileType = Profile<Values, Flows>;
  static constexpr std::size_t kWordBytes = Shadow::kWordBytes;

  Analyzer() = default;
  explicit Analyzer(SlicerT slicer, Coalescing coalescing = {})
      : slicer_(std::move(slicer)), coalescing_(std::move(coalescing)) {}

  // ------------------------------------------------------------- events

  Label load(Address addr, std::uint32_t size) {
    ++stats_.loads;
    const auto [first, last] = words_of<kWordBytes>(addr, size);
    if constexpr (kShadowRuns) {
      // The common case in one page lookup: every word holds the same value.
      std::uint64_t in_page;
      if (const ValueId* p = std::as_const(shadow_).run(first, in_page); p != nullptr && last - first < in_page) {
        const ValueId v = p[0];
        bool uniform = v != kNoValue;
        for (std::uint64_t k = 1; k <= last - first; ++k) uniform &= p[k] == v;
        if (uniform) return slicer_.leaf(v);
      }
    }
    const ValueId head = shadow_.get(first);
    if (first == last) {
      return slicer_.leaf(head != kNoValue ? head : make_input(addr, size, first, last));
    }
    bool uniform = true, any_empty = head == kNoValue;
    for (std::uint64_t w = first + 1; w <= last; ++w) {
      const ValueId v = shadow_.get(w);
      uniform &= v == head;
      any_empty |= v == kNoValue;
    }
    if (uniform) {
      return slicer_.leaf(head != kNoValue ? head : make_input(addr, size, first, last));
    }
    // Mixed content (a partial overwrite): words that hold nothing become
    // one input; the loaded data combines every value it covers.
    ValueId filler = kNoValue;
    if (any_empty) {
      filler = new_value(addr, size, /*input=*/true, kNoVertex);
      ++stats_.inputs;
    }
    Label label = kNoLabel;
    for (std::uint64_t w = first; w <= last; ++w) {
      ValueId v = shadow_.get(w);
      if (v == kNoValue) {
        v = filler;
        assign_word(w, v);
      }
      label = slicer_.join(label, slicer_.leaf(v));
    }
    return label;
  }

  Label join(Label a, Label b) { return slicer_.join(a, b); }
  Label compute(Label a) const { return a | kComputedBit; }

  // Returns the leaf label of the instance the location now holds (the
  // replicated one, or the new one): what a reload would give; for a
  // constant, the constant's label.
  // `site`: the source site storing (0: unknown); kept per value-flow
  // chain, so the cost model can say where communicated values are used.
  Label store(Address addr, std::uint32_t size, Label label, std::uint32_t site = 0) {
    ++stats_.stores;
    const auto [first, last] = words_of<kWordBytes>(addr, size);
    if (const ValueId copy = slicer_.leaf_value(label); copy != kNoValue) {
      ++stats_.replications;
      // An array's element copied here (x[i] = y[i]); a scalar stored here
      // (a loop's minimum into a parameter block) is computed into it.
      if (profile_.vertex_group[profile_.values.vertex(copy)] != 0) note_copy_into(addr);
      assign_words(first, last, copy);
      rehome_loop_result(copy, addr);
      return label;
    }
    slicer_.flatten(label, sources_);
    const bool small_result = stores_known_result(label);
    const Label leaf = store_new_value(addr, size, label, site, first, last);
    if (small_result && counting_) note_small_result(shadow_.get(first), known_result_site_);
    return leaf;
  }

  // The rest of store() for a label that makes a new value instance, its
  // source set already in sources_ (loop_result has flattened it).
  Label store_new_value(Address addr, std::uint32_t size, Label label, std::uint32_t site, std::uint64_t first,
                        std::uint64_t last) {
    ++stats_.creations;
    // Coalescing joins the updates of one location: the previous value's
    // vertex must be homed here. A value replicated into many locations (a
    // C++ fill: vector<double>(n, 0.0), assign, std::fill store one loaded
    // value everywhere) and then updated in each of them would otherwise
    // pull every location into that one value's vertex, a hub.
    const ValueId previous = shadow_.get(first);
    const bool homed_here =
        previous != kNoValue && profile_.vertex_home[profile_.values.vertex(previous)] / kWordBytes == first;
    const VertexId vertex =
        homed_here && coalescing_.coalesce(previous, sources_) ? profile_.values.vertex(previous) : kNoVertex;
    const ValueId v = new_value(addr, size, /*input=*/false, vertex);
    if (counting_ && !sources_.empty()) {
      profile_.flows.append(v, sources_);
      profile_.note_site(v, site);
    }
    assign_words(first, last, v);
    // A constant (no sources) stands for nothing stored: each store of it
    // makes a new constant value, as at -O0, where the constant is
    // rematerialised for every store (a zeroing loop, an initial value).
    return sources_.empty() ? label : slicer_.leaf(v);
  }

  // A branch or switch at static `site` decided by data `label`. Every SPMD
  // process takes the same branch, so the data is consumed there: a compound
  // label (two or more values) is stored to the site's virtual location, a
  // new value instance each time (it does not read the previous decision, so
  // it is never coalesced with it). A decision on one value, or on f(one
  // value), is local to that value's owner and records nothing, unless the
  // value is a loop's reduction (`if (resid < tol) break;`): the decision
  // reads the reduced value and is recorded as its reader. A large
  // decision computed from distributed values (a residual) is a singleton
  // computed from distributed data: an Allreduce per evaluation.
  void use(Label label, std::uint32_t site) {
    if (!slicer_.is_compound(label)) {
      const ValueId v = slicer_.leaf_value(label & ~kComputedBit);
      if (v == kNoValue || !counting_ || !recorded_reduction(profile_.values.vertex(v))) return;
      label = slicer_.leaf(v) | kComputedBit;
    }
    ++stats_.uses;
    store(kUseSiteBase + Address{8} * site, 8, label, site);
    if (counting_ && !newest_small_result_.empty()) reduce_results_compared_with_reductions();
  }

  // A loop's result (a reduction, a minimum, a carried value) leaving the
  // loop at static `site`: a compound label becomes one value instance at
  // the site's virtual location, and its leaf label is returned, as a
  // reload of the local that holds the result at -O0 would give. Other
  // labels are returned as they are.
  Label loop_result(Label label, std::uint32_t site) {
    if (!slicer_.is_compound(label)) return label;
    // A reduction over distributed data: computed from at least sqrt(D)
    // values, D the words of the arrays they lie in (the geometric middle
    // between a constant and all of them, as the singleton scorer's degree
    // floor). A smaller result (an element's gradient over its 8 nodes) is
    // a local computation, carried as a label and recomputed where it is
    // used. D does not grow with the run or with arrays the loop does not
    // read: a dot product after a long set-up or late in the run, and a
    // minimum over one region of a mesh, are still reductions.
    flatten_loop_result(label);
    const auto n = static_cast<std::uint64_t>(sources_.size());
    // A loop that has reduced distributed data is a reduction whatever part
    // of it one run reads (a minimum over each region of a mesh in turn,
    // the smallest regions too): the kind is the loop's, not the run's.
    if (!reducing_sites_.contains(site) && words_read_exceed(sources_, n * n)) {
      remember_loop_result(label, site);
      return label;
    }
    forget_loop_result();
    ++stats_.stores;
    const Address at = kLoopResultBase + Address{8} * site;
    const auto [first, last] = words_of<kWordBytes>(at, 8);
    const bool sourced = !sources_.empty();
    const Label leaf = store_new_value(at, 8, label, site, first, last);
    if (counting_ && sourced) note_reduction(profile_.values.vertex(shadow_.get(first)), site);
    if (site != 0) reducing_sites_.insert(site);
    return leaf;
  }

  // A loop's result lives where it is first stored (C(i, j) = the row
  // times the column): its virtual location only stands in until then, as
  // a register does; one never stored (a dot product) stays a temporary.
  void rehome_loop_result(ValueId v, Address addr) {
    if (addr >= kUseSiteBase) return;
    const VertexId vertex = profile_.values.vertex(v);
    if (profile_.vertex_home[vertex] < kLoopResultBase) return;
    profile_.vertex_home[vertex] = addr;
    profile_.vertex_group[vertex] = allocations_.empty() ? 0 : allocation_of(addr);
  }

  // memcpy/memmove: every word of the destination takes the value of the
  // corresponding source word (a replication, not a new value). Words never
  // written nor read stay so at the destination: memcpy does not know the
  // element size, so the first typed load there creates the input.
  void copy(Address dst, Address src, std::uint64_t size) {
    if (size == 0) return;
    note_copy_into(dst);
    if (!allocations_.empty()) note_move(dst, src, size);
    // Snapshot first: the ranges may overlap (memmove). The words of
    // src + k * kWordBytes (and of dst) are consecutive.
    const std::uint64_t words = (size + kWordBytes - 1) / kWordBytes;
    const std::uint64_t from = src / kWordBytes, to = dst / kWordBytes;
    if constexpr (kShadowRuns) {
      // Nothing to replicate (the common case of the runtime's own realloc:
      // memory that never held a value): the copy only clears the
      // destination, and needs no snapshot.
      if (holds_nothing(from, words)) {
        clear_words(to, words);
        return;
      }
      copy_buffer_.resize(words);
      for_each_run(std::as_const(shadow_), from, words, [&](std::uint64_t k, const ValueId* p, std::uint64_t n) {
        const auto at = copy_buffer_.begin() + static_cast<std::ptrdiff_t>(k);
        if (p != nullptr) {
          std::copy(p, p + n, at);
        } else {
          std::fill_n(at, n, kNoValue);
        }
        return true;
      });
      for_each_run(shadow_, to, words, [&](std::uint64_t k, ValueId* p, std::uint64_t n) {
        if (p == nullptr) {  // a page never written: the slow path makes it if needed
          for (std::uint64_t i = k; i < k + n; ++i) assign_word(to + i, copy_buffer_[i]);
        } else {
          for (std::uint64_t i = 0; i < n; ++i) assign_slot(p[i], copy_buffer_[k + i]);
        }
        return true;
      });
    } else {
      copy_buffer_.resize(words);
      for (std::uint64_t k = 0; k < words; ++k) copy_buffer_[k] = shadow_.get(from + k);
      for (std::uint64_t k = 0; k < words; ++k) assign_word(to + k, copy_buffer_[k]);
    }
  }

  // memset: new constant values, one per 8 bytes when the range is 8-byte
  // aligned (a zeroed double array: one value per element, not two halves
  // that every later load would join), else one per word.
  void fill(Address dst, std::uint64_t size) {
    const std::uint64_t step = dst % 8 == 0 && size % 8 == 0 ? 8 : kWordBytes;
    for (std::uint64_t off = 0; off < size; off += step) {
      store(dst + off, static_cast<std::uint32_t>(std::min<std::uint64_t>(step, size - off)), kComputedBit);
    }
  }

  // Pointer data: structure, not a value; kills what the words held.
  void clear(Address addr, std::uint64_t size) {
    const auto [first, last] = words_of<kWordBytes>(addr, size);
    if constexpr (kShadowRuns) {
      if (last - first < ~std::uint64_t{0}) {
        clear_words(first, last - first + 1);
        return;
      }
    }
    for (std::uint64_t w = first; w <= last; ++w) assign_word(w, kNoValue);
  }

  // A source site of the program (the pass registers every site it passes
  // to store, use and loop_result); the first registration of an id counts.
  void site(std::uint32_t id, std::string file, std::uint32_t line, std::string loop_file, std::uint32_t loop_line) {
    if (id == 0 || !site_ids_.insert(id).second) return;
    profile_.sites.push_back({id, line, loop_line, std::move(file), std::move(loop_file)});
  }

  // Heap allocations: a vertex remembers which array its home lies in, so
  // the partitioner can spread every large array over all processes (SPMD).
  // Blocks under kMinTrackedAllocation bytes are not worth a map entry.
  static constexpr std::uint64_t kMinTrackedAllocation = 1024;

  // `site`: where the program allocated it (array_site; 0 unknown);
  // by_program false: a library's own buffer (Profile::Array::by_program).
  void allocation(Address start, std::uint64_t size, std::uint32_t site = 0, bool by_program = true) {
    if (size < kMinTrackedAllocation) return;
    allocations_[start] = {start + size, ++allocation_count_, current_iteration()};
    auto& array = profile_.arrays.emplace_back();
    array.base = start;
    array.bytes = size;
    array.site = site;
    array.by_program = by_program;
  }

  // An allocation site of the program (the pass registers every site it
  // passes to allocation); the first registration of an id counts.
  void array_site(std::uint32_t id, std::string file, std::uint32_t line, std::string name) {
    if (id == 0 || !array_site_ids_.insert(id).second) return;
    profile_.array_sites.push_back({id, line, std::move(file), std::move(name)});
  }

  void release(Address start) {
    if (copied_into_.first == start) copied_into_ = {0, 0};  // the block may be reallocated unmarked
    if (auto it = allocations_.find(start); it != allocations_.end()) {
      auto& array = profile_.arrays[it->second.id - 1];
      array.freed = true;
      array.scratch = it->second.allocated_in != kOutsideRegion && it->second.allocated_in == current_iteration();
      allocations_.erase(it);
    }
  }

  // A pointer stored at `at`: the start of a tracked block stored into
  // another makes the first a row of a table of rows (row_tables.h).
  void pointer_stored(Address at, Address value) {
    if (allocations_.empty()) return;
    const auto row = allocations_.find(value);
    if (row == allocations_.end() && row_tables_.empty()) return;
    const auto table = block_containing(at);
    if (table == allocations_.end()) return;
    const bool a_row = row != allocations_.end() && row->first != table->first;
    row_tables_.note(table->second.id, at - table->first, a_row ? row->second.id : 0);
  }

  // An access in the region at an index read from an array (x[col[k]]):
  // its array is marked. Returns the array's extent [first, end), which
  // needs no more marks; an empty range when nothing was marked (outside
  // the region, an untracked block).
  std::pair<Address, Address> indexed_indirectly(Address addr) {
    if (!counting_) return {0, 0};
    const auto it = block_containing(addr);
    if (it == allocations_.end()) return {0, 0};
    profile_.arrays[it->second.id - 1].indexed_indirectly = true;
    return {it->first, it->second.end};
  }

  // The tracked block holding addr, else allocations_.end().
  auto block_containing(Address addr) const {
    const auto it = allocations_.upper_bound(addr);
    if (it == allocations_.begin() || addr >= std::prev(it)->second.end) return allocations_.cend();
    return std::prev(it);
  }

  std::uint32_t allocation_of(Address addr) const {
    const auto it = block_containing(addr);
    return it == allocations_.end() ? 0 : it->second.id;
  }

  // The first region_begin discards what was recorded before it: only the
  // region(s) of interest count. Without any region, the whole run counts.
  void region_begin() {
    if (!explicit_region_) {
      explicit_region_ = true;
      profile_.flows.clear();
      profile_.value_sites.clear();
      profile_.reductions.clear();
      profile_.iteration_marks.clear();
      for (auto& array : profile_.arrays) array.indexed_indirectly = false;  // the set-up's accesses do not count
    }
    counting_ = true;
  }

  void region_end() {
    if (!counting_) return;
    counting_ = false;
  }

  void iteration() {
    if (counting_) profile_.iteration_marks.push_back(static_cast<ValueId>(profile_.values.count() + 1));
  }

  // End of program: closes an open (or implicit) region. A value store that
  // does not count copies learns here which values are live.
  void finish() {
    region_end();
    row_tables_.fuse(profile_);
    if constexpr (!kCountsCopies) {
      profile_.values.reset_live();
      shadow_.for_each_value([&](ValueId v) { profile_.values.mark_live(v); });
    }
  }

  // ----------------------------------------------------------- results

  const ProfileType& profile() const { return profile_; }
  ProfileType& profile() { return profile_; }
  ProfileType take_profile() { return std::move(profile_); }
  const AnalyzerStats& stats() const { return stats_; }
  const SlicerT& slicer() const { return slicer_; }
  SlicerT& slicer() { return slicer_; }  // e.g. UnionDagSlicer::enable_collection
  Shadow& shadow() { return shadow_; }   // e.g. PagedShadowMemory::share_cache
  ValueId value_at(Address addr) const { return shadow_.get(addr / kWordBytes); }
  bool counting() const { return counting_; }

  std::size_t memory_bytes() const {
    return shadow_.memory_bytes() + slicer_.memory_bytes() + profile_.values.memory_bytes() +
           profile_.flows.memory_bytes() + profile_.vertex_count() * 16;  // home, weight, group
  }

 private:
  ValueId make_input(Address addr, std::uint32_t size, std::uint64_t first, std::uint64_t last) {
    ++stats_.inputs;
    const ValueId v = new_value(addr, size, /*input=*/true, kNoVertex);
    for (std::uint64_t w = first; w <= last; ++w) assign_word(w, v);
    return v;
  }

  // A copy into a tracked array in the region (Profile::Array::copied_into).
  // The block last marked needs no lookup: copies come in runs (a copy-back
  // loop, a memcpy).
  void note_copy_into(Address dst) {
    if (!counting_ || (dst >= copied_into_.first && dst < copied_into_.second)) return;
    const auto it = block_containing(dst);
    if (it == allocations_.end()) return;
    profile_.arrays[it->second.id - 1].copied_into = true;
    copied_into_ = {it->first, it->second.end};
  }

  // A copy between two tracked arrays: where a freed array's values live on.
  void note_move(Address dst, Address src, std::uint64_t size) {
    const std::uint32_t from = allocation_of(src), to = allocation_of(dst);
    if (from == 0 || to == 0 || from == to) return;
    profile_.moves.push_back(
        {from, to, src - profile_.arrays[from - 1].base, dst - profile_.arrays[to - 1].base, size});
  }

  // A new instance; joins `vertex`, or starts a vertex homed at addr.
  ValueId new_value(Address addr, std::uint32_t size, bool input, VertexId vertex) {
    if (vertex == kNoVertex) vertex = profile_.add_vertex(addr, allocations_.empty() ? 0 : allocation_of(addr));
    const ValueId v = profile_.values.create(size, input, vertex);
    ++profile_.vertex_weight[vertex];
    return v;
  }

  static constexpr bool kCountsCopies = CountsCopies<Values>;

  [[gnu::always_inline]] void assign_word(std::uint64_t word, ValueId v) {
    const ValueId old = shadow_.exchange(word, v);
    if constexpr (kCountsCopies) {
      if (old != kNoValue) profile_.values.drop_copy(old);
      if (v != kNoValue) profile_.values.add_copy(v);
    }
  }

  // assign_word on a slot of a shadow run. (Both always inline: GCC kept
  // assign_slot a call, made for every word a store or memcpy writes.)
  [[gnu::always_inline]] void assign_slot(ValueId& slot, ValueId v) {
    const ValueId old = slot;
    slot = v;
    if constexpr (kCountsCopies) {
      if (old != kNoValue) profile_.values.drop_copy(old);
      if (v != kNoValue) profile_.values.add_copy(v);
    }
  }

  // assign_word for words first..last, in order.
  void assign_words(std::uint64_t first, std::uint64_t last, ValueId v) {
    if constexpr (kShadowRuns) {
      std::uint64_t in_page;
      if (ValueId* p = shadow_.run(first, in_page); p != nullptr && last - first < in_page) {
        for (std::uint64_t k = 0; k <= last - first; ++k) assign_slot(p[k], v);
        return;
      }
    }
    for (std::uint64_t w = first; w <= last; ++w) assign_word(w, v);
  }

  // Calls fn(k, p, n) for the `count` words from `first`, one page at a
  // time: p points at the slots of words first + k .. first + k + n - 1,
  // or is null for a page never written. Stops when fn returns false;
  // returns whether it went through. (ShadowT: Shadow or const Shadow.)
  template <class ShadowT, class Fn>
  static bool for_each_run(ShadowT& shadow, std::uint64_t first, std::uint64_t count, Fn fn) {
    for (std::uint64_t k = 0; k < count;) {
      std::uint64_t in_page;
      auto* p = shadow.run(first + k, in_page);
      const std::uint64_t n = std::min(in_page, count - k);
      if (!fn(k, p, n)) return false;
      k += n;
    }
    return true;
  }

  // Do the `count` words from `first` all hold kNoValue? Pages never
  // written are skipped whole.
  bool holds_nothing(std::uint64_t first, std::uint64_t count) const {
    return for_each_run(shadow_, first, count, [](std::uint64_t, const ValueId* p, std::uint64_t n) {
      return p == nullptr || std::none_of(p, p + n, [](ValueId v) { return v != kNoValue; });
    });
  }

  // assign_word(w, kNoValue) for the `count` words from `first`, page by
  // page: a page never written holds nothing to clear.
  void clear_words(std::uint64_t first, std::uint64_t count) {
    for_each_run(shadow_, first, count, [&](std::uint64_t, ValueId* p, std::uint64_t n) {
      for (std::uint64_t i = 0; p != nullptr && i < n; ++i) {
        if (p[i] != kNoValue) assign_slot(p[i], kNoValue);
      }
      return true;
    });
  }

  // Does the shadow memory offer direct runs (PagedShadowMemory::run)?
  static constexpr bool kShadowRuns = requires(Shadow& s, const Shadow& cs, std::uint64_t w, std::uint64_t& n) {
    { s.run(w, n) } -> std::same_as<ValueId*>;
    { cs.run(w, n) } -> std::same_as<const ValueId*>;
  };

  Shadow shadow_;
  SlicerT slicer_;
  Coalescing coalescing_;
  ProfileType profile_;
  AnalyzerStats stats_;
  static constexpr std::size_t kOutsideRegion = ~std::size_t{0};
  // Are the words of the arrays holding `sources` (each array once), and one
  // per source in none (a local, a global, another loop's result), more
  // than `bound`? Counting stops there: a small result (an element's 8
  // nodes' coordinates) passes it at its first array.
  bool words_read_exceed(const std::vector<ValueId>& sources, std::uint64_t bound) {
    std::uint64_t words = 0;
    arrays_read_.clear();
    for (ValueId v : sources) {
      const std::uint32_t array = profile_.vertex_group[profile_.values.vertex(v)];
      if (array == 0) {
        ++words;
      } else if (std::find(arrays_read_.begin(), arrays_read_.end(), array) == arrays_read_.end()) {
        arrays_read_.push_back(array);
        words += profile_.arrays[array - 1].bytes / 8;
      }
      if (words > bound) return true;
    }
    return false;
  }
  // The iteration of an explicit region under way (marks so far), or
  // kOutsideRegion.
  std::size_t current_iteration() const {
    return counting_ && explicit_region_ ? profile_.iteration_marks.size() : kOutsideRegion;
  }
  struct Block {
    Address end = 0;
    std::uint32_t id = 0;
    std::size_t allocated_in = 0;  // current_iteration() at allocation
  };
  std::map<Address, Block> allocations_;
  RowTables row_tables_;
  std::vector<std::uint32_t> arrays_read_;  // words_read_exceed's scratch
  std::set<std::uint32_t> site_ids_;
  std::set<std::uint32_t> array_site_ids_;
  std::set<std::uint32_t> reducing_sites_;  // loop_result sites that have recorded a reduction
  std::uint32_t allocation_count_ = 0;
  std::vector<ValueId> sources_;
  // The last loop result too small to be a value instance, and its source
  // set: a running result tested at every exit of an inner loop (a sweep's
  // residual, row by row) extends it, and loop_result walks only the new
  // part. Valid while no label collection has run since (a collection may
  // reuse the label's node).
  Label known_result_ = kNoLabel;
  std::uint32_t known_result_site_ = 0;
  std::map<std::uint32_t, ValueId> newest_small_result_;  // note_small_result
  std::vector<ValueId> known_result_sources_;
  std::size_t known_result_collections_ = 0;

  void flatten_loop_result(Label label) {
    if constexpr (requires { slicer_.flatten_extending(label, label, std::span<const ValueId>{}, sources_); }) {
      if (known_result_ != kNoLabel && known_result_collections_ == slicer_.collections()) {
        slicer_.flatten_extending(label, known_result_, known_result_sources_, sources_);
        return;
      }
    }
    slicer_.flatten(label, sources_);
  }
  void remember_loop_result(Label label, std::uint32_t site) {
    if constexpr (requires { slicer_.collections(); }) {
      known_result_ = label;
      known_result_site_ = site;
      std::swap(known_result_sources_, sources_);  // sources_ is scratch: the next flatten clears it
      known_result_collections_ = slicer_.collections();
    }
  }
  void forget_loop_result() { known_result_ = kNoLabel; }
  // Is `label` the last loop result too small to be a value instance, its
  // node not reused since?
  bool stores_known_result(Label label) const {
    if constexpr (requires { slicer_.collections(); }) {
      return label == known_result_ && known_result_site_ != 0 && known_result_collections_ == slicer_.collections();
    } else {
      return false;
    }
  }
  // The newest instance each loop-result site's small result was stored
  // as (a region's minimum kept in a domain scalar): at most one per site.
  void note_small_result(ValueId v, std::uint32_t site) {
    if (site == 0 || reducing_sites_.contains(site)) return;
    newest_small_result_[site] = v;
  }
  // A decision (its sources in sources_) that compares a reduction with a
  // loop's small result (`if (dthydro < gnewdt)`, gnewdt = dtcourant / 2:
  // the smaller of two minima over the mesh) makes that loop a reduction
  // whatever the size of its results: an MPI code can compare the two only
  // once both are reduced, or compare each process's parts and reduce the
  // smaller, so the small result is a part of a reduction as the other is.
  // Its loop is a reduction from then on (loop_result records its results)
  // and the result compared is one.
  void reduce_results_compared_with_reductions() {
    bool compares_reduction = false;
    for (ValueId v : sources_) compares_reduction |= recorded_reduction(profile_.values.vertex(v));
    if (!compares_reduction) return;
    for (auto it = newest_small_result_.begin(); it != newest_small_result_.end();) {
      const auto [site, v] = *it;
      if (!std::binary_search(sources_.begin(), sources_.end(), v)) {  // sources_ is sorted
        ++it;
        continue;
      }
      note_reduction(profile_.values.vertex(v), site);
      reducing_sites_.insert(site);
      it = newest_small_result_.erase(it);
    }
  }
  // Where `vertex` is, or would go, in Profile::reductions (sorted by vertex).
  auto reduction_entry(VertexId vertex) const {
    const auto& all = profile_.reductions;
    return std::lower_bound(all.begin(), all.end(), vertex, [](const auto& r, VertexId x) { return r.vertex < x; });
  }
  bool recorded_reduction(VertexId vertex) const {
    const auto at = reduction_entry(vertex);
    return at != profile_.reductions.end() && at->vertex == vertex;
  }
  void note_reduction(VertexId vertex, std::uint32_t site) {
    const auto at = reduction_entry(vertex);
    if (at == profile_.reductions.end() || at->vertex != vertex) {
      profile_.reductions.insert(at, {vertex, site});  // else a coalesced update is there already
    }
  }
  std::vector<ValueId> copy_buffer_;
  bool counting_ = true;
  std::pair<Address, Address> copied_into_{0, 0};  // [first, end) of the block note_copy_into marked last
  bool explicit_region_ = false;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_ANALYZER_H_

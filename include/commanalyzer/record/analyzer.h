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
//   a.expect_region();                  // the program marks a region: a cheap set-up
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
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "commanalyzer/record/compressor.h"
#include "commanalyzer/record/loop_reductions.h"
#include "commanalyzer/record/profile.h"
#include "commanalyzer/record/region_of_interest.h"
#include "commanalyzer/record/row_tables.h"
#include "commanalyzer/record/shadow_memory.h"
#include "commanalyzer/record/shadow_words.h"
#include "commanalyzer/record/site_registry.h"
#include "commanalyzer/record/slicer.h"
#include "commanalyzer/record/tracked_arrays.h"
#include "commanalyzer/record/types.h"
#include "commanalyzer/record/unread_set_up.h"
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
    // The common case in one page lookup: every word holds the same value.
    if (const ValueId v = words_.uniform_in_page(first, last); v != kNoValue) return slicer_.leaf(v);
    const ValueId head = words_.get(first);
    if (first == last) {
      return slicer_.leaf(head != kNoValue ? head : make_input(addr, size, first, last));
    }
    bool uniform = true, any_empty = head == kNoValue;
    for (std::uint64_t w = first + 1; w <= last; ++w) {
      const ValueId v = words_.get(w);
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
      ValueId v = words_.get(w);
      if (v == kNoValue) {
        v = filler;
        words_.assign(profile_.values, w, v);
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
      if (region_.counting() && profile_.vertex_group[profile_.values.vertex(copy)] != 0) {
        arrays_.mark_copied_into(profile_, addr);
      }
      words_.assign(profile_.values, first, last, copy);
      rehome_loop_result(copy, addr);
      return label;
    }
    if (set_up_) return set_up_value(addr, size, label, first, last);
    slicer_.flatten(label, sources_);
    const bool small_result = running_result_.is(slicer_, label);
    const Label leaf = store_new_value(addr, size, label, site, first, last);
    if (small_result && region_.counting()) reductions_.note_small_result(words_.get(first), running_result_.site());
    return leaf;
  }

  // store(addr, size, the union of `labels`, site) when that union would
  // be a new node, made for this store only: the labels are leaves and
  // pairs (plain or computed) naming at least three values. Then the
  // union is neither a replication nor a loop's kept result, and its
  // source set is theirs: the store records it without the node, puts the
  // leaf label of what the location now holds in `stored` and returns
  // true. Otherwise it records nothing and returns false (the caller makes
  // the union and calls store).
  bool store_union(Address addr, std::uint32_t size, std::span<const Label> labels, std::uint32_t site,
                   Label& stored) {
    sources_.clear();
    for (Label label : labels) {
      label &= ~kComputedBit;
      if (slicer_internal::is_node(label)) return false;
      if (label != kNoLabel) slicer_internal::for_each_leaf(label, [&](ValueId v) { sources_.push_back(v); });
    }
    sources_.resize(slicer_internal::sort_unique_small(sources_.data(), sources_.size()));
    if (sources_.size() < 3) return false;
    ++stats_.stores;
    const auto [first, last] = words_of<kWordBytes>(addr, size);
    stored = set_up_ ? slicer_.leaf(set_up_instance(addr, size, first, last))
                     : store_new_value(addr, size, kNoLabel, site, first, last);
    return true;
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
    const ValueId previous = words_.get(first);
    const VertexId home = vertex_homed_at(previous, first);
    const VertexId vertex = home != kNoVertex && coalescing_.coalesce(previous, sources_) ? home : kNoVertex;
    const ValueId v = new_value(addr, size, /*input=*/false, vertex);
    if (region_.counting() && !sources_.empty()) {
      profile_.flows.append(v, sources_);
      profile_.note_site(v, site);
      set_up_reads_.note(sources_);
    }
    words_.assign(profile_.values, first, last, v);
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
    if (set_up_) return;  // the region discards it
    if (!slicer_.is_compound(label)) {
      const ValueId v = slicer_.leaf_value(label & ~kComputedBit);
      if (v == kNoValue || !region_.counting()) return;
      if (!LoopReductions::recorded(profile_.reductions, profile_.values.vertex(v))) return;
      label = slicer_.leaf(v) | kComputedBit;
    }
    ++stats_.uses;
    store(kUseSiteBase + Address{8} * site, 8, label, site);
    if (region_.counting() && reductions_.any_small_result()) {
      reductions_.reduce_results_compared(profile_.reductions, sources_,
                                          [&](ValueId v) { return profile_.values.vertex(v); });
    }
  }

  // A loop's result (a reduction, a minimum, a carried value) leaving the
  // loop at static `site`: a compound label becomes one value instance at
  // the site's virtual location, and its leaf label is returned, as a
  // reload of the local that holds the result at -O0 would give. Other
  // labels are returned as they are.
  Label loop_result(Label label, std::uint32_t site) {
    if (!slicer_.is_compound(label)) return label;
    const Address at = kLoopResultBase + Address{8} * site;
    if (set_up_) {
      ++stats_.stores;
      const auto [first, last] = words_of<kWordBytes>(at, 8);
      return set_up_value(at, 8, label, first, last);
    }
    // A reduction over distributed data, by its size or by its loop's kind
    // (RunningLoopResult::kept_small); a smaller result stays a label.
    running_result_.flatten(slicer_, label, sources_);
    if (running_result_.kept_small(slicer_, profile_, label, site, sources_, reductions_.reduces(site))) return label;
    ++stats_.stores;
    const auto [first, last] = words_of<kWordBytes>(at, 8);
    const bool sourced = !sources_.empty();
    const Label leaf = store_new_value(at, 8, label, site, first, last);
    if (region_.counting() && sourced) {
      reductions_.note(profile_.reductions, profile_.values.vertex(words_.get(first)), site);
    }
    reductions_.mark_reducing(site);
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
    profile_.vertex_group[vertex] = arrays_.array_of(addr);
  }

  // memcpy/memmove: every word of the destination takes the value of the
  // corresponding source word (a replication, not a new value). Words never
  // written nor read stay so at the destination: memcpy does not know the
  // element size, so the first typed load there creates the input.
  void copy(Address dst, Address src, std::uint64_t size) {
    if (size == 0) return;
    if (region_.counting()) arrays_.mark_copied_into(profile_, dst);
    arrays_.note_move(profile_, dst, src, size);
    // The words of src + k * kWordBytes (and of dst) are consecutive.
    words_.copy(profile_.values, src / kWordBytes, dst / kWordBytes, (size + kWordBytes - 1) / kWordBytes);
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
    words_.clear(profile_.values, first, last - first + 1);
  }

  // A source site of the program (the pass registers every site it passes
  // to store, use and loop_result; SiteRegistry).
  void site(std::uint32_t id, std::string file, std::uint32_t line, std::string loop_file, std::uint32_t loop_line) {
    sites_.site(profile_, id, std::move(file), line, std::move(loop_file), loop_line);
  }

  // Heap allocations (TrackedArrays). `site`: where the program allocated
  // it (array_site; 0 unknown); by_program false: a library's own buffer.
  static constexpr std::uint64_t kMinTrackedAllocation = TrackedArrays::kMinBytes;
  void allocation(Address start, std::uint64_t size, std::uint32_t site = 0, bool by_program = true) {
    arrays_.allocate(profile_, start, size, site, by_program, current_iteration());
  }

  // An allocation site of the program (the pass registers every site it
  // passes to allocation; SiteRegistry).
  void array_site(std::uint32_t id, std::string file, std::uint32_t line, std::string name) {
    sites_.array_site(profile_, id, std::move(file), line, std::move(name));
  }

  void release(Address start) { arrays_.release(profile_, start, current_iteration()); }

  // A pointer stored at `at`: the start of a tracked block stored into
  // another makes the first a row of a table of rows (row_tables.h).
  void pointer_stored(Address at, Address value) { arrays_.pointer_stored(at, value); }

  // An access in the region at an index read from an array (x[col[k]]):
  // its array is marked. Returns the array's extent [first, end), which
  // needs no more marks; an empty range when nothing was marked (outside
  // the region, an untracked block).
  std::pair<Address, Address> indexed_indirectly(Address addr) {
    if (!region_.counting()) return {0, 0};
    return arrays_.mark_indexed_indirectly(profile_, addr);
  }

  // The first region_begin discards what was recorded before it: only the
  // region(s) of interest count. Without any region, the whole run counts.
  // The set-up's values the region does not read go at the end (finish).
  void region_begin() {
    set_up_ = false;
    if (!region_.begin()) return;
    profile_.discard_recorded();
    set_up_reads_ = SetUpReads(static_cast<ValueId>(profile_.values.count() + 1));
  }

  void region_end() { region_.end(); }

  // The program marks a region (the instrumentation found CA_REGION_BEGIN
  // in it), called before it runs: what comes before the region is its
  // set-up, whose flows the region discards. Until the region begins, a
  // store makes its value without looking for the value's sources
  // (set_up_value): the set-up runs at a fraction of the cost (a finite
  // element assembly's element matrices are large unions to flatten).
  void expect_region() {
    if (!region_.begun()) set_up_ = true;
  }
  // expect_region() was called, and the region has not begun (at the end:
  // never did, and nothing was recorded).
  bool in_set_up() const { return set_up_; }

  void iteration() {
    if (!region_.counting()) return;
    const auto first = static_cast<ValueId>(profile_.values.count() + 1);
    profile_.iteration_marks.push_back(first);
    // An iteration that repeats the one before is recorded as a replay of it.
    if constexpr (requires { profile_.flows.begin_iteration(first); }) profile_.flows.begin_iteration(first);
  }

  // A recording window: the analysis stops at the iteration mark just
  // made, and the region ends there. The iterations the program goes on to
  // mark are counted (unrecorded_iteration), not recorded: empty phases
  // the estimate counts as the window's last costed iteration
  // (Profile::recorded_iterations).
  void stop_recording() {
    region_end();
    profile_.recorded_iterations = profile_.iterations();
  }
  void unrecorded_iteration() {
    profile_.iteration_marks.push_back(static_cast<ValueId>(profile_.values.count() + 1));
  }

  // End of program: closes an open (or implicit) region. A value store that
  // does not count copies learns here which values are live. Value ids
  // change (unread_set_up.h): the run's labels and shadow words are not to
  // be used after.
  void finish() {
    region_end();
    if constexpr (requires { profile_.flows.settle(); }) profile_.flows.settle();
    arrays_.fuse_row_tables(profile_);
    if constexpr (!kCountsCopies) {
      profile_.values.reset_live();
      words_.shadow().for_each_value([&](ValueId v) { profile_.values.mark_live(v); });
    }
    drop_unread_set_up(profile_, std::exchange(set_up_reads_, SetUpReads{}));
  }

  // ----------------------------------------------------------- results

  const ProfileType& profile() const { return profile_; }
  ProfileType& profile() { return profile_; }
  ProfileType take_profile() { return std::move(profile_); }
  const AnalyzerStats& stats() const { return stats_; }
  const SlicerT& slicer() const { return slicer_; }
  SlicerT& slicer() { return slicer_; }  // e.g. UnionDagSlicer::enable_collection
  Shadow& shadow() { return words_.shadow(); }   // e.g. PagedShadowMemory::share_cache
  ValueId value_at(Address addr) const { return words_.get(addr / kWordBytes); }
  bool counting() const { return region_.counting(); }

  // The analysis' own memory, part by part (the run's metadata lists them).
  struct MemoryParts {
    std::size_t shadow = 0, labels = 0, values = 0, flows = 0, vertex_tables = 0;
    std::size_t total() const { return shadow + labels + values + flows + vertex_tables; }
  };
  MemoryParts memory_parts() const {
    return {words_.shadow().memory_bytes(), slicer_.memory_bytes(), profile_.values.memory_bytes(),
            profile_.flows.memory_bytes(), profile_.vertex_count() * 16};  // home, weight, group
  }
  std::size_t memory_bytes() const { return memory_parts().total(); }

 private:
  ValueId make_input(Address addr, std::uint32_t size, std::uint64_t first, std::uint64_t last) {
    ++stats_.inputs;
    const ValueId v = new_value(addr, size, /*input=*/true, kNoVertex);
    words_.assign(profile_.values, first, last, v);
    return v;
  }

  // A value the set-up stores before the region: where it is and how large
  // is all the region can use of it (its sources are discarded with the
  // set-up's flows), so they are not looked for. Without them an update
  // cannot be told from an overwrite: a location's set-up values join the
  // vertex homed there, as its chain of updates does in a full recording
  // (the initial zero and the sums of an assembly), so the vertices keep
  // the order in which locations were first set. A constant stays a
  // constant, as in store_new_value.
  Label set_up_value(Address addr, std::uint32_t size, Label label, std::uint64_t first, std::uint64_t last) {
    const ValueId v = set_up_instance(addr, size, first, last);
    return (label & ~kComputedBit) == kNoLabel ? label : slicer_.leaf(v);
  }
  ValueId set_up_instance(Address addr, std::uint32_t size, std::uint64_t first, std::uint64_t last) {
    ++stats_.creations;
    const ValueId v = new_value(addr, size, /*input=*/false, vertex_homed_at(words_.get(first), first));
    words_.assign(profile_.values, first, last, v);
    return v;
  }

  // The vertex of `previous`, the value at `word`, if that vertex is homed
  // at `word` (kNoVertex if not, or if there is none).
  VertexId vertex_homed_at(ValueId previous, std::uint64_t word) const {
    if (previous == kNoValue) return kNoVertex;
    const VertexId vertex = profile_.values.vertex(previous);
    return profile_.vertex_home[vertex] / kWordBytes == word ? vertex : kNoVertex;
  }

  // A new instance; joins `vertex`, or starts a vertex homed at addr.
  ValueId new_value(Address addr, std::uint32_t size, bool input, VertexId vertex) {
    if (vertex == kNoVertex) vertex = profile_.add_vertex(addr, arrays_.array_of(addr));
    const ValueId v = profile_.values.create(size, input, vertex);
    ++profile_.vertex_weight[vertex];
    return v;
  }

  static constexpr bool kCountsCopies = CountsCopies<Values>;

  ShadowWords<Shadow, Values> words_;
  SlicerT slicer_;
  Coalescing coalescing_;
  ProfileType profile_;
  AnalyzerStats stats_;
  // The iteration of an explicit region under way (marks so far), or
  // TrackedArrays::kOutsideRegion.
  std::size_t current_iteration() const {
    return region_.iteration(profile_.iteration_marks.size(), TrackedArrays::kOutsideRegion);
  }
  TrackedArrays arrays_;
  SiteRegistry sites_;
  std::vector<ValueId> sources_;
  RunningLoopResult<SlicerT> running_result_;
  LoopReductions reductions_;
  RegionOfInterest region_;
  SetUpReads set_up_reads_;  // from the first explicit region's first value (default: no region)
  bool set_up_ = false;              // before a region the program marks (expect_region)
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_ANALYZER_H_

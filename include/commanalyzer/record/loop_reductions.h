// Which loops reduce distributed data, for the analyzer (analyzer.h,
// Analyzer::loop_result and Analyzer::use; DESIGN.md, "Optimizer
// independence"):
//
//   RunningLoopResult<Slicer> running;    // the last result too small to be an instance
//   running.flatten(slicer, label, out);  // its sources, walking only what is new
//   running.kept_small(slicer, profile, label, site, out, reduces);  // the size rule
//   LoopReductions reductions;            // Profile::reductions and the loops they came from
//   reductions.note(profile.reductions, vertex, site);
//
// Both hold analysis state only; the profile keeps what the estimate reads.
#ifndef COMMANALYZER_RECORD_LOOP_REDUCTIONS_H_
#define COMMANALYZER_RECORD_LOOP_REDUCTIONS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "commanalyzer/record/types.h"

namespace commanalyzer {

// Are the words of the arrays holding `sources` (each array once), and one
// per source in none (a local, a global, another loop's result), more than
// `bound`? Counting stops there: a small result (an element's 8 nodes'
// coordinates) passes it at its first array.
class ArrayWordsRead {
 public:
  template <class ProfileT>
  bool exceed(const ProfileT& profile, const std::vector<ValueId>& sources, std::uint64_t bound) {
    std::uint64_t words = 0;
    arrays_.clear();
    for (ValueId v : sources) {
      const std::uint32_t array = profile.vertex_group[profile.values.vertex(v)];
      if (array == 0) {
        ++words;
      } else if (std::find(arrays_.begin(), arrays_.end(), array) == arrays_.end()) {
        arrays_.push_back(array);
        words += profile.arrays[array - 1].bytes / 8;
      }
      if (words > bound) return true;
    }
    return false;
  }

 private:
  std::vector<std::uint32_t> arrays_;  // the arrays met so far (scratch)
};

// The last loop result too small to be a value instance, and its source
// set: a running result tested at every exit of an inner loop (a sweep's
// residual, row by row) extends it, and flatten walks only the new part.
// Valid while no label collection has run since (a collection may reuse
// the label's node). Slicers without collections (the reference slicer)
// keep nothing and flatten the whole label.
template <class SlicerT>
class RunningLoopResult {
 public:
  static constexpr bool kKept = requires(const SlicerT& s) { s.collections(); };

  // The sources of `label` into `out` (sorted, unique).
  void flatten(SlicerT& slicer, Label label, std::vector<ValueId>& out) const {
    if constexpr (kKept) {
      if (label_ != kNoLabel && collections_ == slicer.collections()) {
        slicer.flatten_extending(label, label_, sources_, out);
        return;
      }
    }
    slicer.flatten(label, out);
  }
  // Keeps `label` and its sources (taken from `sources`, which the caller
  // uses as scratch) as the running result of loop `site`.
  void remember(const SlicerT& slicer, Label label, std::uint32_t site, std::vector<ValueId>& sources) {
    if constexpr (kKept) {
      label_ = label;
      site_ = site;
      std::swap(sources_, sources);
      collections_ = slicer.collections();
    }
  }
  void forget() { label_ = kNoLabel; }

  // The size rule: a reduction over distributed data is computed from at
  // least sqrt(D) values, D the words of the arrays they lie in (the
  // geometric middle between a constant and all of them, as the singleton
  // scorer's degree floor). A smaller result (an element's gradient over
  // its 8 nodes) is a local computation, carried as a label and recomputed
  // where it is used. D does not grow with the run or with arrays the loop
  // does not read: a dot product after a long set-up or late in the run,
  // and a minimum over one region of a mesh, are still reductions. A loop
  // that has reduced distributed data (`loop_reduces`) is a reduction
  // whatever part of it one run reads (a minimum over each region of a
  // mesh in turn, the smallest regions too): the kind is the loop's.
  // True when `label` (its `sources` flattened) is too small: it is then
  // kept as the running result of `site`; else the running result is
  // forgotten.
  template <class ProfileT>
  bool kept_small(const SlicerT& slicer, const ProfileT& profile, Label label, std::uint32_t site,
                  std::vector<ValueId>& sources, bool loop_reduces) {
    const auto n = static_cast<std::uint64_t>(sources.size());
    if (!loop_reduces && words_read_.exceed(profile, sources, n * n)) {
      remember(slicer, label, site, sources);
      return true;
    }
    forget();
    return false;
  }
  // Is `label` the kept result, its node not reused since? (A store of it
  // keeps a small result: LoopReductions::note_small_result.)
  bool is(const SlicerT& slicer, Label label) const {
    if constexpr (kKept) {
      return label == label_ && site_ != 0 && collections_ == slicer.collections();
    } else {
      return false;
    }
  }
  std::uint32_t site() const { return site_; }

 private:
  Label label_ = kNoLabel;
  std::uint32_t site_ = 0;
  std::vector<ValueId> sources_;
  std::size_t collections_ = 0;
  ArrayWordsRead words_read_;
};

// The loop results recorded as reductions (Profile::reductions, sorted by
// vertex), the loops that have given one, and each other loop's newest
// small result, which a comparison with a reduction may make one.
class LoopReductions {
 public:
  // Has the loop at `site` given a reduction? Its later results are ones
  // whatever part of it a run reads: the kind is the loop's.
  bool reduces(std::uint32_t site) const { return reducing_sites_.contains(site); }
  void mark_reducing(std::uint32_t site) {
    if (site != 0) reducing_sites_.insert(site);
  }

  template <class Reductions>
  static bool recorded(const Reductions& all, VertexId vertex) {
    const auto at = entry(all, vertex);
    return at != all.end() && at->vertex == vertex;
  }
  template <class Reductions>
  void note(Reductions& all, VertexId vertex, std::uint32_t site) {
    const auto at = entry(all, vertex);
    if (at == all.end() || at->vertex != vertex) all.insert(at, {vertex, site});  // else a coalesced update is there
  }

  // The newest instance each loop-result site's small result was stored
  // as (a region's minimum kept in a domain scalar): at most one per site.
  void note_small_result(ValueId v, std::uint32_t site) {
    if (site == 0 || reduces(site)) return;
    newest_small_result_[site] = v;
  }
  bool any_small_result() const { return !newest_small_result_.empty(); }

  // A decision on `sources` (sorted) that compares a reduction with a
  // loop's small result (`if (dthydro < gnewdt)`, gnewdt = dtcourant / 2:
  // the smaller of two minima over the mesh) makes that loop a reduction
  // whatever the size of its results: an MPI code can compare the two only
  // once both are reduced, or compare each process's parts and reduce the
  // smaller, so the small result is a part of a reduction as the other is.
  // Its loop is a reduction from then on and the result compared is one.
  // `vertex_of` maps a value to its vertex.
  template <class Reductions, class VertexOf>
  void reduce_results_compared(Reductions& all, std::span<const ValueId> sources, const VertexOf& vertex_of) {
    const bool compares_reduction =
        std::any_of(sources.begin(), sources.end(), [&](ValueId v) { return recorded(all, vertex_of(v)); });
    if (!compares_reduction) return;
    for (auto it = newest_small_result_.begin(); it != newest_small_result_.end();) {
      const auto [site, v] = *it;
      if (!std::binary_search(sources.begin(), sources.end(), v)) {
        ++it;
        continue;
      }
      note(all, vertex_of(v), site);
      mark_reducing(site);
      it = newest_small_result_.erase(it);
    }
  }

 private:
  // Where `vertex` is, or would go, in `all`.
  template <class Reductions>
  static auto entry(Reductions& all, VertexId vertex) {
    return std::lower_bound(all.begin(), all.end(), vertex, [](const auto& r, VertexId x) { return r.vertex < x; });
  }

  std::set<std::uint32_t> reducing_sites_;
  std::map<std::uint32_t, ValueId> newest_small_result_;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_RECORD_LOOP_REDUCTIONS_H_

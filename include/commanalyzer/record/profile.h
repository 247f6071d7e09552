// Profile: everything a run records that the estimate needs, and nothing of
// the run-time state (shadow memory, labels). An Analyzer fills one while the
// program runs; the estimate reads only this, so a saved profile can be
// re-estimated for new process counts without re-running the program.
#ifndef COMMANALYZER_PROFILE_H_
#define COMMANALYZER_PROFILE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "commanalyzer/record/big_array.h"
#include "commanalyzer/record/compressor.h"
#include "commanalyzer/record/types.h"
#include "commanalyzer/record/value_store.h"

namespace commanalyzer {

// The phase of the values of a pass over the flows, met in creation order:
// Profile::phase_of without its binary search per flow. An earlier value
// than the last one asked about is searched for.
class PhaseCursor {
 public:
  explicit PhaseCursor(std::span<const ValueId> iteration_marks) : marks_(iteration_marks) {}
  std::size_t operator()(ValueId v) {
    if (phase_ != 0 && v < marks_[phase_ - 1]) {
      phase_ = static_cast<std::size_t>(std::upper_bound(marks_.begin(), marks_.end(), v) - marks_.begin());
    }
    while (phase_ < marks_.size() && marks_[phase_] <= v) ++phase_;
    return phase_;
  }

 private:
  std::span<const ValueId> marks_;
  std::size_t phase_ = 0;
};

// The first value of phase p: 0 for phase 0 (before the first mark),
// else the mark that begins it.
inline ValueId phase_first(std::span<const ValueId> iteration_marks, std::size_t p) {
  return p == 0 ? 0 : iteration_marks[p - 1];
}

// A loop result recorded as a reduction: its vertex and the loop result's site.
struct RecordedReduction {
  VertexId vertex = 0;
  std::uint32_t site = 0;
  bool operator==(const RecordedReduction&) const = default;
};

template <class Values = CompactValueStore, class Flows = FlatFlowStore>
struct Profile {
  Values values;
  // Value-flow chains created inside the region of interest.
  Flows flows;

  // Per vertex: the first location one of its instances occupied, and how
  // many instances it has.
  BigArray<Address> vertex_home;
  BigArray<std::uint32_t> vertex_weight;
  // The heap allocation (array) the home location belonged to when the
  // vertex was created: 1, 2, ... in allocation order; 0 = not a tracked
  // allocation (globals, stack, small blocks).
  BigArray<std::uint32_t> vertex_group;

  // Iteration marks inside the region: the first ValueId of each new
  // iteration. Phase of a value = number of marks <= its id.
  std::vector<ValueId> iteration_marks;
  // Where the recording stopped (a recording window, Analyzer::
  // stop_recording): the marks after the first `recorded_iterations` are
  // iterations the program ran but the analysis did not look at, empty
  // phases the estimate counts as the window's last costed iteration (the
  // one before the last recorded, which looks ahead:
  // RepeatedIterations::counting_beyond_window). 0: every iteration was
  // recorded.
  std::size_t recorded_iterations = 0;
  // A recording window leaves iterations to count as its last costed one
  // (at least 3 recorded: the last looks ahead;
  // RepeatedIterations::counting_beyond_window).
  bool counts_beyond_window() const { return recorded_iterations >= 3 && recorded_iterations < iterations(); }

  // The tracked heap allocations (arrays): arrays[g - 1] is group g's
  // extent, so a location can be named by (array, offset) and arrays of
  // one extent aligned (distribution.h).
  struct Array {
    Address base = 0;
    std::uint64_t bytes = 0;
    bool freed = false;
    // Accessed in the region at an index read from an array (x[col[k]]):
    // data an MPI code distributes by a graph partition, not in blocks.
    bool indexed_indirectly = false;
    // Allocated and freed within one iteration of the region (a chunk's
    // work arrays): memory each process keeps for its own computation, not
    // data an MPI code distributes (locations.h).
    bool scratch = false;
    // The region copies values into it (y[i] = x[i], memcpy): what its
    // locations hold is then not all homed there (private_arrays.h).
    bool copied_into = false;
    // Allocated by the program's own code (an allocation call or global
    // the pass instrumented); false for a library's own buffers (stdout's,
    // allocated inside printf), which reports leave out and do not number.
    bool by_program = true;
    // A table of rows (row_tables.h): its pointers are structure; its rows
    // are one array, the first row's, which carries the table's site.
    bool row_table = false;
    // Where the program allocated it (array_sites; 0: unknown).
    std::uint32_t site = 0;
  };
  std::vector<Array> arrays;
  // Allocation sites (instrument/pass/array_sites.h): the statement that
  // allocated an array, as the user wrote it (a std::vector's declaration,
  // not the library header's operator new), and the variable the array
  // went into ("" if none is known).
  struct ArraySite {
    std::uint32_t id = 0;
    std::uint32_t line = 0;
    std::string file;
    std::string name;
  };
  std::vector<ArraySite> array_sites;
  // Copies from one tracked array into another (memcpy, realloc, a
  // growing std::vector's move): where the values of a freed array live on.
  struct Move {
    std::uint32_t from = 0, to = 0;  // array ids
    std::uint64_t from_offset = 0, to_offset = 0, bytes = 0;
  };
  std::vector<Move> moves;

  // Source sites (instrument/pass/sites.h): the statements that store
  // computed values, decide branches or take a loop's result, with the loop
  // the statement is swept by (the outermost loop around it below any loop
  // that marks iterations). Ids are the pass's; 0 = no site known.
  struct Site {
    std::uint32_t id = 0;
    std::uint32_t line = 0;
    std::uint32_t loop_line = 0;  // 0: in no loop
    std::string file;
    std::string loop_file;  // the loop's own (a header's statement inlined into a .cc's loop)
  };
  std::vector<Site> sites;
  // The site that created each value-flow chain's value, as runs: values
  // from `first` on (to the next run) were created at `site`. A loop
  // stores from one site, so a sweep is one run.
  struct SiteRun {
    ValueId first = 0;
    std::uint32_t site = 0;
  };
  // (A BigArray: a stencil makes a run per statement and point, millions,
  // and a vector's growth copied them onto fresh pages.)
  BigArray<SiteRun> value_sites;

  // The loop results recorded as reductions over distributed data
  // (Analyzer::loop_result), by vertex in creation order: what an MPI code
  // computes from every process's part with a collective
  // (ValueGraph::close_reductions).
  std::vector<RecordedReduction> reductions;

  void note_site(ValueId v, std::uint32_t site) {
    if (value_sites.empty() || value_sites.back().site != site) value_sites.push_back({v, site});
  }
  // The site of a value that has a value-flow chain (0: none recorded).
  std::uint32_t site_of(ValueId v) const {
    auto it = std::upper_bound(value_sites.begin(), value_sites.end(), v,
                               [](ValueId x, const SiteRun& run) { return x < run.first; });
    return it == value_sites.begin() ? 0 : std::prev(it)->site;
  }
  const Site* find_site(std::uint32_t id) const {
    for (const Site& s : sites) {
      if (s.id == id) return &s;
    }
    return nullptr;
  }

  const ArraySite* find_array_site(std::uint32_t id) const {
    for (const ArraySite& s : array_sites) {
      if (s.id == id) return &s;
    }
    return nullptr;
  }

  // The numbers reports and --distribution maps give arrays: 1, 2, ... in
  // allocation order among the program's arrays only, so a library buffer
  // allocated first (printf before malloc) renumbers nothing.
  // numbers[id - 1] is array id's number, 0 for a library's buffer.
  std::vector<std::uint32_t> array_numbers() const {
    std::vector<std::uint32_t> number(arrays.size(), 0);
    std::uint32_t next = 0;
    for (std::size_t k = 0; k < arrays.size(); ++k) {
      if (arrays[k].by_program) number[k] = ++next;
    }
    return number;
  }
  // "u (heat.c:31)", "heat.c:31" without a variable, "" if no site is known.
  std::string array_label(std::uint32_t id) const {
    if (id == 0 || id > arrays.size()) return "";
    const ArraySite* s = find_array_site(arrays[id - 1].site);
    if (s == nullptr) return "";
    std::string file = s->file.substr(s->file.find_last_of('/') + 1);
    std::string where = file.empty() ? std::string() : file + ":" + std::to_string(s->line);
    if (s->name.empty()) return where;
    return where.empty() ? s->name : s->name + " (" + where + ")";
  }

  // What the first region of interest discards (Analyzer::region_begin):
  // the flows, sites, reductions and marks recorded before it, and the
  // set-up's indirect accesses. Values, vertices and arrays stay.
  void discard_recorded() {
    flows.clear();
    value_sites.clear();
    reductions.clear();
    iteration_marks.clear();
    recorded_iterations = 0;
    for (auto& array : arrays) array.indexed_indirectly = false;
  }

  std::size_t vertex_count() const { return vertex_home.size(); }
  std::size_t iterations() const { return iteration_marks.size(); }
  std::size_t phase_of(ValueId v) const {
    return static_cast<std::size_t>(
        std::upper_bound(iteration_marks.begin(), iteration_marks.end(), v) - iteration_marks.begin());
  }
  std::size_t phase_count() const { return iteration_marks.size() + 1; }
  // One past the last value of phase p: the first of the next, or past
  // the run's last value.
  ValueId phase_end(std::size_t p) const {
    return p < iteration_marks.size() ? iteration_marks[p] : static_cast<ValueId>(values.count() + 1);
  }

  VertexId add_vertex(Address home, std::uint32_t group = 0) {
    vertex_home.push_back(home);
    vertex_group.push_back(group);
    vertex_weight.push_back(0);
    return static_cast<VertexId>(vertex_home.size() - 1);
  }
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_PROFILE_H_

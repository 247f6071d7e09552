// The set-up's values the region never reads, dropped from a profile.
//
// The first explicit region discards the flows recorded before it
// (Analyzer::region_begin), but not the set-up's value instances: labels
// in registers may still name them, so their ids stay until the run ends.
// Most are never read in the region (an assembly's element matrices, a
// mesh generator's temporaries), and each temporary is a vertex of its
// own: miniFE's set-up at 32^3 left 53.8 M instances and a 666 MB profile
// for two CG iterations. At the end of the run, what the region reads is
// known: the set-up's values that are a source of a region's flow are
// kept, numbered first in their order, the region's values follow them,
// and the vertices no kept value is in go. Order is kept, so every
// decision the estimate makes on ids (a value older than another, the
// graph's vertex numbering, ties broken by id) is the same.
//
//   SetUpReads reads(first_region_value);
//   reads.note(sources);  // each flow of the region, as it is recorded
//   drop_unread_set_up(profile, std::move(reads));
#ifndef COMMANALYZER_RECORD_UNREAD_SET_UP_H_
#define COMMANALYZER_RECORD_UNREAD_SET_UP_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "commanalyzer/record/profile.h"
#include "commanalyzer/record/ranked_bits.h"
#include "commanalyzer/record/types.h"
#include "commanalyzer/record/value_store.h"

namespace commanalyzer {

namespace unread_set_up_internal {

// Keeps the kept entries of a per-vertex column, in order.
template <class Column>
void keep_rows(Column& column, const RankedBits& kept) {
  std::size_t to = 0;
  for (std::size_t x = 0; x < column.size(); ++x) {
    if (kept.contains(x)) column[to++] = column[x];
  }
  column.resize(to);
}

// f(vertex) for values [first, last], in order, a block of the vertex
// column at a time: every value of the run goes through here at its end
// (read one by one, with the copy below, they took 12 % of a Heat2D run).
template <class Values, class F>
void for_each_vertex(const Values& values, ValueId first, std::size_t last, F&& f) {
  constexpr std::size_t kChunk = 4096;
  VertexId chunk[kChunk];
  for (std::size_t v = first; v <= last;) {
    const std::size_t n = std::min(kChunk, last + 1 - v);
    values.vertices(static_cast<ValueId>(v), n, chunk);
    for (std::size_t k = 0; k < n; ++k) f(chunk[k]);
    v += n;
  }
}

// The kept values of `from` appended to `to`, each with its size, input
// flag and live copies or mark, in its vertex renumbered (`same_vertices`:
// as it was): the set-up's kept ones one by one, the region's (all kept)
// 64 at a time where they have one size.
template <class Values>
void copy_kept(const Values& from, ValueId first_region_value, const SetUpRenumbering& renumbered,
               bool same_vertices, const RankedBits& vertices, Values& to) {
  // rank(x) for vertices met mostly in order (a sweep's): the last one met
  // holds a kept value, so the next one up is ranked one more.
  VertexId last_vertex = kNoVertex;
  std::uint32_t last_rank = 0;
  auto vertex_of = [&](VertexId x) -> VertexId {
    if (same_vertices) return x;
    if (x != last_vertex) {
      last_rank = last_vertex != kNoVertex && x == last_vertex + 1 ? last_rank + 1 : vertices.rank(x);
      last_vertex = x;
    }
    return last_rank;
  };
  auto copy_one = [&](ValueId v) {
    const ValueId copy = to.create(from.size_bytes(v), from.is_input(v), vertex_of(from.vertex(v)));
    if constexpr (CountsCopies<Values>) {
      for (std::uint32_t c = from.live_copies(v); c > 0; --c) to.add_copy(copy);
    }
  };
  for (ValueId v = 1; v < first_region_value; ++v) {
    if (renumbered.kept.contains(v)) copy_one(v);
  }
  const std::size_t count = from.count();
  std::size_t v = first_region_value;
  for (; v <= count && v % 64 != 0; ++v) copy_one(static_cast<ValueId>(v));
  for (; v + 63 <= count; v += 64) {
    if constexpr (!CountsCopies<Values>) {  // no counts to copy one by one
      std::uint32_t size = 0;
      bool input = false;
      VertexId block[64];
      if (from.same_size64(static_cast<ValueId>(v), size, input, block)) {
        for (std::size_t k = 0; k < 64; ++k) to.create(size, input, vertex_of(block[k]));
        continue;
      }
    }
    for (std::size_t k = 0; k < 64; ++k) copy_one(static_cast<ValueId>(v + k));
  }
  for (; v <= count; ++v) copy_one(static_cast<ValueId>(v));
  if constexpr (!CountsCopies<Values>) {
    from.for_each_live([&](ValueId live) {
      if (from.kind(live) == ValueKind::kOutput && (live >= first_region_value || renumbered.kept.contains(live))) {
        to.mark_live(renumbered(live));
      }
    });
  }
}

}  // namespace unread_set_up_internal

// The values below `first_region_value` (the first value the first
// explicit region created) that the region's flows read, noted as the
// flows are recorded: no pass over them at the end. Default: no region.
class SetUpReads {
 public:
  SetUpReads() : read_(0) {}
  explicit SetUpReads(ValueId first_region_value) : first_(first_region_value), read_(first_region_value) {}

  // The sources (sorted) of a flow of the region.
  void note(std::span<const ValueId> sources) {
    for (ValueId s : sources) {
      if (s >= first_) return;
      read_.insert(s);
    }
  }

  ValueId first_region_value() const { return first_; }
  RankedBits& read() { return read_; }

 private:
  ValueId first_ = 0;
  RankedBits read_;
};

// Drops the set-up's values (those below reads.first_region_value()) that
// no recorded flow reads, and the vertices no value is left in,
// renumbering the rest in order. A kept vertex's weight still counts its
// set-up instances, as before, so the graph and its partition do not move.
template <class Values, class Flows>
void drop_unread_set_up(Profile<Values, Flows>& profile, SetUpReads reads) {
  const std::size_t count = profile.values.count();
  const ValueId first_region_value = reads.first_region_value();
  if (first_region_value <= 1 || first_region_value > count + 1) return;
  // Kept ids in order: a set-up value's is 1 + the kept ones before it.
  SetUpRenumbering renumbered{first_region_value, 0, std::move(reads.read())};
  renumbered.shift = first_region_value - 1 - renumbered.kept.seal();
  const ValueId shift = renumbered.shift;
  RankedBits vertices(profile.vertex_count());
  for (ValueId v = 1; v < first_region_value; ++v) {
    if (renumbered.kept.contains(v)) vertices.insert(profile.values.vertex(v));
  }
  unread_set_up_internal::for_each_vertex(profile.values, first_region_value, count,
                                          [&](VertexId x) { vertices.insert(x); });
  const std::size_t vertex_count = vertices.seal();
  if (shift == 0 && vertex_count == profile.vertex_count()) return;

  const bool same_vertices = vertex_count == profile.vertex_count();  // only values go
  Values values;
  unread_set_up_internal::copy_kept(profile.values, first_region_value, renumbered, same_vertices, vertices, values);
  profile.values = std::move(values);
  unread_set_up_internal::keep_rows(profile.vertex_home, vertices);
  unread_set_up_internal::keep_rows(profile.vertex_weight, vertices);
  unread_set_up_internal::keep_rows(profile.vertex_group, vertices);
  for (RecordedReduction& r : profile.reductions) r.vertex = vertices.rank(r.vertex);
  if (shift == 0) return;

  for (ValueId& mark : profile.iteration_marks) mark -= shift;
  for (std::size_t k = 0; k < profile.value_sites.size(); ++k) profile.value_sites[k].first -= shift;
  if constexpr (requires { profile.flows.renumber(std::move(renumbered)); }) {
    profile.flows.renumber(std::move(renumbered));  // applied as the flows are read
  } else {
    Flows flows;
    std::vector<ValueId> sources;
    profile.flows.for_each([&](ValueId v, std::span<const ValueId> from) {
      sources.clear();
      for (ValueId s : from) sources.push_back(renumbered(s));  // order kept: still sorted
      flows.append(renumbered(v), sources);
    });
    profile.flows = std::move(flows);
  }
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_RECORD_UNREAD_SET_UP_H_

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
//   drop_unread_set_up(profile, first_region_value);
#ifndef COMMANALYZER_RECORD_UNREAD_SET_UP_H_
#define COMMANALYZER_RECORD_UNREAD_SET_UP_H_

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

// Value `v` of `from` appended to `to` in vertex `vertex`, with what is
// known of its liveness.
template <class Values>
void copy_value(const Values& from, ValueId v, VertexId vertex, Values& to) {
  const ValueId copy = to.create(from.size_bytes(v), from.is_input(v), vertex);
  if constexpr (CountsCopies<Values>) {
    for (std::uint32_t c = from.live_copies(v); c > 0; --c) to.add_copy(copy);
  } else {
    if (from.kind(v) == ValueKind::kOutput) to.mark_live(copy);
  }
}

}  // namespace unread_set_up_internal

// Drops the values below `first_region_value` (the first value the first
// explicit region created) that no recorded flow reads, and the vertices
// no value is left in, renumbering the rest in order. A kept vertex's
// weight still counts its set-up instances, as before, so the graph and
// its partition do not move.
template <class Values, class Flows>
void drop_unread_set_up(Profile<Values, Flows>& profile, ValueId first_region_value) {
  const std::size_t count = profile.values.count();
  if (first_region_value <= 1 || first_region_value > count + 1) return;
  RankedBits set_up(first_region_value);  // the set-up values read in the region
  profile.flows.for_each([&](ValueId, std::span<const ValueId> sources) {
    for (ValueId s : sources) {
      if (s < first_region_value) set_up.insert(s);
    }
  });
  const ValueId shift = first_region_value - 1 - set_up.seal();
  auto kept = [&](ValueId v) { return v >= first_region_value || set_up.contains(v); };
  RankedBits vertices(profile.vertex_count());
  for (ValueId v = 1; v <= count; ++v) {
    if (kept(v)) vertices.insert(profile.values.vertex(v));
  }
  const std::size_t vertex_count = vertices.seal();
  if (shift == 0 && vertex_count == profile.vertex_count()) return;
  // Kept ids in order: a set-up value's is 1 + the kept ones before it.
  auto renumbered = [&](ValueId v) { return v < first_region_value ? 1 + set_up.rank(v) : v - shift; };

  Values values;
  for (ValueId v = 1; v <= count; ++v) {
    if (kept(v)) {
      unread_set_up_internal::copy_value(profile.values, v, vertices.rank(profile.values.vertex(v)), values);
    }
  }
  profile.values = std::move(values);
  unread_set_up_internal::keep_rows(profile.vertex_home, vertices);
  unread_set_up_internal::keep_rows(profile.vertex_weight, vertices);
  unread_set_up_internal::keep_rows(profile.vertex_group, vertices);
  for (RecordedReduction& r : profile.reductions) r.vertex = vertices.rank(r.vertex);
  if (shift == 0) return;

  Flows flows;
  std::vector<ValueId> sources;
  profile.flows.for_each([&](ValueId v, std::span<const ValueId> from) {
    sources.clear();
    for (ValueId s : from) sources.push_back(renumbered(s));  // order kept: still sorted
    flows.append(renumbered(v), sources);
  });
  profile.flows = std::move(flows);
  for (ValueId& mark : profile.iteration_marks) mark -= shift;
  for (std::size_t k = 0; k < profile.value_sites.size(); ++k) profile.value_sites[k].first -= shift;
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_RECORD_UNREAD_SET_UP_H_

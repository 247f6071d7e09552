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

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "commanalyzer/record/profile.h"
#include "commanalyzer/record/types.h"
#include "commanalyzer/record/value_store.h"

namespace commanalyzer {

namespace unread_set_up_internal {

// Ids that stay (values, vertices), a bit each, with the count of set
// bits before each 64-bit word: a kept id's new number in O(1).
class KeptIds {
 public:
  explicit KeptIds(std::size_t ids) : bits_((ids + 63) / 64, 0) {}
  void keep(std::uint32_t id) { bits_[id / 64] |= bit(id); }
  bool kept(std::uint32_t id) const { return (bits_[id / 64] & bit(id)) != 0; }
  // Numbers the kept ids in order from `first`; returns how many there are.
  std::uint32_t seal(std::uint32_t first) {
    rank_.resize(bits_.size());
    std::uint32_t before = first;
    for (std::size_t w = 0; w < bits_.size(); ++w) {
      rank_[w] = before;
      before += static_cast<std::uint32_t>(std::popcount(bits_[w]));
    }
    return before - first;
  }
  // Requires kept(id) and seal().
  std::uint32_t new_id(std::uint32_t id) const {
    return rank_[id / 64] + static_cast<std::uint32_t>(std::popcount(bits_[id / 64] & (bit(id) - 1)));
  }

 private:
  static std::uint64_t bit(std::uint32_t id) { return std::uint64_t{1} << (id % 64); }
  std::vector<std::uint64_t> bits_;
  std::vector<std::uint32_t> rank_;
};

// Keeps the kept entries of a per-vertex column, in order.
template <class Column>
void keep_rows(Column& column, const KeptIds& kept) {
  std::size_t to = 0;
  for (std::size_t x = 0; x < column.size(); ++x) {
    if (kept.kept(static_cast<std::uint32_t>(x))) column[to++] = column[x];
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
  using unread_set_up_internal::KeptIds;
  const std::size_t count = profile.values.count();
  if (first_region_value <= 1 || first_region_value > count + 1) return;
  KeptIds set_up(first_region_value);
  profile.flows.for_each([&](ValueId, std::span<const ValueId> sources) {
    for (ValueId s : sources) {
      if (s < first_region_value) set_up.keep(s);
    }
  });
  const ValueId shift = first_region_value - 1 - set_up.seal(1);
  auto kept = [&](ValueId v) { return v >= first_region_value || set_up.kept(v); };
  KeptIds vertices(profile.vertex_count());
  for (ValueId v = 1; v <= count; ++v) {
    if (kept(v)) vertices.keep(profile.values.vertex(v));
  }
  const std::size_t vertex_count = vertices.seal(0);
  if (shift == 0 && vertex_count == profile.vertex_count()) return;
  auto renumbered = [&](ValueId v) { return v < first_region_value ? set_up.new_id(v) : v - shift; };

  Values values;
  for (ValueId v = 1; v <= count; ++v) {
    if (kept(v)) {
      unread_set_up_internal::copy_value(profile.values, v, vertices.new_id(profile.values.vertex(v)), values);
    }
  }
  profile.values = std::move(values);
  unread_set_up_internal::keep_rows(profile.vertex_home, vertices);
  unread_set_up_internal::keep_rows(profile.vertex_weight, vertices);
  unread_set_up_internal::keep_rows(profile.vertex_group, vertices);
  for (RecordedReduction& r : profile.reductions) r.vertex = vertices.new_id(r.vertex);
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

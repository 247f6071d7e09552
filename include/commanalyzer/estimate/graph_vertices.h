// Which of a profile's vertices are one vertex of the value graph
// (value_graph.h): a site's results computed from the same vertices
// (site_vertices) and, where ownership goes by location, every value
// stored at one location (location_vertices).
//
//   std::vector<VertexId> site_of = site_vertices(profile);
//   std::vector<VertexId> vertex_of = location_vertices(profile, site_of, grain);
//   // vertex_of[x]: the profile vertex that stands for x's graph vertex
#ifndef COMMANALYZER_ESTIMATE_GRAPH_VERTICES_H_
#define COMMANALYZER_ESTIMATE_GRAPH_VERTICES_H_

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "commanalyzer/estimate/array_moves.h"
#include "commanalyzer/estimate/location_table.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

// Where ownership goes by location, the arrays as a location graph sees
// them (LocationIndex), for a value graph with a vertex per location:
// `private_copy` set on those some process count may copy
// (private_arrays.h), whose values keep their own vertices.
struct LocationGrain {
  std::vector<ArrayExtent> arrays;
  std::vector<ArrayMove> moves;
};

// A vertex id spread over 64 bits (splitmix64's finalizer): sums of
// these tell sets of ids apart, as sums of the ids would not.
inline std::uint64_t mixed_id(VertexId id) {
  std::uint64_t z = static_cast<std::uint64_t>(id) + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The vertex each profile vertex is in the graph: itself, or, for a
// vertex at a site's virtual location (a loop's result,
// Analyzer::loop_result; a decision, Analyzer::use), the first vertex
// the same site computed from the same vertices (themselves merged so: a
// decision on a merged dot product). A register result has
// no location to tell which result it is, as an array element has; what
// it is computed from does (a dot product of the same vectors, the
// minimum over one region's elements, one element's decision). Likewise
// an array element overwritten without being read (a product y = A x
// each iteration, which coalescing does not join to the value it
// replaces): the values the same element gets from the same vertices
// are one vertex, while a work slot refilled from other data each time
// stays a vertex per fill. As one vertex, the graph, like the location
// graph, does not grow with the number of iterations, where a vertex per
// result would add a neighbour of every element it reads each step.
template <class Profile>
std::vector<VertexId> site_vertices(const Profile& profile) {
  std::vector<VertexId> vertex_of(profile.vertex_count());
  for (VertexId x = 0; x < vertex_of.size(); ++x) vertex_of[x] = x;
  // (site or element, fingerprint of the set of source vertices) -> first vertex.
  // The fingerprint is order-free (a sum of mixed ids, with the set's
  // size, least and greatest), as a region's minimum or a residual reads
  // a whole array each step: no sort of it per result.
  // An element's array is part of it: a block freed and allocated again
  // at the same address is another array (a work array of each step).
  using Key = std::tuple<Address, std::uint32_t, std::uint64_t, std::size_t, VertexId, VertexId>;
  absl::flat_hash_map<Key, VertexId> first;
  // The keys an iteration looks up are mostly those the one before looked
  // up, element by element (HPCCG's Ap = A p, every CG iteration). A
  // direct-mapped table by element word, a slot per vertex an iteration
  // makes on average, answers them before the map, whose lookups miss the
  // cache (HPCCG 64^3 x 50: 8.3-9.0 s of site vertices, 4.4 s with it).
  // A slot holds a pair the map has: the map stays the record.
  struct Recent {
    Key key{~Address{0}, 0, 0, 0, 0, 0};
    VertexId vertex = 0;
  };
  std::vector<Recent> recent(std::bit_ceil(std::max<std::size_t>(1, profile.vertex_count() / profile.phase_count())));
  std::vector<bool> seen(profile.vertex_count(), false);
  // stamp[y] == x: y already counted among x's sources (each x is looked at once).
  std::vector<VertexId> stamp(profile.vertex_count(), static_cast<VertexId>(profile.vertex_count()));
  profile.flows.for_each([&](ValueId v, std::span<const ValueId> sources) {
    const VertexId x = profile.values.vertex(v);
    const Address home = profile.vertex_home[x];
    if (seen[x] || (home < kUseSiteBase && profile.vertex_group[x] == 0)) return;
    seen[x] = true;
    std::size_t count = 0;
    std::uint64_t sum = 0;
    VertexId least = std::numeric_limits<VertexId>::max(), greatest = 0;
    for (ValueId s : sources) {
      const VertexId y = vertex_of[profile.values.vertex(s)];
      if (y == x || stamp[y] == x) continue;
      stamp[y] = x;
      ++count;
      sum += mixed_id(y);
      least = std::min(least, y);
      greatest = std::max(greatest, y);
    }
    if (count == 0) return;
    const Key key{home, profile.vertex_group[x], sum, count, least, greatest};
    Recent& slot = recent[(home / 8) & (recent.size() - 1)];
    if (slot.key != key) slot = {key, first.try_emplace(key, x).first->second};
    vertex_of[x] = slot.vertex;
  });
  return vertex_of;
}

// By location, the values stored at one location are one vertex,
// whatever their sources: element i of the arrays of one extent, which
// LocationIndex aligns (by default) and one process owns alike. A
// stencil's grid was two vertices a cell, the values from before the
// region and the chain it computes, now one, as in the location graph,
// and a partition of this graph's locations is one of that graph's at
// the same cost. Values outside arrays, in scratch arrays (work memory
// each process keeps) and in arrays a count may copy keep their site
// vertices (a copy's settled locations are decided per array). A
// vertex is its least site vertex: the numbering keeps the order of
// the locations' first values.
template <class Profile>
std::vector<VertexId> location_vertices(const Profile& profile, const std::vector<VertexId>& site_of,
                                        const LocationGrain& grain) {
  const std::vector<ArrayExtent>& arrays = grain.arrays;
  const LastMoves last_moves(grain.moves, arrays.size());
  // Classes of aligned arrays, by extent.
  struct Class {
    std::uint64_t bytes;
  };
  std::vector<Class> classes;
  std::map<std::uint64_t, std::uint32_t> class_of_extent;
  std::vector<std::uint32_t> class_of(arrays.size() + 1, 0);
  for (std::uint32_t a = 1; a <= arrays.size(); ++a) {
    const auto [it, fresh] = class_of_extent.try_emplace(arrays[a - 1].bytes, classes.size());
    if (fresh) classes.push_back({arrays[a - 1].bytes});
    class_of[a] = it->second;
  }
  // x's location: (class, offset), or none.
  constexpr std::uint32_t kNoClass = ~std::uint32_t{0};
  auto location = [&](VertexId x) -> std::pair<std::uint32_t, std::uint64_t> {
    const std::uint32_t group = profile.vertex_group[x];
    if (group == 0 || group > arrays.size()) return {kNoClass, 0};
    const ArrayExtent& array = arrays[group - 1];
    const Address home = profile.vertex_home[x];
    if (array.scratch || array.private_copy || home < array.base || home >= array.base + array.bytes) {
      return {kNoClass, 0};
    }
    const auto [live, offset] = live_home(group, home - array.base, arrays, last_moves);
    if (arrays[live - 1].private_copy) return {kNoClass, 0};
    return {class_of[live], offset};
  };
  LocationTable table(classes, [&](auto&& f) {
    for (VertexId x = 0; x < site_of.size(); ++x) {
      if (site_of[x] != x) continue;
      if (const auto [c, offset] = location(x); c != kNoClass) f(c, offset);
    }
  });
  absl::flat_hash_map<std::pair<std::uint32_t, std::uint64_t>, VertexId> first;  // where no table is
  std::vector<VertexId> vertex_of = site_of;
  for (VertexId x = 0; x < site_of.size(); ++x) {
    if (site_of[x] != x) continue;
    const auto [c, offset] = location(x);
    if (c == kNoClass) continue;
    VertexId* slot = table.slot(c, offset);
    if (slot == nullptr) slot = &first.try_emplace(std::pair{c, offset}, LocationTable::kNone).first->second;
    if (*slot == LocationTable::kNone) *slot = x;
    vertex_of[x] = *slot;
  }
  for (VertexId x = 0; x < vertex_of.size(); ++x) vertex_of[x] = vertex_of[site_of[x]];
  return vertex_of;
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_ESTIMATE_GRAPH_VERTICES_H_

// Private copies: the small arrays each process of an MPI code holds a copy
// of (a parameter struct, a domain object's scalars, a coefficient table)
// instead of splitting them element by element (docs/DISTRIBUTION.md,
// "What is distributed").
//
// A process keeps copies of data it does not own only within its ghost
// budget (LogicalVolumeCostModel::ghost_memory times its own share), so the
// smallest arrays are copied while their bytes together stay within
// ghost_memory x D / P, D the bytes of every array the region keeps
// (scratch blocks are not, nor blocks freed after being copied into a
// larger one). A single process copies nothing. In a copied array, a
// location no single process computes into (the region only reads it, or
// stores there only values every process computes: a time step, a step
// counter) is every process's own (LocationIndex::settled_locations); one
// a process computes into (a running minimum) is still owned and sent.
#ifndef COMMANALYZER_PRIVATE_ARRAYS_H_
#define COMMANALYZER_PRIVATE_ARRAYS_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "commanalyzer/estimate/locations.h"

namespace commanalyzer {

// Sets arrays[g].private_copy for `procs` processes. Arrays aligned with
// each other (LocationIndex's alignment policy) are distributed alike, so
// they are copied alike: a class of arrays is copied whole or not at all
// (a mesh's element fields are not copied because one of them is small).
template <AlignmentPolicy Alignment = AlignByExtent>
void mark_private_arrays(std::vector<ArrayExtent>& arrays, const std::vector<ArrayMove>& moves, double ghost_memory,
                         int procs, Alignment alignment = {}) {
  std::vector<std::uint8_t> moved(arrays.size() + 1, 0);  // a grown block's values live where it was copied to
  for (const ArrayMove& m : moves) {
    if (m.from <= arrays.size()) moved[m.from] = 1;
  }
  auto kept_array = [&](std::uint32_t g) { return !arrays[g].scratch && !(arrays[g].freed && moved[g + 1]); };
  std::uint64_t kept = 0;
  std::map<std::uint64_t, std::uint64_t> class_bytes;  // by alignment key
  for (std::uint32_t g = 0; g < arrays.size(); ++g) {
    arrays[g].private_copy = false;
    if (!kept_array(g)) continue;
    kept += arrays[g].bytes;
    class_bytes[alignment.key(arrays[g], g + 1)] += arrays[g].bytes;
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> smallest;  // (bytes, key)
  for (const auto& [key, bytes] : class_bytes) smallest.emplace_back(bytes, key);
  std::sort(smallest.begin(), smallest.end());
  const double budget = procs < 2 ? 0.0 : ghost_memory * static_cast<double>(kept) / procs;
  std::set<std::uint64_t> copied;
  std::uint64_t copies = 0;
  for (const auto& [bytes, key] : smallest) {
    if (static_cast<double>(copies + bytes) > budget) break;
    copies += bytes;
    copied.insert(key);
  }
  for (std::uint32_t g = 0; g < arrays.size(); ++g) {
    arrays[g].private_copy = kept_array(g) && copied.contains(alignment.key(arrays[g], g + 1));
  }
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_PRIVATE_ARRAYS_H_

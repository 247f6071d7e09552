// Sorting the value ids a flatten gathers into a source set (ascending,
// each once), by the size of the set:
//
//   std::size_t kept = slicer_internal::sort_unique_small(ids, n);  // a store's handful
//   slicer_internal::sort_unique_ids(ids, lo, hi, scratch);         // distinct, maybe millions
#ifndef COMMANALYZER_RECORD_ID_SORT_H_
#define COMMANALYZER_RECORD_ID_SORT_H_

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "commanalyzer/record/types.h"

namespace commanalyzer::slicer_internal {

// Sorts and deduplicates a[0, n) in place; returns how many ids are kept.
// The few leaves of a small walk (a stencil's five) by insertion sort:
// std::sort's insertion step calls memmove per element, which costs more
// than the whole sort of five ids. Past 32 ids (where insertion sort's
// quadratic moves overtake std::sort's n log n), std::sort.
inline std::size_t sort_unique_small(ValueId* a, std::size_t n) {
  if (n > 32) {
    std::sort(a, a + n);
    return static_cast<std::size_t>(std::unique(a, a + n) - a);
  }
  std::size_t kept = 0;  // a[0, kept) is sorted and unique
  for (std::size_t i = 0; i < n; ++i) {
    const ValueId x = a[i];
    // Shift while comparing (a separate shift loop becomes a memmove call).
    std::size_t j = kept;
    while (j > 0 && a[j - 1] > x) {
      a[j] = a[j - 1];
      --j;
    }
    if (j > 0 && a[j - 1] == x) {  // a duplicate: close the gap again
      for (; j < kept; ++j) a[j] = a[j + 1];
      continue;
    }
    a[j] = x;
    ++kept;
  }
  return kept;
}

inline void sort_unique_small(std::vector<ValueId>& ids) { ids.resize(sort_unique_small(ids.data(), ids.size())); }

// Sorts distinct ids, all in [lo, hi], ascending: std::sort for short
// lists, else an LSD radix sort on (id - lo), 11 bits per pass (a 16 KiB
// count table, in L1), as many passes as the range needs (one or two for
// the sets of a sweep).
inline void sort_unique_ids(std::vector<ValueId>& ids, ValueId lo, ValueId hi, std::vector<ValueId>& scratch) {
  constexpr unsigned kBits = 11;
  constexpr std::size_t kBuckets = std::size_t{1} << kBits;
  // Below this, the passes' count tables cost more than std::sort.
  constexpr std::size_t kRadixFrom = 1024;
  if (ids.size() < kRadixFrom) {
    std::sort(ids.begin(), ids.end());
    return;
  }
  const unsigned width = static_cast<unsigned>(std::bit_width(static_cast<std::uint32_t>(hi - lo)));
  scratch.resize(ids.size());
  ValueId* from = ids.data();
  ValueId* to = scratch.data();
  const std::size_t n = ids.size();
  for (unsigned shift = 0; shift < width; shift += kBits) {
    std::array<std::size_t, kBuckets> count{};
    for (std::size_t i = 0; i < n; ++i) ++count[((from[i] - lo) >> shift) & (kBuckets - 1)];
    std::size_t sum = 0;
    for (std::size_t& c : count) {
      const std::size_t here = c;
      c = sum;
      sum += here;
    }
    for (std::size_t i = 0; i < n; ++i) to[count[((from[i] - lo) >> shift) & (kBuckets - 1)]++] = from[i];
    std::swap(from, to);
  }
  if (from != ids.data()) std::copy(from, from + n, ids.data());
}

}  // namespace commanalyzer::slicer_internal

#endif  // COMMANALYZER_RECORD_ID_SORT_H_

// The profile's arrays as the estimate sees them (ArrayExtent), the copies
// between them (ArrayMove), and where a value homed in an array lives at
// the end of the run: a freed array's values live on where the last copy
// out of it put them (a growing std::vector's elements, realloc).
//
//   const LastMoves last(moves, arrays.size());
//   auto [array, offset] = live_home(g, offset_in_g, arrays, last);
#ifndef COMMANALYZER_ARRAY_MOVES_H_
#define COMMANALYZER_ARRAY_MOVES_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "commanalyzer/record/types.h"

namespace commanalyzer {

// An array as the profile records it (Profile::Array).
struct ArrayExtent {
  Address base = 0;
  std::uint64_t bytes = 0;
  bool freed = false;
  bool indexed_indirectly = false;  // at an index read from an array (x[col[k]])
  bool scratch = false;             // allocated and freed in one iteration (Profile::Array)
  bool copied_into = false;         // the region copies values into it (Profile::Array)
  bool private_copy = false;        // small enough for every process to copy (private_arrays.h)
};

// A copy from one array into another (Profile::Move).
struct ArrayMove {
  std::uint32_t from = 0, to = 0;
  std::uint64_t from_offset = 0, to_offset = 0, bytes = 0;
};

// The last move out of each array that covers each byte: the moves
// painted in the order they happened onto disjoint intervals, a later
// move over an earlier one. A lookup is then a search in one array's
// intervals, not a scan of every move (a stencil copied back with memcpy
// every step records a move per step).
class LastMoves {
 public:
  LastMoves(const std::vector<ArrayMove>& moves, std::size_t arrays) : painted_(arrays + 1) {
    for (const ArrayMove& m : moves) {
      if (m.from <= arrays && m.to <= arrays && m.bytes != 0) paint(painted_[m.from], m);
    }
  }
  // The last move out of array g covering `offset`; null if none.
  const ArrayMove* covering(std::uint32_t g, std::uint64_t offset) const {
    const Intervals& in = painted_[g];
    auto it = in.upper_bound(offset);
    if (it == in.begin()) return nullptr;
    --it;
    return offset < it->second.first ? it->second.second : nullptr;
  }
  std::size_t arrays() const { return painted_.size(); }

 private:
  using Intervals = std::map<std::uint64_t, std::pair<std::uint64_t, const ArrayMove*>>;  // first -> (end, move)
  // Cuts the interval holding `at` (if any starts before it) in two.
  static void split(Intervals& in, std::uint64_t at) {
    auto it = in.upper_bound(at);
    if (it == in.begin()) return;
    --it;
    const auto [end, move] = it->second;
    if (it->first < at && at < end) {
      it->second.first = at;
      in.emplace(at, std::pair{end, move});
    }
  }
  static void paint(Intervals& in, const ArrayMove& m) {
    const std::uint64_t first = m.from_offset, end = m.from_offset + m.bytes;
    split(in, first);
    split(in, end);
    in.erase(in.lower_bound(first), in.lower_bound(end));
    in.emplace(first, std::pair{end, &m});
  }
  std::vector<Intervals> painted_;
};

// Where a value homed at (array g, offset) lives at the end: a freed
// array's values live on where the last copy out of it put them (a
// growing std::vector's elements, realloc), followed from array to array.
inline std::pair<std::uint32_t, std::uint64_t> live_home(std::uint32_t g, std::uint64_t offset,
                                                         const std::vector<ArrayExtent>& arrays,
                                                         const LastMoves& moves) {
  for (std::size_t hops = 0; arrays[g - 1].freed && hops <= moves.arrays(); ++hops) {
    const ArrayMove* last = moves.covering(g, offset);
    if (last == nullptr) break;
    offset = last->to_offset + (offset - last->from_offset);
    g = last->to;
  }
  return {g, offset};
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_ARRAY_MOVES_H_

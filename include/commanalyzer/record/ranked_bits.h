// A set of ids, a bit each, with the count of set bits before each 64-bit
// word: an id's rank among those set (its number in a packed array of
// theirs) in O(1), at a bit and a half per id of the range. What indexes
// the recorded sources of a recomputation plan (estimate/recomputation.h)
// and renumbers the values and vertices a profile keeps
// (unread_set_up.h), where a hash map would take bytes per entry.
//
//   RankedBits kept(ids);
//   kept.insert(7); kept.insert(3);
//   kept.seal();        // 2: the number set
//   kept.rank(7);       // 1: set ids below 7
#ifndef COMMANALYZER_RECORD_RANKED_BITS_H_
#define COMMANALYZER_RECORD_RANKED_BITS_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace commanalyzer {

class RankedBits {
 public:
  explicit RankedBits(std::size_t ids) : bits_((ids + 63) / 64, 0) {}

  void insert(std::uint64_t id) { bits_[id / 64] |= bit(id); }
  bool contains(std::uint64_t id) const { return (bits_[id / 64] & bit(id)) != 0; }

  // Counts the set bits before each word (again after later inserts);
  // returns how many are set.
  std::uint32_t seal() {
    rank_.resize(bits_.size());
    std::uint32_t before = 0;
    for (std::size_t w = 0; w < bits_.size(); ++w) {
      rank_[w] = before;
      before += static_cast<std::uint32_t>(std::popcount(bits_[w]));
    }
    return before;
  }

  // f(id) for the set ids, ascending.
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t w = 0; w < bits_.size(); ++w) {
      for (std::uint64_t word = bits_[w]; word != 0; word &= word - 1) f(w * 64 + std::countr_zero(word));
    }
  }

  // The set ids below `id`. Requires seal().
  std::uint32_t rank(std::uint64_t id) const {
    return rank_[id / 64] + static_cast<std::uint32_t>(std::popcount(bits_[id / 64] & (bit(id) - 1)));
  }

 private:
  static std::uint64_t bit(std::uint64_t id) { return std::uint64_t{1} << (id % 64); }

  std::vector<std::uint64_t> bits_;
  std::vector<std::uint32_t> rank_;  // per word: set bits in the words before it
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_RECORD_RANKED_BITS_H_

// A set of ids, a bit each, with the count of set bits before each 64-bit
// word: an id's rank among those set (its number in a packed array of
// theirs) in O(1). What indexes the recorded sources of a recomputation
// plan (estimate/recomputation.h), marks the values a pass over part of a
// run wants, and renumbers the values and vertices a profile keeps
// (unread_set_up.h), where a hash map would take bytes per entry.
//
//   RankedBits kept(ids);
//   kept.insert(7); kept.insert(3);
//   kept.seal();        // 2: the number set
//   kept.rank(7);       // 1: set ids below 7
//
// The bits are kept in pages of 4096 ids, allocated by the first insert
// into them (a page: its bits and the rank of each word within it, 1.25
// bits per id): a set of a few ids of each iteration (a receiver's halo)
// takes the pages of those iterations, not a bit per id of the run.
#ifndef COMMANALYZER_RECORD_RANKED_BITS_H_
#define COMMANALYZER_RECORD_RANKED_BITS_H_

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace commanalyzer {

class RankedBits {
 public:
  explicit RankedBits(std::size_t ids) : pages_((ids + kPageIds - 1) / kPageIds) {}
  RankedBits(RankedBits&&) noexcept = default;
  RankedBits& operator=(RankedBits&&) noexcept = default;
  RankedBits(const RankedBits& other) : pages_(other.pages_.size()), page_rank_(other.page_rank_), held_(other.held_) {
    for (std::size_t i = 0; i < pages_.size(); ++i) {
      if (other.pages_[i]) pages_[i] = std::make_unique<Page>(*other.pages_[i]);
    }
  }
  RankedBits& operator=(const RankedBits& other) {
    if (this != &other) *this = RankedBits(other);
    return *this;
  }

  // Room for ids below `ids` as well (an empty set grown as it is marked).
  void grow_to(std::size_t ids) {
    if (ids > room()) pages_.resize((ids + kPageIds - 1) / kPageIds);
  }
  // Ids below this may be asked about.
  std::size_t room() const { return pages_.size() * kPageIds; }

  // Every id unset, every page given back.
  void clear() {
    for (auto& page : pages_) page.reset();
    page_rank_.clear();
    held_ = 0;
  }

  void insert(std::uint64_t id) {
    std::unique_ptr<Page>& page = pages_[id / kPageIds];
    if (page == nullptr) [[unlikely]] {
      page = std::make_unique<Page>();
      ++held_;
    }
    page->bits[word(id)] |= bit(id);
  }
  bool contains(std::uint64_t id) const {
    const Page* page = pages_[id / kPageIds].get();
    return page != nullptr && (page->bits[word(id)] & bit(id)) != 0;
  }

  // Counts the set bits before each word (again after later inserts);
  // returns how many are set.
  std::uint32_t seal() {
    page_rank_.resize(pages_.size());
    std::uint32_t before = 0;
    for (std::size_t i = 0; i < pages_.size(); ++i) {
      page_rank_[i] = before;
      Page* page = pages_[i].get();
      if (page == nullptr) continue;
      std::uint16_t in_page = 0;
      for (std::size_t w = 0; w < kPageWords; ++w) {
        page->rank[w] = in_page;
        in_page = static_cast<std::uint16_t>(in_page + std::popcount(page->bits[w]));
      }
      before += in_page;
    }
    return before;
  }

  // f(id) for the set ids, ascending.
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t i = 0; i < pages_.size(); ++i) {
      const Page* page = pages_[i].get();
      if (page == nullptr) continue;
      for (std::size_t w = 0; w < kPageWords; ++w) {
        for (std::uint64_t bits = page->bits[w]; bits != 0; bits &= bits - 1) {
          f(i * kPageIds + w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
        }
      }
    }
  }

  // The set ids below `id`. Requires seal().
  std::uint32_t rank(std::uint64_t id) const {
    const Page* page = pages_[id / kPageIds].get();
    if (page == nullptr) return page_rank_[id / kPageIds];
    return page_rank_[id / kPageIds] + page->rank[word(id)] +
           static_cast<std::uint32_t>(std::popcount(page->bits[word(id)] & (bit(id) - 1)));
  }

  std::size_t memory_bytes() const {
    return held_ * sizeof(Page) + pages_.capacity() * sizeof(pages_[0]) + page_rank_.capacity() * sizeof(std::uint32_t);
  }

 private:
  static constexpr std::size_t kPageIds = 4096, kPageWords = kPageIds / 64;
  struct Page {
    std::array<std::uint64_t, kPageWords> bits{};
    std::array<std::uint16_t, kPageWords> rank{};  // set bits in the page's words before each
  };
  static std::size_t word(std::uint64_t id) { return (id % kPageIds) / 64; }
  static std::uint64_t bit(std::uint64_t id) { return std::uint64_t{1} << (id % 64); }

  std::vector<std::unique_ptr<Page>> pages_;  // per page of ids; null: none of them set
  std::vector<std::uint32_t> page_rank_;      // per page of ids: set ids in the pages before it
  std::size_t held_ = 0;                      // pages allocated
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_RECORD_RANKED_BITS_H_

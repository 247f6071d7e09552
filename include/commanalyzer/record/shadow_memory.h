// Shadow memory: which value instance each location of application memory
// currently holds (MemVal in the paper's Algorithm 2).
//
// A location is an aligned shadow word of WordBytes bytes. Accesses are
// split into the words they touch by the caller (see `words_of`), so
// sub-word and word-straddling accesses are handled uniformly: a 1-byte store
// claims its whole word; an 8-byte store at offset 6 claims two words.
#ifndef COMMANALYZER_SHADOW_MEMORY_H_
#define COMMANALYZER_SHADOW_MEMORY_H_

#include <algorithm>
#include <utility>
#include <array>
#include <concepts>
#include <cstddef>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

// The words [first, last] an access of `size` bytes at `addr` touches.
struct WordRange {
  std::uint64_t first;
  std::uint64_t last;
};

template <std::size_t WordBytes>
constexpr WordRange words_of(Address addr, std::uint64_t size) {
  static_assert(WordBytes > 0 && (WordBytes & (WordBytes - 1)) == 0,
                "word size must be a power of two");
  const std::uint64_t end = size == 0 ? addr : addr + size - 1;
  // An access that wraps past the top of the address space is clamped.
  const std::uint64_t last = end < addr ? ~std::uint64_t{0} : end;
  return {addr / WordBytes, last / WordBytes};
}

// What every shadow memory offers. Words are word *indices* (address /
// kWordBytes), so any 64-bit address maps to one.
template <class S>
concept ShadowMemory = requires(S shadow, const S& const_shadow, std::uint64_t word, ValueId v) {
  { S::kWordBytes } -> std::convertible_to<std::size_t>;
  { const_shadow.get(word) } -> std::same_as<ValueId>;
  // Sets the word, returns what it held before (kNoValue if nothing).
  { shadow.exchange(word, v) } -> std::same_as<ValueId>;
  // Calls a function with the value of every word that holds one.
  { const_shadow.for_each_value([](ValueId) {}) };
  { const_shadow.memory_bytes() } -> std::convertible_to<std::size_t>;
};

// Default: a two-level table. The directory maps the high bits of a word
// index to a page of ValueIds, allocated on first write; a one-entry cache
// of recent pages makes the streaming accesses of numeric loops cheap. A
// page shadows 2^10 words of 4 bytes, one 4 KiB page of the program's: the
// shadow then holds what the program touched, page for page, however its
// heap is laid out. (In an instrumented run the runtime's own blocks
// interleave with the program's small ones: miniFE's 64^3 mesh set-up
// touched 16,500 pages of 64 KiB, a 1.1 GB shadow, for 97 MB in 4 KiB
// pages.)
template <std::size_t WordBytes = 4, unsigned PageBits = 10>
class PagedShadowMemory {
 public:
  static constexpr std::size_t kWordBytes = WordBytes;
  static constexpr std::uint64_t kPageWords = std::uint64_t{1} << PageBits;

  ValueId get(std::uint64_t word) const {
    const Page* page = find_page(word >> PageBits);
    return page ? (*page)[word & (kPageWords - 1)] : kNoValue;
  }

  ValueId exchange(std::uint64_t word, ValueId v) {
    Page* page = find_page(word >> PageBits);
    if (page == nullptr) {
      if (v == kNoValue) return kNoValue;  // clearing untouched memory
      page = make_page(word >> PageBits);
    }
    ValueId& slot = (*page)[word & (kPageWords - 1)];
    const ValueId old = slot;
    slot = v;
    return old;
  }

  template <class Fn>
  void for_each_value(Fn fn) const {
    for (const auto& [number, page] : directory_) {
      for (const ValueId v : *page) {
        if (v != kNoValue) fn(v);
      }
    }
  }

  std::size_t memory_bytes() const {
    return directory_.size() * (sizeof(Page) + 2 * sizeof(std::uint64_t));
  }

  // Gives back the pages of the `count` words from `first`, whose words
  // the caller has cleared (a freed block): a program whose large blocks
  // are mapped afresh at new addresses each time (glibc maps them, and
  // unmaps them when freed) would otherwise leave a page of shadow behind
  // for every address its heap ever used. Only a range of a page or more
  // gives any back (a pointer store's words, a small block's, none: they
  // cost no lookup): the pages wholly inside it, and the two at its ends if
  // nothing else holds a value there (checking them costs no more than
  // clearing the range did).
  void release_pages(std::uint64_t first, std::uint64_t count) {
    if (count < kPageWords) return;
    const std::uint64_t last = first + count;  // one past
    const std::uint64_t from = first >> PageBits, to = (last + kPageWords - 1) >> PageBits;
    for (std::uint64_t number = from; number < to; ++number) {
      const auto it = directory_.find(number);
      if (it == directory_.end()) continue;
      const bool inside = number << PageBits >= first && (number + 1) << PageBits <= last;
      if (!inside && !std::all_of(it->second->begin(), it->second->end(), [](ValueId v) { return v == kNoValue; })) {
        continue;
      }
      if (CacheEntry& entry = cache_[cache_slot(number)]; entry.number == number) entry = CacheEntry{};
      directory_.erase(it);
    }
  }

  // ------------------------------------------- the page cache, shared
  //
  // A small direct-mapped cache of recently used pages sits in front of the
  // directory: a stencil reading one array and writing another (or three
  // arrays, as in C += A x B) keeps all its pages cached instead of
  // thrashing a single entry. A page given back (release_pages) leaves the
  // cache with it, so entries stay valid.
  // Its layout is fixed, so that code outside (the instrumented program's
  // inline load path, instrument/runtime_abi.h) can read it: entry
  // cache_slot(p) names page p if its `number` is p; a page's slots are the
  // ValueIds of its words, in order.
  static constexpr unsigned kCacheBits = 6;
  static constexpr std::uint64_t kCacheMultiplier = 0x9E3779B97F4A7C15ull;
  using Page = std::array<ValueId, kPageWords>;
  struct CacheEntry {
    std::uint64_t number = ~std::uint64_t{0};  // no page has this number
    Page* page = nullptr;
  };

  static std::size_t cache_slot(std::uint64_t page_number) {
    return static_cast<std::size_t>((page_number * kCacheMultiplier) >> (64 - kCacheBits));
  }

  PagedShadowMemory() = default;
  PagedShadowMemory(PagedShadowMemory&& other) noexcept
      : directory_(std::move(other.directory_)), own_cache_(other.own_cache_) {
    other.forget_cache();
  }
  PagedShadowMemory& operator=(PagedShadowMemory&& other) noexcept {
    if (this != &other) {
      directory_ = std::move(other.directory_);
      forget_cache();
      other.forget_cache();
    }
    return *this;
  }

  // Keep the cache in `storage` (1 << kCacheBits entries, which must outlive
  // this object or the next share_cache) from now on.
  void share_cache(CacheEntry* storage) {
    std::copy(cache_, cache_ + kCacheSize, storage);
    cache_ = storage;
  }

  // Direct access to a run of words (optional part of the interface, used
  // by the Analyzer's multi-word fast paths): the slot of `word`, and in
  // `in_page` how many words from it on share its page (all of them are
  // valid slots). nullptr if that page was never written: all its words
  // hold kNoValue.
  const ValueId* run(std::uint64_t word, std::uint64_t& in_page) const {
    in_page = kPageWords - (word & (kPageWords - 1));
    const Page* page = find_page(word >> PageBits);
    return page ? page->data() + (word & (kPageWords - 1)) : nullptr;
  }
  ValueId* run(std::uint64_t word, std::uint64_t& in_page) {
    return const_cast<ValueId*>(std::as_const(*this).run(word, in_page));  // find_page gives mutable pages
  }

 private:
  static constexpr std::size_t kCacheSize = std::size_t{1} << kCacheBits;

  // Back to the object's own cache, empty.
  void forget_cache() {
    cache_ = own_cache_.data();
    own_cache_.fill(CacheEntry{});
  }

  [[gnu::always_inline]] Page* find_page(std::uint64_t page_number) const {
    const CacheEntry& entry = cache_[cache_slot(page_number)];
    if (entry.number == page_number) [[likely]] return entry.page;
    return find_page_slow(page_number);
  }

  [[gnu::noinline]] Page* find_page_slow(std::uint64_t page_number) const {
    CacheEntry& entry = cache_[cache_slot(page_number)];
    if (entry.number == page_number) return entry.page;
    auto it = directory_.find(page_number);
    if (it == directory_.end()) return nullptr;
    entry = {page_number, it->second.get()};
    return entry.page;
  }

  Page* make_page(std::uint64_t page_number) {
    auto page = std::make_unique<Page>();
    page->fill(kNoValue);
    Page* raw = page.get();
    directory_.emplace(page_number, std::move(page));
    cache_[cache_slot(page_number)] = {page_number, raw};
    return raw;
  }

  absl::flat_hash_map<std::uint64_t, std::unique_ptr<Page>> directory_;
  std::array<CacheEntry, kCacheSize> own_cache_{};
  CacheEntry* cache_ = own_cache_.data();  // own_cache_ or shared storage
};

// Alternative: one hash-map entry per word. Slower on dense arrays, but
// memory follows the number of live words exactly; also the reference the
// paged table is tested against.
template <std::size_t WordBytes = 4>
class HashShadowMemory {
 public:
  static constexpr std::size_t kWordBytes = WordBytes;

  ValueId get(std::uint64_t word) const {
    auto it = words_.find(word);
    return it == words_.end() ? kNoValue : it->second;
  }

  ValueId exchange(std::uint64_t word, ValueId v) {
    if (v == kNoValue) {
      auto it = words_.find(word);
      if (it == words_.end()) return kNoValue;
      const ValueId old = it->second;
      words_.erase(it);
      return old;
    }
    auto [it, inserted] = words_.try_emplace(word, v);
    if (inserted) return kNoValue;
    const ValueId old = it->second;
    it->second = v;
    return old;
  }

  template <class Fn>
  void for_each_value(Fn fn) const {
    for (const auto& [word, v] : words_) fn(v);
  }

  std::size_t memory_bytes() const {
    return words_.capacity() * (sizeof(std::uint64_t) + sizeof(ValueId) + 1);
  }

 private:
  absl::flat_hash_map<std::uint64_t, ValueId> words_;
};

static_assert(ShadowMemory<PagedShadowMemory<>>);
static_assert(ShadowMemory<HashShadowMemory<>>);

}  // namespace commanalyzer

#endif  // COMMANALYZER_SHADOW_MEMORY_H_

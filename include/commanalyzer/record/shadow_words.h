// The shadow memory as the analyzer writes it (analyzer.h): each word's
// value instance, assigned one word or a range at a time, copied as memcpy
// copies and cleared, with the value store's copy counts kept (a store
// that CountsCopies learns of every word that takes or loses a value).
// Where the shadow offers direct runs of a page's slots
// (PagedShadowMemory::run) ranges go page by page.
//
//   ShadowWords<PagedShadowMemory<>, CompactValueStore> words;
//   words.assign(values, first, last, v);   // words first..last hold v
//   words.copy(values, from, to, count);    // memmove of count words
//   ValueId v = words.get(w);
#ifndef COMMANALYZER_RECORD_SHADOW_WORDS_H_
#define COMMANALYZER_RECORD_SHADOW_WORDS_H_

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "commanalyzer/record/shadow_memory.h"
#include "commanalyzer/record/types.h"
#include "commanalyzer/record/value_store.h"

namespace commanalyzer {

template <ShadowMemory Shadow, ValueStore Values>
class ShadowWords {
 public:
  static constexpr bool kCountsCopies = CountsCopies<Values>;
  // Does the shadow memory offer direct runs (PagedShadowMemory::run)?
  static constexpr bool kRuns = requires(Shadow& s, const Shadow& cs, std::uint64_t w, std::uint64_t& n) {
    { s.run(w, n) } -> std::same_as<ValueId*>;
    { cs.run(w, n) } -> std::same_as<const ValueId*>;
  };

  ValueId get(std::uint64_t word) const { return shadow_.get(word); }
  Shadow& shadow() { return shadow_; }
  const Shadow& shadow() const { return shadow_; }

  // The one value words first..last hold, when they lie in one page and
  // all hold it; else kNoValue (the caller looks word by word).
  ValueId uniform_in_page(std::uint64_t first, std::uint64_t last) const {
    if constexpr (kRuns) {
      std::uint64_t in_page;
      if (const ValueId* p = shadow_.run(first, in_page); p != nullptr && last - first < in_page) {
        const ValueId v = p[0];
        bool uniform = true;
        for (std::uint64_t k = 1; k <= last - first; ++k) uniform &= p[k] == v;
        if (uniform) return v;
      }
    }
    return kNoValue;
  }

  [[gnu::always_inline]] void assign(Values& values, std::uint64_t word, ValueId v) {
    const ValueId old = shadow_.exchange(word, v);
    if constexpr (kCountsCopies) {
      if (old != kNoValue) values.drop_copy(old);
      if (v != kNoValue) values.add_copy(v);
    }
  }

  // Words first..last take v, in order.
  void assign(Values& values, std::uint64_t first, std::uint64_t last, ValueId v) {
    if constexpr (kRuns) {
      std::uint64_t in_page;
      if (ValueId* p = shadow_.run(first, in_page); p != nullptr && last - first < in_page) {
        for (std::uint64_t k = 0; k <= last - first; ++k) assign_slot(values, p[k], v);
        return;
      }
    }
    for (std::uint64_t w = first; w <= last; ++w) assign(values, w, v);
  }

  // The `count` words from `first` hold nothing (pointer data, a range
  // freed); a page never written holds nothing to clear. Pages of the
  // range's words only are given back where the shadow can.
  void clear(Values& values, std::uint64_t first, std::uint64_t count) {
    if constexpr (kRuns) {
      for_each_run(shadow_, first, count, [&](std::uint64_t, ValueId* p, std::uint64_t n) {
        for (std::uint64_t i = 0; p != nullptr && i < n; ++i) {
          if (p[i] != kNoValue) assign_slot(values, p[i], kNoValue);
        }
        return true;
      });
    } else {
      for (std::uint64_t k = 0; k < count; ++k) assign(values, first + k, kNoValue);
    }
    if constexpr (requires { shadow_.release_pages(first, count); }) shadow_.release_pages(first, count);
  }

  // memmove of `count` words from `from` to `to`: every destination word
  // takes its source word's value (a replication, not a new value). The
  // ranges may overlap: the source is read whole first.
  void copy(Values& values, std::uint64_t from, std::uint64_t to, std::uint64_t count) {
    buffer_.resize(count);
    if constexpr (kRuns) {
      // Nothing to replicate (the common case of the runtime's own realloc:
      // memory that never held a value): the copy only clears the
      // destination, and needs no snapshot.
      if (holds_nothing(from, count)) {
        clear(values, to, count);
        return;
      }
      for_each_run(std::as_const(shadow_), from, count, [&](std::uint64_t k, const ValueId* p, std::uint64_t n) {
        const auto at = buffer_.begin() + static_cast<std::ptrdiff_t>(k);
        if (p != nullptr) {
          std::copy(p, p + n, at);
        } else {
          std::fill_n(at, n, kNoValue);
        }
        return true;
      });
      for_each_run(shadow_, to, count, [&](std::uint64_t k, ValueId* p, std::uint64_t n) {
        if (p == nullptr) {  // a page never written: the slow path makes it if needed
          for (std::uint64_t i = k; i < k + n; ++i) assign(values, to + i, buffer_[i]);
        } else {
          for (std::uint64_t i = 0; i < n; ++i) assign_slot(values, p[i], buffer_[k + i]);
        }
        return true;
      });
    } else {
      for (std::uint64_t k = 0; k < count; ++k) buffer_[k] = shadow_.get(from + k);
      for (std::uint64_t k = 0; k < count; ++k) assign(values, to + k, buffer_[k]);
    }
  }

  std::size_t memory_bytes() const { return shadow_.memory_bytes() + buffer_.capacity() * sizeof(ValueId); }

 private:
  // assign on a slot of a run. (Both always inline: GCC kept it a call,
  // made for every word a store or memcpy writes.)
  [[gnu::always_inline]] static void assign_slot(Values& values, ValueId& slot, ValueId v) {
    const ValueId old = slot;
    slot = v;
    if constexpr (kCountsCopies) {
      if (old != kNoValue) values.drop_copy(old);
      if (v != kNoValue) values.add_copy(v);
    }
  }

  // Calls fn(k, p, n) for the `count` words from `first`, one page at a
  // time: p points at the slots of words first + k .. first + k + n - 1,
  // or is null for a page never written. Stops when fn returns false;
  // returns whether it went through. (ShadowT: Shadow or const Shadow.)
  template <class ShadowT, class Fn>
  static bool for_each_run(ShadowT& shadow, std::uint64_t first, std::uint64_t count, Fn fn) {
    for (std::uint64_t k = 0; k < count;) {
      std::uint64_t in_page;
      auto* p = shadow.run(first + k, in_page);
      const std::uint64_t n = std::min(in_page, count - k);
      if (!fn(k, p, n)) return false;
      k += n;
    }
    return true;
  }

  // Do the `count` words from `first` all hold kNoValue? Pages never
  // written are skipped whole.
  bool holds_nothing(std::uint64_t first, std::uint64_t count) const {
    return for_each_run(shadow_, first, count, [](std::uint64_t, const ValueId* p, std::uint64_t n) {
      return p == nullptr || std::none_of(p, p + n, [](ValueId v) { return v != kNoValue; });
    });
  }

  Shadow shadow_;
  std::vector<ValueId> buffer_;  // copy's snapshot of the source
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_RECORD_SHADOW_WORDS_H_

// BigArray: the growable array behind the analysis' large, append-mostly
// columns (value instances, value-flow chains, label-DAG nodes).
//
// std::vector grows by allocating twice the space, copying, and freeing the
// old block: while it copies, the data exists twice (the peak memory of a
// long run is ~2x its data), and the copy itself costs time and page
// faults. BigArray holds trivially copyable elements in a block that grows
// without a copy: on Linux, a large block is a mapping of its own, grown with
// mremap (which moves page-table entries and copies nothing) and advised to
// use transparent huge pages (one fault per 2 MiB instead of 512); small
// blocks and other systems use realloc.
//
// Why not realloc for large blocks too: glibc grows its own mmapped chunks
// with mremap, but the huge-page advice, given to the page-aligned part of
// such a chunk, splits its mapping in two, and mremap refuses a range over
// two mappings (EFAULT). realloc then falls back to malloc + copy + free:
// every growth past 4 MiB copied the whole array onto freshly faulted pages,
// holding both copies meanwhile.
#ifndef COMMANALYZER_BIG_ARRAY_H_
#define COMMANALYZER_BIG_ARRAY_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace commanalyzer {

template <class T>
class BigArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "BigArray moves its elements with realloc");

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  BigArray() = default;
  BigArray(std::size_t n, const T& value) { assign(n, value); }
  BigArray(const BigArray& other) { append(other.begin(), other.end()); }
  BigArray(BigArray&& other) noexcept : data_(other.data_), size_(other.size_), capacity_(other.capacity_) {
    other.data_ = nullptr;
    other.size_ = other.capacity_ = 0;
  }
  BigArray& operator=(const BigArray& other) {
    if (this != &other) {
      clear();
      append(other.begin(), other.end());
    }
    return *this;
  }
  BigArray& operator=(BigArray&& other) noexcept {
    if (this != &other) {
      release();
      data_ = other.data_;
      size_ = other.size_;
      capacity_ = other.capacity_;
      other.data_ = nullptr;
      other.size_ = other.capacity_ = 0;
    }
    return *this;
  }
  ~BigArray() { release(); }

  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }

  void push_back(const T& x) {
    if (size_ == capacity_) grow(size_ + 1);
    data_[size_++] = x;
  }
  void append(const T* first, const T* last) {
    const auto n = static_cast<std::size_t>(last - first);
    if (n == 0) return;
    std::memcpy(extend(n), first, n * sizeof(T));
  }
  // n more elements, uninitialised; returns the first. truncate() gives
  // back what was not written.
  T* extend(std::size_t n) {
    if (capacity_ - size_ < n) grow(size_ + n);
    T* first = data_ + size_;
    size_ += n;
    return first;
  }
  void truncate(std::size_t n) { size_ = std::min(size_, n); }
  void resize(std::size_t n, const T& value = T{}) {
    if (n > size_) {
      T* const first = extend(n - size_);
      std::fill(first, data_ + n, value);
    }
    size_ = n;
  }
  void assign(std::size_t n, const T& value) {
    size_ = 0;
    resize(n, value);
  }
  void reserve(std::size_t n) {
    if (n > capacity_) reallocate(n);
  }
  void clear() { size_ = 0; }

  friend bool operator==(const BigArray& a, const BigArray& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  // Blocks at least this large are mappings of their own (on Linux), and ask
  // for huge pages.
  static constexpr std::size_t kHugeBytes = std::size_t{4} << 20;
  static constexpr std::size_t kPageBytes = 4096;

  void grow(std::size_t need) {
    // Doubling costs no copy and no resident memory (untouched pages of the
    // block are never faulted in), only address space.
    reallocate(std::max({need, 2 * capacity_, std::size_t{4096} / sizeof(T) + 1}));
  }

#if defined(__linux__)
  // A block of `capacity` elements is mapped iff its bytes reach kHugeBytes
  // (so a capacity tells how its block was made).
  static bool mapped(std::size_t capacity) { return capacity * sizeof(T) >= kHugeBytes; }
  static std::size_t mapping_bytes(std::size_t capacity) {
    return (capacity * sizeof(T) + kPageBytes - 1) & ~(kPageBytes - 1);
  }

  void reallocate(std::size_t capacity) {
    if (capacity > SIZE_MAX / sizeof(T) - kPageBytes) throw std::bad_alloc();
    if (!mapped(capacity)) {
      void* block = std::realloc(data_, capacity * sizeof(T));
      if (block == nullptr) throw std::bad_alloc();
      data_ = static_cast<T*>(block);
      capacity_ = capacity;
      return;
    }
    const std::size_t bytes = mapping_bytes(capacity);
    void* block;
    if (mapped(capacity_)) {
      block = mremap(data_, mapping_bytes(capacity_), bytes, MREMAP_MAYMOVE);
      if (block == MAP_FAILED) throw std::bad_alloc();
    } else {  // from a small block: one copy of less than kHugeBytes
      block = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (block == MAP_FAILED) throw std::bad_alloc();
      if (size_ != 0) std::memcpy(block, data_, size_ * sizeof(T));
      std::free(data_);
    }
#if defined(MADV_HUGEPAGE)
    madvise(block, bytes, MADV_HUGEPAGE);  // advice only; the whole mapping, so it stays one
#endif
    data_ = static_cast<T*>(block);
    capacity_ = bytes / sizeof(T);
  }

  void release() {
    if (mapped(capacity_)) {
      munmap(data_, mapping_bytes(capacity_));
    } else {
      std::free(data_);
    }
  }
#else
  void reallocate(std::size_t capacity) {
    if (capacity > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    void* block = std::realloc(data_, capacity * sizeof(T));
    if (block == nullptr) throw std::bad_alloc();
    data_ = static_cast<T*>(block);
    capacity_ = capacity;
  }

  void release() { std::free(data_); }
#endif

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_BIG_ARRAY_H_

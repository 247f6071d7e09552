// The program's heap arrays as the analyzer sees them (analyzer.h): the
// live blocks it tracks, and what the run tells of each array in the
// profile (Profile::Array): where it was allocated, whether it was freed,
// indexed indirectly, copied into, moved, or holds the rows of a table.
//
//   TrackedArrays arrays;
//   arrays.allocate(profile, p, n, site, by_program, iteration);
//   std::uint32_t id = arrays.array_of(addr);   // 1-based, 0: none
//   arrays.release(profile, p, iteration);
#ifndef COMMANALYZER_RECORD_TRACKED_ARRAYS_H_
#define COMMANALYZER_RECORD_TRACKED_ARRAYS_H_

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <utility>

#include "commanalyzer/record/row_tables.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

class TrackedArrays {
 public:
  // A vertex remembers which array its home lies in, so the partitioner
  // can spread every large array over all processes (SPMD). Blocks under
  // kMinBytes are not worth a map entry.
  static constexpr std::uint64_t kMinBytes = 1024;
  // An iteration number for allocations outside an explicit region.
  static constexpr std::size_t kOutsideRegion = ~std::size_t{0};

  bool empty() const { return blocks_.empty(); }

  // `site`: where the program allocated it (0 unknown); by_program false:
  // a library's own buffer (Profile::Array::by_program). `iteration`: the
  // region's iteration under way, or kOutsideRegion.
  template <class Profile>
  void allocate(Profile& profile, Address start, std::uint64_t size, std::uint32_t site, bool by_program,
                std::size_t iteration) {
    if (size < kMinBytes) return;
    blocks_[start] = {start + size, ++count_, iteration};
    auto& array = profile.arrays.emplace_back();
    array.base = start;
    array.bytes = size;
    array.site = site;
    array.by_program = by_program;
  }

  // A block freed in the iteration that allocated it is scratch.
  template <class Profile>
  void release(Profile& profile, Address start, std::size_t iteration) {
    if (copied_into_.first == start) copied_into_ = {0, 0};  // the block may be reallocated unmarked
    if (auto it = blocks_.find(start); it != blocks_.end()) {
      auto& array = profile.arrays[it->second.id - 1];
      array.freed = true;
      array.scratch = it->second.allocated_in != kOutsideRegion && it->second.allocated_in == iteration;
      blocks_.erase(it);
    }
  }

  // A pointer stored at `at`: the start of a tracked block stored into
  // another makes the first a row of a table of rows (row_tables.h).
  void pointer_stored(Address at, Address value) {
    if (blocks_.empty()) return;
    const auto row = blocks_.find(value);
    if (row == blocks_.end() && row_tables_.empty()) return;
    const auto table = containing(at);
    if (table == blocks_.end()) return;
    const bool a_row = row != blocks_.end() && row->first != table->first;
    row_tables_.note(table->second.id, at - table->first, a_row ? row->second.id : 0);
  }
  // At the end of the run: each table's rows become one array.
  template <class Profile>
  void fuse_row_tables(Profile& profile) {
    row_tables_.fuse(profile);
  }

  // An access at an index read from an array (x[col[k]]): its array is
  // marked. Returns the array's extent [first, end), which needs no more
  // marks; an empty range for an untracked block.
  template <class Profile>
  std::pair<Address, Address> mark_indexed_indirectly(Profile& profile, Address addr) const {
    const auto it = containing(addr);
    if (it == blocks_.end()) return {0, 0};
    profile.arrays[it->second.id - 1].indexed_indirectly = true;
    return {it->first, it->second.end};
  }

  // A copy into a tracked array (Profile::Array::copied_into). The block
  // last marked needs no lookup: copies come in runs (a copy-back loop, a
  // memcpy).
  template <class Profile>
  void mark_copied_into(Profile& profile, Address dst) {
    if (dst >= copied_into_.first && dst < copied_into_.second) return;
    const auto it = containing(dst);
    if (it == blocks_.end()) return;
    profile.arrays[it->second.id - 1].copied_into = true;
    copied_into_ = {it->first, it->second.end};
  }

  // A copy between two tracked arrays: where a freed array's values live on.
  template <class Profile>
  void note_move(Profile& profile, Address dst, Address src, std::uint64_t size) const {
    if (blocks_.empty()) return;
    const std::uint32_t from = array_of(src), to = array_of(dst);
    if (from == 0 || to == 0 || from == to) return;
    profile.moves.push_back({from, to, src - profile.arrays[from - 1].base, dst - profile.arrays[to - 1].base, size});
  }

  // The array (1-based) whose live block holds addr, else 0.
  std::uint32_t array_of(Address addr) const {
    if (blocks_.empty()) return 0;
    const auto it = containing(addr);
    return it == blocks_.end() ? 0 : it->second.id;
  }

 private:
  struct Block {
    Address end = 0;
    std::uint32_t id = 0;
    std::size_t allocated_in = 0;  // the iteration under way at allocation
  };
  // The tracked block holding addr, else blocks_.end().
  std::map<Address, Block>::const_iterator containing(Address addr) const {
    const auto it = blocks_.upper_bound(addr);
    if (it == blocks_.begin() || addr >= std::prev(it)->second.end) return blocks_.cend();
    return std::prev(it);
  }

  std::map<Address, Block> blocks_;
  RowTables row_tables_;
  std::uint32_t count_ = 0;
  std::pair<Address, Address> copied_into_{0, 0};  // [first, end) of the block mark_copied_into marked last
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_RECORD_TRACKED_ARRAYS_H_

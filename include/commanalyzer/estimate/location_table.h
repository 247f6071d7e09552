// A number per location while locations are numbered (LocationIndex's
// nodes, ValueGraph's vertices by location): a dense table by offset per
// class of aligned arrays, or the caller's hash map where a table would
// waste memory.
#ifndef COMMANALYZER_ESTIMATE_LOCATION_TABLE_H_
#define COMMANALYZER_ESTIMATE_LOCATION_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

namespace commanalyzer {

// A dense table by position (a 4-byte slot each) stands in for a hash map
// or a sort where it has at most this many slots per item it holds: a
// hash map's entry takes about 32 bytes, and a sort reads each item about
// log2(items) times (LocationTable, LocationIndex::owner_runs).
inline constexpr std::uint64_t kDenseSlotsPerItem = 8;

// The node of each (class, offset) while locations are numbered: per
// class, a dense table by offset in steps of the gcd of the offsets used
// (a hash map by (class, offset) missed the cache at nearly every one of
// HPCCG 64^3's 7.1 M locations). A table is kept where it takes no
// more memory than the class's array (steps of 4 bytes or more) nor than
// a hash map would for its homes (kDenseSlotsPerItem); elsewhere slot()
// is null and the caller's map does. One pass over the vertices' homes,
// given as for_each_home(f(class, offset)), finds the steps.
class LocationTable {
 public:
  using Node = std::uint32_t;
  static constexpr Node kNone = ~Node{0};

  template <class Classes, class ForEachHome>
  LocationTable(const Classes& classes, ForEachHome&& for_each_home)
      : step_(classes.size(), 0), table_(classes.size()) {
    std::vector<std::uint64_t> homes(classes.size(), 0);
    for_each_home([&](std::uint32_t c, std::uint64_t offset) {
      step_[c] = std::gcd(step_[c], offset);
      ++homes[c];
    });
    for (std::size_t c = 0; c < classes.size(); ++c) {
      if (step_[c] == 0) step_[c] = classes[c].bytes == 0 ? 1 : classes[c].bytes;  // offset 0 alone
      const std::uint64_t entries = classes[c].bytes / step_[c] + 1;
      if (homes[c] != 0 && step_[c] >= sizeof(Node) && entries <= kDenseSlotsPerItem * homes[c]) {
        table_[c].assign(entries, kNone);
      }
    }
  }

  // The node at (c, offset), kNone while it has none; null where the class
  // has no table.
  Node* slot(std::uint32_t c, std::uint64_t offset) {
    std::vector<Node>& t = table_[c];
    const std::uint64_t i = offset / step_[c];
    return i < t.size() ? &t[i] : nullptr;
  }

 private:
  std::vector<std::uint64_t> step_;
  std::vector<std::vector<Node>> table_;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_ESTIMATE_LOCATION_TABLE_H_

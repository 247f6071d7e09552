#include "commanalyzer/record/ranked_bits.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace commanalyzer {
namespace {

// Ids across several 64-bit words: each set id's rank is its place among
// the set ones, whichever word it is in.
TEST(RankedBits, RankIsThePlaceAmongTheSetIds) {
  const std::vector<std::uint64_t> set = {0, 3, 63, 64, 65, 127, 128, 200, 999};
  RankedBits bits(1000);
  for (auto it = set.rbegin(); it != set.rend(); ++it) bits.insert(*it);  // any order
  EXPECT_EQ(bits.seal(), set.size());
  for (std::uint32_t k = 0; k < set.size(); ++k) {
    EXPECT_TRUE(bits.contains(set[k]));
    EXPECT_EQ(bits.rank(set[k]), k) << set[k];
  }
  EXPECT_FALSE(bits.contains(1));
  EXPECT_FALSE(bits.contains(998));
  EXPECT_EQ(bits.rank(100), 5u);  // an unset id: the set ids below it
  bits.insert(1);  // later inserts count once sealed again
  EXPECT_EQ(bits.seal(), set.size() + 1);
  EXPECT_EQ(bits.rank(999), set.size());
}


// A few ids far apart in a large range: only their pages are held, and
// ranks and iteration still count across the pages never touched.
TEST(RankedBits, HoldsThePagesOfItsIdsOnly) {
  constexpr std::uint64_t kIds = std::uint64_t{1} << 28;  // a bit each: 32 MiB
  const std::vector<std::uint64_t> set = {5, 4096 * 1000 + 17, 4096 * 1000 + 4095, kIds - 1};
  RankedBits bits(kIds);
  for (std::uint64_t id : set) bits.insert(id);
  EXPECT_LT(bits.memory_bytes(), std::size_t{1} << 20);  // the page table and three pages
  EXPECT_EQ(bits.seal(), set.size());
  for (std::uint32_t k = 0; k < set.size(); ++k) EXPECT_EQ(bits.rank(set[k]), k) << set[k];
  EXPECT_EQ(bits.rank(4096 * 500), 1u);  // in a page never touched
  EXPECT_FALSE(bits.contains(4096 * 500));
  EXPECT_FALSE(bits.contains(4096 * 1000 + 16));
  std::vector<std::uint64_t> seen;
  bits.for_each([&](std::uint64_t id) { seen.push_back(id); });
  EXPECT_EQ(seen, set);
}

}  // namespace
}  // namespace commanalyzer

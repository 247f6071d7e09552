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

}  // namespace
}  // namespace commanalyzer

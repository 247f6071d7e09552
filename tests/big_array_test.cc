#include "commanalyzer/record/big_array.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace commanalyzer {
namespace {

// Same contents as a std::vector driven by the same random operations,
// through growth far past the huge-page threshold (reallocations move the
// block; nothing may be lost or reordered).
TEST(BigArray, BehavesLikeAVector) {
  std::mt19937 rng(1);
  BigArray<std::uint32_t> big;
  std::vector<std::uint32_t> ref;
  while (ref.size() < (std::size_t{12} << 20) / sizeof(std::uint32_t)) {
    switch (rng() % 4) {
      case 0: {
        const std::uint32_t x = rng();
        big.push_back(x);
        ref.push_back(x);
        break;
      }
      case 1: {
        const std::size_t n = rng() % 5000;
        std::uint32_t* out = big.extend(n);
        for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint32_t>(ref.size() + i);
        for (std::size_t i = 0; i < n; ++i) ref.push_back(static_cast<std::uint32_t>(ref.size()));
        break;
      }
      case 2: {
        const std::size_t keep = ref.size() - std::min<std::size_t>(ref.size(), rng() % 100);
        big.truncate(keep);
        ref.resize(keep);
        break;
      }
      default: {
        const std::size_t n = ref.size() + rng() % 3000;
        big.resize(n, 7);
        ref.resize(n, 7);
      }
    }
    ASSERT_EQ(big.size(), ref.size());
  }
  EXPECT_GE(big.capacity(), big.size());
  EXPECT_TRUE(std::equal(big.begin(), big.end(), ref.begin(), ref.end()));
}

TEST(BigArray, CopiesMovesAndCompares) {
  BigArray<std::uint64_t> a(1000, 3);
  a.push_back(9);
  BigArray<std::uint64_t> b = a;
  EXPECT_TRUE(a == b);
  b[5] = 4;
  EXPECT_FALSE(a == b);
  EXPECT_EQ(a[5], 3u);
  BigArray<std::uint64_t> c = std::move(b);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(c.size(), 1001u);
  EXPECT_EQ(c.back(), 9u);
  b = c;
  EXPECT_TRUE(b == c);
  c.clear();
  EXPECT_TRUE(c.empty());
  c.assign(3, 1);
  const std::uint64_t more[] = {5, 6};
  c.append(more, more + 2);
  EXPECT_EQ(std::vector<std::uint64_t>(c.begin(), c.end()), (std::vector<std::uint64_t>{1, 1, 1, 5, 6}));
}

}  // namespace
}  // namespace commanalyzer

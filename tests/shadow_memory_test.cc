#include "commanalyzer/record/shadow_memory.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "commanalyzer/record/analyzer.h"

namespace commanalyzer {
namespace {

TEST(WordsOf, SplitsAccessesIntoTheWordsTheyTouch) {
  EXPECT_EQ(words_of<4>(0x100, 8).first, 0x40u);
  EXPECT_EQ(words_of<4>(0x100, 8).last, 0x41u);
  // Sub-word: one byte in the middle of a word.
  EXPECT_EQ(words_of<8>(0x103, 1).first, words_of<8>(0x103, 1).last);
  // Straddling: 8 bytes at offset 6 of a 4-byte word touch three words.
  const auto r = words_of<4>(0x106, 8);
  EXPECT_EQ(r.last - r.first, 2u);
  // The top of the address space does not wrap around.
  const auto top = words_of<8>(~Address{0} - 3, 8);
  EXPECT_EQ(top.last, ~Address{0} / 8);
}

template <class S>
class ShadowMemoryTest : public ::testing::Test {};
using Shadows = ::testing::Types<PagedShadowMemory<4>, PagedShadowMemory<8, 10>, HashShadowMemory<4>>;
TYPED_TEST_SUITE(ShadowMemoryTest, Shadows);

TYPED_TEST(ShadowMemoryTest, ExchangeReturnsPreviousValue) {
  TypeParam shadow;
  EXPECT_EQ(shadow.get(7), kNoValue);
  EXPECT_EQ(shadow.exchange(7, 3), kNoValue);
  EXPECT_EQ(shadow.exchange(7, 5), 3u);
  EXPECT_EQ(shadow.get(7), 5u);
  EXPECT_EQ(shadow.exchange(7, kNoValue), 5u);
  EXPECT_EQ(shadow.get(7), kNoValue);
}

TYPED_TEST(ShadowMemoryTest, FarApartAddressesAreIndependent) {
  TypeParam shadow;
  const std::uint64_t w = TypeParam::kWordBytes;
  const std::vector<Address> addresses = {0x0,           0x10,
                                          0x7fff'ffff'f000, 0x7fff'ffff'f000 + w,
                                          0xffff'ffff'ffff'fff0, 0x8000'0000'0000'0000};
  for (std::size_t i = 0; i < addresses.size(); ++i) shadow.exchange(addresses[i] / w, ValueId(i + 1));
  for (std::size_t i = 0; i < addresses.size(); ++i) EXPECT_EQ(shadow.get(addresses[i] / w), i + 1) << i;
  EXPECT_EQ(shadow.get(0x7fff'ffff'f000 / w + 2), kNoValue);
}

TYPED_TEST(ShadowMemoryTest, AgreesWithReferenceOnRandomTraffic) {
  TypeParam shadow;
  HashShadowMemory<TypeParam::kWordBytes> reference;
  std::mt19937_64 rng(42);
  for (int i = 0; i < 20000; ++i) {
    // Clustered and scattered words, including page boundaries.
    const std::uint64_t word = (rng() % 4 == 0) ? rng() : (rng() % 100000);
    const ValueId v = static_cast<ValueId>(rng() % 7);
    ASSERT_EQ(shadow.exchange(word, v), reference.exchange(word, v));
    ASSERT_EQ(shadow.get(word), reference.get(word));
  }
}

// The analyzer's view: what a location holds after sub-word, straddling and
// overlapping accesses.
TEST(AnalyzerShadow, SubWordStoresClaimTheirWordOnly) {
  Analyzer<PagedShadowMemory<4>> a;
  // Two floats side by side are two locations.
  a.store(0x1000, 4, kComputedBit);
  a.store(0x1004, 4, kComputedBit);
  EXPECT_NE(a.value_at(0x1000), a.value_at(0x1004));
  // A char inside the first word replaces the float there, not its neighbour.
  const ValueId neighbour = a.value_at(0x1004);
  a.store(0x1001, 1, kComputedBit);
  EXPECT_EQ(a.value_at(0x1004), neighbour);
  EXPECT_EQ(a.profile().values.live_copies(neighbour), 1u);
}

TEST(AnalyzerShadow, StraddlingStoreIsOneValueInEveryWord) {
  Analyzer<PagedShadowMemory<4>> a;
  a.store(0x2006, 8, kComputedBit);  // words 0x2004, 0x2008, 0x200c
  const ValueId v = a.value_at(0x2006);
  ASSERT_NE(v, kNoValue);
  EXPECT_EQ(a.value_at(0x2004), v);
  EXPECT_EQ(a.value_at(0x200c), v);
  EXPECT_EQ(a.value_at(0x2010), kNoValue);
  EXPECT_EQ(a.profile().values.live_copies(v), 3u);
  // Reading it back, straddling the same way, is the same value.
  EXPECT_EQ(a.slicer().leaf_value(a.load(0x2006, 8)), v);
}

TEST(AnalyzerShadow, PartiallyOverwrittenDataLoadsAsAComputation) {
  Analyzer<PagedShadowMemory<4>> a;
  a.store(0x3000, 8, kComputedBit);
  const ValueId whole = a.value_at(0x3000);
  a.store(0x3004, 4, kComputedBit);  // overwrite the upper half
  const Label mixed = a.load(0x3000, 8);
  EXPECT_TRUE(is_computed(mixed));
  std::vector<ValueId> sources;
  UnionDagSlicer copy = a.slicer();
  copy.flatten(mixed, sources);
  EXPECT_EQ(sources, (std::vector<ValueId>{whole, a.value_at(0x3004)}));
}

// A program whose large blocks are mapped at a new address each time
// (glibc's mmap for big vectors): freeing a block gives back its shadow
// pages, so the shadow holds what is allocated, not every address ever
// used, its ragged ends too where nothing else is stored there; freed
// words read as nothing, also from a page the cache had.
TEST(AnalyzerShadow, FreedBlocksGiveTheirShadowPagesBack) {
  Analyzer<PagedShadowMemory<4>> a;
  constexpr std::uint64_t kBytes = 1 << 20;  // 256 pages of 1 Ki words of 4 bytes
  const std::size_t empty = a.shadow().memory_bytes();
  for (std::uint64_t k = 0; k < 10; ++k) {
    const Address base = 0x10000000 + k * 0x1000000 + 8;  // not page aligned
    a.allocation(base, kBytes);
    for (std::uint64_t off = 0; off < kBytes; off += 8) a.store(base + off, 8, kComputedBit);
    const std::size_t held = a.shadow().memory_bytes();
    EXPECT_GE(held - empty, kBytes);  // the block's words, in 17 pages
    EXPECT_NE(a.value_at(base + 4096), kNoValue);
    a.clear(base, kBytes);
    a.release(base);
    EXPECT_EQ(a.value_at(base + 4096), kNoValue);
    EXPECT_EQ(a.value_at(base), kNoValue);
    EXPECT_EQ(a.shadow().memory_bytes(), empty) << k;
  }
  // A neighbour's value keeps the page it shares with a freed block.
  const Address base = 0x30000000 + 8;
  a.store(0x30000000, 8, kComputedBit);
  a.allocation(base + 8, kBytes);
  for (std::uint64_t off = 8; off < kBytes; off += 8) a.store(base + off, 8, kComputedBit);
  a.clear(base + 8, kBytes);
  a.release(base + 8);
  EXPECT_NE(a.value_at(0x30000000), kNoValue);
  EXPECT_EQ(a.shadow().memory_bytes() - empty, sizeof(PagedShadowMemory<4>::Page) + 2 * sizeof(std::uint64_t));
  // Storing again where a page was given back makes a fresh one.
  a.store(0x10000000 + 4096, 8, kComputedBit);
  EXPECT_NE(a.value_at(0x10000000 + 4096), kNoValue);
}

}  // namespace
}  // namespace commanalyzer

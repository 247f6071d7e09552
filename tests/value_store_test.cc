#include "commanalyzer/value_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace commanalyzer {
namespace {

// The packed columns answer exactly what plain arrays would, including the
// rare values that do not fit a byte (large sizes, hundreds of live copies).
TEST(CompactValueStore, PackedColumnsAreExact) {
  std::mt19937 rng(4);
  CompactValueStore store;
  struct Plain {
    std::uint32_t size;
    bool input;
    VertexId vertex;
    std::uint32_t live = 0;
  };
  std::vector<Plain> plain(1);
  for (int i = 0; i < 20000; ++i) {
    const int kind = static_cast<int>(rng() % 10);
    if (kind == 0 || plain.size() == 1) {
      std::uint32_t size = 1 + rng() % 64;
      if (rng() % 50 == 0) size = 100 + rng() % 200000;  // beyond a byte, beyond 16 bits
      const bool input = rng() % 2 == 0;
      const VertexId vertex = rng() % 3 == 0 ? kNoVertex - 1 : rng();
      ASSERT_EQ(store.create(size, input, vertex), plain.size());
      plain.push_back({size > 0xffff ? 0xffffu : size, input, vertex});
    } else {
      // Copies: a few values get hundreds (past the one-byte count).
      const auto values = static_cast<ValueId>(plain.size() - 1);
      const ValueId v = 1 + rng() % (rng() % 4 == 0 ? std::min<ValueId>(values, 3) : values);
      const int n = static_cast<int>(rng() % 300);
      const bool add = plain[v].live == 0 || rng() % 2 == 0;
      for (int k = 0; k < n; ++k) {
        if (add) {
          store.add_copy(v);
          ++plain[v].live;
        } else if (plain[v].live > 0) {
          ASSERT_EQ(store.drop_copy(v), --plain[v].live);
        }
      }
    }
  }
  ASSERT_EQ(store.count(), plain.size() - 1);
  std::uint32_t most = 0;
  for (ValueId v = 1; v < plain.size(); ++v) {
    ASSERT_EQ(store.size_bytes(v), plain[v].size) << v;
    ASSERT_EQ(store.is_input(v), plain[v].input) << v;
    ASSERT_EQ(store.vertex(v), plain[v].vertex) << v;
    ASSERT_EQ(store.live_copies(v), plain[v].live) << v;
    ASSERT_EQ(store.kind(v), plain[v].input      ? ValueKind::kInput
                             : plain[v].live > 0 ? ValueKind::kOutput
                                                 : ValueKind::kIntermediate);
    most = std::max(most, plain[v].live);
  }
  EXPECT_GT(most, 600u);
}

}  // namespace
}  // namespace commanalyzer

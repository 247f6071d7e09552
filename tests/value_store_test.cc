#include "commanalyzer/record/value_store.h"

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

// A sweep's values: one size, each in the vertex after the previous one's,
// dead one step later. Their columns shrink to almost nothing, and a dead
// value copied anew (from a register) counts again.
TEST(CompactValueStore, SweepsCostAlmostNothing) {
  CompactValueStore store;
  constexpr ValueId kCells = 1 << 16;
  for (int step = 0; step < 8; ++step) {
    for (ValueId c = 0; c < kCells; ++c) {
      const ValueId v = store.create(8, false, c);
      store.add_copy(v);
      store.add_copy(v);
      if (step > 0) {
        const ValueId old = v - kCells;
        EXPECT_EQ(store.drop_copy(old), 1u);
        EXPECT_EQ(store.drop_copy(old), 0u);
      }
    }
  }
  EXPECT_LT(store.memory_bytes(), std::size_t{3} * kCells);  // ~ the live counts of the last step
  for (ValueId v = 1; v <= store.count(); v += 977) {
    EXPECT_EQ(store.size_bytes(v), 8u);
    EXPECT_FALSE(store.is_input(v));
    EXPECT_EQ(store.vertex(v), (v - 1) % kCells);
    EXPECT_EQ(store.kind(v), v > 7 * kCells ? ValueKind::kOutput : ValueKind::kIntermediate);
  }
  store.add_copy(5);
  EXPECT_EQ(store.live_copies(5), 1u);
  EXPECT_EQ(store.kind(5), ValueKind::kOutput);
  EXPECT_EQ(store.drop_copy(5), 0u);
  EXPECT_EQ(store.live_copies(5), 0u);
}

// Without counts, a value is an output once marked live (at the analyzer's
// finish); marks can be reset and redone.
TEST(LiveAtEndValueStore, KindsFollowTheMarks) {
  LiveAtEndValueStore store;
  for (int i = 0; i < 300; ++i) store.create(8, i % 7 == 0, static_cast<VertexId>(i));
  for (ValueId v = 2; v <= 300; v += 3) store.mark_live(v);
  for (ValueId v = 1; v <= 300; ++v) {
    const ValueKind expected = (v - 1) % 7 == 0 ? ValueKind::kInput
                               : v % 3 == 2     ? ValueKind::kOutput
                                                : ValueKind::kIntermediate;
    ASSERT_EQ(store.kind(v), expected) << v;
  }
  store.reset_live();
  store.mark_live(300);
  EXPECT_EQ(store.kind(299), ValueKind::kIntermediate);
  EXPECT_EQ(store.kind(300), ValueKind::kOutput);
}

// The vertex column answers exactly whatever the vertices: runs of
// neighbours (narrow blocks), jumps (blocks widened midway), kNoVertex.
TEST(VertexColumn, MatchesAPlainArray) {
  std::mt19937 rng(6);
  VertexColumn column;
  std::vector<VertexId> plain;
  VertexId next = 0;
  for (int i = 0; i < 200000; ++i) {
    VertexId x;
    switch (rng() % 20) {
      case 0: x = rng(); break;                      // anywhere
      case 1: x = kNoVertex; break;
      case 2: x = next + 127 + rng() % 3; break;     // just past a byte
      default: x = next - 3 + rng() % 7;             // a neighbour
    }
    next = x + 1;
    column.push_back(x);
    plain.push_back(x);
    if (i % 1000 == 0) {
      const std::size_t k = rng() % plain.size();
      ASSERT_EQ(column[k], plain[k]) << k;
    }
  }
  ASSERT_EQ(column.size(), plain.size());
  for (std::size_t k = 0; k < plain.size(); ++k) ASSERT_EQ(column[k], plain[k]) << k;
  // A whole block at once, whatever its kind (step, narrow, wide).
  for (std::size_t first = 0; first + 64 <= plain.size(); first += 64) {
    VertexId block[64];
    column.block64(first, block);
    ASSERT_TRUE(std::equal(block, block + 64, plain.begin() + static_cast<std::ptrdiff_t>(first))) << first;
  }

  // A sweep: each value in the vertex after the previous one's, a jump now
  // and then (a residual's own vertex): ~1 byte per value, not 4.
  VertexColumn sweep;
  for (VertexId k = 0; k < (1u << 20); ++k) sweep.push_back(k % 5000 == 0 ? 7 * k + 100000000 : k % 300000);
  for (VertexId k = 0; k < (1u << 20); k += 997) {
    ASSERT_EQ(sweep[k], k % 5000 == 0 ? 7 * k + 100000000 : k % 300000) << k;
  }
  for (std::size_t first = 0; first < sweep.size(); first += 64 * 97) {  // step blocks mostly
    VertexId block[64];
    sweep.block64(first, block);
    for (std::size_t k = 0; k < 64; ++k) ASSERT_EQ(block[k], sweep[first + k]) << first + k;
  }
  EXPECT_LT(sweep.memory_bytes(), 2 * sweep.size());
}

// Runs of one byte that fill blocks, break them half-way and start the
// next one with the byte the last block had: the inline path for a uniform
// block must follow every change of block and of byte.
TEST(ByteColumn, RunsAcrossBlocksAreExact) {
  std::mt19937 rng(9);
  ByteColumn column;
  std::vector<std::uint8_t> plain;
  while (plain.size() < 40000) {
    const std::uint8_t b = static_cast<std::uint8_t>(rng() % 3 == 0 ? 4 : 8);
    const std::size_t run = rng() % 4 == 0 ? rng() % 10 : rng() % 9000;
    for (std::size_t k = 0; k < run; ++k) {
      column.push_back(b);
      plain.push_back(b);
    }
  }
  ASSERT_EQ(column.size(), plain.size());
  for (std::size_t i = 0; i < plain.size(); ++i) ASSERT_EQ(column[i], plain[i]) << i;
  for (std::size_t first = 0; first + 4096 <= plain.size(); first += 4096) {
    std::uint8_t byte = 0;
    const bool uniform = std::all_of(plain.begin() + first, plain.begin() + first + 4096,
                                     [&](std::uint8_t b) { return b == plain[first]; });
    ASSERT_EQ(column.uniform_at(first, byte), uniform) << first;
    if (uniform) ASSERT_EQ(byte, plain[first]) << first;
  }
}

}  // namespace
}  // namespace commanalyzer

#include "commanalyzer/slicer.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace commanalyzer {
namespace {

std::vector<ValueId> flat(UnionDagSlicer& s, Label l) {
  std::vector<ValueId> out;
  s.flatten(l, out);
  return out;
}

TEST(UnionDagSlicer, LeavesReplicateAndComputationsDoNot) {
  UnionDagSlicer s;
  EXPECT_EQ(s.leaf_value(s.leaf(7)), 7u);
  EXPECT_EQ(s.leaf_value(s.join(s.leaf(7), kNoLabel)), kNoValue);  // 2 * x is computed
  EXPECT_TRUE(is_computed(s.join(kNoLabel, kNoLabel)));            // a constant
  EXPECT_EQ(flat(s, s.join(s.leaf(7), kNoLabel)), std::vector<ValueId>{7});
  EXPECT_TRUE(flat(s, kNoLabel).empty());
}

TEST(UnionDagSlicer, FlattenIsSortedAndUnique) {
  UnionDagSlicer s;
  const Label ab = s.join(s.leaf(9), s.leaf(2));
  const Label abca = s.join(s.join(ab, s.leaf(5)), s.leaf(9));
  EXPECT_EQ(flat(s, abca), (std::vector<ValueId>{2, 5, 9}));
}

TEST(UnionDagSlicer, SharedSubexpressionsAreVisitedOnce) {
  // x_{k+1} = x_k + x_k' where both operands share the whole DAG below:
  // without visit marks the flatten would take 2^depth steps.
  UnionDagSlicer s(/*memo_slots=*/1);
  Label x = s.join(s.leaf(1), s.leaf(2));
  for (int depth = 0; depth < 60; ++depth) x = s.join(x, s.join(x, s.leaf(3 + depth % 2)));
  EXPECT_EQ(flat(s, x), (std::vector<ValueId>{1, 2, 3, 4}));
}

TEST(UnionDagSlicer, AccumulatorCostsOneNodePerStep) {
  // s += a[i] kept in a register over n elements: linear, not quadratic.
  UnionDagSlicer s;
  constexpr ValueId n = 100000;
  Label acc = kNoLabel;
  for (ValueId v = 1; v <= n; ++v) acc = s.join(acc, s.leaf(v));
  EXPECT_LE(s.node_count(), n);
  const auto sources = flat(s, acc);
  ASSERT_EQ(sources.size(), n);
  EXPECT_EQ(sources.front(), 1u);
  EXPECT_EQ(sources.back(), n);
}

TEST(UnionDagSlicer, MemoReturnsTheSameNodeForTheSamePair) {
  UnionDagSlicer s;
  const Label a = s.join(s.leaf(1), s.leaf(2));
  EXPECT_EQ(s.join(s.leaf(2), s.leaf(1)), a);
  EXPECT_EQ(s.node_count(), 1u);
}

TEST(Slicers, DagAndInternedSetsAgreeOnRandomPrograms) {
  std::mt19937 rng(7);
  UnionDagSlicer dag;
  InternedSetSlicer sets;
  std::vector<Label> regs_dag, regs_set;
  for (int i = 0; i < 5000; ++i) {
    const int op = static_cast<int>(rng() % 3);
    if (op == 0 || regs_dag.size() < 2) {
      const ValueId v = 1 + rng() % 200;
      regs_dag.push_back(dag.leaf(v));
      regs_set.push_back(sets.leaf(v));
    } else {
      const std::size_t a = rng() % regs_dag.size(), b = rng() % regs_dag.size();
      regs_dag.push_back(dag.join(regs_dag[a], regs_dag[b]));
      regs_set.push_back(sets.join(regs_set[a], regs_set[b]));
    }
    const std::size_t k = rng() % regs_dag.size();
    std::vector<ValueId> x, y;
    dag.flatten(regs_dag[k], x);
    sets.flatten(regs_set[k], y);
    ASSERT_EQ(x, y) << "step " << i;
    ASSERT_EQ(dag.leaf_value(regs_dag[k]), sets.leaf_value(regs_set[k]));
  }
}

}  // namespace
}  // namespace commanalyzer

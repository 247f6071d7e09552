#include "commanalyzer/record/slicer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
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

TEST(UnionDagSlicer, DotProductAccumulatorIsExact) {
  // sum += a[k] * b[k] for 500 k (past the small walk, within the unmarked
  // one), with b[k] sometimes repeated: sorted, unique.
  UnionDagSlicer s;
  Label sum = kNoLabel;
  std::vector<ValueId> expected;
  for (ValueId k = 0; k < 500; ++k) {
    const ValueId a = 1 + 2 * k, b = 5000 - 3 * (k % 400);
    sum = s.join(sum, s.join(s.leaf(a), s.leaf(b)));
    expected.push_back(a);
    expected.push_back(b);
  }
  std::sort(expected.begin(), expected.end());
  expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
  EXPECT_EQ(flat(s, sum), expected);
}

TEST(UnionDagSlicer, MemoReturnsTheSameNodeForTheSamePair) {
  UnionDagSlicer s;
  const Label x = s.join(s.leaf(1), s.leaf(2)), y = s.leaf(3);
  const Label a = s.join(x, y);
  EXPECT_EQ(s.join(y, x), a);
  EXPECT_EQ(s.node_count(), 1u);
}

TEST(UnionDagSlicer, TwoSmallLeavesMakeAPairWithoutANode) {
  UnionDagSlicer s;
  const Label p = s.join(s.leaf(9), s.leaf(4));
  EXPECT_EQ(s.join(s.leaf(4), s.leaf(9)), p);  // either order
  EXPECT_TRUE(s.is_compound(p));
  EXPECT_EQ(s.leaf_value(p), kNoValue);  // a store of it creates a value
  EXPECT_EQ(s.join(p, s.leaf(9)), p);    // x (+) {x, y} adds nothing
  EXPECT_EQ(s.node_count(), 0u);
  EXPECT_EQ(flat(s, p), (std::vector<ValueId>{4, 9}));
  // The largest ids that fit, and past them a node.
  const ValueId top = static_cast<ValueId>(kPairLimit - 1);
  EXPECT_EQ(flat(s, s.join(s.leaf(top), s.leaf(top - 1))), (std::vector<ValueId>{top - 1, top}));
  EXPECT_EQ(s.node_count(), 0u);
  const Label big = s.join(s.leaf(top + 1), s.leaf(1));
  EXPECT_EQ(s.node_count(), 1u);
  EXPECT_EQ(flat(s, big), (std::vector<ValueId>{1, top + 1}));
  // Pairs inside bigger labels: every walk (small, unmarked, marked).
  Label sum = kNoLabel;
  std::vector<ValueId> expected;
  for (ValueId k = 0; k < 5000; ++k) {
    sum = s.join(sum, s.join(s.leaf(2 * k + 1), s.leaf(2 * k + 2)));
    expected.push_back(2 * k + 1);
    expected.push_back(2 * k + 2);
    if (k == 10 || k == 1000 || k == 4999) {
      EXPECT_EQ(flat(s, sum), expected) << k;
    }
  }
}

// Large labels (beyond the small walk) come out sorted and unique whether
// their ids are dense (bitmap scan), sparse and many (radix sort) or sparse
// and few (comparison sort); repeated flattens see no stale bitmap bits.
TEST(UnionDagSlicer, LargeFlattenEqualsSortUniqueOnRandomDags) {
  std::mt19937 rng(11);
  for (const ValueId range : {ValueId{3000}, ValueId{50000}, ValueId{1} << 24}) {
    UnionDagSlicer dag;
    std::vector<Label> regs;
    std::vector<std::vector<ValueId>> members;  // the reference: every register's leaves, sorted
    std::array<std::size_t, 4> acc{};           // registers that keep growing (accumulators)
    auto push = [&](Label l, std::vector<ValueId> m) {
      regs.push_back(l);
      members.push_back(std::move(m));
      return regs.size() - 1;
    };
    for (auto& a : acc) {
      const ValueId v = 1 + rng() % range;
      a = push(dag.leaf(v), {v});
    }
    for (int i = 0; i < 6000; ++i) {
      std::size_t other;
      if (rng() % 2 == 0) {
        const ValueId v = 1 + rng() % range;
        other = push(dag.leaf(v), {v});
      } else {
        other = rng() % regs.size();
      }
      std::size_t& a = acc[rng() % acc.size()];
      std::vector<ValueId> m = members[a];
      m.insert(m.end(), members[other].begin(), members[other].end());
      std::sort(m.begin(), m.end());
      m.erase(std::unique(m.begin(), m.end()), m.end());
      a = push(dag.join(regs[a], regs[other]), std::move(m));
      if (rng() % 500 == 0) a = other;  // restart an accumulator
      if (i % 7 == 0) {
        const std::size_t k = rng() % 2 == 0 ? acc[rng() % acc.size()] : rng() % regs.size();
        ASSERT_EQ(flat(dag, regs[k]), members[k]) << "range " << range << " step " << i;
      }
    }
    std::size_t largest = 0;
    for (const auto& m : members) largest = std::max(largest, m.size());
    EXPECT_GT(largest, 1024u) << "range " << range;  // the radix / scan paths ran
  }
}

TEST(UnionDagSlicer, DenseSweepResidualIsExact) {
  // diff = max(diff, |f(u[i-1], u[i], u[i+1])|) over a sweep: one label
  // naming every cell, flattened once per sweep.
  UnionDagSlicer s;
  for (int sweep = 0; sweep < 3; ++sweep) {
    const ValueId base = 1 + static_cast<ValueId>(sweep) * 200000;
    Label diff = kNoLabel;
    for (ValueId i = 1; i + 1 < 100000; ++i) {
      const Label cell = s.join(s.join(s.leaf(base + i - 1), s.leaf(base + i)), s.leaf(base + i + 1));
      diff = s.join(diff, cell);
    }
    const auto sources = flat(s, diff);
    ASSERT_EQ(sources.size(), 100000u);
    for (ValueId k = 0; k < 100000; ++k) ASSERT_EQ(sources[k], base + k);
  }
}

TEST(UnionDagSlicer, FlattenExtendingEqualsFlatten) {
  // A running result flattened at every inner-loop exit, each time from the
  // set of the previous exit; also labels that do not contain the known one
  // (its set must then not be merged in) and the known label itself.
  std::mt19937 rng(5);
  UnionDagSlicer s;
  Label running = kNoLabel, known = kNoLabel;
  std::vector<ValueId> known_sources, extended;
  for (int row = 0; row < 40; ++row) {
    for (int k = 0; k < 300; ++k) {
      const ValueId v = 1 + rng() % 20000;
      running = s.join(running, rng() % 3 == 0 ? s.join(s.leaf(v), s.leaf(v + 40000)) : s.leaf(v));
    }
    const Label unrelated = s.join(s.join(s.leaf(1 + rng() % 100), s.leaf(200 + rng() % 100)), s.leaf(70000));
    for (const Label label : {running, unrelated, known}) {
      if (known == kNoLabel) break;
      s.flatten_extending(label, known, known_sources, extended);
      ASSERT_EQ(extended, flat(s, label)) << "row " << row;
    }
    known = running;
    known_sources = flat(s, running);
  }
  EXPECT_GT(known_sources.size(), 5000u);  // past the small walk
}

TEST(UnionDagSlicer, KeptSetsGiveTheSetsOfAFullWalk) {
  // A kernel's shape: chains of loaded values (Jacobian entries), products
  // of them (cofactors), and sums of cofactors made again for every corner
  // as new nodes on the same operands -- as the pass makes nodes, from the
  // shared run, without the memo -- flattened as loop results and stored
  // scaled. Every flatten, whether it walks or takes kept sets, must give
  // the set a reference slicer gives.
  std::mt19937 rng(27);
  UnionDagSlicer s;
  UnionDagSlicer::NodeRun run;
  s.share_run(&run);
  auto inline_node = [&](Label a, Label b) {  // what the pass's inline code does
    a &= ~kComputedBit;
    b &= ~kComputedBit;
    if (run.next == run.end) return s.join(a, b);
    run.base[run.next] = {a, b};
    return kNodeBit | kComputedBit | run.next++;
  };
  InternedSetSlicer reference;
  std::vector<ValueId> got, want;
  // A running result from another loop, which no sum contains.
  const Label other = s.join(s.join(s.leaf(900001), s.leaf(900002)), s.leaf(900003));
  const std::vector<ValueId> other_sources = {900001, 900002, 900003};
  for (int element = 0; element < 300; ++element) {
    std::array<Label, 9> chains{}, reference_chains{};
    for (int c = 0; c < 9; ++c) {
      for (int k = 0; k < 20; ++k) {
        const ValueId v = 1 + rng() % 50000;
        chains[c] = k == 0 ? s.leaf(v) : inline_node(chains[c], s.leaf(v));
        reference_chains[c] = reference.join(reference_chains[c], reference.leaf(v));
      }
    }
    std::array<Label, 9> cof{}, reference_cof{};
    for (int c = 0; c < 9; ++c) {
      const int p = c, q = (c + 1) % 9, r = (c + 4) % 9, t = (c + 7) % 9;
      cof[c] = inline_node(inline_node(chains[p], chains[q]), inline_node(chains[r], chains[t]));
      reference_cof[c] = reference.join(reference.join(reference_chains[p], reference_chains[q]),
                                        reference.join(reference_chains[r], reference_chains[t]));
    }
    for (int corner = 0; corner < 8; ++corner) {
      for (int d = 0; d < 3; ++d) {
        const Label sum = inline_node(cof[d], inline_node(cof[d + 3], cof[d + 6]));
        const Label reference_sum =
            reference.join(reference_cof[d], reference.join(reference_cof[d + 3], reference_cof[d + 6]));
        s.flatten_extending(sum, other, other_sources, got);  // a loop's result
        reference.flatten(reference_sum, want);
        ASSERT_EQ(got, want) << "element " << element;
        const ValueId old = 100000 + static_cast<ValueId>(element * 24 + corner * 3 + d);
        const Label stored = inline_node(s.leaf(old), inline_node(s.leaf(old + 50000), sum));
        s.flatten(stored, got);
        reference.flatten(reference.join(reference.leaf(old), reference.join(reference.leaf(old + 50000), reference_sum)),
                          want);
        ASSERT_EQ(got, want) << "element " << element;
      }
    }
  }
}

// An element's forces, as LULESH computes them: derivatives built from
// its 24 coordinates, each level reading the one below twice (2^40 paths
// to the bottom, a few hundred nodes), and 24 stores on the shared levels.
// An unmarked walk would expand the shared nodes once per path; the walk
// goes on with marks once it meets its leaves again, and a store's set is
// its operands', kept for the next store. Every set must be the reference's.
TEST(UnionDagSlicer, SharedDagsPastTheSmallWalkAreExact) {
  UnionDagSlicer s;
  InternedSetSlicer reference;
  std::vector<ValueId> got, want;
  for (ValueId element = 0; element < 40; ++element) {
    const ValueId coords = 1 + element * 100;
    std::vector<Label> level{s.join(s.leaf(coords), s.leaf(coords + 1))};
    std::vector<Label> reference_level{reference.join(reference.leaf(coords), reference.leaf(coords + 1))};
    for (ValueId k = 0; k < 40; ++k) {
      const ValueId u = coords + k % 24, w = coords + (k + 7) % 24;
      level.push_back(s.join(s.join(level.back(), s.leaf(u)), s.join(level.back(), s.leaf(w))));
      reference_level.push_back(reference.join(reference.join(reference_level.back(), reference.leaf(u)),
                                               reference.join(reference_level.back(), reference.leaf(w))));
    }
    for (ValueId i = 0; i < 24; ++i) {
      const ValueId old = 50000 + element * 24 + i;
      const Label stored = s.join(s.leaf(old), s.join(level[17 + i], s.leaf(coords + i)));
      s.flatten(stored, got);
      reference.flatten(reference.join(reference.leaf(old), reference.join(reference_level[17 + i],
                                                                             reference.leaf(coords + i))),
                        want);
      ASSERT_EQ(got, want) << "element " << element << " store " << i;
      ASSERT_EQ(got.size(), 25u);  // the 24 coordinates and the old value
    }
  }
}

TEST(SortUniqueSmall, MatchesSortUnique) {
  std::mt19937 rng(12);
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<ValueId> ids(rng() % 40);
    const ValueId range = 1 + rng() % 60;
    for (ValueId& x : ids) x = rng() % range;
    std::vector<ValueId> expected = ids;
    std::sort(expected.begin(), expected.end());
    expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
    slicer_internal::sort_unique_small(ids);
    ASSERT_EQ(ids, expected) << trial;
  }
}

TEST(SortUniqueIds, MatchesStdSort) {
  std::mt19937 rng(3);
  std::vector<ValueId> scratch;
  for (const std::size_t n : {std::size_t{10}, std::size_t{1500}, std::size_t{70000}}) {
    for (const ValueId span : {ValueId{100000}, ValueId{1} << 30, ~ValueId{0} - 10}) {
      std::vector<ValueId> ids;
      while (ids.size() < n) ids.push_back(5 + rng() % span);
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      const std::vector<ValueId> expected = ids;
      std::shuffle(ids.begin(), ids.end(), rng);
      const ValueId lo = expected.front(), hi = expected.back();
      slicer_internal::sort_unique_ids(ids, lo, hi, scratch);
      ASSERT_EQ(ids, expected) << n << " " << span;
    }
  }
}

// Collection: labels the scanner reports keep their sets, exactly; the
// arena stays bounded by what is live, not by what was ever made.
struct HeldLabels {
  std::vector<Label> regs;
  bool visible = true;
  static bool scan(void* context, UnionDagSlicer& slicer) {
    auto* self = static_cast<HeldLabels*>(context);
    if (!self->visible) return false;
    slicer.mark_roots(self->regs.data(), self->regs.data() + self->regs.size());
    return true;
  }
};

TEST(UnionDagSlicer, CollectionKeepsEveryHeldLabelExact) {
  std::mt19937 rng(5);
  UnionDagSlicer dag;
  InternedSetSlicer sets;
  HeldLabels held;
  std::vector<Label> regs_set;
  dag.enable_collection(&HeldLabels::scan, &held, /*min_nodes=*/64);
  constexpr std::size_t kRegisters = 40;
  for (int i = 0; i < 200000; ++i) {
    const std::size_t target = rng() % kRegisters;
    Label d, e;
    const int op = static_cast<int>(rng() % 4);
    if (op == 0 || held.regs.size() < 2) {
      const ValueId v = 1 + rng() % 500;
      d = dag.leaf(v);
      e = sets.leaf(v);
    } else {
      const std::size_t a = rng() % held.regs.size(), b = rng() % held.regs.size();
      d = dag.join(held.regs[a], held.regs[b]);
      e = sets.join(regs_set[a], regs_set[b]);
      if (op == 3) {  // a computed copy: the label with its computed bit (as held by a program)
        d |= kComputedBit;
      }
    }
    if (held.regs.size() < kRegisters) {
      held.regs.push_back(d);
      regs_set.push_back(e);
    } else {
      held.regs[target] = d;  // the old label becomes garbage
      regs_set[target] = e;
    }
    if (i % 50 == 0) {
      const std::size_t k = rng() % held.regs.size();
      std::vector<ValueId> x, y;
      dag.flatten(held.regs[k], x);
      sets.flatten(regs_set[k], y);
      ASSERT_EQ(x, y) << "step " << i;
      ASSERT_EQ(dag.leaf_value(held.regs[k]), sets.leaf_value(regs_set[k]));
    }
  }
  // Several collections ran (between two, the arena grows to 3 times the
  // live nodes: 9 with this seed), and reclaimed slots were reused.
  EXPECT_GT(dag.collections(), 5u);
  EXPECT_LT(dag.node_count(), 100000u);  // of ~150000 made
  for (std::size_t k = 0; k < held.regs.size(); ++k) {
    std::vector<ValueId> x, y;
    dag.flatten(held.regs[k], x);
    sets.flatten(regs_set[k], y);
    ASSERT_EQ(x, y) << "register " << k;
  }
}

TEST(UnionDagSlicer, AccumulatorSurvivesCollections) {
  // s = s (+) (a[k] (+) b[k]): the chain stays reachable from s only.
  UnionDagSlicer dag;
  HeldLabels held;
  held.regs.assign(1, kNoLabel);
  dag.enable_collection(&HeldLabels::scan, &held, /*min_nodes=*/1000);
  for (int row = 0; row < 50; ++row) {
    held.regs[0] = kNoLabel;
    const ValueId base = 1 + static_cast<ValueId>(row) * 10000;
    for (ValueId k = 0; k < 3000; ++k) {
      const Label product = dag.join(dag.leaf(base + 2 * k), dag.leaf(base + 2 * k + 1));
      held.regs[0] = dag.join(held.regs[0], product);
    }
    std::vector<ValueId> out;
    dag.flatten(held.regs[0], out);
    ASSERT_EQ(out.size(), 6000u);
    for (ValueId k = 0; k < 6000; ++k) ASSERT_EQ(out[k], base + k);
  }
  EXPECT_GT(dag.collections(), 10u);
  EXPECT_LE(dag.node_count(), 20000u);  // ~6000 live at the peak, not 300000 made
}

TEST(UnionDagSlicer, NoCollectionWhenRootsAreUnknown) {
  UnionDagSlicer dag;
  HeldLabels held;
  held.visible = false;
  dag.enable_collection(&HeldLabels::scan, &held, /*min_nodes=*/16);
  std::vector<Label> unreported;
  Label acc = kNoLabel;
  for (ValueId v = 1; v <= 5000; ++v) {
    acc = dag.join(acc, dag.leaf(v));
    if (v % 100 == 0) unreported.push_back(acc);
  }
  EXPECT_EQ(dag.collections(), 0u);
  for (std::size_t k = 0; k < unreported.size(); ++k) {
    std::vector<ValueId> out;
    dag.flatten(unreported[k], out);
    ASSERT_EQ(out.size(), 100 * (k + 1));
  }
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

// plan_receptions against brute force: on small random programs with
// random owners, the values each process receives under the plan must be a
// cheapest set from which it can compute everything it uses (bytes first,
// then fewest values it would not have received under owner-computes).
// With the per-location rule (a process is not sent a location's value
// after computing one of that location's itself), the plan keeps the rule.
// The planner's shortcuts (components proven to need no max-flow, feeds it
// leaves out) must not change that optimum.
#include "commanalyzer/estimate/recomputation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "commanalyzer/record/analyzer.h"

namespace commanalyzer {
namespace {

constexpr Address kBase = 0x10000;
constexpr std::uint64_t kCellBytes = 16;  // a cell holds an 8- or a 16-byte value

struct Cost {
  std::uint64_t bytes = 0;
  std::uint64_t early = 0;  // values not received under owner-computes
  auto operator<=>(const Cost&) const = default;
};

TEST(PlanReceptions, MatchesTheCheapestCutOnRandomPrograms) {
  constexpr int kProcs = 3;
  constexpr int kCells = 7;
  std::mt19937 rng(20261122);
  int checked = 0, recomputing = 0, repaired = 0;
  for (int program = 0; program < 400; ++program) {
    Analyzer<> a;
    a.region_begin();
    for (int step = 0; step < 14; ++step) {
      const int cell = static_cast<int>(rng() % kCells);
      Label label = kNoLabel;
      const int reads = 1 + static_cast<int>(rng() % 3);
      for (int r = 0; r < reads; ++r) {
        // Every other program reads near the written cell, as stencils do:
        // one remote value feeding several used ones is the interesting case.
        const auto read = program % 2 ? rng() % kCells : (cell + kCells - 1 + rng() % 3) % kCells;
        label = a.join(label, a.load(kBase + kCellBytes * read, 8));
      }
      a.store(kBase + kCellBytes * cell, rng() % 4 == 0 ? 16 : 8, a.compute(label));
    }
    a.region_end();
    const auto& profile = a.profile();
    std::vector<ProcId> cell_owner(kCells);
    for (ProcId& p : cell_owner) p = static_cast<ProcId>(rng() % kProcs);
    auto owner_of = [&](ValueId v) {
      return cell_owner[(profile.vertex_home[profile.values.vertex(v)] - kBase) / kCellBytes];
    };

    // Owner-computes: q receives every remote source of a value it owns.
    absl::flat_hash_map<ValueId, std::vector<ValueId>> sources_of;
    absl::flat_hash_set<std::uint64_t> received;
    profile.flows.for_each([&](ValueId v, std::span<const ValueId> sources) {
      sources_of[v].assign(sources.begin(), sources.end());
      for (ValueId s : sources) {
        if (owner_of(s) != owner_of(v)) received.insert(std::uint64_t{s} * kProcs + owner_of(v));
      }
    });
    const ReceptionPlan plan = plan_receptions(profile, kProcs, received, owner_of, {.per_location = false});
    const ReceptionPlan kept = plan_receptions(profile, kProcs, received, owner_of);

    for (ProcId q = 0; q < kProcs; ++q) {
      std::vector<ValueId> used, nodes;
      for (std::uint64_t k : received) {
        if (static_cast<ProcId>(k % kProcs) == q) used.push_back(static_cast<ValueId>(k / kProcs));
      }
      if (used.empty()) continue;
      std::sort(used.begin(), used.end());
      nodes = used;
      for (ValueId u : used) {  // one step back: the remote sources of used values
        if (auto it = sources_of.find(u); it != sources_of.end()) {
          for (ValueId s : it->second) {
            if (owner_of(s) != q) nodes.push_back(s);
          }
        }
      }
      std::sort(nodes.begin(), nodes.end());
      nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
      if (nodes.size() > 14) continue;
      auto is_used = [&](ValueId v) { return std::binary_search(used.begin(), used.end(), v); };
      // Ghost updates (computed only from used values that are received as
      // they are: no recorded flow, or ghost updates themselves) must be
      // received: no SPMD code keeps a ghost copy current from ghost copies.
      absl::flat_hash_set<ValueId> ghost;
      for (ValueId u : used) {
        const auto it = sources_of.find(u);
        if (it == sources_of.end()) continue;
        bool remote = false, from_ghosts = true;
        for (ValueId s : it->second) {
          if (owner_of(s) == q) continue;
          remote = true;
          from_ghosts = from_ghosts && is_used(s) && (!sources_of.contains(s) || ghost.contains(s));
        }
        if (remote && from_ghosts) ghost.insert(u);
      }
      // Can q compute what it uses when it receives `got`? (Sources are
      // older values, so ascending order settles each before its users.)
      auto feasible = [&](const absl::flat_hash_set<ValueId>& got) {
        absl::flat_hash_set<ValueId> has;
        for (ValueId u : used) {
          if (ghost.contains(u) && !got.contains(u)) return false;
          bool ok = got.contains(u);
          if (!ok) {
            const auto it = sources_of.find(u);
            ok = it != sources_of.end();
            for (ValueId s : ok ? it->second : std::vector<ValueId>{}) {
              if (owner_of(s) != q && !got.contains(s) && !has.contains(s)) ok = false;
            }
          }
          if (ok) has.insert(u);
          else return false;
        }
        return true;
      };
      // A process computing a location's values itself is not sent them
      // again (plan_receptions): no used value received after one of the
      // same location computed.
      auto keeps_computing = [&](const absl::flat_hash_set<ValueId>& got) {
        absl::flat_hash_set<Address> computing;
        for (ValueId u : used) {  // ascending
          const Address home = profile.vertex_home[profile.values.vertex(u)];
          if (!got.contains(u)) {
            computing.insert(home);
          } else if (computing.contains(home)) {
            return false;
          }
        }
        return true;
      };
      auto cost_of = [&](const absl::flat_hash_set<ValueId>& got) {
        Cost c;
        for (ValueId v : got) {
          c.bytes += profile.values.size_bytes(v);
          c.early += !is_used(v);
        }
        return c;
      };
      Cost best{~std::uint64_t{0}, 0}, best_keeping{~std::uint64_t{0}, 0};
      for (std::uint32_t mask = 0; mask < (1u << nodes.size()); ++mask) {
        absl::flat_hash_set<ValueId> got;
        for (std::size_t i = 0; i < nodes.size(); ++i) {
          if (mask >> i & 1) got.insert(nodes[i]);
        }
        if (feasible(got)) best = std::min(best, cost_of(got));
        if (feasible(got) && keeps_computing(got)) best_keeping = std::min(best_keeping, cost_of(got));
      }

      absl::flat_hash_set<ValueId> planned;
      for (ValueId u : used) {
        if (!plan.recomputed.contains(std::uint64_t{u} * kProcs + q)) planned.insert(u);
      }
      for (std::uint64_t k : plan.extra) {
        if (static_cast<ProcId>(k % kProcs) == q) planned.insert(static_cast<ValueId>(k / kProcs));
      }
      ASSERT_TRUE(feasible(planned)) << "program " << program << ", process " << q;
      const Cost got = cost_of(planned);
      EXPECT_EQ(got.bytes, best.bytes) << "program " << program << ", process " << q;
      EXPECT_EQ(got.early, best.early) << "program " << program << ", process " << q;
      // Per location: a plan that keeps the rule, no cheaper than the
      // cheapest that does, never dearer than receiving every used value.
      absl::flat_hash_set<ValueId> kept_planned;
      std::uint64_t all_used = 0;
      for (ValueId u : used) {
        all_used += profile.values.size_bytes(u);
        if (!kept.recomputed.contains(std::uint64_t{u} * kProcs + q)) kept_planned.insert(u);
      }
      for (std::uint64_t k : kept.extra) {
        if (static_cast<ProcId>(k % kProcs) == q) kept_planned.insert(static_cast<ValueId>(k / kProcs));
      }
      ASSERT_TRUE(feasible(kept_planned)) << "program " << program << ", process " << q;
      EXPECT_TRUE(keeps_computing(kept_planned)) << "program " << program << ", process " << q;
      EXPECT_GE(cost_of(kept_planned).bytes, best_keeping.bytes) << "program " << program << ", process " << q;
      EXPECT_LE(cost_of(kept_planned).bytes, all_used) << "program " << program << ", process " << q;
      repaired += cost_of(kept_planned).bytes > best_keeping.bytes;
      ++checked;
      recomputing += planned.size() != used.size() || got.early != 0;
    }
  }
  // The random programs must exercise both outcomes, not just one.
  EXPECT_GT(checked, 300);
  EXPECT_GT(recomputing, 20);
  std::printf("per location: %d of %d plans dearer than the cheapest that keeps the rule\n", repaired, checked);
}

// The index finds every list, added in any order (as each step back
// adds its own), including empty ones and lists larger than a block, and
// no value without one.
TEST(RecordedSources, FindsListsAddedInAnyOrder) {
  constexpr ValueId kValues = 300000;
  recomputation_internal::RecordedSources sources(kValues + 1);
  std::mt19937 rng(7);
  std::vector<std::vector<ValueId>> expected(kValues + 1);
  std::vector<ValueId> order;
  for (ValueId v = 1; v <= kValues; v += 1 + rng() % 5) order.push_back(v);
  std::shuffle(order.begin(), order.end(), rng);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const ValueId v = order[i];
    // Mostly a few sources; now and then none, or more than a block holds.
    const std::size_t size = i % 997 == 0 ? 70000 + i % 13 : i % 11 == 0 ? 0 : 1 + rng() % 9;
    for (std::size_t k = 0; k < size; ++k) expected[v].push_back(static_cast<ValueId>(rng()));
    sources.add(v, expected[v]);
  }
  sources.seal();
  std::vector<bool> added(kValues + 1, false);
  for (ValueId v : order) added[v] = true;
  for (ValueId v = 0; v <= kValues; ++v) {
    ASSERT_EQ(sources.contains(v), added[v]) << v;
    if (!added[v]) continue;
    const std::span<const ValueId> got = sources[v];
    ASSERT_TRUE(std::equal(got.begin(), got.end(), expected[v].begin(), expected[v].end())) << v;
  }
}

TEST(ValueMarks, KeepsTwoFlagsPerValueApart) {
  recomputation_internal::ValueMarks marks(100);
  marks.set(31, 1);
  marks.set(32, 2);
  marks.set(33, 1);
  marks.set(33, 2);
  EXPECT_EQ(marks[30], 0);
  EXPECT_EQ(marks[31], 1);
  EXPECT_EQ(marks[32], 2);
  EXPECT_EQ(marks[33], 3);
  marks.clear_all();
  EXPECT_EQ(marks[31], 0);
  EXPECT_EQ(marks[32], 0);
}

// A receiver marks a few values of each iteration: the marks hold pages
// where there are marks, not two bits for every value of the run.
TEST(ValueMarks, HoldMemoryForThePagesMarkedOnly) {
  constexpr std::size_t kValues = std::size_t{1} << 26;  // a dense array: 16 MiB
  recomputation_internal::ValueMarks marks(kValues);
  const std::size_t empty = marks.memory_bytes();
  EXPECT_LT(empty, kValues / 4 / 32);  // page pointers
  for (ValueId v = 5; v < kValues; v += kValues / 16) marks.set(v, 1);  // 16 pages
  EXPECT_EQ(marks[5], 1);
  EXPECT_EQ(marks[5 + kValues / 16], 1);
  EXPECT_EQ(marks[6], 0);
  const std::size_t marked = marks.memory_bytes();
  EXPECT_GE(marked, empty + 16 * 512);  // a page: 4096 bits and their ranks
  EXPECT_LT(marked, empty + 64 * 1024);
  marks.clear_all();
  EXPECT_EQ(marks[5], 0);
  EXPECT_LE(marks.memory_bytes(), empty);
}

// Recomputation is decided per location: a process that computes a
// location's values itself is not sent them again. A random stream
// r = f(r) on process 0 updates table cells of every process; where two
// numbers in a row go to the same process, the cheapest cut would have it
// compute the second from the first, then receive later ones again: an MPI
// code sends them all (PRK Random). A stream whose every number goes to
// one process is computed there from the first it receives.
TEST(PlanReceptions, AProcessComputingALocationsValuesIsNotSentThemAgain) {
  constexpr int kProcs = 3;
  constexpr Address kStream = kBase, kTable = kBase + 64;
  auto plan_for = [&](const std::vector<int>& cells) {
    Analyzer<> a;
    a.region_begin();
    a.store(kStream, 8, a.compute(kNoLabel), 1);  // the seed
    for (int cell : cells) {
      a.store(kStream, 8, a.compute(a.load(kStream, 8)), 2);  // r = f(r)
      const Address at = kTable + 8 * static_cast<Address>(cell);
      a.store(at, 8, a.compute(a.join(a.load(at, 8), a.load(kStream, 8))), 3);  // table[cell] ^= r
    }
    a.region_end();
    const auto& profile = a.profile();
    auto owner_of = [&](ValueId v) {
      const Address home = profile.vertex_home[profile.values.vertex(v)];
      return home == kStream ? ProcId{0} : static_cast<ProcId>((home - kTable) / 8 % kProcs);
    };
    absl::flat_hash_set<std::uint64_t> received;
    profile.flows.for_each([&](ValueId v, std::span<const ValueId> sources) {
      for (ValueId s : sources) {
        if (owner_of(s) != owner_of(v)) received.insert(std::uint64_t{s} * kProcs + owner_of(v));
      }
    });
    return plan_receptions(profile, kProcs, received, owner_of);
  };
  // Cells of processes 1, 1, 2, 2, 1, 2: each could compute one number, not the next.
  EXPECT_TRUE(plan_for({1, 4, 2, 5, 1, 2}).recomputed.empty());
  // Every number to process 1: all but the first recomputed from the one before.
  EXPECT_EQ(plan_for({1, 4, 7, 1, 4, 7}).recomputed.size(), 5u);
}

}  // namespace
}  // namespace commanalyzer

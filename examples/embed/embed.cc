// Embedding CommAnalyzer: drive an Analyzer with your own events and your
// own policy, and estimate the communication without the command-line tool
// or the LLVM pass.
//
// The events are those of a 1-D Jacobi sweep over two arrays of n doubles,
// u and unew, for `steps` time steps (what the instrumented loop
//   for (i = 1; i < n - 1; ++i) unew[i] = (u[i-1] + u[i] + u[i+1]) / 3;
//   for (i = 1; i < n - 1; ++i) u[i] = unew[i];
// reports). The custom policy is the shadow memory: an ordered map from
// word to value instead of the default paged table. Any type satisfying
// the ShadowMemory concept (shadow_memory.h) plugs in the same way.
//
// Block distribution on P processes: every step, each of the P - 1 cuts
// sends one double each way, so 2 (P - 1) 8 steps bytes in all.
#include <cstdint>
#include <cstdio>
#include <map>

#include "commanalyzer/record/analyzer.h"
#include "commanalyzer/estimate/estimate.h"

namespace {

// Word index -> value instance, in a std::map: slower than the paged
// table, but small for sparse address sets and easy to read.
class MapShadowMemory {
 public:
  static constexpr std::size_t kWordBytes = 4;

  commanalyzer::ValueId get(std::uint64_t word) const {
    const auto it = words_.find(word);
    return it == words_.end() ? commanalyzer::kNoValue : it->second;
  }

  commanalyzer::ValueId exchange(std::uint64_t word, commanalyzer::ValueId v) {
    if (v == commanalyzer::kNoValue) {
      const auto it = words_.find(word);
      if (it == words_.end()) return commanalyzer::kNoValue;
      const commanalyzer::ValueId old = it->second;
      words_.erase(it);
      return old;
    }
    auto [it, inserted] = words_.try_emplace(word, v);
    const commanalyzer::ValueId old = inserted ? commanalyzer::kNoValue : it->second;
    it->second = v;
    return old;
  }

  template <class Fn>
  void for_each_value(Fn fn) const {
    for (const auto& [word, v] : words_) fn(v);
  }

  std::size_t memory_bytes() const { return words_.size() * 48; }  // a red-black tree node each

 private:
  std::map<std::uint64_t, commanalyzer::ValueId> words_;
};
static_assert(commanalyzer::ShadowMemory<MapShadowMemory>);

// Records the sweep into any Analyzer.
template <class A>
void jacobi1d(A& a, commanalyzer::Address u, commanalyzer::Address unew, std::uint64_t n, int steps) {
  a.allocation(u, 8 * n);  // arrays: their elements are what is distributed
  a.allocation(unew, 8 * n);
  a.region_begin();
  for (int t = 0; t < steps; ++t) {
    for (std::uint64_t i = 1; i + 1 < n; ++i) {
      const auto sum = a.join(a.join(a.load(u + 8 * (i - 1), 8), a.load(u + 8 * i, 8)), a.load(u + 8 * (i + 1), 8));
      a.store(unew + 8 * i, 8, a.compute(sum));
    }
    for (std::uint64_t i = 1; i + 1 < n; ++i) a.store(u + 8 * i, 8, a.load(unew + 8 * i, 8));
    a.iteration();
  }
  a.region_end();
  a.finish();
}

}  // namespace

int main() {
  constexpr std::uint64_t n = 1024;
  constexpr int steps = 5, procs = 4;
  commanalyzer::Analyzer<MapShadowMemory> analyzer;
  jacobi1d(analyzer, 0x100000, 0x200000, n, steps);

  // Block distribution only (the portfolio's other candidates are off).
  commanalyzer::DistributionPortfolio block_only(true, false, false);
  commanalyzer::Estimator<decltype(analyzer)::ProfileType, commanalyzer::DensityDistanceScorer,
                          commanalyzer::DistributionPortfolio>
      estimator(analyzer.profile(), {}, block_only);
  const commanalyzer::CommEstimate e = estimator.estimate(procs);
  std::printf("%d processes, %s distribution: %llu bytes point-to-point in %llu messages, %llu bytes in all\n",
              e.procs, e.distribution.c_str(), static_cast<unsigned long long>(e.p2p_bytes),
              static_cast<unsigned long long>(e.p2p_messages), static_cast<unsigned long long>(e.total_bytes()));
  const std::uint64_t expected = 2ull * (procs - 1) * 8 * steps;
  if (e.total_bytes() != expected) {
    std::fprintf(stderr, "expected %llu bytes\n", static_cast<unsigned long long>(expected));
    return 1;
  }
  return 0;
}

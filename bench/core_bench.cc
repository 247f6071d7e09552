// Run-time side of the analysis: shadow memory, slicers, and the event
// ingestion rate of the composed Analyzer on synthetic streams.
//
// Every benchmark has a "small" variant for quick runs:
//   bazel run //bench:core_bench -- --benchmark_filter=small
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench_streams.h"
#include "commanalyzer/record/analyzer.h"
#include "commanalyzer/record/compressor.h"
#include "commanalyzer/record/shadow_memory.h"
#include "commanalyzer/record/slicer.h"
#include "tests/event_streams.h"

namespace commanalyzer::bench {
namespace {

// Heap-like fake addresses, as an instrumented program would report them.
constexpr Address kHeap = 0x55d0'4a20'0000;

// ------------------------------------------------------------ shadow memory

enum class Pattern { kStreaming, kRandom };

// One item = one get + one exchange of the same word (what a load followed
// by a store to the location costs the shadow memory). The word sequence is
// built and the table populated before timing, so the loop measures steady
// state lookups and assignments, not page allocation.
template <class Shadow>
void BM_Shadow(benchmark::State& state, Pattern pattern) {
  const auto words = static_cast<std::uint64_t>(state.range(0));
  const std::uint64_t base = kHeap / Shadow::kWordBytes;
  std::vector<std::uint64_t> order(words);
  std::iota(order.begin(), order.end(), base);
  if (pattern == Pattern::kRandom) std::shuffle(order.begin(), order.end(), std::mt19937_64(42));
  Shadow shadow;
  for (std::uint64_t w : order) shadow.exchange(w, static_cast<ValueId>(w - base + 1));

  ValueId next = 1;
  std::uint64_t checksum = 0;
  for (auto _ : state) {
    for (std::uint64_t w : order) {
      const ValueId held = shadow.get(w);
      checksum += held + shadow.exchange(w, next++);
    }
    benchmark::DoNotOptimize(checksum);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * words));
  state.counters["words"] = static_cast<double>(words);
  state.counters["mem_bytes_per_word"] = static_cast<double>(shadow.memory_bytes()) / static_cast<double>(words);
}

template <class Shadow>
void register_shadow(const char* name) {
  for (const auto& [size_name, words] : {std::pair{"small", 1 << 16}, std::pair{"large", 1 << 22}}) {
    for (const auto& [pattern_name, pattern] :
         {std::pair{"streaming", Pattern::kStreaming}, std::pair{"random", Pattern::kRandom}}) {
      const std::string full = std::string("Shadow/") + name + "/" + pattern_name + "/" + size_name;
      benchmark::RegisterBenchmark(full.c_str(), BM_Shadow<Shadow>, pattern)->Arg(words);
    }
  }
}

[[maybe_unused]] const bool kShadowRegistered = [] {
  register_shadow<PagedShadowMemory<4>>("Paged4");
  register_shadow<HashShadowMemory<4>>("Hash4");
  return true;
}();

// ------------------------------------------------------------------ slicers

// A 5-point-stencil-sized label per cell of an n x n grid (5 leaves, 4
// joins), flattened as a store would: one item = one cell (4 joins + 1
// flatten). A fresh slicer per iteration, as one run of the analyzer.
template <class S>
void BM_SlicerStencil(benchmark::State& state) {
  const auto n = static_cast<std::uint64_t>(state.range(0));
  auto id = [n](std::uint64_t i, std::uint64_t j) { return static_cast<ValueId>(i * n + j + 1); };
  std::size_t total_sources = 0;
  std::size_t memory = 0;
  for (auto _ : state) {
    S slicer;
    std::vector<ValueId> out;
    for (std::uint64_t i = 1; i + 1 < n; ++i) {
      for (std::uint64_t j = 1; j + 1 < n; ++j) {
        Label l = slicer.join(slicer.leaf(id(i, j)), slicer.leaf(id(i - 1, j)));
        l = slicer.join(l, slicer.leaf(id(i + 1, j)));
        l = slicer.join(l, slicer.leaf(id(i, j - 1)));
        l = slicer.join(l, slicer.leaf(id(i, j + 1)));
        slicer.flatten(l, out);
        total_sources += out.size();
      }
    }
    memory = slicer.memory_bytes();
    benchmark::DoNotOptimize(total_sources);
  }
  const auto cells = static_cast<std::int64_t>((n - 2) * (n - 2));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * cells);
  state.counters["joins"] = benchmark::Counter(static_cast<double>(state.iterations() * cells * 4),
                                               benchmark::Counter::kIsRate);
  state.counters["mem_bytes_per_cell"] = static_cast<double>(memory) / static_cast<double>(cells);
}

// A register accumulator s = s (+) a[k] over `length` loads, flattened once
// at the end (one item = one join). Linear for the DAG, quadratic for
// eager sets.
template <class S>
void BM_SlicerAccumulator(benchmark::State& state) {
  const auto length = static_cast<ValueId>(state.range(0));
  std::size_t memory = 0;
  for (auto _ : state) {
    S slicer;
    std::vector<ValueId> out;
    Label s = slicer.leaf(1);
    for (ValueId k = 2; k <= length; ++k) s = slicer.join(s, slicer.leaf(k));
    slicer.flatten(s, out);
    benchmark::DoNotOptimize(out.data());
    memory = slicer.memory_bytes();
    if (out.size() != length) state.SkipWithError("wrong source set");
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * length);
  state.counters["mem_bytes"] = static_cast<double>(memory);
}

BENCHMARK(BM_SlicerStencil<UnionDagSlicer>)->Name("Slicer/UnionDag/stencil5/small")->Arg(66);
BENCHMARK(BM_SlicerStencil<UnionDagSlicer>)->Name("Slicer/UnionDag/stencil5/large")->Arg(514);
BENCHMARK(BM_SlicerStencil<InternedSetSlicer>)->Name("Slicer/InternedSet/stencil5/small")->Arg(66);
BENCHMARK(BM_SlicerStencil<InternedSetSlicer>)->Name("Slicer/InternedSet/stencil5/large")->Arg(514);
BENCHMARK(BM_SlicerAccumulator<UnionDagSlicer>)->Name("Slicer/UnionDag/accumulator/small")->Arg(256);
BENCHMARK(BM_SlicerAccumulator<UnionDagSlicer>)->Name("Slicer/UnionDag/accumulator/large")->Arg(4096);
BENCHMARK(BM_SlicerAccumulator<InternedSetSlicer>)->Name("Slicer/InternedSet/accumulator/small")->Arg(256);
BENCHMARK(BM_SlicerAccumulator<InternedSetSlicer>)
    ->Name("Slicer/InternedSet/accumulator/large")
    ->Arg(4096)
    ->Unit(benchmark::kMillisecond);

// Heat2D's real label shape: each cell's 5-point label is flattened at its
// store, and the residual `diff = max(diff, |unew - u|)` joins every cell's
// label into one, flattened once per sweep (a branch decides on it). One
// item = one cell. The residual's flatten is the large-set path (leaf
// bitmap, read back in order).
void BM_SlicerSweepResidual(benchmark::State& state) {
  const auto n = static_cast<std::uint64_t>(state.range(0));
  constexpr int kSweeps = 3;
  auto id = [n](int sweep, std::uint64_t i, std::uint64_t j) {
    return static_cast<ValueId>(static_cast<std::uint64_t>(sweep) * n * n + i * n + j + 1);
  };
  std::size_t residual_sources = 0;
  for (auto _ : state) {
    UnionDagSlicer slicer;
    std::vector<ValueId> out;
    for (int sweep = 0; sweep < kSweeps; ++sweep) {
      Label diff = kNoLabel;
      for (std::uint64_t i = 1; i + 1 < n; ++i) {
        for (std::uint64_t j = 1; j + 1 < n; ++j) {
          Label l = slicer.join(slicer.leaf(id(sweep, i - 1, j)), slicer.leaf(id(sweep, i + 1, j)));
          l = slicer.join(l, slicer.leaf(id(sweep, i, j - 1)));
          l = slicer.join(l, slicer.leaf(id(sweep, i, j + 1)));
          l = slicer.join(l, slicer.leaf(id(sweep, i, j)));
          slicer.flatten(l, out);
          diff = slicer.join(diff, l);
        }
      }
      slicer.flatten(diff, out);
      residual_sources = out.size();
    }
    benchmark::DoNotOptimize(residual_sources);
  }
  const auto cells = static_cast<std::int64_t>((n - 2) * (n - 2) * kSweeps);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * cells);
  state.counters["residual_sources"] = static_cast<double>(residual_sources);
}

// Label-DAG collection as the runtime uses it: a dot-product accumulator
// per output element (MatMul), with the live labels reported by a scanner.
// One item = one join. The arena stays at its floor (min_nodes) instead of
// growing by two nodes per multiply-add.
struct BenchRoots {
  Label held[2] = {kNoLabel, kNoLabel};
  static bool scan(void* context, UnionDagSlicer& slicer) {
    auto* self = static_cast<BenchRoots*>(context);
    slicer.mark_roots(self->held, self->held + 2);
    return true;
  }
};

void BM_SlicerDotProducts(benchmark::State& state, bool collect) {
  const auto n = static_cast<ValueId>(state.range(0));
  std::size_t memory = 0, nodes = 0;
  for (auto _ : state) {
    UnionDagSlicer slicer;
    BenchRoots roots;
    if (collect) slicer.enable_collection(&BenchRoots::scan, &roots, std::size_t{1} << 16);
    std::vector<ValueId> out;
    for (ValueId i = 0; i < n; ++i) {
      for (ValueId j = 0; j < n; ++j) {
        roots.held[0] = kNoLabel;
        for (ValueId k = 0; k < n; ++k) {
          roots.held[1] = slicer.join(slicer.leaf(1 + i * n + k), slicer.leaf(1 + n * n + k * n + j));
          roots.held[0] = slicer.join(roots.held[0], roots.held[1]);
        }
        slicer.flatten(roots.held[0], out);
      }
    }
    memory = slicer.memory_bytes();
    nodes = slicer.node_count();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 2 * n * n * n);
  state.counters["node_slots"] = static_cast<double>(nodes);
  state.counters["mem_MB"] = static_cast<double>(memory) / 1e6;
}

BENCHMARK(BM_SlicerSweepResidual)->Name("Slicer/UnionDag/sweep_residual/small")->Arg(66);
BENCHMARK(BM_SlicerSweepResidual)
    ->Name("Slicer/UnionDag/sweep_residual/large")
    ->Arg(514)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SlicerDotProducts, kept, false)->Name("Slicer/UnionDag/dot_products/small")->Arg(24);
BENCHMARK_CAPTURE(BM_SlicerDotProducts, kept, false)
    ->Name("Slicer/UnionDag/dot_products/large")
    ->Arg(128)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SlicerDotProducts, collected, true)
    ->Name("Slicer/UnionDag/dot_products_collected/small")
    ->Arg(24);
BENCHMARK_CAPTURE(BM_SlicerDotProducts, collected, true)
    ->Name("Slicer/UnionDag/dot_products_collected/large")
    ->Arg(128)
    ->Unit(benchmark::kMillisecond);

// ------------------------------------------------------------- flow stores

// Appending value-flow chains of two shapes: a 5-point stencil sweep (one
// chain per cell) and MatMul's row-times-column (2n sources per chain).
// One item = one chain; bytes_per_chain is the store's memory per chain.
template <class F>
void BM_FlowStore(benchmark::State& state, bool matmul) {
  const auto n = static_cast<ValueId>(state.range(0));
  std::vector<std::vector<ValueId>> chains;
  for (ValueId i = 1; i + 1 < n; ++i) {
    for (ValueId j = 1; j + 1 < n; ++j) {
      if (matmul) {
        std::vector<ValueId> s;
        for (ValueId k = 0; k < n; ++k) s.push_back(1 + i * n + k);
        for (ValueId k = 0; k < n; ++k) s.push_back(1 + n * n + k * n + j);
        chains.push_back(std::move(s));
      } else {
        const ValueId c = 1 + i * n + j;
        chains.push_back({c - n, c - 1, c, c + 1, c + n});
      }
    }
  }
  std::size_t bytes = 0;
  for (auto _ : state) {
    F flows;
    ValueId v = 2 * n * n + 1;
    for (const auto& s : chains) flows.append(++v, s);
    bytes = flows.memory_bytes();
    benchmark::DoNotOptimize(flows.source_count());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * chains.size()));
  state.counters["bytes_per_chain"] = static_cast<double>(bytes) / static_cast<double>(chains.size());
}

void BM_FlatFlowStore(benchmark::State& state, bool matmul) { BM_FlowStore<FlatFlowStore>(state, matmul); }
void BM_VarintFlowStore(benchmark::State& state, bool matmul) { BM_FlowStore<VarintFlowStore>(state, matmul); }

BENCHMARK_CAPTURE(BM_FlatFlowStore, stencil, false)->Name("FlowStore/Flat/stencil5/small")->Arg(66);
BENCHMARK_CAPTURE(BM_VarintFlowStore, stencil, false)->Name("FlowStore/Varint/stencil5/small")->Arg(66);
BENCHMARK_CAPTURE(BM_FlatFlowStore, stencil, false)->Name("FlowStore/Flat/stencil5/large")->Arg(1026);
BENCHMARK_CAPTURE(BM_VarintFlowStore, stencil, false)->Name("FlowStore/Varint/stencil5/large")->Arg(1026);
BENCHMARK_CAPTURE(BM_FlatFlowStore, matmul, true)->Name("FlowStore/Flat/matmul/small")->Arg(32);
BENCHMARK_CAPTURE(BM_VarintFlowStore, matmul, true)->Name("FlowStore/Varint/matmul/small")->Arg(32);
BENCHMARK_CAPTURE(BM_FlatFlowStore, matmul, true)->Name("FlowStore/Flat/matmul/large")->Arg(160);
BENCHMARK_CAPTURE(BM_VarintFlowStore, matmul, true)->Name("FlowStore/Varint/matmul/large")->Arg(160);

// ---------------------------------------------------------------- analyzer

// One item = one load or store event (AnalyzerStats::loads + stores); joins
// and computes ride along uncounted. A fresh Analyzer per iteration, so each
// iteration is one complete analysed run of the kernel. Rates are per CPU
// second of the analysing thread (kernel time for page faults included), the
// "events per second on one core" figure, robust to other load on the box.
template <class A>
void report_analyzer(benchmark::State& state, const A& a) {
  const std::uint64_t events = a.stats().loads + a.stats().stores;
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * events));
  state.counters["events"] = static_cast<double>(events);
  state.counters["flows"] = static_cast<double>(a.profile().flows.flow_count());
  state.counters["vertices"] = static_cast<double>(a.profile().vertex_count());
  state.counters["mem_bytes_per_event"] = static_cast<double>(a.memory_bytes()) / static_cast<double>(events);
  state.counters["mem_MB"] = static_cast<double>(a.memory_bytes()) / 1e6;
}

template <class A>
void BM_AnalyzerHeat2D(benchmark::State& state) {
  const auto n = static_cast<std::uint64_t>(state.range(0));
  const int steps = static_cast<int>(state.range(1));
  const Array u{kHeap, n}, unew{kHeap + 8 * n * n + 4096, n};
  std::unique_ptr<A> last;
  for (auto _ : state) {
    auto a = std::make_unique<A>();
    a->region_begin();
    heat2d(*a, u, unew, n, steps);
    a->finish();  // region end; a LiveAtEndValueStore marks its outputs here
    benchmark::DoNotOptimize(a->profile().flows.source_count());
    last = std::move(a);  // freed on the next iteration: timed, as a real run's teardown
  }
  report_analyzer(state, *last);
}

template <class A>
void BM_AnalyzerMatmul(benchmark::State& state) {
  const auto n = static_cast<std::uint64_t>(state.range(0));
  const Array C{kHeap, n}, Am{kHeap + 8 * n * n + 4096, n}, Bm{kHeap + 16 * n * n + 8192, n};
  std::unique_ptr<A> last;
  for (auto _ : state) {
    auto a = std::make_unique<A>();
    a->region_begin();
    testing::matmul(*a, C, Am, Bm, n);
    a->finish();  // region end; a LiveAtEndValueStore marks its outputs here
    benchmark::DoNotOptimize(a->profile().flows.source_count());
    last = std::move(a);
  }
  report_analyzer(state, *last);
}

// The 13-point sweep that generates the partitioning benchmarks' profile.
template <class A>
void BM_AnalyzerStencil13(benchmark::State& state) {
  const auto n = static_cast<std::uint64_t>(state.range(0));
  const Array u{kHeap, n};
  std::unique_ptr<A> last;
  for (auto _ : state) {
    auto a = std::make_unique<A>();
    a->region_begin();
    stencil13_sweep(*a, u, n);
    a->finish();  // region end; a LiveAtEndValueStore marks its outputs here
    benchmark::DoNotOptimize(a->profile().flows.source_count());
    last = std::move(a);
  }
  report_analyzer(state, *last);
}

using DefaultAnalyzer = Analyzer<>;
using HashAnalyzer = Analyzer<HashShadowMemory<4>>;
using Word8Analyzer = Analyzer<PagedShadowMemory<8>>;
using VarintAnalyzer = Analyzer<PagedShadowMemory<>, UnionDagSlicer, CoalesceExclusiveUpdates,
                                CompactValueStore, VarintFlowStore>;
// The instrumentation runtime's policies (instrument/runtime.cpp).
using RuntimeAnalyzer = Analyzer<PagedShadowMemory<>, UnionDagSlicer, CoalesceExclusiveUpdates,
                                 LiveAtEndValueStore, VarintFlowStore>;

BENCHMARK(BM_AnalyzerHeat2D<DefaultAnalyzer>)->Name("Analyzer/default/heat2d/small")->Args({66, 4});
BENCHMARK(BM_AnalyzerHeat2D<DefaultAnalyzer>)
    ->Name("Analyzer/default/heat2d/large")
    ->Args({1026, 4})
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(5)  // one run is ~1 s, mostly first-touch page faults: noisy
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_AnalyzerMatmul<DefaultAnalyzer>)->Name("Analyzer/default/matmul/small")->Arg(32);
BENCHMARK(BM_AnalyzerMatmul<DefaultAnalyzer>)
    ->Name("Analyzer/default/matmul/large")
    ->Arg(160)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(5)  // one run is ~1 s, mostly first-touch page faults: noisy
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_AnalyzerStencil13<DefaultAnalyzer>)->Name("Analyzer/default/stencil13/small")->Arg(100);
BENCHMARK(BM_AnalyzerStencil13<DefaultAnalyzer>)
    ->Name("Analyzer/default/stencil13/large")
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(5)  // one run is ~1 s, mostly first-touch page faults: noisy
    ->ReportAggregatesOnly(true);
// Policy alternatives on the Heat2D stream, for comparison.
BENCHMARK(BM_AnalyzerHeat2D<HashAnalyzer>)
    ->Name("Analyzer/hash_shadow/heat2d/large")
    ->Args({1026, 4})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AnalyzerHeat2D<Word8Analyzer>)
    ->Name("Analyzer/paged8_shadow/heat2d/large")
    ->Args({1026, 4})
    ->Unit(benchmark::kMillisecond);
// Varint flows with live copies counted per store, and marked at the end
// instead (the runtime's policies), side by side: repetitions interleaved
// (--benchmark_enable_random_interleaving) and compared by their best, as
// first-touch page faults make single runs vary by 2x on this VM.
double best_of(const std::vector<double>& runs) { return *std::min_element(runs.begin(), runs.end()); }
BENCHMARK(BM_AnalyzerHeat2D<VarintAnalyzer>)
    ->Name("Analyzer/varint_flows/heat2d/large")
    ->Args({1026, 4})
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(8)
    ->ComputeStatistics("min", best_of)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_AnalyzerHeat2D<RuntimeAnalyzer>)
    ->Name("Analyzer/varint_flows_live_at_end/heat2d/large")
    ->Args({1026, 4})
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(8)
    ->ComputeStatistics("min", best_of)
    ->ReportAggregatesOnly(true);

}  // namespace
}  // namespace commanalyzer::bench

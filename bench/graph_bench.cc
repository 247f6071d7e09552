// Estimate side: VCG build, METIS partitioning and partition + cost for
// several process counts, on the profile of one in-place sweep of a
// radius-2 (13-point) stencil (bench_streams.h):
//   large: 1000 x 1000 grid -> 1,000,000 flows, 1,000,000 vertices,
//          11,980,004 directed edges (METIS sees the symmetric closure);
//   small: 100 x 100 grid (quick runs, --benchmark_filter=small).
// The profiles, graphs and estimators are built once per size, lazily (a
// filtered run never builds the large one), outside every timed region.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_streams.h"
#include "commanalyzer/record/analyzer.h"
#include "commanalyzer/estimate/estimate.h"
#include "commanalyzer/estimate/partitioner.h"
#include "commanalyzer/estimate/value_graph.h"

namespace commanalyzer::bench {
namespace {

using ProfileT = Analyzer<>::ProfileType;
using EstimatorT = Estimator<ProfileT>;

constexpr Address kGridBase = 0x55d0'4a20'0000;

const ProfileT& stencil_profile(std::uint64_t n) {
  static std::map<std::uint64_t, std::unique_ptr<ProfileT>> cache;
  auto& slot = cache[n];
  if (!slot) {
    Analyzer<> a;
    a.region_begin();
    stencil13_sweep(a, Array{kGridBase, n}, n);
    a.region_end();
    slot = std::make_unique<ProfileT>(a.take_profile());
  }
  return *slot;
}

// Estimator construction builds the graph and scores singletons once.
const EstimatorT& stencil_estimator(std::uint64_t n) {
  static std::map<std::uint64_t, std::unique_ptr<EstimatorT>> cache;
  auto& slot = cache[n];
  if (!slot) slot = std::make_unique<EstimatorT>(stencil_profile(n));
  return *slot;
}

void graph_counters(benchmark::State& state, const ValueGraph& g) {
  state.counters["vertices"] = static_cast<double>(g.vertex_count());
  state.counters["directed_edges"] = static_cast<double>(g.edge_count());
  state.counters["metis_adjacency"] = static_cast<double>(g.symmetric_entries());
}

// One item = one source entry of a value-flow chain (a pair to collapse).
void BM_GraphBuild(benchmark::State& state) {
  const ProfileT& profile = stencil_profile(static_cast<std::uint64_t>(state.range(0)));
  std::size_t edges = 0;
  for (auto _ : state) {
    ValueGraph g = ValueGraph::build(profile);
    edges = g.edge_count();
    benchmark::DoNotOptimize(edges);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * profile.flows.source_count()));
  state.counters["flows"] = static_cast<double>(profile.flows.flow_count());
  state.counters["flow_sources"] = static_cast<double>(profile.flows.source_count());
  state.counters["directed_edges"] = static_cast<double>(edges);
}

void BM_MetisPartition(benchmark::State& state) {
  const EstimatorT& estimator = stencil_estimator(static_cast<std::uint64_t>(state.range(0)));
  const int parts = static_cast<int>(state.range(1));
  const ValueGraph& g = estimator.graph();
  const MetisPartitioner metis;
  std::vector<ProcId> owner;
  for (auto _ : state) {
    owner = metis.partition(g, estimator.singletons(), parts);
    benchmark::DoNotOptimize(owner.data());
  }
  // Quality, outside the timed region: cut weight over the directed VCG and
  // the heaviest part relative to the average.
  std::uint64_t cut = 0;
  const auto& d = g.directed();
  for (auto e : boost::make_iterator_range(boost::edges(d))) {
    if (owner[boost::source(e, d)] != owner[boost::target(e, d)]) cut += d[e].uses;
  }
  std::vector<std::uint64_t> load(parts, 0);
  std::uint64_t total = 0;
  for (ValueGraph::Vertex v = 0; v < g.vertex_count(); ++v) {
    if (owner[v] >= 0) load[owner[v]] += g.weight(v), total += g.weight(v);
  }
  graph_counters(state, g);
  state.counters["cut_uses"] = static_cast<double>(cut);
  state.counters["imbalance"] =
      total == 0 ? 0.0 : static_cast<double>(*std::max_element(load.begin(), load.end())) * parts / total;
}

// Estimator::estimate(std::vector<int>) for 2..64 processes: one METIS
// partition and one cost-model pass per count. Target (large): < 30 s.
void BM_Estimate6(benchmark::State& state) {
  const EstimatorT& estimator = stencil_estimator(static_cast<std::uint64_t>(state.range(0)));
  const std::vector<int> procs{2, 4, 8, 16, 32, 64};
  std::vector<CommEstimate> all;
  for (auto _ : state) {
    all = estimator.estimate(procs);
    benchmark::DoNotOptimize(all.data());
  }
  graph_counters(state, estimator.graph());
  state.counters["singletons"] = static_cast<double>(
      std::count(estimator.singletons().begin(), estimator.singletons().end(), std::uint8_t{1}));
  for (const CommEstimate& e : all) {
    state.counters["MB_p" + std::to_string(e.procs)] = static_cast<double>(e.total_bytes()) / 1e6;
  }
}

BENCHMARK(BM_GraphBuild)->Name("Graph/build/stencil13/small")->Arg(100)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GraphBuild)
    ->Name("Graph/build/stencil13/large")
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_MetisPartition)
    ->Name("Metis/partition/stencil13/small")
    ->Args({100, 64})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_MetisPartition)
    ->Name("Metis/partition/stencil13/large")
    ->Args({1000, 64})
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();
BENCHMARK(BM_Estimate6)
    ->Name("Estimate/p2-64/stencil13/small")
    ->Arg(100)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Estimate6)
    ->Name("Estimate/p2-64/stencil13/large")
    ->Arg(1000)
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();

}  // namespace
}  // namespace commanalyzer::bench

// cube_estimate: what the cost model predicts for lulesh_seq under the MPI
// reference's own decomposition (cube blocks of elements, q x q x q
// processes), next to a METIS value partition's prediction. It separates
// the two sources of LULESH's estimation error (docs/FINDINGS.md): the cost
// model given the reference's decomposition, and the partition found.
// Each is costed twice: with partial sums to the owner and the sum back,
// and as `commanalyzer` does by default, with exchange_partials (the
// reference's scheme for shared nodes' forces).
//
//   commanalyzer analyze examples/lulesh/lulesh_seq.c --procs 8 --out DIR -- S STEPS
//   bazel run //examples:lulesh_cube_estimate -- DIR/build/program.profile S P
//
// Node arrays ((S+1)^3 doubles) and element arrays (S^3) are recognised by
// their length; a node belongs to the block of its lowest-indexed element.
// Workspace values (stack temporaries) follow the element they are computed
// for: the owner of their element-array sources, else of their consumers
// (later workspace values, then arrays), else of their other sources.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

#include "commanalyzer/estimate/partitioner.h"
#include "commanalyzer/estimate/estimate.h"
#include "commanalyzer/record/profile_io.h"

using namespace commanalyzer;

namespace {

// Sum over nodes of (processes owning one of its elements - 1): the shared
// node copies of a duplicated-node MPI code.
long shared_nodes(const std::vector<ProcId>& element_owner, long s) {
  long shared = 0;
  for (long i = 0; i <= s; ++i)
    for (long j = 0; j <= s; ++j)
      for (long k = 0; k <= s; ++k) {
        std::vector<ProcId> owners;
        for (long a = i - 1; a <= i; ++a)
          for (long b = j - 1; b <= j; ++b)
            for (long c = k - 1; c <= k; ++c) {
              if (a >= 0 && b >= 0 && c >= 0 && a < s && b < s && c < s) owners.push_back(element_owner[(a * s + b) * s + c]);
            }
        std::sort(owners.begin(), owners.end());
        shared += std::unique(owners.begin(), owners.end()) - owners.begin() - 1;
      }
  return shared;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s PROFILE S P   (P a cube: 8, 27, 64, ...)\n", argv[0]);
    return 2;
  }
  const auto profile = load_profile(argv[1]);
  const long s = std::atol(argv[2]), procs = std::atol(argv[3]);
  const long q = std::lround(std::cbrt(static_cast<double>(procs)));
  if (s < 1 || q * q * q != procs) {
    std::fprintf(stderr, "cube_estimate: S must be >= 1 and P a cube, got S=%ld P=%ld\n", s, procs);
    return 2;
  }
  const long sn = s + 1, elements = s * s * s, nodes = sn * sn * sn;
  const ValueGraph graph = ValueGraph::build(profile);
  const std::vector<std::uint8_t> singletons = DensityDistanceScorer{}.detect(graph);
  const std::size_t n = graph.vertex_count();

  // Each heap array's lowest and highest home: its index range.
  std::map<std::uint32_t, std::pair<Address, Address>> range;
  for (std::size_t v = 0; v < n; ++v) {
    if (const auto group = graph.group(v); group != 0) {
      auto [it, fresh] = range.try_emplace(group, graph.home(v), graph.home(v));
      it->second.first = std::min(it->second.first, graph.home(v));
      it->second.second = std::max(it->second.second, graph.home(v));
    }
  }
  auto length = [&](std::uint32_t group) { return static_cast<long>((range[group].second - range[group].first) / 8 + 1); };
  auto block = [&](long x, long extent) { return std::min(q - 1, x * q / extent); };
  auto element_block = [&](long e) { return (block(e / (s * s), s) * q + block(e / s % s, s)) * q + block(e % s, s); };
  auto is_element = [&](std::size_t v) { return graph.group(v) != 0 && length(graph.group(v)) == elements; };
  std::uint32_t first_element_array = 0;  // whose vertices stand for the elements in the shared-node count
  for (const auto& [group, span] : range) {
    if (first_element_array == 0 && length(group) == elements) first_element_array = group;
  }

  std::vector<ProcId> owner(n, kReplicated);
  std::vector<std::size_t> workspace;
  for (std::size_t v = 0; v < n; ++v) {
    if (singletons[v]) continue;
    const auto group = graph.group(v);
    const long index = group == 0 ? -1 : static_cast<long>((graph.home(v) - range[group].first) / 8);
    if (group != 0 && length(group) == elements) {
      owner[v] = static_cast<ProcId>(element_block(index));
    } else if (group != 0 && length(group) == nodes) {
      const long i = index / (sn * sn), j = index / sn % sn, k = index % sn;
      owner[v] = static_cast<ProcId>(element_block((std::max(i - 1, 0L) * s + std::max(j - 1, 0L)) * s + std::max(k - 1, 0L)));
    } else {
      workspace.push_back(v);
    }
  }
  std::sort(workspace.begin(), workspace.end(), [&](auto a, auto b) { return graph.global(a) < graph.global(b); });
  std::vector<std::vector<std::size_t>> sources(n);
  const auto& d = graph.directed();
  for (std::size_t u = 0; u < n; ++u) {
    for (auto e : boost::make_iterator_range(boost::out_edges(static_cast<ValueGraph::Vertex>(u), d))) {
      sources[boost::target(e, d)].push_back(u);
    }
  }
  auto majority = [&](std::size_t v, auto weight_of, bool use_sources, bool use_consumers) {
    std::vector<long> score(procs, 0);
    bool any = false;
    auto add = [&](std::size_t t) {
      if (owner[t] < 0) return;
      if (const long w = weight_of(t); w > 0) {
        score[owner[t]] += w;
        any = true;
      }
    };
    if (use_sources) {
      for (std::size_t t : sources[v]) add(t);
    }
    if (use_consumers) {
      for (auto e : boost::make_iterator_range(boost::out_edges(static_cast<ValueGraph::Vertex>(v), d))) add(boost::target(e, d));
    }
    if (any) owner[v] = static_cast<ProcId>(std::max_element(score.begin(), score.end()) - score.begin());
  };
  for (std::size_t v : workspace) majority(v, [&](std::size_t t) { return is_element(t) ? 1L : 0L; }, true, false);
  for (auto it = workspace.rbegin(); it != workspace.rend(); ++it) {
    if (owner[*it] < 0) majority(*it, [&](std::size_t t) { return graph.group(t) == 0 ? 10L : is_element(t) ? 100L : 1L; }, false, true);
  }
  for (std::size_t v : workspace) {
    if (owner[v] < 0) majority(v, [](std::size_t) { return 1L; }, true, true);
    if (owner[v] < 0) owner[v] = 0;
  }

  const MetisPartitioner partitioner;  // as `commanalyzer --ownership=value` sets it up
  const std::vector<ProcId> found = partitioner.partition(graph, singletons, static_cast<int>(procs));
  LogicalVolumeCostModel cost, exchange;  // exchange: the default, what the reference does with shared nodes' forces
  cost.exchange_partials = false;
  std::printf("LULESH s=%ld, P=%ld (%ld x %ld x %ld), %zu graph vertices\n", s, procs, q, q, q, n);
  std::printf("%-34s %14s %14s %14s\n", "decomposition", "sums at owner", "exchanging", "shared nodes");
  for (const auto& [name, owners] : {std::pair<const char*, const std::vector<ProcId>*>{"cube blocks (the MPI reference's)", &owner},
                                      std::pair{"METIS value partition", &found}}) {
    std::vector<ProcId> element_owner(elements, 0);
    for (std::size_t v = 0; v < n; ++v) {
      if (!singletons[v] && graph.group(v) == first_element_array) {
        element_owner[(graph.home(v) - range[graph.group(v)].first) / 8] = (*owners)[v];
      }
    }
    const CommEstimate estimate = cost.estimate(profile, graph, *owners, static_cast<int>(procs));
    const CommEstimate exchanged = exchange.estimate(profile, graph, *owners, static_cast<int>(procs));
    std::printf("%-34s %14llu %14llu %14ld\n", name, static_cast<unsigned long long>(estimate.total_bytes()),
                static_cast<unsigned long long>(exchanged.total_bytes()), shared_nodes(element_owner, s));
  }
  return 0;
}

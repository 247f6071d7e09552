// Partitioner adapters: map the (singleton-free) value communication graph
// onto N processes, balancing vertex weight (value instances, i.e. work) and
// minimising the communication the cut implies.
#ifndef COMMANALYZER_PARTITIONER_H_
#define COMMANALYZER_PARTITIONER_H_

#include <metis.h>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "commanalyzer/estimate/library_output.h"
#include "commanalyzer/estimate/value_graph.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

// Balance constraints for SPMD decompositions: every heap array holding at
// least `share` of the work is balanced over all processes on its own
// (constraint 1, 2, ...), the heaviest first up to `max_constraints` in
// all; everything else shares constraint 0. Without it, arrays that never
// interact (several independent state variables) land whole on different
// processes, which no SPMD code does.
struct BalanceConstraints {
  std::vector<std::uint8_t> of_vertex;
  int count = 1;
};

// The default cap on balance constraints (MetisPartitioner and
// metis_distribution's max_array_constraints). METIS balances every
// constraint at once, each one narrowing the moves its refinement may
// make, so the cut and the time grow with their number; a cap keeps that
// bounded, and the arrays beyond it share constraint 0, still balanced
// together. 8 is a setting to tune, not a derived bound.
inline constexpr int kDefaultMaxArrayConstraints = 8;

// METIS keeps its random state in a process-wide global, so concurrent calls
// (estimates for several process counts on several threads) would make the
// partitions, and the estimates, depend on thread timing. Every METIS call
// holds this lock.
inline std::mutex& metis_mutex() {
  static std::mutex mutex;
  return mutex;
}

inline BalanceConstraints balance_constraints(const ValueGraph& graph, const std::vector<std::uint8_t>& excluded,
                                              double share, int max_constraints) {
  std::map<std::uint32_t, std::uint64_t> group_work;
  std::uint64_t total = 0;
  for (ValueGraph::Vertex v = 0; v < graph.vertex_count(); ++v) {
    if (excluded[v]) continue;
    const std::uint64_t w = 1 + static_cast<std::uint64_t>(graph.work(v));
    total += w;
    if (graph.group(v) != 0) group_work[graph.group(v)] += w;
  }
  BalanceConstraints result;
  std::map<std::uint32_t, std::uint8_t> index_of_group;
  for (const auto& [group, work] : group_work) {
    if (static_cast<double>(work) >= share * static_cast<double>(total) && result.count < max_constraints) {
      index_of_group[group] = static_cast<std::uint8_t>(result.count++);
    }
  }
  result.of_vertex.assign(graph.vertex_count(), 0);
  for (ValueGraph::Vertex v = 0; v < graph.vertex_count(); ++v) {
    if (auto it = index_of_group.find(graph.group(v)); it != index_of_group.end()) result.of_vertex[v] = it->second;
  }
  return result;
}

// A graph in METIS's compressed rows, with ncon weights per vertex.
struct MetisGraph {
  std::vector<idx_t> xadj, adjncy, adjwgt, vwgt, vsize;
  int ncon = 1;
  static idx_t clamp(std::uint64_t x) { return partitioner_weight<idx_t>(x); }
};

// METIS's own default imbalance for k-way partitioning (ufactor 30): no
// part heavier than 1.03 times the average.
inline constexpr int kMetisImbalancePermille = 30;

struct MetisOptions {
  bool volume = true;  // communication volume (vsize) instead of edge cut
  int imbalance_permille = kMetisImbalancePermille;
  int seed = 1;
  int attempts = 1;
  bool recursive_bisection = false;
};

// METIS k-way (or recursive bisection): a part per vertex. Deterministic
// for a given graph and seed; holds metis_mutex().
inline std::vector<idx_t> metis_kway(MetisGraph& g, int nparts, const MetisOptions& o) {
  if (g.adjncy.size() > static_cast<std::size_t>(std::numeric_limits<idx_t>::max())) {
    throw std::length_error("commanalyzer: graph too large for 32-bit METIS indices");
  }
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = o.seed;
  options[METIS_OPTION_UFACTOR] = o.imbalance_permille;
  options[METIS_OPTION_NCUTS] = o.attempts;
  if (!o.recursive_bisection) options[METIS_OPTION_OBJTYPE] = o.volume ? METIS_OBJTYPE_VOL : METIS_OBJTYPE_CUT;
  idx_t n = static_cast<idx_t>(g.xadj.size() - 1), ncon = g.ncon, parts = nparts, objval = 0;
  std::vector<real_t> ubvec(static_cast<std::size_t>(g.ncon), 1.0f + o.imbalance_permille / 1000.0f);
  std::vector<idx_t> part(static_cast<std::size_t>(n), 0);
  if (nparts == 1 || n == 0) return part;
  const auto metis = o.recursive_bisection ? METIS_PartGraphRecursive : METIS_PartGraphKway;
  int status = METIS_OK;
  {
    std::lock_guard<std::mutex> lock(metis_mutex());
    LibraryOutputToStderr note("METIS");  // its notes off the report
    status = metis(&n, &ncon, g.xadj.data(), g.adjncy.data(), g.vwgt.data(), o.volume ? g.vsize.data() : nullptr,
                   g.adjwgt.data(), &parts, /*tpwgts=*/nullptr, ubvec.data(), options, &objval, part.data());
  }
  if (status != METIS_OK) {
    throw std::runtime_error("commanalyzer: METIS partitioning failed with status " + std::to_string(status));
  }
  return part;
}

template <class P>
concept Partitioner = requires(const P& partitioner, const ValueGraph& graph,
                               const std::vector<std::uint8_t>& excluded, int nparts) {
  // One owner per graph vertex, in [0, nparts); kReplicated where excluded.
  { partitioner.partition(graph, excluded, nparts) } -> std::same_as<std::vector<ProcId>>;
};

// Default: METIS multilevel k-way. Deterministic for a given graph (fixed
// seed). Objectives:
//  - volume (default): METIS's total communication volume with each vertex's
//    size = its exported instances, which is what the cost model counts (a
//    value travels once per receiving process; pure sinks send nothing);
//  - edge cut: the paper's weighted sum of cut edges (uses).
struct MetisPartitioner {
  enum class Objective { kEdgeCut, kVolume };
  Objective objective = Objective::kVolume;
  int seed = 1;
  int imbalance_permille = kMetisImbalancePermille;  // METIS ufactor
  bool recursive_bisection = false;  // METIS_PartGraphRecursive instead of k-way
  int attempts = 1;                  // METIS ncuts: best of this many partitionings
  bool balance_work = true;          // balance region work (+1 per vertex), per large array
  // An array with at least this share of the work is balanced on its own
  // (balance_constraints). Default 1/20: the state arrays an SPMD code
  // distributes each hold a sizeable part of the work, while the smaller
  // ones (coefficients, index tables) may fall anywhere; a setting to
  // tune, not a derived bound.
  double array_share = 0.05;
  int max_array_constraints = kDefaultMaxArrayConstraints;  // see kDefaultMaxArrayConstraints

  std::vector<ProcId> partition(const ValueGraph& graph, const std::vector<std::uint8_t>& excluded,
                                int nparts) const {
    if (nparts < 1) throw std::invalid_argument("commanalyzer: process count must be >= 1");
    std::vector<ProcId> owner(graph.vertex_count(), 0);
    std::vector<idx_t> index(graph.vertex_count(), -1);  // graph vertex -> METIS vertex
    std::vector<ValueGraph::Vertex> members;
    for (ValueGraph::Vertex v = 0; v < graph.vertex_count(); ++v) {
      if (excluded[v]) {
        owner[v] = kReplicated;
      } else {
        index[v] = static_cast<idx_t>(members.size());
        members.push_back(v);
      }
    }
    if (nparts == 1 || members.empty()) return owner;

    std::vector<idx_t> xadj{0}, adjncy, adjwgt, vwgt, vsize;
    xadj.reserve(members.size() + 1);
    const BalanceConstraints constraints =
        balance_work ? balance_constraints(graph, excluded, array_share, max_array_constraints) : BalanceConstraints{};
    const int ncons = balance_work ? constraints.count : 1;
    vwgt.reserve(members.size() * ncons);
    for (ValueGraph::Vertex v : members) {
      graph.for_each_neighbour(v, [&](ValueGraph::Vertex target, std::uint32_t uses) {
        const idx_t t = index[target];
        if (t < 0) return;
        adjncy.push_back(t);
        adjwgt.push_back(MetisGraph::clamp(uses));
      });
      if (adjncy.size() > static_cast<std::size_t>(std::numeric_limits<idx_t>::max())) {
        throw std::length_error("commanalyzer: graph too large for 32-bit METIS indices");
      }
      xadj.push_back(static_cast<idx_t>(adjncy.size()));
      if (balance_work) {
        for (int c = 0; c < ncons; ++c) vwgt.push_back(constraints.of_vertex[v] == c ? 1 + MetisGraph::clamp(graph.work(v)) : 0);
      } else {
        vwgt.push_back(std::max<idx_t>(1, MetisGraph::clamp(graph.weight(v))));
      }
      vsize.push_back(MetisGraph::clamp(graph.exports(v)));
    }

    MetisGraph mg{std::move(xadj), std::move(adjncy), std::move(adjwgt), std::move(vwgt), std::move(vsize), ncons};
    const std::vector<idx_t> part =
        metis_kway(mg, nparts,
                   MetisOptions{.volume = objective == Objective::kVolume, .imbalance_permille = imbalance_permille,
                                .seed = seed, .attempts = attempts, .recursive_bisection = recursive_bisection});
    for (std::size_t i = 0; i < members.size(); ++i) owner[members[i]] = static_cast<ProcId>(part[i]);
    return owner;
  }
};

// Baseline: contiguous blocks of vertices in creation order, balanced by
// weight (what a naive 1-D block distribution of the data would do).
struct BlockPartitioner {
  std::vector<ProcId> partition(const ValueGraph& graph, const std::vector<std::uint8_t>& excluded,
                                int nparts) const {
    if (nparts < 1) throw std::invalid_argument("commanalyzer: process count must be >= 1");
    std::uint64_t total = 0;
    for (ValueGraph::Vertex v = 0; v < graph.vertex_count(); ++v) {
      if (!excluded[v]) total += graph.weight(v);
    }
    std::vector<ProcId> owner(graph.vertex_count(), kReplicated);
    std::uint64_t prefix = 0;
    for (ValueGraph::Vertex v = 0; v < graph.vertex_count(); ++v) {
      if (excluded[v]) continue;
      owner[v] = total == 0 ? 0 : static_cast<ProcId>(std::min<std::uint64_t>(prefix * nparts / total, nparts - 1));
      prefix += graph.weight(v);
    }
    return owner;
  }
};

// A fixed decomposition given by the user: owner of each vertex from the
// address of its home location (e.g. a 2-D block map of a matrix).
struct OwnerMapPartitioner {
  std::function<ProcId(Address home, int nparts)> owner_of;

  std::vector<ProcId> partition(const ValueGraph& graph, const std::vector<std::uint8_t>& excluded,
                                int nparts) const {
    std::vector<ProcId> owner(graph.vertex_count(), kReplicated);
    for (ValueGraph::Vertex v = 0; v < graph.vertex_count(); ++v) {
      if (excluded[v]) continue;
      const ProcId p = owner_of(graph.home(v), nparts);
      if (p < 0 || p >= nparts) throw std::out_of_range("commanalyzer: owner map returned an invalid process");
      owner[v] = p;
    }
    return owner;
  }
};

static_assert(Partitioner<MetisPartitioner>);
static_assert(Partitioner<BlockPartitioner>);
static_assert(Partitioner<OwnerMapPartitioner>);

}  // namespace commanalyzer

#endif  // COMMANALYZER_PARTITIONER_H_

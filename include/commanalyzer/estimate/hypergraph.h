// The location hypergraph and hypergraph partitioners: a distribution
// candidate that minimises what an owner-computes code sends, not an edge
// cut.
//
//   std::vector<ProcId> owner = partition_locations(partitioner, index, 16);  // per node
//
// One vertex per location-graph node (contracted first, as for METIS:
// location_contraction.h), weighted by its work; one net per node that
// exports values: the node and its neighbours, weighted by the instances
// it exports. A net
// whose pins lie in lambda parts costs its weight times (lambda - 1), the
// connectivity metric: a value goes once to every other process that reads
// it, as the cost model's pruning per value instance counts. (The location
// graph's rows are symmetric, so a net also holds the node's producers; the
// cost model judges every candidate.)
//
// The partitioner is a library behind the HypergraphPartitioner concept,
// fed through write_hypergraph's text format. Zoltan's PHG
// (tools/zoltan_phg.cc) needs MPI_Init, which aborts its process where MPI
// cannot start (no network interface in a sandbox): the command runs it as
// a separate program (tools/spawned_hypergraph.h), so such a failure costs
// one candidate, not the analysis. The library starts no process.
#ifndef COMMANALYZER_HYPERGRAPH_H_
#define COMMANALYZER_HYPERGRAPH_H_

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <istream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "commanalyzer/estimate/location_contraction.h"
#include "commanalyzer/estimate/locations.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

struct LocationHypergraph {
  std::vector<std::uint64_t> vertex_weight;  // per node: work
  std::vector<std::uint64_t> net_start;      // compressed nets: pins[net_start[e] .. net_start[e + 1])
  std::vector<std::uint32_t> pins;
  std::vector<std::uint64_t> net_weight;
  std::size_t vertex_count() const { return vertex_weight.size(); }
  std::size_t net_count() const { return net_weight.size(); }

  // Sum over nets of weight * (parts spanned - 1) under `owner`.
  std::uint64_t connectivity_cost(const std::vector<ProcId>& owner) const {
    std::uint64_t cost = 0;
    std::vector<ProcId> seen;
    for (std::size_t e = 0; e < net_count(); ++e) {
      seen.clear();
      for (std::uint64_t k = net_start[e]; k < net_start[e + 1]; ++k) {
        const ProcId p = owner[pins[k]];
        if (std::find(seen.begin(), seen.end(), p) == seen.end()) seen.push_back(p);
      }
      if (!seen.empty()) cost += net_weight[e] * (seen.size() - 1);
    }
    return cost;
  }
};

// The hypergraph of the contracted location graph (location_contraction.h,
// with one balance group): a vertex per coarse vertex, weighing its nodes'
// work, and a net per exporting node over the vertices it and its
// neighbours are in. A net within one vertex (a leaf's, a temporary's
// consumed where it was read) costs nothing under any partition: it is
// left out.
inline LocationHypergraph location_hypergraph(const LocationIndex& index, const LocationContraction& contracted) {
  LocationHypergraph h;
  const std::size_t n = index.node_count();
  if (contracted.coarse_work().size() != contracted.coarse_count()) {
    throw std::invalid_argument(
        "location_hypergraph: the contraction balances " +
        std::to_string(contracted.coarse_work().size() / std::max<std::size_t>(contracted.coarse_count(), 1)) +
        " groups; a hypergraph vertex has one weight");
  }
  h.vertex_weight = contracted.coarse_work();
  h.net_start.push_back(0);
  for (LocationIndex::Node a = 0; a < n; ++a) {
    if (index.exports()[a] == 0) continue;  // sends nothing
    const std::size_t first = h.pins.size();
    contracted.for_each_pin(a, [&](std::uint32_t b) { h.pins.push_back(b); });
    if (h.pins.size() == first + 1) {
      h.pins.pop_back();  // its neighbours are all inside its vertex
      continue;
    }
    h.net_start.push_back(h.pins.size());
    h.net_weight.push_back(index.exports()[a]);
  }
  return h;
}

// Text exchange format, for partitioners run as separate programs:
//   commanalyzer-hypergraph 1
//   VERTICES NETS
//   one vertex weight per line
//   per net: WEIGHT PINS PIN...
// and, back, one part per vertex per line.
inline void write_hypergraph(std::ostream& out, const LocationHypergraph& h) {
  out << "commanalyzer-hypergraph 1\n" << h.vertex_count() << ' ' << h.net_count() << '\n';
  for (std::uint64_t w : h.vertex_weight) out << w << '\n';
  for (std::size_t e = 0; e < h.net_count(); ++e) {
    out << h.net_weight[e] << ' ' << (h.net_start[e + 1] - h.net_start[e]);
    for (std::uint64_t k = h.net_start[e]; k < h.net_start[e + 1]; ++k) out << ' ' << h.pins[k];
    out << '\n';
  }
}

inline LocationHypergraph read_hypergraph(std::istream& in) {
  std::string magic;
  int version = 0;
  std::size_t vertices = 0, nets = 0;
  if (!(in >> magic >> version >> vertices >> nets) || magic != "commanalyzer-hypergraph" || version != 1) {
    throw std::runtime_error("not a commanalyzer-hypergraph 1 file");
  }
  LocationHypergraph h;
  h.vertex_weight.resize(vertices);
  for (auto& w : h.vertex_weight) {
    if (!(in >> w)) throw std::runtime_error("hypergraph: truncated vertex weights");
  }
  h.net_start.push_back(0);
  for (std::size_t e = 0; e < nets; ++e) {
    std::uint64_t weight = 0, count = 0;
    if (!(in >> weight >> count)) throw std::runtime_error("hypergraph: truncated nets");
    for (std::uint64_t k = 0; k < count; ++k) {
      std::uint32_t pin = 0;
      if (!(in >> pin) || pin >= vertices) throw std::runtime_error("hypergraph: bad pin");
      h.pins.push_back(pin);
    }
    h.net_start.push_back(h.pins.size());
    h.net_weight.push_back(weight);
  }
  return h;
}

// The imbalance the partitioner is given (Zoltan's IMBALANCE_TOL 1.03,
// tools/zoltan_phg.cc), in thousandths of the mean part.
inline constexpr int kHypergraphImbalancePermille = 30;

template <class P>
concept HypergraphPartitioner = requires(const P& p, const LocationHypergraph& h, int parts) {
  { p.partition(h, parts) } -> std::same_as<std::vector<ProcId>>;
};

// Owner per location-graph node from a hypergraph partitioner, which sees
// the contracted hypergraph; it balances one weight, the work, within
// `imbalance_permille`.
template <HypergraphPartitioner P>
std::vector<ProcId> partition_locations(const P& partitioner, const LocationIndex& index, int procs,
                                        int imbalance_permille = kHypergraphImbalancePermille) {
  std::uint64_t work = 0;
  for (std::uint64_t w : index.work()) work += w;
  const LocationContraction contracted(index, [](LocationIndex::Node) { return std::size_t{0}; },
                                       LocationContraction::balance_limits({work}, procs, imbalance_permille));
  return contracted.expand(partitioner.partition(location_hypergraph(index, contracted), procs));
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_HYPERGRAPH_H_

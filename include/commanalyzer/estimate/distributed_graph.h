// One rank's share of the location graph (locations.h) for a distributed
// partitioner: a contiguous range of nodes with their rows, in the
// compressed form ParMETIS's API takes (vtxdist, xadj, adjncy, vwgt,
// adjwgt), so that no rank but the one that built the graph holds all of it.
//
//   std::vector<std::int32_t> vtxdist = node_ranges(index.node_count(), ranks);
//   GraphSlice mine = graph_slice(index, vtxdist[r], vtxdist[r + 1]);
//   // ... ParMETIS_V3_PartKway(vtxdist, mine.xadj, mine.adjncy, ...) on every rank
//
// Weights are those metis_distribution (distribution.h) gives METIS: the
// node's work as the vertex weight, the uses summed over the region as the
// edge weight, both clamped far below the 32-bit limit because the
// partitioner sums them.
#ifndef COMMANALYZER_DISTRIBUTED_GRAPH_H_
#define COMMANALYZER_DISTRIBUTED_GRAPH_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "commanalyzer/estimate/locations.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

// ParMETIS's index type (SCOTCH_Num in Debian's int32 build).
using GraphIndex = std::int32_t;

struct GraphSlice {
  GraphIndex first = 0;  // global number of the slice's first node
  std::vector<GraphIndex> xadj{0};  // rows: adjncy[xadj[i] .. xadj[i + 1]) for node first + i
  std::vector<GraphIndex> adjncy;   // global node numbers
  std::vector<GraphIndex> vwgt;     // per node
  std::vector<GraphIndex> adjwgt;   // per adjncy entry
  std::size_t node_count() const { return xadj.size() - 1; }
};

inline GraphIndex clamp_weight(std::uint64_t w) { return partitioner_weight<GraphIndex>(w); }

// ParMETIS's vtxdist: rank r holds nodes [ranges[r], ranges[r + 1]), as
// equal as counts allow. Every rank gets at least one node, which
// ParMETIS requires, so there must be at least `ranks` nodes.
inline std::vector<GraphIndex> node_ranges(std::size_t nodes, int ranks) {
  if (ranks < 1) throw std::invalid_argument("node_ranges: need at least one rank");
  if (nodes > static_cast<std::size_t>(std::numeric_limits<GraphIndex>::max())) {
    throw std::length_error("location graph has " + std::to_string(nodes) + " nodes, past 32-bit ParMETIS indices");
  }
  if (nodes < static_cast<std::size_t>(ranks)) {
    throw std::invalid_argument("location graph has " + std::to_string(nodes) + " nodes, fewer than the " +
                                std::to_string(ranks) + " MPI ranks partitioning it");
  }
  std::vector<GraphIndex> ranges(static_cast<std::size_t>(ranks) + 1);
  for (int r = 0; r <= ranks; ++r) {
    ranges[static_cast<std::size_t>(r)] = static_cast<GraphIndex>(nodes * static_cast<std::size_t>(r) / ranks);
  }
  return ranges;
}

// Nodes [first, last) of the location graph with their rows (self-loops
// left out: ParMETIS does not take them).
inline GraphSlice graph_slice(const LocationIndex& index, GraphIndex first, GraphIndex last) {
  if (first < 0 || last < first || static_cast<std::size_t>(last) > index.node_count()) {
    throw std::out_of_range("graph_slice: node range outside the location graph");
  }
  GraphSlice s;
  s.first = first;
  s.xadj.reserve(static_cast<std::size_t>(last - first) + 1);
  s.vwgt.reserve(static_cast<std::size_t>(last - first));
  for (GraphIndex a = first; a < last; ++a) {
    const auto node = static_cast<std::size_t>(a);
    for (std::uint64_t k = index.row_start()[node]; k < index.row_start()[node + 1]; ++k) {
      if (index.neighbour()[k] == node) continue;
      s.adjncy.push_back(static_cast<GraphIndex>(index.neighbour()[k]));
      s.adjwgt.push_back(clamp_weight(index.uses()[k]));
    }
    if (s.adjncy.size() > static_cast<std::size_t>(std::numeric_limits<GraphIndex>::max())) {
      throw std::length_error("graph_slice: a rank's share has more edges than 32-bit ParMETIS indices hold");
    }
    s.xadj.push_back(static_cast<GraphIndex>(s.adjncy.size()));
    // ParMETIS balances weight; a node of no work still occupies a place.
    s.vwgt.push_back(std::max<GraphIndex>(1, clamp_weight(index.work()[node])));
  }
  return s;
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_DISTRIBUTED_GRAPH_H_

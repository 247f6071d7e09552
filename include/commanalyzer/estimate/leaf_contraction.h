// Leaves of the location graph go with their one neighbour before a
// partitioner sees the graph.
//
//   LeafContraction leaves(index, group, LeafContraction::balance_limits(work, procs, 30));
//   ... partition leaves.coarse_count() vertices, built with coarse_of() ...
//   std::vector<ProcId> owner = leaves.expand(coarse_owner);  // per node
//
// A node with one neighbour (a matrix entry read by its row only, a
// coefficient read at one place) sends to or receives from that neighbour
// alone: with it, it costs nothing; apart, the edge between them. Placing
// it with its neighbour never raises a cut or a connectivity, and the
// partitioner balances the same work when the coarse vertex carries the
// sum of its nodes' weights. So every partition of the contracted graph is
// one of the whole graph at the same cost, and the partitioner works on a
// graph the size of what is actually exchanged: HPCCG's location graph at
// 32^3 has 863,352 nodes, 830,584 of them matrix entries each read by one
// row; contracted, 32,768. (METIS's own coarsening matches a node to one
// neighbour per level: a row with 27 such entries takes five levels.)
//
// Two leaves that are each other's only neighbour make one vertex (the
// smaller node keeps it). Nodes without neighbours stay as they are. A
// leaf stays apart where its neighbour's vertex would outweigh what a
// partitioner may leave unbalanced in one part (balance_limits): a vertex
// heavier than that could force an imbalance, or a cut, the whole graph
// did not. A location read by nearly every other is a singleton, not in
// the graph (singleton.h), so a vertex gathers few leaves; the limit
// matters where the processes are many and their parts small.
#ifndef COMMANALYZER_ESTIMATE_LEAF_CONTRACTION_H_
#define COMMANALYZER_ESTIMATE_LEAF_CONTRACTION_H_

#include <cstdint>
#include <vector>

#include "commanalyzer/estimate/locations.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

class LeafContraction {
 public:
  using Node = LocationIndex::Node;

  // `group(a)`: the balance constraint node a's work counts in (0 for a
  // partitioner that balances one weight); `limit[g]`: the most work of
  // group g one coarse vertex may carry (balance_limits).
  template <class Group>
  LeafContraction(const LocationIndex& index, Group group, const std::vector<std::uint64_t>& limit)
      : index_(index), coarse_(index.node_count()) {
    const auto& start = index.row_start();
    const std::size_t n = coarse_.size(), groups = limit.size();
    auto degree = [&](Node a) { return start[a + 1] - start[a]; };
    auto leaf_of = [&](Node a) {  // the node leaf a goes with (a itself: none)
      if (degree(a) != 1) return a;
      const Node b = index.neighbour()[start[a]];
      return degree(b) != 1 || b < a ? b : a;
    };
    std::vector<std::uint64_t> carried(n * groups, 0);  // work per (kept node, group)
    for (Node a = 0; a < n; ++a) {
      if (leaf_of(a) == a) carried[a * groups + group(a)] = index.work()[a];
    }
    rep_.resize(n);
    for (Node a = 0; a < n; ++a) {
      const Node b = leaf_of(a);
      std::uint64_t& load = carried[std::size_t{b} * groups + group(a)];
      if (b != a && load + index.work()[a] <= limit[group(a)]) {
        load += index.work()[a];
        rep_[a] = b;
      } else {
        rep_[a] = a;
      }
    }
    for (Node a = 0; a < n; ++a) {
      if (rep_[a] == a) coarse_[a] = count_++;
    }
    for (Node a = 0; a < n; ++a) coarse_[a] = coarse_[rep_[a]];
    work_.assign(std::size_t{count_} * groups, 0);
    for (Node a = 0; a < n; ++a) work_[std::size_t{coarse_[a]} * groups + group(a)] += index.work()[a];
  }

  // A partitioner that may leave a part `imbalance_permille` heavier than
  // the mean can place any vertex no heavier than that slack without
  // leaving its tolerance: the most work of each group a coarse vertex
  // may carry, `work[g]` the group's total, on `procs` processes.
  static std::vector<std::uint64_t> balance_limits(const std::vector<std::uint64_t>& work, int procs,
                                                   int imbalance_permille) {
    std::vector<std::uint64_t> limit;
    for (std::uint64_t w : work) {
      limit.push_back(static_cast<std::uint64_t>(static_cast<double>(w) * imbalance_permille / 1000.0 / procs));
    }
    return limit;
  }

  std::size_t coarse_count() const { return count_; }
  // The work each coarse vertex carries, group by group: entry c * groups
  // + g (the partitioners' vertex weights).
  const std::vector<std::uint64_t>& coarse_work() const { return work_; }
  // The coarse vertex node a is part of.
  std::uint32_t coarse_of(Node a) const { return coarse_[a]; }
  // Whether node a is a coarse vertex's own node (the others are leaves
  // contracted into one).
  bool keeps(Node a) const { return rep_[a] == a; }

  // The coarse vertex's neighbours, in the location graph's order: those
  // of its own node, but for the leaves contracted into it.
  template <class F>
  void for_each_neighbour(Node a, F f) const {
    for (std::uint64_t k = index_.row_start()[a]; k < index_.row_start()[a + 1]; ++k) {
      const Node b = index_.neighbour()[k];
      if (rep_[b] == a) continue;
      f(coarse_[b], k);
    }
  }

  // Owner per location-graph node from an owner per coarse vertex.
  std::vector<ProcId> expand(const std::vector<ProcId>& coarse_owner) const {
    std::vector<ProcId> owner(coarse_.size());
    for (Node a = 0; a < coarse_.size(); ++a) owner[a] = coarse_owner[coarse_[a]];
    return owner;
  }

 private:
  const LocationIndex& index_;
  std::vector<std::uint32_t> coarse_;
  std::vector<Node> rep_;  // the node whose vertex a is part of
  std::vector<std::uint64_t> work_;  // coarse_work()
  std::uint32_t count_ = 0;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_ESTIMATE_LEAF_CONTRACTION_H_

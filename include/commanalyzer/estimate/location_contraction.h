// What a graph partitioner sees of the location graph: its leaves and its
// temporaries contracted into the node they go with.
//
//   LocationContraction coarse(index, group, LocationContraction::balance_limits(work, procs, 30));
//   ... partition coarse.coarse_count() vertices (for_each_neighbour, for_each_pin) ...
//   std::vector<ProcId> owner = coarse.expand(coarse_owner);  // per node
//
// A leaf, a node with one neighbour (a matrix entry read by its row only, a
// coefficient read at one place), sends to or receives from that neighbour
// alone: with it, it costs nothing; apart, the edge between them. Placing
// it with its neighbour never raises a cut or a connectivity, and the
// partitioner balances the same work when the coarse vertex carries the
// sum of its nodes' weights. So every partition of the contracted graph is
// one of the whole graph at the same cost. HPCCG's location graph at 32^3
// has 863,352 nodes, 830,584 of them matrix entries each read by one row;
// contracted, 32,768. (METIS's own coarsening matches a node to one
// neighbour per level: a row with 27 such entries takes five levels.) A
// node whose neighbours all lie in one vertex is a leaf of that vertex (a
// matrix entry read by its row's temporaries, one per time step, which go
// with the row). Two leaves that are each other's only neighbour make one
// vertex (the smaller node keeps it).
//
// A temporary whose consumers all lie in one location's vertex (a row's
// sum kept in a stack slot before it is stored into the row) is computed
// there, owner computes: every structured candidate places it so
// (cartesian.h, assign_free_nodes, which gives a temporary the owner most
// of its consumers have; here they have one). It goes with that location,
// so the partitioner weighs what it reads as read by that location, and
// sees the locations the program distributes, not each time step's
// scratch values: LULESH 2.0's graph is 99.7 % temporaries. Temporaries
// are taken latest first, so a chain of them follows its last link to the
// location. One whose consumers lie in several vertices stays apart:
// where it goes depends on the partition.
//
// Nodes without neighbours stay as they are. A node stays apart where the
// vertex it would join would outweigh what a partitioner may leave
// unbalanced in one part (balance_limits): a vertex heavier than that could
// force an imbalance, or a cut, the whole graph did not. A location read by
// nearly every other is a singleton, not in the graph (singleton.h), so a
// vertex gathers few nodes; the limit matters where the processes are many
// and their parts small.
#ifndef COMMANALYZER_ESTIMATE_LOCATION_CONTRACTION_H_
#define COMMANALYZER_ESTIMATE_LOCATION_CONTRACTION_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "commanalyzer/estimate/locations.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

class LocationContraction {
 public:
  using Node = LocationIndex::Node;

  // `group(a)`: the balance constraint node a's work counts in (0 for a
  // partitioner that balances one weight); `limit[g]`: the most work of
  // group g one coarse vertex may carry (balance_limits).
  template <class Group>
  LocationContraction(const LocationIndex& index, Group group, const std::vector<std::uint64_t>& limit)
      : index_(index), coarse_(index.node_count()), rep_(index.node_count()) {
    const auto& start = index.row_start();
    const std::size_t n = coarse_.size(), groups = limit.size();
    const auto locations = static_cast<Node>(index.location_count());
    std::vector<std::uint64_t> carried(n * groups, 0);  // per vertex (by its node) and group: its work
    for (Node a = 0; a < n; ++a) {
      rep_[a] = a;
      carried[a * groups + group(a)] = index.work()[a];
    }
    std::vector<bool> joined(n, false);  // whether another node joined a's vertex
    auto vertex_of = [&](Node a) {  // the node that keeps a's vertex
      while (rep_[a] != rep_[rep_[a]]) rep_[a] = rep_[rep_[a]];
      return rep_[a];
    };
    // Vertex a joins vertex b where b's load leaves room for a's in each
    // group a's vertex carries work of.
    auto join = [&](Node a, Node b) {
      for (std::size_t g = 0; g < groups; ++g) {
        const std::uint64_t load = carried[std::size_t{a} * groups + g];
        if (load != 0 && carried[std::size_t{b} * groups + g] + load > limit[g]) return;
      }
      for (std::size_t g = 0; g < groups; ++g) {
        carried[std::size_t{b} * groups + g] += std::exchange(carried[std::size_t{a} * groups + g], 0);
      }
      rep_[a] = b;
      joined[b] = true;
    };
    // Temporaries, latest first: the location all consumers' vertices are.
    for (Node a = static_cast<Node>(n); a-- > locations;) {
      Node at = kNone;
      for (std::uint64_t k = index.consumer_start()[a]; k < index.consumer_start()[a + 1]; ++k) {
        const Node c = vertex_of(index.consumer()[k]);
        if (c >= locations || (at != kNone && c != at)) {
          at = kNone;
          break;
        }
        at = c;
      }
      if (at != kNone) join(a, at);
    }
    // Leaves: nodes alone in their vertex whose edges all go to one other.
    auto only_neighbour = [&](Node a) {  // that vertex's node, or kNone
      Node only = kNone;
      for (std::uint64_t k = start[a]; k < start[a + 1]; ++k) {
        const Node b = vertex_of(index.neighbour()[k]);
        if (b == a) continue;
        if (only != kNone && b != only) return kNone;
        only = b;
      }
      return only;
    };
    for (Node a = 0; a < n; ++a) {
      if (rep_[a] != a || joined[a]) continue;
      const Node b = only_neighbour(a);
      if (b == kNone) continue;
      if (a < b && !joined[b] && only_neighbour(b) == a) continue;  // each the other's only one: the smaller keeps it
      join(a, b);
    }
    for (Node a = 0; a < n; ++a) rep_[a] = vertex_of(a);
    for (Node a = 0; a < n; ++a) {
      if (rep_[a] == a) coarse_[a] = count_++;
    }
    for (Node a = 0; a < n; ++a) coarse_[a] = coarse_[rep_[a]];
    work_.assign(std::size_t{count_} * groups, 0);
    for (Node a = 0; a < n; ++a) work_[std::size_t{coarse_[a]} * groups + group(a)] += index.work()[a];
    // Members per vertex, its own node first, the others in node order.
    member_start_.assign(std::size_t{count_} + 1, 0);
    for (Node a = 0; a < n; ++a) ++member_start_[coarse_[a] + 1];
    for (std::size_t c = 0; c < count_; ++c) member_start_[c + 1] += member_start_[c];
    members_.resize(n);
    std::vector<std::uint64_t> next(member_start_.begin(), member_start_.end() - 1);
    for (Node a = 0; a < n; ++a) {
      if (rep_[a] == a) members_[next[coarse_[a]]++] = a;
    }
    for (Node a = 0; a < n; ++a) {
      if (rep_[a] != a) members_[next[coarse_[a]]++] = a;
    }
    seen_.assign(count_, kNone);
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
  // Whether node a is a coarse vertex's own node (the others are contracted
  // into one).
  bool keeps(Node a) const { return rep_[a] == a; }

  // The neighbours of coarse vertex c, each once, with the uses summed over
  // its nodes' edges to them: its own node's in the location graph's
  // order, then those only its other nodes have. (Not thread-safe: one
  // contraction per partitioner call.)
  template <class F>
  void for_each_neighbour(std::uint32_t c, F f) const {
    row_.clear();
    for (std::uint64_t m = member_start_[c]; m < member_start_[c + 1]; ++m) {
      const Node a = members_[m];
      for (std::uint64_t k = index_.row_start()[a]; k < index_.row_start()[a + 1]; ++k) {
        const std::uint32_t b = coarse_[index_.neighbour()[k]];
        if (b == c) continue;
        if (seen_[b] == kNone) {
          seen_[b] = static_cast<std::uint32_t>(row_.size());
          row_.push_back({b, 0});
        }
        row_[seen_[b]].uses += index_.uses()[k];
      }
    }
    for (const Edge& e : row_) {
      seen_[e.to] = kNone;
      f(e.to, e.uses);
    }
  }

  // The vertices node a's values reach, each once: its own, then its
  // neighbours' in the location graph's order (a hypergraph's net).
  template <class F>
  void for_each_pin(Node a, F f) const {
    const std::uint32_t own = coarse_[a];
    f(own);
    seen_[own] = 0;
    for (std::uint64_t k = index_.row_start()[a]; k < index_.row_start()[a + 1]; ++k) {
      const std::uint32_t b = coarse_[index_.neighbour()[k]];
      if (seen_[b] != kNone) continue;
      seen_[b] = 0;
      f(b);
    }
    seen_[own] = kNone;
    for (std::uint64_t k = index_.row_start()[a]; k < index_.row_start()[a + 1]; ++k) {
      seen_[coarse_[index_.neighbour()[k]]] = kNone;
    }
  }

  // Owner per location-graph node from an owner per coarse vertex.
  std::vector<ProcId> expand(const std::vector<ProcId>& coarse_owner) const {
    std::vector<ProcId> owner(coarse_.size());
    for (Node a = 0; a < coarse_.size(); ++a) owner[a] = coarse_owner[coarse_[a]];
    return owner;
  }

 private:
  static constexpr Node kNone = LocationIndex::kNone;
  struct Edge {
    std::uint32_t to;
    std::uint64_t uses;
  };

  const LocationIndex& index_;
  std::vector<std::uint32_t> coarse_;
  std::vector<Node> rep_;  // the node whose vertex a is part of
  std::vector<std::uint64_t> work_;  // coarse_work()
  std::vector<std::uint64_t> member_start_;
  std::vector<Node> members_;
  std::uint32_t count_ = 0;
  mutable std::vector<std::uint32_t> seen_;  // per vertex: its place in row_, or kNone
  mutable std::vector<Edge> row_;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_ESTIMATE_LOCATION_CONTRACTION_H_

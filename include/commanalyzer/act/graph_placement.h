// GraphPlacement: places processes by partitioning their traffic graph,
// METIS k-way into the nodes, then Kernighan-Lin pair swaps from several
// starts (McPherson et al. use k-way KL from 1,000 random starts and the
// naive schedules). The best placement found is kept, so it never keeps
// fewer bytes inside nodes than by-rank or round-robin, which are starts.
//
//   Placement p = GraphPlacement{}.place(traffic, {.nodes = 4, .cores_per_node = 8});
//
// Node capacity is exact: every one of the nodes x cores slots is a vertex,
// the ones no process takes are "free" vertices without edges, and KL only
// swaps, so each node keeps exactly its cores. Swapping a process with a
// free slot moves it, which lets a node stay partly empty when that keeps
// more traffic inside nodes.
//
// A KL pass costs O(slots^3) (best pair per step over all pairs); past
// `max_refined_slots` only METIS and the naive starts are compared.
#ifndef COMMANALYZER_GRAPH_PLACEMENT_H_
#define COMMANALYZER_GRAPH_PLACEMENT_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "commanalyzer/estimate/partitioner.h"
#include "commanalyzer/act/placement.h"

namespace commanalyzer {

namespace placement_internal {

// Node-of-slot-vertex state with each vertex's bytes to every node, so a
// swap's gain is O(1) and applying it O(vertices).
class SwapState {
 public:
  SwapState(const TrafficMatrix& t, NodeShape shape, std::vector<int> node)
      : t_(t), shape_(shape), node_(std::move(node)),
        to_node_(node_.size() * static_cast<std::size_t>(shape.nodes), 0) {
    for (const auto& pair : t.pairs()) {
      to_node_[at(pair.a, node_[static_cast<std::size_t>(pair.b)])] += static_cast<std::int64_t>(pair.bytes);
      to_node_[at(pair.b, node_[static_cast<std::size_t>(pair.a)])] += static_cast<std::int64_t>(pair.bytes);
    }
  }

  int vertices() const { return static_cast<int>(node_.size()); }
  int node(int v) const { return node_[static_cast<std::size_t>(v)]; }
  bool is_process(int v) const { return v < t_.procs(); }
  const std::vector<int>& nodes() const { return node_; }

  // Increase of the intra-node bytes if u and v trade nodes.
  std::int64_t gain(int u, int v) const {
    const int a = node(u), b = node(v);
    std::int64_t g = to_node_[at(u, b)] - to_node_[at(u, a)] + to_node_[at(v, a)] - to_node_[at(v, b)];
    if (is_process(u) && is_process(v)) g -= 2 * static_cast<std::int64_t>(t_.at(u, v));
    return g;
  }

  void swap(int u, int v) {
    const int a = node(u), b = node(v);
    move(u, a, b);
    move(v, b, a);
  }

 private:
  std::size_t at(int v, int n) const {
    return static_cast<std::size_t>(v) * static_cast<std::size_t>(shape_.nodes) + static_cast<std::size_t>(n);
  }
  void move(int v, int from, int to) {
    node_[static_cast<std::size_t>(v)] = to;
    if (!is_process(v)) return;
    for (int x = 0; x < t_.procs(); ++x) {
      const auto w = static_cast<std::int64_t>(t_.at(v, x));
      if (w == 0) continue;
      to_node_[at(x, from)] -= w;
      to_node_[at(x, to)] += w;
    }
  }

  const TrafficMatrix& t_;
  NodeShape shape_;
  std::vector<int> node_;
  std::vector<std::int64_t> to_node_;
};

// One Kernighan-Lin pass: swap the best unlocked pair of vertices on
// different nodes until none is left, then keep the best prefix of those
// swaps. Returns the gain kept (0: no prefix helps).
inline std::int64_t kl_pass(SwapState& s) {
  const int n = s.vertices();
  std::vector<char> locked(static_cast<std::size_t>(n), 0);
  std::vector<std::pair<int, int>> swaps;
  std::int64_t running = 0, best = 0;
  std::size_t best_length = 0;
  for (;;) {
    std::int64_t top = std::numeric_limits<std::int64_t>::min();
    int bu = -1, bv = -1;
    for (int u = 0; u < n; ++u) {
      // Processes come first: a pair of two free slots (u free) changes nothing.
      if (locked[static_cast<std::size_t>(u)] || !s.is_process(u)) continue;
      for (int v = u + 1; v < n; ++v) {
        if (locked[static_cast<std::size_t>(v)] || s.node(u) == s.node(v)) continue;
        const std::int64_t g = s.gain(u, v);
        if (g > top) top = g, bu = u, bv = v;
      }
    }
    if (bu < 0) break;
    s.swap(bu, bv);
    locked[static_cast<std::size_t>(bu)] = locked[static_cast<std::size_t>(bv)] = 1;
    swaps.emplace_back(bu, bv);
    running += top;
    if (running > best) best = running, best_length = swaps.size();
  }
  for (std::size_t k = swaps.size(); k > best_length; --k) s.swap(swaps[k - 1].first, swaps[k - 1].second);
  return best;
}

// Node per slot vertex -> a placement: processes take their node's slots
// in rank order.
inline Placement to_placement(const std::vector<int>& node, int procs, NodeShape shape) {
  Placement p{shape, std::vector<int>(static_cast<std::size_t>(procs))};
  std::vector<int> next(static_cast<std::size_t>(shape.nodes), 0);
  for (int r = 0; r < procs; ++r) {
    const int k = node[static_cast<std::size_t>(r)];
    p.slot[static_cast<std::size_t>(r)] = k * shape.cores_per_node + next[static_cast<std::size_t>(k)]++;
  }
  return p;
}

// A placement -> node per slot vertex (free slots take the unused places).
inline std::vector<int> to_nodes(const Placement& p, int procs) {
  std::vector<int> node(static_cast<std::size_t>(p.shape.slots()), -1);
  std::vector<char> used(node.size(), 0);
  for (int r = 0; r < procs; ++r) {
    node[static_cast<std::size_t>(r)] = p.node_of(r);
    used[static_cast<std::size_t>(p.slot[static_cast<std::size_t>(r)])] = 1;
  }
  int v = procs;
  for (int s = 0; s < p.shape.slots(); ++s) {
    if (!used[static_cast<std::size_t>(s)]) node[static_cast<std::size_t>(v++)] = s / p.shape.cores_per_node;
  }
  return node;
}

}  // namespace placement_internal

struct GraphPlacement {
  int random_starts = 100;        // KL starts besides METIS, by-rank and round-robin
  std::uint64_t seed = 1;         // of the random starts and of METIS
  int max_refined_slots = 512;    // no KL past this many slots (cost O(slots^3) per pass)

  Placement place(const TrafficMatrix& t, NodeShape shape) const {
    check_shape(t.procs(), shape);
    const int procs = t.procs();
    std::vector<Placement> starts{metis_start(t, shape), ByRankPlacement{}.place(t, shape),
                                  RoundRobinPlacement{}.place(t, shape)};
    const bool refine = shape.slots() <= max_refined_slots && t.total() > 0;
    if (refine) {
      std::mt19937_64 rng(seed);
      for (int k = 0; k < random_starts; ++k) starts.push_back(RandomPlacement::draw(procs, shape, rng));
    }
    Placement best;
    std::uint64_t best_kept = 0;
    for (std::size_t k = 0; k < starts.size(); ++k) {
      Placement p = std::move(starts[k]);
      if (refine) {
        placement_internal::SwapState state(t, shape, placement_internal::to_nodes(p, procs));
        while (placement_internal::kl_pass(state) > 0) {
        }
        p = placement_internal::to_placement(state.nodes(), procs, shape);
      }
      const std::uint64_t kept = intra_node_bytes(t, p);
      if (k == 0 || kept > best_kept) best = std::move(p), best_kept = kept;
    }
    return best;
  }

  // METIS k-way over all slot vertices (free ones unconnected), each of
  // weight 1, then exact capacity: vertices leave overfull nodes, cheapest
  // first, for nodes with room.
  Placement metis_start(const TrafficMatrix& t, NodeShape shape) const {
    const int n = shape.slots();
    MetisGraph g;
    g.xadj.push_back(0);
    for (int v = 0; v < n; ++v) {
      for (int u = 0; v < t.procs() && u < t.procs(); ++u) {
        if (u == v || t.at(v, u) == 0) continue;
        g.adjncy.push_back(u);
        g.adjwgt.push_back(std::max<idx_t>(1, MetisGraph::clamp(t.at(v, u))));
      }
      g.xadj.push_back(static_cast<idx_t>(g.adjncy.size()));
      g.vwgt.push_back(1);
    }
    std::vector<idx_t> part = metis_kway(
        g, shape.nodes, MetisOptions{.volume = false, .imbalance_permille = 1, .seed = static_cast<int>(seed)});
    std::vector<int> node(part.begin(), part.end());
    repair_capacity(t, shape, node);
    return placement_internal::to_placement(node, t.procs(), shape);
  }

 private:
  static void repair_capacity(const TrafficMatrix& t, NodeShape shape, std::vector<int>& node) {
    std::vector<int> load(static_cast<std::size_t>(shape.nodes), 0);
    for (int k : node) ++load[static_cast<std::size_t>(k)];
    for (;;) {
      const auto over = std::find_if(load.begin(), load.end(), [&](int l) { return l > shape.cores_per_node; });
      if (over == load.end()) break;
      const int from = static_cast<int>(over - load.begin());
      // The move that loses the fewest intra-node bytes; a free vertex or
      // a process, to any node with room.
      std::int64_t top = std::numeric_limits<std::int64_t>::min();
      int bv = -1, bto = -1;
      for (int v = 0; v < static_cast<int>(node.size()); ++v) {
        if (node[static_cast<std::size_t>(v)] != from) continue;
        for (int to = 0; to < shape.nodes; ++to) {
          if (load[static_cast<std::size_t>(to)] >= shape.cores_per_node) continue;
          const std::int64_t g = move_gain(t, node, v, to);
          if (g > top) top = g, bv = v, bto = to;
        }
      }
      node[static_cast<std::size_t>(bv)] = bto;
      --load[static_cast<std::size_t>(from)];
      ++load[static_cast<std::size_t>(bto)];
    }
  }

  // Change of the intra-node bytes if vertex v moves to node `to`.
  static std::int64_t move_gain(const TrafficMatrix& t, const std::vector<int>& node, int v, int to) {
    if (v >= t.procs()) return 0;  // a free slot
    std::int64_t g = 0;
    for (int x = 0; x < t.procs(); ++x) {
      if (x == v) continue;
      const auto w = static_cast<std::int64_t>(t.at(v, x));
      const int k = node[static_cast<std::size_t>(x)];
      g += k == to ? w : k == node[static_cast<std::size_t>(v)] ? -w : 0;
    }
    return g;
  }
};

static_assert(PlacementPolicy<GraphPlacement>);

}  // namespace commanalyzer

#endif  // COMMANALYZER_GRAPH_PLACEMENT_H_

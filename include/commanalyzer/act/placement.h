// Process placement: which node (and core) each of P MPI processes runs on,
// so that pairs that exchange many bytes share a node (McPherson et al.).
//
//   TrafficMatrix t = TrafficMatrix::from_directed(estimate.matrix, P);
//   NodeShape shape{.nodes = 4, .cores_per_node = 8};      // 32 slots >= P
//   Placement by_rank = ByRankPlacement{}.place(t, shape);  // Open MPI's default
//   Placement best = GraphPlacement{}.place(t, shape);      // graph_placement.h
//   double kept = intra_node_share(t, best);                // bytes inside nodes / all
//   double random = mean_random_share(t, shape, 10000, 1);  // the paper's random baseline
//
// A placement gives every process a distinct global slot in [0, nodes *
// cores_per_node); the slot's node is slot / cores_per_node. Distinct slots
// are what "node capacity" means: no node runs more processes than it has
// cores. Only point-to-point bytes are placed: collectives involve every
// process whatever the placement.
#ifndef COMMANALYZER_PLACEMENT_H_
#define COMMANALYZER_PLACEMENT_H_

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace commanalyzer {

// Undirected traffic between processes: w(i, j) = bytes i -> j plus j -> i.
class TrafficMatrix {
 public:
  struct Pair {
    int a = 0, b = 0;  // a < b
    std::uint64_t bytes = 0;
  };

  // `directed` is procs x procs, row = sender (CommEstimate::matrix).
  static TrafficMatrix from_directed(const std::vector<std::uint64_t>& directed, int procs) {
    if (procs < 1 || directed.size() != static_cast<std::size_t>(procs) * static_cast<std::size_t>(procs)) {
      throw std::invalid_argument("traffic matrix: need procs x procs entries");
    }
    TrafficMatrix t;
    t.procs_ = procs;
    t.weight_.assign(directed.size(), 0);
    for (int i = 0; i < procs; ++i) {
      for (int j = i + 1; j < procs; ++j) {
        const std::uint64_t w = directed[index(i, j, procs)] + directed[index(j, i, procs)];
        if (w == 0) continue;
        t.weight_[index(i, j, procs)] = t.weight_[index(j, i, procs)] = w;
        t.pairs_.push_back({i, j, w});
        t.total_ += w;
      }
    }
    return t;
  }

  int procs() const { return procs_; }
  std::uint64_t at(int i, int j) const { return weight_[index(i, j, procs_)]; }
  // The pairs that exchange anything (placement sums run over these only).
  const std::vector<Pair>& pairs() const { return pairs_; }
  std::uint64_t total() const { return total_; }

 private:
  static std::size_t index(int i, int j, int procs) {
    return static_cast<std::size_t>(i) * static_cast<std::size_t>(procs) + static_cast<std::size_t>(j);
  }
  int procs_ = 0;
  std::vector<std::uint64_t> weight_;
  std::vector<Pair> pairs_;
  std::uint64_t total_ = 0;
};

struct NodeShape {
  int nodes = 1;
  int cores_per_node = 1;
  int slots() const { return nodes * cores_per_node; }
};

// slot[rank] in [0, shape.slots()), all distinct.
struct Placement {
  NodeShape shape;
  std::vector<int> slot;

  int node_of(int rank) const { return slot[static_cast<std::size_t>(rank)] / shape.cores_per_node; }
  int core_of(int rank) const { return slot[static_cast<std::size_t>(rank)] % shape.cores_per_node; }
};

// Throws std::invalid_argument naming the problem unless P processes fit.
inline void check_shape(int procs, NodeShape shape) {
  if (shape.nodes < 1 || shape.cores_per_node < 1) {
    throw std::invalid_argument("placement: need at least one node and one core per node");
  }
  if (static_cast<long long>(shape.nodes) * shape.cores_per_node < procs) {
    throw std::invalid_argument(std::to_string(shape.nodes) + " nodes x " + std::to_string(shape.cores_per_node) +
                                " cores = " + std::to_string(static_cast<long long>(shape.nodes) * shape.cores_per_node) +
                                " slots, fewer than the " + std::to_string(procs) + " processes");
  }
}

// True if every rank has a slot of the shape and no two share one.
inline bool respects_capacity(const Placement& p, int procs) {
  if (p.slot.size() != static_cast<std::size_t>(procs)) return false;
  std::vector<char> used(static_cast<std::size_t>(std::max(0, p.shape.slots())), 0);
  for (int s : p.slot) {
    if (s < 0 || s >= p.shape.slots() || used[static_cast<std::size_t>(s)]) return false;
    used[static_cast<std::size_t>(s)] = 1;
  }
  return true;
}

template <class P>
concept PlacementPolicy = requires(const P& policy, const TrafficMatrix& traffic, NodeShape shape) {
  { policy.place(traffic, shape) } -> std::same_as<Placement>;
};

// Bytes exchanged by processes on one node.
inline std::uint64_t intra_node_bytes(const TrafficMatrix& t, const Placement& p) {
  std::uint64_t kept = 0;
  for (const auto& pair : t.pairs()) kept += p.node_of(pair.a) == p.node_of(pair.b) ? pair.bytes : 0;
  return kept;
}

// Share of the bytes kept inside nodes; 1 when there is no traffic at all.
inline double intra_node_share(const TrafficMatrix& t, const Placement& p) {
  return t.total() == 0 ? 1.0 : static_cast<double>(intra_node_bytes(t, p)) / static_cast<double>(t.total());
}

// Open MPI's by-slot ("by-rank") mapping: fill node 0's cores, then node 1's.
struct ByRankPlacement {
  Placement place(const TrafficMatrix& t, NodeShape shape) const {
    check_shape(t.procs(), shape);
    Placement p{shape, std::vector<int>(static_cast<std::size_t>(t.procs()))};
    std::iota(p.slot.begin(), p.slot.end(), 0);
    return p;
  }
};

// Open MPI's by-node mapping: rank r on node r mod K.
struct RoundRobinPlacement {
  Placement place(const TrafficMatrix& t, NodeShape shape) const {
    check_shape(t.procs(), shape);
    Placement p{shape, std::vector<int>(static_cast<std::size_t>(t.procs()))};
    for (int r = 0; r < t.procs(); ++r) p.slot[static_cast<std::size_t>(r)] = (r % shape.nodes) * shape.cores_per_node + r / shape.nodes;
    return p;
  }
};

// A uniformly random assignment of ranks to slots.
struct RandomPlacement {
  std::uint64_t seed = 1;

  Placement place(const TrafficMatrix& t, NodeShape shape) const {
    std::mt19937_64 rng(seed);
    return draw(t.procs(), shape, rng);
  }

  static Placement draw(int procs, NodeShape shape, std::mt19937_64& rng) {
    check_shape(procs, shape);
    std::vector<int> slots(static_cast<std::size_t>(shape.slots()));
    std::iota(slots.begin(), slots.end(), 0);
    // A partial Fisher-Yates shuffle: only the first `procs` slots are used.
    for (int i = 0; i < procs; ++i) {
      std::uniform_int_distribution<int> pick(i, shape.slots() - 1);
      std::swap(slots[static_cast<std::size_t>(i)], slots[static_cast<std::size_t>(pick(rng))]);
    }
    slots.resize(static_cast<std::size_t>(procs));
    return Placement{shape, std::move(slots)};
  }
};

// The mean intra-node share of `samples` random placements (fixed seed, so
// reports are reproducible). Its expectation is (C - 1) / (slots - 1).
inline double mean_random_share(const TrafficMatrix& t, NodeShape shape, int samples, std::uint64_t seed) {
  check_shape(t.procs(), shape);
  if (samples < 1) throw std::invalid_argument("placement: need at least one random sample");
  std::mt19937_64 rng(seed);
  double sum = 0;
  for (int k = 0; k < samples; ++k) sum += intra_node_share(t, RandomPlacement::draw(t.procs(), shape, rng));
  return sum / samples;
}

static_assert(PlacementPolicy<ByRankPlacement>);
static_assert(PlacementPolicy<RoundRobinPlacement>);
static_assert(PlacementPolicy<RandomPlacement>);

}  // namespace commanalyzer

#endif  // COMMANALYZER_PLACEMENT_H_

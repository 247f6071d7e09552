// Data distributions: an owner process for every location for the whole
// region (locations.h), as owner-computes MPI codes distribute their data.
// Candidates, each then costed by the cost model (estimate.h keeps the
// cheapest):
//  - block: equal contiguous chunks of every aligned array class (slabs of
//    a row-major grid);
//  - cartesian: blocks of a process grid over the array's grid shape, the
//    shape read off the strides its values flow along (the halo of a 2-D or
//    3-D stencil), the process grid the factorisation of N that cuts fewest
//    uses (what MPI_Dims_create and MPI_Cart_create give a stencil code);
//  - metis: METIS k-way on the location graph (communication volume,
//    work balanced per array class);
//  - a user's map (DistributionMap): what the user plans to write.
// Free nodes (temporaries) go with the process they exchange most uses with.
#ifndef COMMANALYZER_DISTRIBUTION_H_
#define COMMANALYZER_DISTRIBUTION_H_

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <istream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "commanalyzer/locations.h"
#include "commanalyzer/partitioner.h"
#include "commanalyzer/types.h"

namespace commanalyzer {

struct Distribution {
  std::string name;
  std::vector<ProcId> node_owner;  // per location-graph node
  // The grid shape each array class was cut along, where one is known
  // (cartesian, a user's grid); empty = none. For drawing the owner map.
  std::vector<std::vector<std::uint64_t>> class_shape;
};

template <class D>
concept DistributionSource = requires(const D& d, const LocationIndex& index, int procs) {
  { d.candidates(index, procs) } -> std::same_as<std::vector<Distribution>>;
};

namespace distribution_internal {

inline constexpr ProcId kUnassigned = -2;
inline constexpr std::size_t kStrides = 16;  // strides a grid shape is looked for in (a 27-point stencil has 13)

// Free nodes join the process they exchange most uses with, in node
// (creation) order, so a chain of temporaries follows its first link;
// nodes with no owned neighbour at all are dealt round-robin.
inline void assign_free_nodes(const LocationIndex& index, int procs, std::vector<ProcId>& owner) {
  const auto& start = index.row_start();
  std::vector<std::uint64_t> tally(static_cast<std::size_t>(procs), 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (auto n = static_cast<LocationIndex::Node>(index.location_count()); n < index.node_count(); ++n) {
      if (owner[n] != kUnassigned) continue;
      std::fill(tally.begin(), tally.end(), 0);
      bool any = false;
      for (std::uint64_t e = start[n]; e < start[n + 1]; ++e) {
        const ProcId p = owner[index.neighbour()[e]];
        if (p < 0) continue;
        tally[static_cast<std::size_t>(p)] += index.uses()[e];
        any = true;
      }
      if (!any) continue;
      owner[n] = static_cast<ProcId>(std::max_element(tally.begin(), tally.end()) - tally.begin());
      changed = true;
    }
  }
  for (std::size_t n = index.location_count(); n < index.node_count(); ++n) {
    if (owner[n] == kUnassigned) owner[n] = static_cast<ProcId>(n % static_cast<std::size_t>(procs));
  }
}

// Owner of element i of an array of shape `dims` (row-major, last fastest)
// on the process grid `grid` (same rank), blocks as balanced as integers
// allow. With `cut`, the blocks of each dimension are those of an extent
// cut[k] instead of dims[k], and coordinates past it go to the last block:
// arrays of different extents aligned by index (LULESH's nodes, one more
// per dimension than its elements, with the elements of the same index).
inline ProcId grid_owner(std::uint64_t i, const std::vector<std::uint64_t>& dims,
                         const std::vector<std::uint64_t>& grid, const std::vector<std::uint64_t>* cut = nullptr) {
  std::uint64_t rank = 0, stride = 1;
  for (std::size_t k = 0; k < dims.size(); ++k) stride *= dims[k];
  for (std::size_t k = 0; k < dims.size(); ++k) {
    stride /= dims[k];
    const std::uint64_t c = (i / stride) % dims[k];
    const std::uint64_t extent = cut ? (*cut)[k] : dims[k];
    rank = rank * grid[k] + std::min(c, extent - 1) * grid[k] / extent;
  }
  return static_cast<ProcId>(rank);
}

// Ordered factorisations of `procs` into `parts` factors, each at most the
// matching dimension.
inline void factorisations(std::uint64_t procs, const std::vector<std::uint64_t>& dims, std::vector<std::uint64_t>& now,
                           std::vector<std::vector<std::uint64_t>>& out) {
  const std::size_t k = now.size();
  if (k + 1 == dims.size()) {
    if (procs <= dims[k]) {
      now.push_back(procs);
      out.push_back(now);
      now.pop_back();
    }
    return;
  }
  for (std::uint64_t f = 1; f <= procs && f <= dims[k]; ++f) {
    if (procs % f != 0) continue;
    now.push_back(f);
    factorisations(procs / f, dims, now, out);
    now.pop_back();
  }
}

}  // namespace distribution_internal

// BLOCK: element i of a class of E elements goes to process i * N / E.
inline std::vector<ProcId> block_distribution(const LocationIndex& index, int procs) {
  std::vector<ProcId> owner(index.node_count(), distribution_internal::kUnassigned);
  for (LocationIndex::Node n = 0; n < index.location_count(); ++n) {
    const std::uint64_t elements = index.classes()[index.class_of(n)].elements();
    owner[n] = static_cast<ProcId>(index.element(n) * static_cast<std::uint64_t>(procs) / elements);
  }
  distribution_internal::assign_free_nodes(index, procs, owner);
  return owner;
}

// Cartesian blocks: one process grid for the whole program, as an SPMD
// code creates one communicator topology, each array class cut by it along
// its own grid shape. What does not depend on the process count is found
// once: per class, a sample of its nodes with their peers (the nodes of the
// class they exchange values with directly or through one node outside it:
// LULESH's elements share nodes, its nodes share elements), the strides to
// those peers, and the candidate shapes: 1-D, E/s x s for a stride s, and
// E/t x t/s x s for two. For a process count, every process grid of 1, 2 or
// 3 dimensions is tried: each class takes the shape of that rank that makes
// it send least itself, and the grid kept is the one whose distribution
// sends least over the whole location graph. Classes of different extents
// are aligned in proportion or, `by_index`, by index (grid_owner's `cut`:
// the smallest extent of each dimension); the volume does not see the
// temporaries between arrays, so that choice is left to the cost model.
// Volume: a node's exported instances once per other process among its
// neighbours' (within a class, peers') owners, what the cost model counts
// before its refinements, on evenly spaced nodes.
class CartesianSearch {
 public:
  using Shape = std::vector<std::uint64_t>;
  // Bounds on the work, not decisions: nodes sampled per class, peers kept
  // per node, intermediaries crossed (more neighbours: a hub, not a mesh
  // entity), shapes tried per class.
  static constexpr std::size_t kSampled = 4096;
  static constexpr std::size_t kPeers = 64;
  static constexpr std::size_t kHopDegree = 64;
  static constexpr std::size_t kShapes = 12;

  explicit CartesianSearch(const LocationIndex& index) : index_(index), classes_(index.classes().size()) {
    std::vector<std::vector<LocationIndex::Node>> nodes(classes_.size());
    for (LocationIndex::Node n = 0; n < index.location_count(); ++n) nodes[index.class_of(n)].push_back(n);
    for (std::uint32_t c = 0; c < classes_.size(); ++c) sample(c, nodes[c]);
    const std::size_t step = std::max<std::size_t>(1, index.location_count() / kSampled);
    for (LocationIndex::Node n = 0; n < index.location_count(); ++n) {
      if (scattered(n, 0) % step != 0) continue;
      whole_.push_back(n);
      const std::uint64_t first = index.row_start()[n], end = index.row_start()[n + 1];
      const std::uint64_t keep = std::max<std::uint64_t>(1, (end - first + kPeers - 1) / kPeers);
      for (std::uint64_t e = first; e < end; ++e) {
        const LocationIndex::Node m = index.neighbour()[e];
        if (!index.is_free(m) && scattered(n, m) % keep == 0) whole_neighbours_.push_back(m);
      }
      whole_start_.push_back(whole_neighbours_.size());
    }
  }

  // Every class's values flow along at most distribution_internal::kStrides
  // distinct strides (a stencil on a grid: a 27-point one has 13).
  bool structured() const {
    return std::all_of(classes_.begin(), classes_.end(), [](const Class& c) { return c.structured; });
  }

  // Owners of every node for `procs` processes; `class_shape` gets the shape
  // each class was cut along (empty: none, BLOCK).
  std::vector<ProcId> distribute(int procs, bool by_index, std::vector<Shape>* class_shape = nullptr) const {
    using distribution_internal::factorisations;
    const auto P = static_cast<std::uint64_t>(procs);
    Choice now, best;
    now.chosen.assign(classes_.size(), nullptr);
    std::uint64_t least_total = ~std::uint64_t{0};
    for (std::size_t rank = 1; rank <= 3; ++rank) {
      std::vector<Shape> grids;
      Shape partial;
      factorisations(P, Shape(rank, P), partial, grids);
      for (const Shape& g : grids) {
        now.grid = g;
        now.by_index = false;  // a class alone: no other extent to align with
        for (std::uint32_t c = 0; c < classes_.size(); ++c) {
          std::uint64_t least = ~std::uint64_t{0};
          const Shape* pick = nullptr;
          for (const Shape& dims : classes_[c].shapes) {
            bool fits = dims.size() == rank;
            for (std::size_t k = 0; fits && k < rank; ++k) fits = g[k] <= dims[k];
            if (!fits) continue;
            now.chosen[c] = &dims;
            if (const std::uint64_t v = class_volume(c, now); v < least) {
              least = v;
              pick = &dims;
            }
          }
          now.chosen[c] = pick;
        }
        now.cut.assign(rank, ~std::uint64_t{0});
        for (const Shape* dims : now.chosen) {
          for (std::size_t k = 0; dims && k < rank; ++k) now.cut[k] = std::min(now.cut[k], (*dims)[k]);
        }
        now.by_index = by_index;
        // Ties go to the first found: fewer dimensions.
        if (const std::uint64_t v = total_volume(now); v < least_total) {
          least_total = v;
          best = now;
        }
      }
    }
    std::vector<ProcId> owner(index_.node_count(), distribution_internal::kUnassigned);
    for (LocationIndex::Node n = 0; n < index_.location_count(); ++n) owner[n] = owner_of(n, best, P);
    distribution_internal::assign_free_nodes(index_, procs, owner);
    if (class_shape) {
      class_shape->assign(classes_.size(), {});
      for (std::uint32_t c = 0; c < classes_.size(); ++c) {
        if (best.chosen[c]) (*class_shape)[c] = *best.chosen[c];
      }
    }
    return owner;
  }

 private:
  struct Class {
    std::vector<std::uint64_t> element;     // sampled nodes' elements
    std::vector<std::uint64_t> exports;     // ... and exported instances
    std::vector<std::size_t> peer_start{0};
    std::vector<std::uint64_t> peer;        // peers' elements
    std::vector<Shape> shapes;
    bool structured = true;
  };
  struct Choice {
    std::vector<const Shape*> chosen;  // per class; null: BLOCK
    Shape grid, cut;
    bool by_index = false;
  };

  void sample(std::uint32_t c, const std::vector<LocationIndex::Node>& all) {
    Class& cls = classes_[c];
    const auto& start = index_.row_start();
    auto in_class = [&](LocationIndex::Node m) { return !index_.is_free(m) && index_.class_of(m) == c; };
    const std::size_t step = std::max<std::size_t>(1, all.size() / kSampled);
    std::map<std::uint64_t, std::uint64_t> stride_count;
    std::vector<LocationIndex::Node> mine;
    for (std::size_t k = 0; k < all.size(); ++k) {
      const LocationIndex::Node a = all[k];
      if (scattered(a, 0) % step != 0) continue;
      mine.clear();
      for (std::uint64_t e = start[a]; e < start[a + 1]; ++e) {
        const LocationIndex::Node m = index_.neighbour()[e];
        if (in_class(m)) {
          mine.push_back(m);
        } else if (start[m + 1] - start[m] <= kHopDegree) {
          for (std::uint64_t f = start[m]; f < start[m + 1]; ++f) {
            const LocationIndex::Node b = index_.neighbour()[f];
            if (b != a && in_class(b)) mine.push_back(b);
          }
        }
      }
      std::sort(mine.begin(), mine.end());
      mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
      const std::uint64_t i = index_.element(a);
      for (LocationIndex::Node b : mine) {
        const std::uint64_t j = index_.element(b);
        ++stride_count[i > j ? i - j : j - i];
      }
      const std::size_t keep = std::max<std::size_t>(1, mine.size() / kPeers + (mine.size() % kPeers != 0));
      cls.element.push_back(i);
      cls.exports.push_back(index_.exports()[a]);
      for (LocationIndex::Node b : mine) {
        if (scattered(a, b) % keep == 0) cls.peer.push_back(index_.element(b));
      }
      cls.peer_start.push_back(cls.peer.size());
    }
    cls.structured = stride_count.size() <= distribution_internal::kStrides;
    // Candidate shapes from the most frequent strides that divide E.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> by_count;  // (-count, stride)
    for (const auto& [stride, n] : stride_count) by_count.emplace_back(~n, stride);
    std::sort(by_count.begin(), by_count.end());
    const std::uint64_t E = index_.classes()[c].elements();
    std::vector<std::uint64_t> divisors;
    for (const auto& [unused, stride] : by_count) {
      if (divisors.size() == distribution_internal::kStrides) break;
      if (stride > 1 && stride < E && E % stride == 0) divisors.push_back(stride);
    }
    cls.shapes.push_back({E});
    for (std::size_t x = 0; x < divisors.size() && cls.shapes.size() < kShapes; ++x) {
      cls.shapes.push_back({E / divisors[x], divisors[x]});
      for (std::size_t y = 0; y < x && cls.shapes.size() < kShapes; ++y) {
        const std::uint64_t s = std::min(divisors[x], divisors[y]), t = std::max(divisors[x], divisors[y]);
        if (t % s == 0) cls.shapes.push_back({E / t, t / s, s});
      }
    }
  }

  ProcId owner_of_element(std::uint32_t c, std::uint64_t i, const Choice& choice, std::uint64_t P) const {
    if (choice.chosen[c] == nullptr) return static_cast<ProcId>(i * P / index_.classes()[c].elements());
    return distribution_internal::grid_owner(i, *choice.chosen[c], choice.grid, choice.by_index ? &choice.cut : nullptr);
  }
  ProcId owner_of(LocationIndex::Node n, const Choice& choice, std::uint64_t P) const {
    return owner_of_element(index_.class_of(n), index_.element(n), choice, P);
  }

  std::uint64_t class_volume(std::uint32_t c, const Choice& choice) const {
    const Class& cls = classes_[c];
    const std::uint64_t P = product(choice.grid);
    std::uint64_t total = 0;
    std::vector<ProcId> seen;
    for (std::size_t k = 0; k < cls.element.size(); ++k) {
      const ProcId mine = owner_of_element(c, cls.element[k], choice, P);
      seen.clear();
      for (std::size_t p = cls.peer_start[k]; p < cls.peer_start[k + 1]; ++p) {
        const ProcId theirs = owner_of_element(c, cls.peer[p], choice, P);
        if (theirs != mine && std::find(seen.begin(), seen.end(), theirs) == seen.end()) seen.push_back(theirs);
      }
      total += cls.exports[k] * seen.size();
    }
    return total;
  }

  std::uint64_t total_volume(const Choice& choice) const {
    const std::uint64_t P = product(choice.grid);
    std::uint64_t total = 0;
    std::vector<ProcId> seen;
    for (std::size_t k = 0; k < whole_.size(); ++k) {
      const ProcId mine = owner_of(whole_[k], choice, P);
      seen.clear();
      for (std::size_t e = k == 0 ? 0 : whole_start_[k - 1]; e < whole_start_[k]; ++e) {
        const ProcId theirs = owner_of(whole_neighbours_[e], choice, P);
        if (theirs != mine && std::find(seen.begin(), seen.end(), theirs) == seen.end()) seen.push_back(theirs);
      }
      total += index_.exports()[whole_[k]] * seen.size();
    }
    return total;
  }

  // A pseudo-random number for the pair (a, b): samples of nodes and of a
  // node's neighbours, which lie in address order, must not be strided (a
  // stride in step with the array's rows sees only some of its blocks).
  static std::uint64_t scattered(std::uint64_t a, std::uint64_t b) {
    std::uint64_t x = (a << 32 | b) * 0x9E3779B97F4A7C15u;
    return x >> 40;
  }

  static std::uint64_t product(const Shape& s) {
    std::uint64_t p = 1;
    for (std::uint64_t x : s) p *= x;
    return p;
  }

  const LocationIndex& index_;
  std::vector<Class> classes_;
  std::vector<LocationIndex::Node> whole_;  // sampled array nodes of every class
  std::vector<std::size_t> whole_start_;    // end of each one's neighbours
  std::vector<LocationIndex::Node> whole_neighbours_;
};

// METIS k-way on the location graph: the edge cut weighted by uses summed
// over the region (its volume objective is what the cost model counts, but
// its refinement took 46 s where the cut takes 3.6 s, MatMul n = 128 at 64
// processes), work balanced per heavy array class.
inline std::vector<ProcId> metis_distribution(const LocationIndex& index, int procs, int imbalance_permille = 30) {
  const std::size_t n = index.node_count();
  std::vector<ProcId> owner(n, 0);
  if (procs == 1 || n == 0) return owner;
  // Constraint per class holding a share of the work (MiniGhost's variables
  // that never interact are each spread over all processes); the rest in 0.
  constexpr std::size_t kMaxConstraints = 8;
  std::vector<std::uint64_t> class_work(index.classes().size(), 0);
  for (LocationIndex::Node a = 0; a < index.location_count(); ++a) class_work[index.class_of(a)] += index.work()[a];
  std::vector<std::uint32_t> heaviest(class_work.size());
  for (std::uint32_t c = 0; c < heaviest.size(); ++c) heaviest[c] = c;
  std::sort(heaviest.begin(), heaviest.end(), [&](auto a, auto b) { return class_work[a] > class_work[b]; });
  std::vector<int> constraint_of_class(class_work.size(), 0);
  int ncons = 1;
  for (std::uint32_t c : heaviest) {
    if (ncons == static_cast<int>(kMaxConstraints) || class_work[c] == 0) break;
    constraint_of_class[c] = ncons++;
  }
  MetisGraph g;
  g.ncon = ncons;
  g.xadj.assign(index.row_start().begin(), index.row_start().end());
  g.adjncy.assign(index.neighbour().begin(), index.neighbour().end());
  for (std::uint64_t u : index.uses()) g.adjwgt.push_back(MetisGraph::clamp(u));
  for (std::size_t a = 0; a < n; ++a) {
    const int k = index.is_free(a) ? 0 : constraint_of_class[index.class_of(a)];
    for (int c = 0; c < ncons; ++c) g.vwgt.push_back(c == k ? MetisGraph::clamp(index.work()[a]) : 0);
    g.vsize.push_back(MetisGraph::clamp(index.exports()[a]));
  }
  const std::vector<idx_t> part = metis_kway(g, procs, MetisOptions{.volume = false, .imbalance_permille = imbalance_permille});
  for (std::size_t a = 0; a < n; ++a) owner[a] = static_cast<ProcId>(part[a]);
  return owner;
}

class DistributionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A user's distribution, from a text file (docs/DISTRIBUTION.md):
//   # comment
//   array ID FIRST LAST RANK        elements FIRST..LAST of array ID on RANK
//   grid ID D0xD1[xD2] P0xP1[xP2]   array ID as a row-major D0 x D1 (x D2)
//                                   grid in blocks of a P0 x P1 (x P2) process grid
// Arrays are numbered 1, 2, ... in allocation order (`commanalyzer
// estimate` lists them). Arrays aligned with a named one follow it;
// others, and elements no line covers, are distributed BLOCK.
class DistributionMap {
 public:
  static DistributionMap parse(std::istream& in, const std::string& name = "distribution") {
    DistributionMap map;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
      std::istringstream words(line);
      std::string kind;
      if (!(words >> kind)) continue;
      auto fail = [&](const std::string& why) {
        throw DistributionError(name + ":" + std::to_string(number) + ": " + why);
      };
      Rule rule;
      if (kind == "array") {
        long long first, last, rank;
        if (!(words >> rule.array >> first >> last >> rank) || first < 0 || last < first || rank < 0) {
          fail("expected 'array ID FIRST LAST RANK' with 0 <= FIRST <= LAST and RANK >= 0");
        }
        rule.first = static_cast<std::uint64_t>(first);
        rule.last = static_cast<std::uint64_t>(last);
        rule.rank = static_cast<ProcId>(rank);
      } else if (kind == "grid") {
        std::string dims, grid;
        if (!(words >> rule.array >> dims >> grid)) fail("expected 'grid ID D0xD1[xD2] P0xP1[xP2]'");
        rule.dims = parse_extents(dims);
        rule.grid = parse_extents(grid);
        if (rule.dims.empty() || rule.grid.size() != rule.dims.size()) {
          fail("'" + dims + "' and '" + grid + "' must be 1 to 3 positive extents of one rank, as 64x64 2x2");
        }
        std::uint64_t ranks = 1;
        for (std::size_t k = 0; k < rule.dims.size(); ++k) {
          if (rule.grid[k] > rule.dims[k]) fail("process grid " + grid + " is finer than the array " + dims);
          ranks *= rule.grid[k];
        }
        rule.rank = static_cast<ProcId>(ranks - 1);
      } else {
        fail("unknown directive '" + kind + "' (expected 'array' or 'grid')");
      }
      if (rule.array == 0) fail("array numbers start at 1");
      std::string extra;
      if (words >> extra) fail("unexpected '" + extra + "'");
      map.rules_.push_back(std::move(rule));
    }
    if (map.rules_.empty()) throw DistributionError(name + ": no 'array' or 'grid' line");
    return map;
  }

  // The highest rank the map names (a grid's last process).
  ProcId max_rank() const {
    ProcId r = 0;
    for (const Rule& rule : rules_) r = std::max(r, rule.rank);
    return r;
  }

  // Checks the map against the profile's arrays and `procs` before any work.
  void check(std::size_t array_count, int procs) const {
    for (const Rule& rule : rules_) {
      if (rule.array > array_count) {
        throw DistributionError("distribution names array " + std::to_string(rule.array) + ", but the profile has " +
                                std::to_string(array_count) + " array" + (array_count == 1 ? "" : "s"));
      }
    }
    if (max_rank() >= procs) {
      throw DistributionError("distribution uses rank " + std::to_string(max_rank()) + ", but only " +
                              std::to_string(procs) + " processes are estimated");
    }
  }

  // The shape of each array class a grid rule names (empty where none).
  std::vector<std::vector<std::uint64_t>> class_shapes(const LocationIndex& index) const {
    std::vector<std::vector<std::uint64_t>> shape(index.classes().size());
    for (std::uint32_t c = 0; c < index.classes().size(); ++c) {
      for (const Rule& rule : rules_) {
        const auto& arrays = index.classes()[c].arrays;
        if (!rule.dims.empty() && std::find(arrays.begin(), arrays.end(), rule.array) != arrays.end()) {
          shape[c] = rule.dims;
        }
      }
    }
    return shape;
  }

  // Owners of the locations; counts the elements no rule covered.
  std::vector<ProcId> owners(const LocationIndex& index, int procs, std::uint64_t* uncovered = nullptr) const {
    std::vector<ProcId> owner = block_distribution(index, procs);
    std::vector<std::uint8_t> covered(index.location_count(), 0);
    std::vector<std::uint32_t> class_of_array;
    for (std::uint32_t c = 0; c < index.classes().size(); ++c) {
      for (std::uint32_t a : index.classes()[c].arrays) {
        if (class_of_array.size() <= a) class_of_array.resize(a + 1, LocationIndex::kNoClass);
        class_of_array[a] = c;
      }
    }
    for (LocationIndex::Node n = 0; n < index.location_count(); ++n) {
      for (const Rule& rule : rules_) {
        if (rule.array >= class_of_array.size() || class_of_array[rule.array] != index.class_of(n)) continue;
        const std::uint64_t i = index.element(n);
        if (!rule.dims.empty()) {
          std::uint64_t size = 1;
          for (std::uint64_t d : rule.dims) size *= d;
          if (i >= size) continue;
          owner[n] = distribution_internal::grid_owner(i, rule.dims, rule.grid);
          covered[n] = 1;
        } else if (i >= rule.first && i <= rule.last) {
          owner[n] = rule.rank;
          covered[n] = 1;
        }
      }
    }
    if (uncovered) *uncovered = static_cast<std::uint64_t>(std::count(covered.begin(), covered.end(), 0));
    // Temporaries follow the user's locations, not the block fallback's.
    for (std::size_t n = index.location_count(); n < index.node_count(); ++n) {
      owner[n] = distribution_internal::kUnassigned;
    }
    distribution_internal::assign_free_nodes(index, procs, owner);
    return owner;
  }

 private:
  struct Rule {
    std::uint32_t array = 0;
    std::uint64_t first = 0, last = 0;
    ProcId rank = 0;
    std::vector<std::uint64_t> dims, grid;  // a grid rule
  };

  static std::vector<std::uint64_t> parse_extents(const std::string& text) {
    std::vector<std::uint64_t> out;
    std::istringstream in(text);
    std::string part;
    while (std::getline(in, part, 'x')) {
      if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 12) return {};
      const std::uint64_t v = std::stoull(part);
      if (v == 0) return {};
      out.push_back(v);
    }
    return out.size() <= 3 ? out : std::vector<std::uint64_t>{};
  }

  std::vector<Rule> rules_;
};

// The portfolio: which candidates to offer the cost model.
struct DistributionPortfolio {
  bool block = true;
  bool cartesian = true;
  bool metis = true;
  std::optional<DistributionMap> map;  // set: the user's map only

  DistributionPortfolio() = default;
  DistributionPortfolio(bool b, bool c, bool m, std::optional<DistributionMap> user = std::nullopt)
      : block(b), cartesian(c), metis(m), map(std::move(user)) {}
  DistributionPortfolio(const DistributionPortfolio& o) : DistributionPortfolio(o.block, o.cartesian, o.metis, o.map) {}
  DistributionPortfolio& operator=(const DistributionPortfolio& o) {
    block = o.block, cartesian = o.cartesian, metis = o.metis, map = o.map;
    return *this;
  }

  std::vector<Distribution> candidates(const LocationIndex& index, int procs) const {
    if (procs < 1) throw std::invalid_argument("commanalyzer: process count must be >= 1");
    std::vector<Distribution> out;
    if (map) {
      Distribution d{"user map", map->owners(index, procs), {}};
      d.class_shape = map->class_shapes(index);
      out.push_back(std::move(d));
      return out;
    }
    const std::shared_ptr<const CartesianSearch> search = cartesian || metis ? search_for(index) : nullptr;
    if (block) out.push_back({"block", block_distribution(index, procs), {}});
    if (cartesian) {
      // Only distributions that differ from those before (where every
      // class's best grid is 1-D, cartesian is block; with one extent the
      // alignments agree).
      for (bool by_index : {false, true}) {
        Distribution d{by_index ? "cartesian-by-index" : "cartesian", {}, {}};
        d.node_owner = search->distribute(procs, by_index, &d.class_shape);
        if (std::none_of(out.begin(), out.end(), [&](const Distribution& e) { return e.node_owner == d.node_owner; })) {
          out.push_back(std::move(d));
        }
      }
    }
    // Regular blocks where every array is structured (an SPMD code
    // distributes such arrays in regular blocks, whatever a graph partition
    // of the same flows might save); a graph partition where some array is
    // not.
    if (metis && (out.empty() || !search->structured())) {
      out.push_back({"metis", metis_distribution(index, procs), {}});
    }
    return out;
  }

 private:
  // The search's work that does not depend on the process count, done once
  // per location graph (estimates for several counts run on several threads).
  std::shared_ptr<const CartesianSearch> search_for(const LocationIndex& index) const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!search_ || searched_ != &index) {
      search_ = std::make_shared<CartesianSearch>(index);
      searched_ = &index;
    }
    return search_;
  }
  mutable std::mutex mutex_;
  mutable std::shared_ptr<const CartesianSearch> search_;
  mutable const LocationIndex* searched_ = nullptr;
};

static_assert(DistributionSource<DistributionPortfolio>);

}  // namespace commanalyzer

#endif  // COMMANALYZER_DISTRIBUTION_H_

// Regular distributions of the location graph's arrays (distribution.h):
// BLOCK, and Cartesian blocks of one process grid; and what every
// distribution shares: how temporaries follow the locations, and the owner
// of an element of a row-major grid cut by a process grid.
#ifndef COMMANALYZER_CARTESIAN_H_
#define COMMANALYZER_CARTESIAN_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "commanalyzer/estimate/locations.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

namespace distribution_internal {

inline constexpr ProcId kUnassigned = -2;
inline constexpr std::size_t kStrides = 16;  // strides a grid shape is looked for in (a 27-point stencil has 13)

// Votes for processes, for one node at a time: the process with the most,
// the lowest on ties (std::max_element over all of them). Only the
// processes voted for are looked at and cleared: a node has a few
// consumers, and millions of nodes are placed for each process count.
class ProcessTally {
 public:
  explicit ProcessTally(int procs) : count_(static_cast<std::size_t>(procs), 0) {}
  void add(ProcId p, std::uint64_t votes) {
    if (count_[static_cast<std::size_t>(p)] == 0) voted_.push_back(p);
    count_[static_cast<std::size_t>(p)] += votes;
  }
  // The winner; the tally is empty again after.
  ProcId take_most() {
    ProcId best = 0;
    std::uint64_t most = 0;
    for (ProcId p : voted_) {
      const std::uint64_t c = count_[static_cast<std::size_t>(p)];
      if (c > most || (c == most && p < best)) most = c, best = p;
    }
    for (ProcId p : voted_) count_[static_cast<std::size_t>(p)] = 0;
    voted_.clear();
    return best;
  }

 private:
  std::vector<std::uint64_t> count_;
  std::vector<ProcId> voted_;
};

// Free nodes (temporaries) join the process that consumes them most, else
// the one they exchange most uses with, in node (creation) order, so a
// chain of temporaries follows its first link; nodes with no owned
// neighbour at all are dealt round-robin.
// A vote for each owned consumer of node n; false if n has none.
inline bool tally_consumers(const LocationIndex& index, LocationIndex::Node n, const std::vector<ProcId>& owner,
                            ProcessTally& tally) {
  bool any = false;
  for (std::uint64_t e = index.consumer_start()[n]; e < index.consumer_start()[n + 1]; ++e) {
    const ProcId p = owner[index.consumer()[e]];
    if (p < 0) continue;
    tally.add(p, 1);
    any = true;
  }
  return any;
}

inline void assign_free_nodes(const LocationIndex& index, int procs, std::vector<ProcId>& owner) {
  const auto& start = index.row_start();
  const auto L = static_cast<LocationIndex::Node>(index.location_count());
  ProcessTally tally(procs);
  // Owner computes: a temporary is computed where it is consumed (the sum
  // of a row where the row's result is stored); one no node consumes goes
  // with the nodes it exchanges most uses with. The consumers' owners
  // count one each, so a temporary every process reads (a dot product)
  // is balanced out rather than weighted by how often it is read.
  auto by_consumers = [&](LocationIndex::Node n) { return tally_consumers(index, n, owner, tally); };
  auto by_neighbours = [&](LocationIndex::Node n) {
    bool any = false;
    for (std::uint64_t e = start[n]; e < start[n + 1]; ++e) {
      const ProcId p = owner[index.neighbour()[e]];
      if (p < 0) continue;
      tally.add(p, index.uses()[e]);
      any = true;
    }
    return any;
  };
  for (auto rule : {+0, +1}) {
    for (bool changed = true; changed;) {
      changed = false;
      for (LocationIndex::Node n = L; n < index.node_count(); ++n) {
        if (owner[n] != kUnassigned) continue;
        if (!(rule == 0 ? by_consumers(n) : by_neighbours(n))) continue;
        owner[n] = tally.take_most();
        changed = true;
      }
    }
  }
  for (std::size_t n = index.location_count(); n < index.node_count(); ++n) {
    if (owner[n] == kUnassigned) owner[n] = static_cast<ProcId>(n % static_cast<std::size_t>(procs));
  }
}

// Arrays the region only reads (a sparse matrix's values, a mesh's
// coefficients) are kept where they are read, as each process of an MPI
// code sets up or reads in the part of them its own rows use: every node of
// a read-only class goes to the process that consumes most of its values,
// if any consumer is owned. (Their extent is rarely the written arrays':
// CSR values packed by row have no block boundary in common with the rows.)
inline void place_read_only_arrays(const LocationIndex& index, int procs, std::vector<ProcId>& owner) {
  ProcessTally tally(procs);
  for (LocationIndex::Node n = 0; n < index.location_count(); ++n) {
    if (index.classes()[index.class_of(n)].written) continue;
    if (tally_consumers(index, n, owner, tally)) owner[n] = tally.take_most();
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

// grid_owner of every element 0..product(dims)-1, in order: a dimension's
// block of each coordinate is found once, not one division per element
// and dimension (a distribution is asked of millions of locations).
inline std::vector<ProcId> grid_owners(const std::vector<std::uint64_t>& dims, const std::vector<std::uint64_t>& grid,
                                       const std::vector<std::uint64_t>* cut = nullptr) {
  std::vector<ProcId> owner{0};
  std::vector<ProcId> block;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    const std::uint64_t extent = cut ? (*cut)[k] : dims[k];
    block.resize(dims[k]);
    for (std::uint64_t c = 0; c < dims[k]; ++c) {
      block[c] = static_cast<ProcId>(std::min(c, extent - 1) * grid[k] / extent);
    }
    std::vector<ProcId> next(owner.size() * dims[k]);
    for (std::size_t j = 0; j < owner.size(); ++j) {
      const ProcId outer = owner[j] * static_cast<ProcId>(grid[k]);
      for (std::uint64_t c = 0; c < dims[k]; ++c) next[j * dims[k] + c] = outer + block[c];
    }
    owner = std::move(next);
  }
  return owner;
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
  distribution_internal::place_read_only_arrays(index, procs, owner);
  return owner;
}

// Cartesian blocks: one process grid for the whole program, as an SPMD
// code creates one communicator topology, each array class cut by it along
// its own grid shape. What does not depend on the process count is found
// once: per class the region writes (read-only ones follow their readers),
// a sample of its nodes with their peers (the nodes of the class they
// exchange values with directly or through one node outside it: LULESH's
// elements share nodes, its nodes share elements), the strides to
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
// before its refinements, on a scattered sample of nodes.
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
    std::size_t cut_locations = 0;
    for (std::uint32_t c = 0; c < classes_.size(); ++c) {
      if (!cut_by_grid(c)) continue;
      sample(c, nodes[c]);
      cut_locations += nodes[c].size();
    }
    const std::size_t step = std::max<std::size_t>(1, cut_locations / kSampled);
    auto counted = [&](LocationIndex::Node m) { return !index.is_free(m) && cut_by_grid(index.class_of(m)); };
    for (LocationIndex::Node n = 0; n < index.location_count(); ++n) {
      if (!counted(n) || scattered(n, 0) % step != 0) continue;
      whole_.push_back(n);
      const std::uint64_t first = index.row_start()[n], end = index.row_start()[n + 1];
      const std::uint64_t keep = std::max<std::uint64_t>(1, (end - first + kPeers - 1) / kPeers);
      for (std::uint64_t e = first; e < end; ++e) {
        const LocationIndex::Node m = index.neighbour()[e];
        if (!index.is_free(m)) {
          if (counted(m) && scattered(n, m) % keep == 0) whole_neighbours_.push_back(m);
        } else {
          for_consumers(m, [&](LocationIndex::Node b) {
            if (b != n && counted(b) && scattered(n, b) % keep == 0) whole_neighbours_.push_back(b);
          });
        }
      }
      whole_start_.push_back(whole_neighbours_.size());
    }
  }

  // Owners of every node for `procs` processes on the process grid of
  // `rank` dimensions that sends least; `class_shape` gets the shape each
  // class was cut along (empty: none, BLOCK), `grid` the process grid.
  std::vector<ProcId> distribute(int procs, bool by_index, std::size_t rank, std::vector<Shape>* class_shape = nullptr,
                                 Shape* grid = nullptr) const {
    std::vector<Shape> grids;
    Shape partial;
    distribution_internal::factorisations(static_cast<std::uint64_t>(procs), Shape(rank, procs), partial, grids);
    Choice best;
    std::uint64_t least_total = ~std::uint64_t{0};
    for (const Shape& g : grids) {
      Choice now = choose(g, by_index);
      // Ties go to the first found.
      if (const std::uint64_t v = total_volume(now); v < least_total) {
        least_total = v;
        best = std::move(now);
      }
    }
    if (grid) *grid = best.grid;
    return owners(best, procs, class_shape);
  }

  // Owners of every node on the process grid `grid` (its product processes);
  // empty if no class has a shape of the grid's rank that it fits.
  std::vector<ProcId> distribute_on(const Shape& grid, bool by_index, std::vector<Shape>* class_shape = nullptr) const {
    const Choice choice = choose(grid, by_index);
    if (std::none_of(choice.chosen.begin(), choice.chosen.end(), [](const Shape* s) { return s != nullptr; })) return {};
    return owners(choice, static_cast<int>(product(grid)), class_shape);
  }

 private:
  struct Class {
    std::vector<std::uint64_t> element;     // sampled nodes' elements
    std::vector<std::uint64_t> exports;     // ... and exported instances
    std::vector<std::size_t> peer_start{0};
    std::vector<std::uint64_t> peer;        // peers' elements
    std::vector<Shape> shapes;
  };
  struct Choice {
    std::vector<const Shape*> chosen;  // per class; null: BLOCK
    Shape grid, cut;
    bool by_index = false;
  };

  // Every class cut by `g` in its shape of g's rank that sends least itself
  // (none fits: BLOCK); classes of different extents aligned by index or in
  // proportion.
  Choice choose(const Shape& g, bool by_index) const {
    const std::size_t rank = g.size();
    Choice now;
    now.chosen.assign(classes_.size(), nullptr);
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
    return now;
  }

  std::vector<ProcId> owners(const Choice& choice, int procs, std::vector<Shape>* class_shape) const {
    const auto P = static_cast<std::uint64_t>(procs);
    std::vector<ProcId> owner(index_.node_count(), distribution_internal::kUnassigned);
    std::vector<std::vector<ProcId>> by_element(classes_.size());
    for (std::uint32_t c = 0; c < classes_.size(); ++c) {
      if (choice.chosen[c]) {
        by_element[c] = distribution_internal::grid_owners(*choice.chosen[c], choice.grid,
                                                           choice.by_index ? &choice.cut : nullptr);
      }
    }
    for (LocationIndex::Node n = 0; n < index_.location_count(); ++n) {
      const std::uint32_t c = index_.class_of(n);
      owner[n] = by_element[c].empty() ? owner_of(n, choice, P) : by_element[c][index_.element(n)];
    }
    distribution_internal::assign_free_nodes(index_, procs, owner);
    distribution_internal::place_read_only_arrays(index_, procs, owner);
    if (class_shape) {
      class_shape->assign(classes_.size(), {});
      for (std::uint32_t c = 0; c < classes_.size(); ++c) {
        if (choice.chosen[c]) (*class_shape)[c] = *choice.chosen[c];
      }
    }
    return owner;
  }

  // A temporary lives where it is consumed (assign_free_nodes): what flows
  // into it flows on to its consumers, so they are the peers seen through it
  // (the sum of a matrix row times a column, stored into C(i, j)).
  template <class F>
  void for_consumers(LocationIndex::Node m, F&& f) const {
    for (std::uint64_t e = index_.consumer_start()[m]; e < index_.consumer_start()[m + 1]; ++e) {
      f(index_.consumer()[e]);
    }
  }

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
        } else if (index_.is_free(m)) {
          for_consumers(m, [&](LocationIndex::Node b) {
            if (b != a && in_class(b)) mine.push_back(b);
          });
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

  // Arrays the region only reads are not cut by the grid: they go where
  // they are read (place_read_only_arrays), so their index order, and the
  // shape it might suggest (a CSR matrix's 27 entries per row), says
  // nothing about the grid; only the written arrays choose it.
  bool cut_by_grid(std::uint32_t c) const { return index_.classes()[c].written; }

  const LocationIndex& index_;
  std::vector<Class> classes_;
  std::vector<LocationIndex::Node> whole_;  // sampled array nodes of every class
  std::vector<std::size_t> whole_start_;    // end of each one's neighbours
  std::vector<LocationIndex::Node> whole_neighbours_;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_CARTESIAN_H_

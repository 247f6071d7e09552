// Data distributions: an owner process for every location for the whole
// region (locations.h), as owner-computes MPI codes distribute their data.
// Candidates, each then costed by the cost model (estimate.h keeps the
// one predicted to run fastest):
//  - block: equal contiguous chunks of every aligned array class (slabs of
//    a row-major grid);
//  - cartesian (cartesian.h): blocks of one process grid over every array's
//    grid shape, the shape read off the strides its values flow along (the
//    halo of a 2-D or 3-D stencil); the grids the factorisation of N of
//    each rank that sends least (what MPI_Dims_create and MPI_Cart_create
//    give a stencil code) and slabs across each dimension (a pipelined
//    sweep);
//  - metis: METIS k-way on the location graph (edge cut, work balanced per
//    array class), offered where some array is indexed indirectly
//    (x[col[k]]: the pass marks it, Profile::Array);
//  - hypergraph: a hypergraph partition of the locations by connectivity
//    (hypergraph.h; Zoltan's PHG from the command line), offered with metis
//    when a partitioner is given;
//  - parmetis: a graph partition of the locations computed over MPI ranks
//    (parmetis_partitioner.h), for graphs past one machine; offered in
//    metis's place when a distributed partitioner is given;
//  - a user's map (distribution_map.h): what the user plans to write.
// Free nodes (temporaries) go with the process they exchange most uses with.
#ifndef COMMANALYZER_DISTRIBUTION_H_
#define COMMANALYZER_DISTRIBUTION_H_

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "commanalyzer/estimate/cartesian.h"
#include "commanalyzer/estimate/distribution_map.h"
#include "commanalyzer/estimate/location_contraction.h"
#include "commanalyzer/estimate/locations.h"
#include "commanalyzer/estimate/partitioner.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

struct Distribution {
  std::string name;
  std::vector<ProcId> node_owner;  // per location-graph node
  // The grid shape each array class was cut along, where one is known
  // (cartesian, a user's grid); empty = none. For drawing the owner map.
  std::vector<std::vector<std::uint64_t>> class_shape;
};

// A partitioner of the location graph: an owner in [0, procs) per node.
template <class P>
concept LocationPartitioner = requires(const P& p, const LocationIndex& index, int procs) {
  { p.partition(index, procs) } -> std::same_as<std::vector<ProcId>>;
};

template <class D>
concept DistributionSource = requires(const D& d, const LocationIndex& index, int procs) {
  { d.candidates(index, procs) } -> std::same_as<std::vector<Distribution>>;
};

// METIS k-way on the location graph: the edge cut weighted by uses summed
// over the region (its volume objective is what the cost model counts, but
// METIS's volume refinement is an order of magnitude slower than its cut
// refinement on dense location graphs), work balanced per heavy array class.
inline std::vector<ProcId> metis_distribution(const LocationIndex& index, int procs, int imbalance_permille = kMetisImbalancePermille,
                                              int max_array_constraints = kDefaultMaxArrayConstraints) {
  const std::size_t n = index.node_count();
  std::vector<ProcId> owner(n, 0);
  if (procs == 1 || n == 0) return owner;
  // Constraint per class holding a share of the work, heaviest first, so
  // that arrays whose values never interact are each spread over all
  // processes rather than one array per process; the rest in constraint 0
  // (past max_array_constraints: see kDefaultMaxArrayConstraints).
  std::vector<std::uint64_t> class_work(index.classes().size(), 0);
  for (LocationIndex::Node a = 0; a < index.location_count(); ++a) class_work[index.class_of(a)] += index.work()[a];
  std::vector<std::uint32_t> heaviest(class_work.size());
  for (std::uint32_t c = 0; c < heaviest.size(); ++c) heaviest[c] = c;
  std::sort(heaviest.begin(), heaviest.end(), [&](auto a, auto b) { return class_work[a] > class_work[b]; });
  std::vector<int> constraint_of_class(class_work.size(), 0);
  int ncons = 1;
  for (std::uint32_t c : heaviest) {
    if (ncons == max_array_constraints || class_work[c] == 0) break;
    constraint_of_class[c] = ncons++;
  }
  // METIS sees the contracted graph (location_contraction.h): a coarse
  // vertex weighs what its nodes weigh, constraint by constraint.
  auto constraint = [&](LocationIndex::Node a) -> std::size_t {
    return index.is_free(a) ? 0 : static_cast<std::size_t>(constraint_of_class[index.class_of(a)]);
  };
  std::vector<std::uint64_t> constraint_work(static_cast<std::size_t>(ncons), 0);
  for (LocationIndex::Node a = 0; a < n; ++a) constraint_work[constraint(a)] += index.work()[a];
  const LocationContraction contracted(
      index, constraint, LocationContraction::balance_limits(constraint_work, procs, imbalance_permille));
  const std::size_t coarse = contracted.coarse_count();
  std::vector<std::uint64_t> exports(coarse, 0);
  for (LocationIndex::Node a = 0; a < n; ++a) exports[contracted.coarse_of(a)] += index.exports()[a];
  MetisGraph g;
  g.ncon = ncons;
  g.xadj.push_back(0);
  for (std::uint32_t c = 0; c < coarse; ++c) {
    contracted.for_each_neighbour(c, [&](std::uint32_t b, std::uint64_t uses) {
      g.adjncy.push_back(static_cast<idx_t>(b));
      g.adjwgt.push_back(MetisGraph::clamp(uses));
    });
    g.xadj.push_back(static_cast<idx_t>(g.adjncy.size()));
  }
  for (std::uint64_t w : contracted.coarse_work()) g.vwgt.push_back(MetisGraph::clamp(w));
  for (std::uint64_t x : exports) g.vsize.push_back(MetisGraph::clamp(x));
  const std::vector<idx_t> part = metis_kway(g, procs, MetisOptions{.volume = false, .imbalance_permille = imbalance_permille});
  std::vector<ProcId> coarse_owner(coarse);
  for (std::size_t c = 0; c < coarse; ++c) coarse_owner[c] = static_cast<ProcId>(part[c]);
  return contracted.expand(coarse_owner);
}

// "4x4x1": a process grid as the candidates' names give it.
inline std::string grid_name(const std::vector<std::uint64_t>& grid) {
  std::string name;
  for (std::uint64_t g : grid) name += (name.empty() ? "" : "x") + std::to_string(g);
  return name;
}

// The portfolio: which candidates to offer the cost model.
struct DistributionPortfolio {
  bool block = true;
  bool cartesian = true;
  bool metis = true;
  std::optional<DistributionMap> map;  // set: the user's map only
  // Owner per location-graph node from a hypergraph partitioner
  // (hypergraph.h), offered with metis; empty: none. A partitioner that
  // throws costs its candidate only.
  std::function<std::vector<ProcId>(const LocationIndex&, int)> hypergraph;
  // Owner per node from a distributed graph partitioner (a
  // LocationPartitioner such as ParmetisPartitioner), offered as
  // "parmetis" where metis would be; empty: none. It was asked for, so its
  // failure fails the estimate.
  std::function<std::vector<ProcId>(const LocationIndex&, int)> distributed;
  // Told why a candidate was left out (the caller prints it); empty: no one.
  std::function<void(const std::string&)> note;
  // Per process count, the candidate to keep where it is offered (by
  // name, "cartesian 2x2x2"): the others are not costed. A model in the
  // problem size fits one decomposition, as an MPI code has one, whatever
  // a small size's noise would choose (`commanalyzer model`).
  std::map<int, std::string> keep;

  DistributionPortfolio() = default;
  DistributionPortfolio(bool b, bool c, bool m, std::optional<DistributionMap> user = std::nullopt)
      : block(b), cartesian(c), metis(m), map(std::move(user)) {}
  DistributionPortfolio(const DistributionPortfolio& o) : DistributionPortfolio(o.block, o.cartesian, o.metis, o.map) {
    hypergraph = o.hypergraph;
    distributed = o.distributed;
    note = o.note;
    keep = o.keep;
  }
  DistributionPortfolio& operator=(const DistributionPortfolio& o) {
    block = o.block, cartesian = o.cartesian, metis = o.metis, map = o.map, hypergraph = o.hypergraph;
    distributed = o.distributed;
    note = o.note;
    keep = o.keep;
    return *this;
  }

  // Every candidate for `procs`; where `keep` names one that is offered,
  // that one alone (the graph partitioners not run unless it is theirs).
  std::vector<Distribution> candidates(const LocationIndex& index, int procs) const {
    if (procs < 1) throw std::invalid_argument("commanalyzer: process count must be >= 1");
    const auto named = keep.find(procs);
    if (named == keep.end() || map) return offered(index, procs, nullptr);
    for (Distribution& d : offered(index, procs, &named->second)) {
      if (d.name == named->second) return {std::move(d)};
    }
    if (note) {
      note("'" + named->second + "' is not a candidate for " + std::to_string(procs) + " processes here: all are compared");
    }
    return offered(index, procs, nullptr);
  }

 private:
  // The candidates; `only`, if set: the graph partitioners (metis,
  // parmetis, hypergraph) run only if it names theirs.
  std::vector<Distribution> offered(const LocationIndex& index, int procs, const std::string* only) const {
    auto wanted = [&](const char* name) { return only == nullptr || *only == name; };
    std::vector<Distribution> out;
    if (map) {
      Distribution d{"user map", map->owners(index, procs), {}};
      d.class_shape = map->class_shapes(index);
      out.push_back(std::move(d));
      return out;
    }
    // A graph partition where some array is indexed indirectly (x[col[k]],
    // a mesh's node list), as MPI codes distribute unstructured data; where
    // every index is computed from loop counters, regular blocks, whatever
    // a graph partition's ragged cuts might save (no one writes them; a
    // transpose's A(i,j) with B(j,i) would even send nothing).
    const bool irregular = std::any_of(index.classes().begin(), index.classes().end(),
                                       [](const LocationIndex::ArrayClass& c) { return c.indexed_indirectly; });
    // The hypergraph partitioner (a Zoltan process) runs while this thread
    // makes the other candidates; offered as metis is, or alone.
    std::future<std::vector<ProcId>> hypergraph_owner;
    if (hypergraph && wanted("hypergraph") && (irregular || !(block || cartesian || metis || distributed))) {
      hypergraph_owner = std::async(std::launch::async, hypergraph, std::cref(index), procs);
    }
    const std::shared_ptr<const CartesianSearch> search = cartesian ? search_for(index) : nullptr;
    if (block) out.push_back({"block", block_distribution(index, procs), {}});
    if (cartesian) {
      // The decompositions MPI codes of regular grids write: the grid of
      // each rank that sends least (a halo exchange's squares), and slabs
      // across each dimension (a sweep whose dependences run along one
      // dimension overlaps its processes only when cut across another: a
      // pipelined wavefront). Which runs fastest is the cost model's to
      // say. Only distributions that differ from those before (where every
      // class's best grid is 1-D, cartesian is block; with one extent the
      // alignments agree).
      for (bool by_index : {false, true}) {
        auto offer = [&](Distribution d, const CartesianSearch::Shape& grid) {
          if (d.node_owner.empty() || std::any_of(out.begin(), out.end(), [&](const Distribution& e) {
                return e.node_owner == d.node_owner;
              })) {
            return;
          }
          d.name = std::string(by_index ? "cartesian-by-index " : "cartesian ") + grid_name(grid);
          out.push_back(std::move(d));
        };
        for (std::size_t rank = 1; rank <= 3; ++rank) {
          Distribution d;
          CartesianSearch::Shape grid;
          d.node_owner = search->distribute(procs, by_index, rank, &d.class_shape, &grid);
          offer(std::move(d), grid);
          for (std::size_t k = 0; rank > 1 && k < rank; ++k) {
            CartesianSearch::Shape slabs(rank, 1);
            slabs[k] = static_cast<std::uint64_t>(procs);
            Distribution e;
            e.node_owner = search->distribute_on(slabs, by_index, &e.class_shape);
            offer(std::move(e), slabs);
          }
        }
      }
    }
    if (metis && wanted("metis") && (out.empty() || irregular)) {
      out.push_back({"metis", metis_distribution(index, procs), {}});
    }
    if (distributed && wanted("parmetis") && (out.empty() || irregular)) {
      out.push_back({"parmetis", distributed(index, procs), {}});
    }
    if (hypergraph_owner.valid()) {
      try {
        out.push_back({"hypergraph", hypergraph_owner.get(), {}});
      } catch (const std::exception& e) {
        if (note) note("hypergraph candidate for " + std::to_string(procs) + " processes left out: " + e.what());
      }
    }
    if (out.empty() && only == nullptr) {
      throw std::runtime_error("commanalyzer: no distribution candidate could be computed");
    }
    return out;
  }

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

// Estimator: from a recorded profile to the predicted communication for any
// number of processes (Algorithm 1, lines 3-5). The graph and its
// singletons do not depend on the process count and are computed once;
// each estimate then partitions and costs.
//
// Ownership (DESIGN.md): with a DistributionSource (the default,
// DistributionPortfolio) every location has one owner for the region; the
// location graph is built once, each candidate distribution is costed and
// the cheapest kept. With a Partitioner (e.g. MetisPartitioner) each
// value vertex is placed on its own, the paper's value-instance partition.
#ifndef COMMANALYZER_ESTIMATE_H_
#define COMMANALYZER_ESTIMATE_H_

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <numeric>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "commanalyzer/estimate/choice.h"
#include "commanalyzer/estimate/cost_model.h"
#include "commanalyzer/estimate/distribution.h"
#include "commanalyzer/estimate/locations.h"
#include "commanalyzer/estimate/partitioner.h"
#include "commanalyzer/estimate/private_arrays.h"
#include "commanalyzer/estimate/repeated_iterations.h"
#include "commanalyzer/estimate/singleton.h"
#include "commanalyzer/estimate/value_graph.h"

namespace commanalyzer {

template <class ProfileT, SingletonScorer Scorer = DensityDistanceScorer,
          class PartitionerT = DistributionPortfolio, class Cost = LogicalVolumeCostModel>
  requires CostModel<Cost, ProfileT> && (Partitioner<PartitionerT> || DistributionSource<PartitionerT>)
class Estimator {
 public:
  // `threads`: for building the graph (estimate() takes its own count).
  explicit Estimator(const ProfileT& profile, Scorer scorer = {}, PartitionerT partitioner = {}, Cost cost = {},
                     unsigned threads = 1)
      : profile_(profile),
        graph_(build_graph(profile, cost, threads)),
        singletons_(with_reductions(scorer.detect(graph_))),
        partitioner_(std::move(partitioner)),
        cost_(std::move(cost)) {}

  static constexpr bool kByLocation = DistributionSource<PartitionerT>;

  // The owner of every graph vertex for `procs` processes (by location: the
  // first candidate's).
  std::vector<ProcId> owners(int procs) const {
    if constexpr (kByLocation) {
      const LocationIndex& index = locations(procs);
      return index.vertex_owners(partitioner_.candidates(index, procs).front().node_owner);
    } else {
      return partitioner_.partition(graph_, singletons_, procs);
    }
  }

  // `threads`: for costing the candidate distributions (by location), each
  // on its own; the one kept does not depend on it.
  CommEstimate estimate(int procs, unsigned threads = 1) const {
    if constexpr (kByLocation) {
      const LocationIndex& index = locations(procs);
      std::vector<Distribution> candidates = partitioner_.candidates(index, procs);
      // Candidates compared on the whole run projected from the learning
      // window, the one kept costed on the whole run.
      const std::size_t window = candidates.size() > 1 ? learning_window() : kWholeRun;
      const std::vector<std::uint8_t> fixed = index.fixed_homes();
      std::vector<std::vector<std::uint64_t>> owned(candidates.size());  // bytes per process
      for (std::size_t i = 0; i < candidates.size(); ++i) owned[i] = index.owned_bytes(candidates[i].node_owner, procs);
      // A candidate's estimate over `iterations` (the whole run projected
      // from them), its time allowing for its uneven blocks (choice.h).
      auto cost = [&](std::size_t i, std::size_t iterations) {
        const std::vector<ProcId> owner = index.vertex_owners(candidates[i].node_owner);
        // A whole run counts the iterations that repeat the one before.
        RepeatedIterations repeats;
        if (iterations == kWholeRun) {
          if (!cost_every_iteration_) repeats = iteration_signatures().repeats(owner);
          repeats = repeats.counting_beyond_window(profile_.phase_count(), profile_.recorded_iterations);
        }
        CommEstimate e = cost_over(owner, procs, iterations, fixed, repeats);
        if (iterations != kWholeRun) {  // compared only: the one kept is costed again
          compared_only(e);
          CommEstimate before = cost_over(owner, procs, iterations - 1, fixed, {});
          e = project_run(compared_only(before), std::move(e), profile_.iterations());
        }
        allow_for_uneven_blocks(e, owned[i]);
        return e;
      };
      // Candidates that place every location alike (a block distribution
      // is the cartesian 1 x P one) are costed once.
      const std::vector<std::size_t> first = first_alike(candidates);
      std::vector<std::size_t> distinct;
      for (std::size_t i = 0; i < candidates.size(); ++i) {
        if (first[i] == i) distinct.push_back(i);
      }
      std::vector<CommEstimate> costed(candidates.size());
      run_indexed(distinct.size(), threads, [&](std::size_t k) { costed[distinct[k]] = cost(distinct[k], window); });
      for (std::size_t i = 0; i < candidates.size(); ++i) {
        if (first[i] != i) costed[i] = costed[first[i]];
      }
      std::vector<CandidateCost> tried;
      for (std::size_t i = 0; i < candidates.size(); ++i) {
        tried.push_back({candidates[i].name, costed[i].total_bytes(), costed[i].compute_seconds,
                         costed[i].exchange_seconds, largest_share(costed[i].process_work), largest_share(owned[i])});
      }
      const std::size_t fastest = keep_fastest(costed, owned);
      const Distribution& kept = candidates[fastest];
      CommEstimate best = window == kWholeRun ? std::move(costed[fastest]) : cost(fastest, kWholeRun);
      best.learned_iterations = window == kWholeRun ? 0 : window;
      best.window_steady = best.projected_iterations == 0 || window_steady(index.vertex_owners(kept.node_owner), best);
      best.distribution = kept.name;
      best.candidates = std::move(tried);
      best.owner_map = index.owner_runs(kept.node_owner);
      best.process_memory = std::move(owned[fastest]);
      for (std::uint32_t c = 0; c < kept.class_shape.size(); ++c) {
        if (kept.class_shape[c].empty()) continue;
        for (std::uint32_t array : index.classes()[c].arrays) best.array_shapes.emplace_back(array, kept.class_shape[c]);
      }
      return best;
    } else {
      const std::vector<ProcId> owner = owners(procs);
      CommEstimate e = cost_over(owner, procs, kWholeRun, {}, beyond_window());
      e.window_steady = e.projected_iterations == 0 || window_steady(owner, e);
      return e;
    }
  }

  // The location graph for `procs` processes (ownership by location only):
  // the settled locations of the arrays small enough for each process to
  // copy (private_arrays.h) are not in it (none for one process: the
  // default). Counts that copy the same arrays share one graph.
  // An index is kept while counts that use it are still to be estimated
  // (estimate(procs, ...) lets each go after its last count).
  const LocationIndex& locations(int procs = 1) const {
    const ArraysAt at = arrays_at(procs);
    std::lock_guard<std::mutex> lock(locations_mutex_);
    std::unique_ptr<LocationIndex>& entry = locations_[at.copied];
    if (entry == nullptr) {
      entry = std::make_unique<LocationIndex>(LocationIndex::build(graph_, singletons_, at.arrays, at.moves));
    }
    return *entry;
  }

  // What there is to distribute (one process: no array copied), without
  // building a location graph no count may use. Computed once.
  const LocationIndex::Census& location_census() const {
    std::call_once(census_once_, [&] {
      const ArraysAt at = arrays_at(1);
      census_ = LocationIndex::census(graph_, singletons_, at.arrays, at.moves);
    });
    return census_;
  }

  // What tells the iterations of the region that repeat the one before
  // (repeated_iterations.h); a whole run is costed with those of its
  // distribution counted as the one they repeat. Empty where every
  // iteration is costed. One for every count: array locations are named
  // as no count copies them, and two iterations alike at that grain are
  // alike where a count copies some arrays too (its locations are fewer,
  // not others).
  const IterationSignatures& iteration_signatures() const {
    std::call_once(signed_once_, [&] {
      if (cost_every_iteration_ && profile_.recorded_iterations < 3) return;
      const LocationIndex::Census& census = location_census();
      signatures_ = IterationSignatures::of(
          profile_, graph_, [&](ValueGraph::Vertex x) { return census.node_of_vertex[x]; },
          [&](LocationIndex::Node n) { return census.is_temporary(n); });
    });
    return signatures_;
  }

  // Costs every iteration, even those that repeat the one before (to
  // check that counting them gives the same estimate).
  void cost_every_iteration(bool every) { cost_every_iteration_ = every; }

  // Estimates for several process counts on up to `threads` threads (each
  // estimate is independent and reads the shared graph only). `done`, if
  // set, is called as each count is finished (one call at a time, in
  // finishing order): progress for long runs.
  std::vector<CommEstimate> estimate(const std::vector<int>& procs, unsigned threads = 1,
                                     const std::function<void(int procs)>& done = {}) const {
    std::vector<CommEstimate> all(procs.size());
    // Largest counts first (they take longest): the last to start is then
    // a short one, and no thread idles long at the end.
    std::vector<std::size_t> order(procs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return procs[a] > procs[b]; });
    // Threads the counts leave idle cost candidates side by side (one new
    // count re-estimated on two cores).
    const unsigned per_count = procs.empty() ? 1 : std::max<unsigned>(1, threads / procs.size());
    // Counts that copy other arrays have location graphs of their own, each
    // as large as the value graph's locations: one goes after its last
    // count, and those no count uses (a count's not asked for) at once.
    std::map<std::vector<std::uint8_t>, std::size_t> counts_left;
    std::vector<std::vector<std::uint8_t>> key(procs.size());
    if constexpr (kByLocation) {
      for (std::size_t k = 0; k < procs.size(); ++k) ++counts_left[key[k] = arrays_at(procs[k]).copied];
      std::lock_guard<std::mutex> lock(locations_mutex_);
      std::erase_if(locations_, [&](const auto& entry) { return !counts_left.contains(entry.first); });
    }
    std::mutex mutex;  // guards the calls of done
    run_indexed(procs.size(), threads, [&](std::size_t i) {
      const std::size_t k = order[i];
      all[k] = estimate(procs[k], per_count);
      if constexpr (kByLocation) {
        std::lock_guard<std::mutex> lock(locations_mutex_);
        if (--counts_left[key[k]] == 0) locations_.erase(key[k]);
      }
      if (done) {
        std::lock_guard<std::mutex> lock(mutex);
        done(procs[k]);
      }
    });
    return all;
  }

  // Candidate distributions are compared on the whole run's time projected
  // from the region's first `iterations` (and what comes before them): the
  // last of them stands for every later one (project_run), the way an MPI
  // code settles its decomposition before its time loop; the one kept is
  // costed on the whole run. 0: compare them on the whole run.
  void learn_from(std::size_t iterations) { learn_iterations_ = iterations; }

  const ValueGraph& graph() const { return graph_; }
  const std::vector<std::uint8_t>& singletons() const { return singletons_; }

 private:
  static constexpr std::size_t kWholeRun = ~std::size_t{0};

  // The arrays with the private copies each process makes at a count
  // (private_arrays.h), the moves between them, and which are copied: the
  // key of the count's location graph.
  struct ArraysAt {
    std::vector<ArrayExtent> arrays;
    std::vector<ArrayMove> moves;
    std::vector<std::uint8_t> copied;
  };
  static ArraysAt arrays_at(const ProfileT& profile, double ghost_memory, int procs) {
    ArraysAt at;
    for (const auto& a : profile.arrays) {
      at.arrays.push_back({a.base, a.bytes, a.freed, a.indexed_indirectly, a.scratch, a.copied_into});
    }
    for (const auto& m : profile.moves) at.moves.push_back({m.from, m.to, m.from_offset, m.to_offset, m.bytes});
    mark_private_arrays(at.arrays, at.moves, ghost_memory, procs);
    for (const ArrayExtent& a : at.arrays) at.copied.push_back(a.private_copy);
    return at;
  }
  ArraysAt arrays_at(int procs) const { return arrays_at(profile_, ghost_memory(cost_), procs); }

  // By location, the value graph has a vertex per location
  // (location_vertices) outside the arrays some count copies: two
  // processes have the largest ghost budget, so copy every array any
  // count does.
  static ValueGraph build_graph(const ProfileT& profile, const Cost& cost, unsigned threads) {
    if constexpr (kByLocation) {
      ArraysAt at = arrays_at(profile, ghost_memory(cost), 2);
      const LocationGrain grain{std::move(at.arrays), std::move(at.moves)};
      return ValueGraph::build(profile, threads, &grain);
    } else {
      return ValueGraph::build(profile, threads);
    }
  }
  // Per candidate, the first candidate with the same owner for every
  // location (itself if none before it has).
  static std::vector<std::size_t> first_alike(const std::vector<Distribution>& candidates) {
    std::vector<std::size_t> first(candidates.size());
    absl::flat_hash_map<std::size_t, std::vector<std::size_t>> by_hash;  // owners' hash -> candidates
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      first[i] = i;
      std::vector<std::size_t>& same_hash = by_hash[absl::HashOf(candidates[i].node_owner)];
      for (std::size_t j : same_hash) {
        if (candidates[j].node_owner == candidates[i].node_owner) {
          first[i] = j;
          break;
        }
      }
      if (first[i] == i) same_hash.push_back(i);
    }
    return first;
  }

  // Whether the cost model can cost the first iterations only.
  static constexpr bool kCostsWindows =
      requires(const Cost& cost, const ProfileT& profile, const ValueGraph& graph, const std::vector<ProcId>& owner) {
        cost.estimate(profile, graph, owner, 1, std::size_t{1});
      };

  // The iterations candidates are compared on; kWholeRun where that is all
  // of them (or the cost model costs whole runs only). Within those a
  // recording window costs (its last recorded one looks ahead).
  std::size_t learning_window() const {
    std::size_t window = learn_iterations_;
    if (profile_.recorded_iterations >= 3) window = std::min(window, profile_.recorded_iterations - 2);
    if (kCostsWindows && window > 0 && window + 1 < profile_.iterations()) return window;
    return kWholeRun;
  }

  // For an estimate that counts iterations beyond a recording window:
  // whether the window's look-ahead repeats its last costed iteration under
  // these owners, and no whole-run rule changed what the processes receive
  // (CommEstimate::carries_across_iterations). Then the iterations counted
  // as that one cost what it did, as far as the window can tell.
  bool window_steady(const std::vector<ProcId>& owner, const CommEstimate& e) const {
    return !e.carries_across_iterations &&
           iteration_signatures().repeats_previous(profile_.recorded_iterations - 1, owner);
  }

  // The iterations beyond a recording window, counted as its last costed one.
  RepeatedIterations beyond_window() const {
    return RepeatedIterations{}.counting_beyond_window(profile_.phase_count(), profile_.recorded_iterations);
  }

  // `fixed`: which vertices are stored at locations with a fixed owner, for
  // a cost model that asks (LogicalVolumeCostModel's recomputation).
  // `repeats`: the iterations costed as the ones they repeat.
  CommEstimate cost_over(const std::vector<ProcId>& owner, int procs, std::size_t iterations,
                         const std::vector<std::uint8_t>& fixed, const RepeatedIterations& repeats) const {
    if constexpr (requires { cost_.estimate(profile_, graph_, owner, procs, iterations, fixed, repeats); }) {
      return cost_.estimate(profile_, graph_, owner, procs, iterations, fixed, repeats);
    } else if constexpr (requires { cost_.estimate(profile_, graph_, owner, procs, iterations, fixed); }) {
      return cost_.estimate(profile_, graph_, owner, procs, iterations, fixed);
    } else {
      if constexpr (kCostsWindows) {
        if (iterations != kWholeRun) return cost_.estimate(profile_, graph_, owner, procs, iterations);
      }
      return cost_.estimate(profile_, graph_, owner, procs);
    }
  }

  // Private copies are bounded by the ghost budget that bounds received
  // copies (LogicalVolumeCostModel::ghost_memory); 1 for other models.
  static double ghost_memory(const Cost& cost) {
    if constexpr (requires { cost.ghost_memory; }) {
      return cost.ghost_memory;
    } else {
      return 1.0;
    }
  }

  // Reductions (ValueGraph::close_reductions) are singletons, whatever
  // their degree: an MPI code reduces each process's part with a collective
  // however few values a region's minimum reads (the scorer's floor, sqrt
  // of an iteration's values, is for values it knows nothing else of). By
  // location, one homed in an array stays that element's (C(i, j) = row
  // times column, owner-computes), or every process's in a small array each
  // copies (LocationIndex); by value, only those outside arrays are.
  std::vector<std::uint8_t> with_reductions(const std::vector<std::uint8_t>& scored) {
    std::vector<std::uint8_t> singleton = graph_.close_reductions(scored);
    if constexpr (!kByLocation) {
      for (ValueGraph::Vertex x = 0; x < singleton.size(); ++x) {
        if (graph_.group(x) != 0) singleton[x] = scored[x];
      }
    }
    return singleton;
  }

  // task(i) for i in [0, count) on up to `threads` threads, each taking the
  // next i; rethrows one of the tasks' exceptions once all have run.
  template <class Task>
  static void run_indexed(std::size_t count, unsigned threads, const Task& task) {
    std::atomic<std::size_t> next{0};
    std::exception_ptr failure;
    std::mutex mutex;  // guards failure
    auto worker = [&] {
      for (std::size_t i; (i = next++) < count;) {
        try {
          task(i);
        } catch (...) {
          std::lock_guard<std::mutex> lock(mutex);
          failure = std::current_exception();
        }
      }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < std::min<std::size_t>(threads, count); ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
  }

  const ProfileT& profile_;
  ValueGraph graph_;
  std::vector<std::uint8_t> singletons_;
  PartitionerT partitioner_;
  Cost cost_;
  std::size_t learn_iterations_ = 0;
  mutable std::once_flag census_once_, signed_once_;
  mutable LocationIndex::Census census_;
  mutable IterationSignatures signatures_;
  mutable std::mutex locations_mutex_;
  mutable std::map<std::vector<std::uint8_t>, std::unique_ptr<LocationIndex>> locations_;  // by arrays copied
  bool cost_every_iteration_ = false;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_ESTIMATE_H_

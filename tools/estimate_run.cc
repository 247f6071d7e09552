#include "tools/estimate_run.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <new>
#include <sstream>
#include <type_traits>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "commanalyzer/record/analyzer.h"
#include "commanalyzer/estimate/estimate.h"
#include "commanalyzer/estimate/partitioner.h"
#include "commanalyzer/record/profile_io.h"
#include "tools/cli_errors.h"
#include "tools/distributed_partitioning.h"
#include "tools/limits.h"

namespace commanalyzer::cli {
namespace {

// By location: how many array elements and temporaries the profile has to
// distribute, on stderr, with a warning when no array holds the values.
void log_locations(const LocationIndex::Census& locations) {
  std::cerr << absl::StrFormat("[commanalyzer] locations: %d array elements in %d aligned class%s, %d temporaries\n",
                               locations.locations, locations.classes, locations.classes == 1 ? "" : "es",
                               locations.temporaries);
  if (locations.locations == 0 && locations.temporaries > 0) {
    std::cerr << "[commanalyzer] warning: no array of 1 KiB or more (heap, global or static) holds the region's "
                 "values, so no location has a fixed owner and every value is placed as a temporary; "
                 "--ownership=value partitions them as the paper does\n";
  }
}

// The checks that need the graph. A count larger than the units there are
// to own would leave processes with nothing: it is left out, with a
// warning, and the others are estimated (UsageError when none is left).
// The per-pair byte and message matrices take 16 N^2 bytes (LimitError
// past --max-memory). Returns the counts to estimate, in the request's order.
template <class EstimatorT>
std::vector<int> check_process_counts(const EstimatorT& estimator, const GraphSummary& summary, const EstimateRequest& r) {
  std::size_t units = 0;
  const char* unit_name = "value graph vertices";
  if constexpr (EstimatorT::kByLocation) {
    const LocationIndex::Census& census = estimator.location_census();
    units = census.locations;
    unit_name = "array elements (locations)";
    if (units == 0) units = census.temporaries, unit_name = "temporaries";
  } else {
    units = estimator.graph().vertex_count() - summary.singletons;
  }
  // Nothing to distribute (a program that computes nothing from data):
  // nothing to send, at any count.
  std::vector<int> fit, too_many;
  for (int n : r.procs) (units == 0 || static_cast<std::size_t>(n) <= units ? fit : too_many).push_back(n);
  auto why = [&](int n) {
    return absl::StrCat("--procs ", n, ": the profile has ", units, " ", unit_name, " to distribute, so at most ", units,
                        " processes");
  };
  if (fit.empty()) throw UsageError(why(too_many.front()));
  for (int n : too_many) std::cerr << "[commanalyzer] warning: left out " << why(n) << "\n";
  const int most = *std::max_element(fit.begin(), fit.end());
  if (const double matrices = 16.0 * most * most; matrices > static_cast<double>(r.max_memory_bytes)) {
    throw LimitError(absl::StrCat("--procs ", most, ": the per-pair matrices alone need ",
                                  format_bytes(static_cast<std::uint64_t>(matrices)), ", past --max-memory ",
                                  format_bytes(r.max_memory_bytes)));
  }
  return fit;
}

// The estimates name arrays by the profile's ids; reports name them by
// their numbers among the program's arrays (Profile::array_numbers), which
// a --distribution map uses too. A library's buffer has none: left out.
void number_arrays(const std::vector<std::uint32_t>& number, std::vector<CommEstimate>& estimates) {
  auto of = [&](std::uint32_t id) { return id == 0 || id > number.size() ? 0 : number[id - 1]; };
  for (CommEstimate& e : estimates) {
    std::erase_if(e.owner_map, [&](OwnerRun& run) { return (run.array = of(run.array)) == 0; });
    std::erase_if(e.array_shapes, [&](auto& shape) { return (shape.first = of(shape.first)) == 0; });
    for (SiteTraffic& t : e.sites) std::erase_if(t.arrays, [&](std::uint32_t& a) { return (a = of(a)) == 0; });
  }
}

// Whichever partitioner the request names: the graph, the checks that need
// it, then every count, with progress on stderr for long runs. `phase`
// says what is being done, for the out-of-memory message.
template <class ProfileT, class PartitionerT>
EstimateResult estimate_with(const ProfileT& profile, const EstimateRequest& r, PartitionerT partitioner,
                             bool with_graph, std::string& phase) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  Estimator<ProfileT, DensityDistanceScorer, PartitionerT> estimator(profile, r.scorer, partitioner, r.cost, r.threads);
  estimator.learn_from(r.learn_iterations);
  if constexpr (decltype(estimator)::kByLocation) estimator.cost_every_iteration(r.cost_every_iteration);
  EstimateResult result;
  GraphSummary& summary = result.summary;
  summary = {profile.values.count(), profile.flows.flow_count(), estimator.graph().vertex_count(),
             estimator.graph().edge_count(), 0, profile.iterations(),
             profile.counts_beyond_window() ? profile.recorded_iterations : 0};
  for (auto s : estimator.singletons()) summary.singletons += s;
  for (std::size_t k = 0; k < profile.arrays.size(); ++k) {
    if (!profile.arrays[k].by_program) continue;
    summary.arrays.emplace_back(profile.arrays[k].bytes, profile.arrays[k].indexed_indirectly);
    summary.array_names.push_back(profile.array_label(static_cast<std::uint32_t>(k + 1)));
  }
  if constexpr (decltype(estimator)::kByLocation) log_locations(estimator.location_census());
  const std::vector<int> procs = check_process_counts(estimator, summary, r);
  phase = absl::StrCat("partitioning and costing ", absl::StrJoin(procs, ","), " processes");
  std::cerr << absl::StrFormat("[commanalyzer] graph built in %.1fs; partitioning and costing %d process count%s\n",
                               elapsed(), procs.size(), procs.size() == 1 ? "" : "s");
  std::size_t finished = 0;
  result.estimates = estimator.estimate(procs, r.threads, [&](int n) {
    if (procs.size() > 1) {
      std::cerr << absl::StrFormat("[commanalyzer] %d processes done (%d of %d, %.1fs)\n", n, ++finished,
                                   procs.size(), elapsed());
    }
  });
  std::size_t counted = 0;
  for (const CommEstimate& e : result.estimates) counted = std::max(counted, e.counted_iterations);
  if (counted > 0) {
    std::cerr << absl::StrFormat(
        "[commanalyzer] up to %d of the %d iterations repeated the one before them and were counted as it, not "
        "costed again (--cost-every-iteration: each costed)\n",
        counted, profile.iterations());
  }
  std::cerr << absl::StrFormat("[commanalyzer] estimated in %.1fs\n", elapsed());
  number_arrays(profile.array_numbers(), result.estimates);
  if (with_graph && estimator.graph().edge_count() <= 100000) {
    std::ostringstream dot;
    estimator.graph().write_graphviz(dot);
    result.graphviz = dot.str();
  }
  return result;
}

// Ownership by location: the request's candidates (its map checked against
// the profile's arrays), or ParMETIS over the MPI job's ranks.
template <class ProfileT>
EstimateResult by_location(const ProfileT& profile, const EstimateRequest& r, bool with_graph, std::string& phase) {
  DistributionPortfolio portfolio = r.portfolio;
  std::string name = r.portfolio.map ? "the user's map" : r.distribution_name;
  if (r.partitioner == ValuePartitioner::kParmetis) {
    portfolio = DistributionPortfolio(false, false, false);
    portfolio.distributed = distributed_partitioner();
    name = distributed_partitioner_description();
  } else if (portfolio.map) {
    try {
      portfolio.map->number_arrays(profile);
      portfolio.map->check(profile.arrays.size(), 1 + portfolio.map->max_rank());
    } catch (const DistributionError& e) {
      throw UsageError(absl::StrCat("--distribution: ", e.what()));
    }
  }
  std::cerr << "[commanalyzer] ownership by location, distribution: " << name << "\n";
  try {
    return estimate_with(profile, r, std::move(portfolio), with_graph, phase);
  } catch (const DistributionError& e) {  // a map that does not fit the arrays' extents
    throw UsageError(absl::StrCat("--distribution: ", e.what()));
  }
}

// Ownership by value (the paper's method): the partitioner --partitioner names.
template <class ProfileT>
EstimateResult by_value(const ProfileT& profile, const EstimateRequest& r, bool with_graph, std::string& phase) {
  switch (r.partitioner) {
    case ValuePartitioner::kAuto:
    case ValuePartitioner::kMetisVolume:
    case ValuePartitioner::kMetisCut: {
      MetisPartitioner metis;
      metis.objective = r.partitioner == ValuePartitioner::kMetisCut ? MetisPartitioner::Objective::kEdgeCut
                                                                     : MetisPartitioner::Objective::kVolume;
      return estimate_with(profile, r, metis, with_graph, phase);
    }
    case ValuePartitioner::kParmetis:
      break;  // request_from_flags allows it by location only
  }
  throw std::logic_error("by_value: --partitioner parmetis partitions locations");
}

}  // namespace

LoadedProfile load_recorded_profile(const std::string& path, ProfileInfo* info) {
  ProfileInfo read;
  LoadedProfile profile = load_profile(path, &read);
  // (Said in the profile's metadata by the runtime, not on the program's stderr.)
  if (absl::StrContains(read.metadata, "region=never-begun")) {
    throw RunError(
        "the program marks a region of interest (CA_REGION_BEGIN) but did not reach it in this run: nothing was "
        "recorded to estimate (check the program's arguments)");
  }
  if (info != nullptr) *info = std::move(read);
  return profile;
}

template <class ProfileT>
EstimateResult run_estimate(const ProfileT& profile, const EstimateRequest& r, bool with_graph) {
  // The estimate runs in this process: past --max-memory an allocation
  // fails (std::bad_alloc) instead of the machine swapping or the kernel
  // killing something.
  const struct rlimit data{r.max_memory_bytes, r.max_memory_bytes};
  setrlimit(RLIMIT_DATA, &data);
  std::string phase = "building the value graph";
  try {
    return r.ownership == Ownership::kLocation ? by_location(profile, r, with_graph, phase)
                                               : by_value(profile, r, with_graph, phase);
  } catch (const std::bad_alloc&) {
    throw LimitError(absl::StrCat("out of memory while ", phase, " (--max-memory ", format_bytes(r.max_memory_bytes),
                                  "); try fewer or smaller --procs, or a smaller problem"));
  }
}

template EstimateResult run_estimate(const LoadedProfile&, const EstimateRequest&, bool);
template EstimateResult run_estimate(const Analyzer<>::ProfileType&, const EstimateRequest&, bool);

}  // namespace commanalyzer::cli

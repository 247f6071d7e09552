#include "tools/estimate_flags.h"

#include <filesystem>
#include <stdexcept>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "commanalyzer/hypergraph.h"
#include "tools/instrumented_build.h"
#include "tools/network_flags.h"

ABSL_DECLARE_FLAG(bool, singleton_degree_floor);
ABSL_DECLARE_FLAG(bool, combine_partial_updates);
ABSL_DECLARE_FLAG(bool, recompute);
ABSL_DECLARE_FLAG(bool, exchange_partials);
ABSL_DECLARE_FLAG(double, ghost_memory);

namespace commanalyzer::cli {

DensityDistanceScorer scorer_from_flags() {
  DensityDistanceScorer scorer;
  scorer.degree_floor = absl::GetFlag(FLAGS_singleton_degree_floor);
  return scorer;
}

LogicalVolumeCostModel cost_model_from_flags() {
  LogicalVolumeCostModel cost;
  cost.combine_partial_updates = absl::GetFlag(FLAGS_combine_partial_updates);
  cost.recompute_when_cheaper = absl::GetFlag(FLAGS_recompute);
  cost.exchange_partials = absl::GetFlag(FLAGS_exchange_partials);
  cost.ghost_memory = absl::GetFlag(FLAGS_ghost_memory);
  cost.network = network_from_flags();
  cost.seconds_per_value = seconds_per_value_from_flags();
  return cost;
}

bool is_distribution_name(const std::string& name) {
  return name == "auto" || name == "block" || name == "cartesian" || name == "metis" || name == "hypergraph";
}

std::optional<DistributionPortfolio> named_portfolio(const std::string& name) {
  if (!is_distribution_name(name)) return std::nullopt;
  DistributionPortfolio portfolio;
  if (name != "auto") portfolio = {name == "block", name == "cartesian", name == "metis"};
  if (name == "auto" || name == "hypergraph") {
    const std::filesystem::path phg = find_hypergraph_partitioner();
    if (phg.empty() && name == "hypergraph") {
      throw std::invalid_argument("--distribution hypergraph: tools/zoltan_phg is not next to the tool");
    }
    if (!phg.empty()) {
      portfolio.hypergraph = [phg](const LocationIndex& index, int procs) {
        return SpawnedHypergraphPartitioner{phg}.partition(location_hypergraph(index), procs);
      };
    }
  }
  return portfolio;
}

}  // namespace commanalyzer::cli

// The estimate's settings from the command line, the same for every
// subcommand that estimates (analyze, estimate, demo, trace, benchgen,
// place): the singleton scorer, the cost model and the named distribution
// candidates. The flags are defined in commanalyzer.cc.
#ifndef COMMANALYZER_TOOLS_ESTIMATE_FLAGS_H_
#define COMMANALYZER_TOOLS_ESTIMATE_FLAGS_H_

#include <optional>
#include <string>

#include "commanalyzer/cost_model.h"
#include "commanalyzer/distribution.h"
#include "commanalyzer/singleton.h"

namespace commanalyzer::cli {

DensityDistanceScorer scorer_from_flags();
LogicalVolumeCostModel cost_model_from_flags();

// Whether `name` is one of kDistributionNames (else a map file).
bool is_distribution_name(const std::string& name);

// The portfolio a --distribution name asks for (auto, block, cartesian,
// metis, hypergraph; auto and hypergraph use tools/zoltan_phg when it is
// next to the tool), or nullopt when `name` is none of them (a map file).
// Throws std::invalid_argument for hypergraph without tools/zoltan_phg.
std::optional<DistributionPortfolio> named_portfolio(const std::string& name);

// For messages: "auto, block, cartesian, metis, hypergraph".
inline constexpr const char* kDistributionNames = "auto, block, cartesian, metis, hypergraph";

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_ESTIMATE_FLAGS_H_

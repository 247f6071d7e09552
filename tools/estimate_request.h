// The estimate a subcommand asks for, from its flags: which process counts,
// who owns what (the distribution candidates or the user's map, or the
// value partitioner), the cost and network model, the limits and the
// threads. Every flag is read and checked here, once, before any work; a
// bad one is a UsageError naming it. Each subcommand states what it can do
// with the request, and flags it cannot honour are refused the same way
// for all (e.g. one --procs count for trace, benchgen and place).
//
//   const EstimateRequest request = request_from_flags({"trace", /*one_count=*/true});
//   ...                                    // profile, then estimate_run.h
//
// The flags themselves are defined in estimate_request.cc; the output
// flags (--json, --out, --csv, ...) belong to the subcommands.
#ifndef COMMANALYZER_TOOLS_ESTIMATE_REQUEST_H_
#define COMMANALYZER_TOOLS_ESTIMATE_REQUEST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "commanalyzer/estimate/cost_model.h"
#include "commanalyzer/estimate/distribution.h"
#include "commanalyzer/estimate/singleton.h"

namespace commanalyzer::cli {

// --ownership: every location one owner (as MPI codes do), or every value
// instance placed on its own (the paper's method).
enum class Ownership { kLocation, kValue };

// --partitioner: how value instances are placed (kValue), or kParmetis: the
// location graph partitioned over the ranks of an MPI job (kLocation).
enum class ValuePartitioner { kAuto, kMetisVolume, kMetisCut, kParmetis };

// What a subcommand can do with an estimate.
struct Subcommand {
  std::string name;
  bool one_count = false;        // one process count (trace, benchgen, place) or a list
  bool value_ownership = false;  // takes --ownership=value
  bool distributed = false;      // takes --partitioner parmetis (it re-executes under MPI)
};

struct EstimateRequest {
  std::vector<int> procs;  // distinct, in the order given
  Ownership ownership = Ownership::kLocation;
  // By location: the candidates --distribution names, or the user's map
  // (portfolio.map), already checked against every count; how to name it.
  DistributionPortfolio portfolio;
  std::string distribution_name;
  ValuePartitioner partitioner = ValuePartitioner::kAuto;
  DensityDistanceScorer scorer;
  LogicalVolumeCostModel cost;  // with the network (Hockney) model and the computation per value
  std::size_t learn_iterations = 0;  // candidates compared on the region's first ones (0: all)
  bool cost_every_iteration = false;  // also those that repeat the one before (repeated_iterations.h)
  std::size_t record_iterations = 0;  // analyze: the region's first ones costed, the rest counted (0: all)
  std::uint64_t max_memory_bytes = 0;
  double timeout_seconds = 0;  // for the whole run, every process it starts; 0: none
  unsigned threads = 1;        // for the graph and the costing: every core
};

// Reads and checks the estimate's flags for `command`. Throws UsageError.
EstimateRequest request_from_flags(const Subcommand& command);

// The profile a subcommand estimates from: its one argument (positional[0]
// is the program). Throws UsageError.
std::string profile_argument(const std::vector<char*>& positional, const std::string& command);

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_ESTIMATE_REQUEST_H_

#include "tools/estimate_request.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "commanalyzer/estimate/distribution_map.h"
#include "commanalyzer/estimate/hypergraph.h"
#include "tools/cli_errors.h"
#include "tools/instrumented_build.h"
#include "tools/limits.h"
#include "tools/spawned_hypergraph.h"

ABSL_FLAG(std::string, procs, "2,4,8,16,32,64", "comma-separated process counts to estimate for");
ABSL_FLAG(std::string, ownership, "location",
          "location (every memory location has one owner process for the whole region, as in owner-computes "
          "MPI codes; arrays of one extent distributed alike; see --distribution) or value (the paper's "
          "partition of value instances, each placed on its own; see --partitioner)");
ABSL_FLAG(std::string, distribution, "auto",
          "with --ownership=location: auto (cost block, cartesian and, where an array is indexed indirectly, "
          "metis and hypergraph; keep the fastest), block (equal contiguous chunks of every array), cartesian "
          "(blocks of a process grid over the array's grid shape), metis (METIS on the location graph), "
          "hypergraph (Zoltan's PHG on the location hypergraph, by connectivity), or a FILE naming the owner of "
          "array elements (docs/DISTRIBUTION.md)");
ABSL_FLAG(std::string, partitioner, "auto",
          "with --ownership=value, how value instances are mapped to processes: metis-volume (METIS k-way, "
          "communication volume), metis-cut (METIS k-way, edge cut weighted by uses, as in the paper) or auto "
          "(metis-volume); parmetis: with --ownership=location, for estimate, the location graph "
          "partitioned over the ranks of an MPI job (ParMETIS API, provided by PT-Scotch): `mpirun -np K "
          "commanalyzer estimate PROFILE --partitioner parmetis`, or one rank without mpirun");
ABSL_FLAG(bool, singleton_degree_floor, true,
          "singletons must also be used by (or computed from) at least sqrt(#vertices) others; off = the "
          "paper's relative score alone");
ABSL_FLAG(bool, combine_partial_updates, true,
          "cost model: a process's contributions to one remote location in one iteration (f[n] += g) travel "
          "as one combined partial; off = each contribution's inputs travel (Algorithm 4 as written)");
ABSL_FLAG(bool, recompute, true,
          "cost model: a process receives the cheapest values it can compute what it uses from (e.g. a "
          "summed force instead of a new velocity and position); off = it receives every remote value it uses");
ABSL_FLAG(bool, exchange_partials, commanalyzer::LogicalVolumeCostModel{}.exchange_partials,
          "cost model: sharers of a summed location (a boundary node's force) exchange their partials, every "
          "sharer to every other, and each sums them (LULESH's duplicated nodes); off = partials to the owner, "
          "the sum back");
ABSL_FLAG(double, ghost_memory, 1.0,
          "cost model: a process keeps values it received for later iterations while they take fewer locations "
          "of an array than this times its own part of it; beyond, it receives them again in each iteration "
          "(default 1: ghosts smaller than the part owned; inf: keep everything received); the smallest arrays, "
          "together within this times a process's share of all data, are each process's own copy");
// Defaults: an InfiniBand-class cluster network.
ABSL_FLAG(double, latency, 1.0, "time model: latency per message in microseconds (default 1 us)");
ABSL_FLAG(double, bandwidth, 10.0, "time model: bandwidth in GB/s, 1 GB = 1e9 bytes (default 10 GB/s)");
// A value instance is one computed result stored to memory: in memory-bound
// loops a core of a cluster node stores about one a nanosecond.
ABSL_FLAG(double, compute_ns, 1.0,
          "time model: nanoseconds of computation per value instance (default 1); the distribution kept is the "
          "one whose computation and exchanges are predicted to take least time");
// One: the first step (before the first mark: data received once and kept)
// counts once and the first iteration after it, the first to find that
// data held, stands for every later one, as a time loop repeats its
// exchanges; each candidate is costed over two steps, not the whole run.
ABSL_FLAG(int, learn_iterations, 1,
          "compare the candidate distributions on the whole run's time projected from the region's first this many "
          "iterations (and what comes before them), the last of which stands for each later one, as an MPI code "
          "settles its decomposition before its time loop; the one kept is costed on the whole run (default 1; 0: "
          "compare them on the whole run)");
// An iteration whose flows repeat the one before's communicates what that
// one did (repeated_iterations.h): costing it again changes nothing but
// the time and memory the estimate takes.
ABSL_FLAG(bool, cost_every_iteration, false,
          "cost every iteration of the region one by one, also those that repeat the iteration before them (the "
          "same values computed at the same locations from the same places), which are otherwise costed as the "
          "one they repeat; the estimate is the same, only slower");
// A recording window: an MPI code settles its decomposition and its
// exchanges in the first iterations of its time loop and repeats them; the
// rest of the run need not be analysed to be counted.
ABSL_FLAG(int, record_iterations, 0,
          "analyze: cost only the region's first this many iterations (at least 2: the first holds what comes "
          "before the loop); the program is analysed one iteration further, to see which results of the last "
          "costed one later iterations use, then runs on without analysis, and each iteration it goes on to mark "
          "is counted as the last costed one. For long runs whose iterations repeat (0 = analyse them all)");
ABSL_FLAG(double, timeout, 0,
          "stop the whole analysis (compiling, the instrumented program, estimating and every helper process) after "
          "this many seconds and exit with status 3 (0 = no limit)");
ABSL_FLAG(std::string, max_memory, commanalyzer::cli::default_max_memory(),
          "memory the analysis may use, e.g. 8G or 512M: the tool, every process it starts (compiler, the "
          "instrumented program, zoltan_phg, mpirun) and its temporary files together; past it the run stops with "
          "status 3, naming what grew (default: 3/4 of the machine's memory)");

namespace commanalyzer::cli {
namespace {

// "2,4,8" -> {2, 4, 8}; a count given twice is estimated once.
std::vector<int> parse_procs(const Subcommand& command) {
  const std::string text = absl::GetFlag(FLAGS_procs);
  std::vector<int> procs;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    int n = 0;
    if (!absl::SimpleAtoi(item, &n) || n < 1 || n > 65536) {
      throw UsageError(absl::StrCat("--procs: '", item, "' is not a process count between 1 and 65536"));
    }
    if (std::find(procs.begin(), procs.end(), n) == procs.end()) procs.push_back(n);
  }
  if (procs.empty()) throw UsageError("--procs: give at least one process count, e.g. --procs 2,4,8");
  if (command.one_count && procs.size() != 1) {
    throw UsageError(absl::StrCat("--procs: give one process count for ", command.name, ", e.g. --procs 8 (got '",
                                  text, "')"));
  }
  return procs;
}

Ownership parse_ownership(const Subcommand& command) {
  const std::string text = absl::GetFlag(FLAGS_ownership);
  if (text == "location") return Ownership::kLocation;
  if (text != "value") throw UsageError(absl::StrCat("--ownership: '", text, "' is not location or value"));
  if (!command.value_ownership) {
    throw UsageError(absl::StrCat("--ownership: ", command.name, " estimates with ownership by location (the default) only"));
  }
  return Ownership::kValue;
}

ValuePartitioner parse_partitioner(const Subcommand& command, Ownership ownership, const std::string& distribution) {
  const std::string text = absl::GetFlag(FLAGS_partitioner);
  if (text == "auto") return ValuePartitioner::kAuto;
  if (text == "metis-volume") return ValuePartitioner::kMetisVolume;
  if (text == "metis-cut") return ValuePartitioner::kMetisCut;
  if (text != "parmetis") {
    throw UsageError(
        absl::StrCat("--partitioner: '", text, "' is not auto, metis-volume, metis-cut or parmetis"));
  }
  if (!command.distributed) {
    throw UsageError(
        "--partitioner parmetis is for estimate: mpirun -np K commanalyzer estimate PROFILE --partitioner parmetis");
  }
  // ParMETIS partitions the location graph: it is the graph candidate.
  if (ownership != Ownership::kLocation) {
    throw UsageError("--partitioner parmetis partitions locations: use --ownership=location");
  }
  if (distribution != "auto" && distribution != "metis") {
    throw UsageError(
        absl::StrCat("--partitioner parmetis is the graph distribution; it cannot go with --distribution ", distribution));
  }
  return ValuePartitioner::kParmetis;
}

// The candidates --distribution names; hypergraph and auto use
// tools/zoltan_phg when it is next to the tool.
std::optional<DistributionPortfolio> named_portfolio(const std::string& name) {
  if (name != "auto" && name != "block" && name != "cartesian" && name != "metis" && name != "hypergraph") {
    return std::nullopt;
  }
  DistributionPortfolio portfolio;
  if (name != "auto") portfolio = {name == "block", name == "cartesian", name == "metis"};
  portfolio.note = [](const std::string& why) { std::cerr << "[commanalyzer] " << why << "\n"; };
  if (name == "auto" || name == "hypergraph") {
    const std::filesystem::path phg = find_hypergraph_partitioner();
    if (phg.empty() && name == "hypergraph") {
      throw UsageError("--distribution hypergraph: tools/zoltan_phg is not next to the tool");
    }
    if (!phg.empty()) {
      portfolio.hypergraph = [phg](const LocationIndex& index, int procs) {
        return partition_locations(SpawnedHypergraphPartitioner{phg}, index, procs);
      };
    }
  }
  return portfolio;
}

// A named portfolio, or the user's map file, read and its ranks checked
// against every count (its arrays once the profile is read).
DistributionPortfolio parse_distribution(const std::string& name, Ownership ownership, const std::vector<int>& procs) {
  if (auto named = named_portfolio(name)) return *std::move(named);
  if (ownership != Ownership::kLocation) throw UsageError("--distribution FILE needs --ownership=location");
  std::ifstream in(name);
  if (!in) {
    throw UsageError(absl::StrCat("--distribution: '", name,
                                  "' is not auto, block, cartesian, metis, hypergraph or a readable distribution file"));
  }
  try {
    DistributionMap map = DistributionMap::parse(in, name);
    for (int n : procs) map.check(~std::size_t{0}, n);
    return {false, false, false, std::move(map)};
  } catch (const DistributionError& e) {
    throw UsageError(absl::StrCat("--distribution: ", e.what()));
  }
}

// The cost model with the Hockney network model and the computation per
// value, from --latency, --bandwidth, --compute_ns and the cost flags.
LogicalVolumeCostModel parse_cost_model() {
  const double latency = absl::GetFlag(FLAGS_latency), bandwidth = absl::GetFlag(FLAGS_bandwidth);
  const double compute_ns = absl::GetFlag(FLAGS_compute_ns), ghosts = absl::GetFlag(FLAGS_ghost_memory);
  if (!std::isfinite(latency) || latency < 0) {
    throw UsageError(absl::StrCat("--latency: ", latency, " is not a latency in microseconds (>= 0)"));
  }
  if (!std::isfinite(bandwidth) || bandwidth <= 0) {
    throw UsageError(absl::StrCat("--bandwidth: ", bandwidth, " is not a bandwidth in GB/s (> 0)"));
  }
  if (!std::isfinite(compute_ns) || compute_ns < 0) {
    throw UsageError(absl::StrCat("--compute_ns: ", compute_ns, " is not a time in nanoseconds (>= 0)"));
  }
  if (!(ghosts >= 0)) {
    throw UsageError(absl::StrCat("--ghost_memory: ", ghosts, " is not a share of the memory a process owns (>= 0, inf)"));
  }
  LogicalVolumeCostModel cost;
  cost.combine_partial_updates = absl::GetFlag(FLAGS_combine_partial_updates);
  cost.recompute_when_cheaper = absl::GetFlag(FLAGS_recompute);
  cost.exchange_partials = absl::GetFlag(FLAGS_exchange_partials);
  cost.ghost_memory = ghosts;
  cost.network = {latency * 1e-6, 1.0 / (bandwidth * 1e9)};
  cost.seconds_per_value = compute_ns * 1e-9;
  return cost;
}

}  // namespace

EstimateRequest request_from_flags(const Subcommand& command) {
  EstimateRequest r;
  r.procs = parse_procs(command);
  r.ownership = parse_ownership(command);
  r.distribution_name = absl::GetFlag(FLAGS_distribution);
  r.partitioner = parse_partitioner(command, r.ownership, r.distribution_name);
  if (r.partitioner != ValuePartitioner::kParmetis) {
    r.portfolio = parse_distribution(r.distribution_name, r.ownership, r.procs);
  }
  r.scorer.degree_floor = absl::GetFlag(FLAGS_singleton_degree_floor);
  r.cost = parse_cost_model();
  if (const int learn = absl::GetFlag(FLAGS_learn_iterations); learn >= 0) {
    r.learn_iterations = static_cast<std::size_t>(learn);
  } else {
    throw UsageError(absl::StrCat("--learn_iterations: ", learn, " is not a number of iterations (>= 0)"));
  }
  r.cost_every_iteration = absl::GetFlag(FLAGS_cost_every_iteration);
  if (const int record = absl::GetFlag(FLAGS_record_iterations); record == 0 || record >= 2) {
    r.record_iterations = static_cast<std::size_t>(record);
  } else {
    throw UsageError(absl::StrCat("--record-iterations: ", record,
                                  " iterations cannot stand for the rest (give 2 or more; 0 records them all)"));
  }
  const std::string memory = absl::GetFlag(FLAGS_max_memory);
  const std::optional<std::uint64_t> bytes = parse_bytes(memory);
  if (!bytes) throw UsageError(absl::StrCat("--max-memory: '", memory, "' is not a size such as 512M or 8G"));
  r.max_memory_bytes = *bytes;
  r.timeout_seconds = absl::GetFlag(FLAGS_timeout);
  if (!(r.timeout_seconds >= 0)) throw UsageError("--timeout: give seconds, 0 for no limit");
  r.threads = std::max(1u, std::thread::hardware_concurrency());
  return r;
}

std::string profile_argument(const std::vector<char*>& positional, const std::string& command) {
  if (positional.size() != 2) {
    throw UsageError(absl::StrCat(command, ": give exactly one profile file (commanalyzer ", command, " PROFILE ...)"));
  }
  return positional[1];
}

}  // namespace commanalyzer::cli

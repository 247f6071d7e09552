#include "tools/place_command.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "commanalyzer/distribution.h"
#include "commanalyzer/distribution_map.h"
#include "commanalyzer/estimate.h"
#include "commanalyzer/graph_placement.h"
#include "commanalyzer/placement.h"
#include "commanalyzer/profile_io.h"
#include "commanalyzer/rankfile.h"
#include "commanalyzer/report.h"
#include "tools/estimate_flags.h"

ABSL_FLAG(int, nodes, 0, "place: number of nodes");
ABSL_FLAG(int, cores_per_node, 0, "place: cores (MPI slots) per node");
ABSL_FLAG(std::string, rankfile, "", "place: write an Open MPI rankfile here");
ABSL_FLAG(std::string, hosts, "", "place: comma-separated host names of the nodes (default node0,node1,...)");

// Defined with the other subcommands in commanalyzer.cc: place estimates
// exactly as `estimate` does.
ABSL_DECLARE_FLAG(std::string, procs);
ABSL_DECLARE_FLAG(std::string, ownership);
ABSL_DECLARE_FLAG(std::string, distribution);
ABSL_DECLARE_FLAG(std::string, partitioner);

namespace commanalyzer::cli {
namespace {

class PlaceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

constexpr int kRandomSamples = 10000;
constexpr std::uint64_t kRandomSeed = 1;

struct PlaceRequest {
  std::string profile;
  int procs = 0;
  NodeShape shape;
  std::vector<std::string> hosts;
  std::string rankfile;
  DistributionPortfolio portfolio;
};

// Abseil flag names are identifiers: --cores-per-node becomes --cores_per_node.
std::vector<std::string> underscore_flag_names(int argc, char** argv) {
  std::vector<std::string> args{argv[0]};
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) == 0) std::replace(a.begin() + 2, a.begin() + std::min(a.find('='), a.size()), '-', '_');
    args.push_back(std::move(a));
  }
  return args;
}

DistributionPortfolio portfolio_from_flags(int procs) {
  if (absl::GetFlag(FLAGS_ownership) != "location") {
    throw PlaceError("--ownership: place works with ownership by location (the default) only");
  }
  if (absl::GetFlag(FLAGS_partitioner) == "parmetis") {
    throw PlaceError("--partitioner parmetis is for estimate (mpirun -np K commanalyzer estimate PROFILE ...)");
  }
  const std::string d = absl::GetFlag(FLAGS_distribution);
  try {
    if (auto named = named_portfolio(d)) return *std::move(named);
  } catch (const std::invalid_argument& e) {
    throw PlaceError(e.what());
  }
  std::ifstream in(d);
  if (!in) throw PlaceError(absl::StrCat("--distribution: '", d, "' is not ", kDistributionNames, " or a readable file"));
  try {
    DistributionMap map = DistributionMap::parse(in, d);
    map.check(~std::size_t{0}, procs);
    return {false, false, false, std::move(map)};
  } catch (const DistributionError& e) {
    throw PlaceError(absl::StrCat("--distribution: ", e.what()));
  }
}

// Every check that needs no profile, before any work.
PlaceRequest parse_request(int argc, char** argv) {
  std::vector<std::string> args = underscore_flag_names(argc, argv);
  std::vector<char*> pointers;
  for (auto& a : args) pointers.push_back(a.data());
  const std::vector<char*> positional = absl::ParseCommandLine(static_cast<int>(pointers.size()), pointers.data());
  PlaceRequest r;
  if (positional.size() != 2) throw PlaceError("give exactly one profile file (commanalyzer place PROFILE ...)");
  r.profile = positional[1];
  const std::string procs = absl::GetFlag(FLAGS_procs);
  if (!absl::SimpleAtoi(procs, &r.procs) || r.procs < 1 || r.procs > 65536) {
    throw PlaceError(absl::StrCat("--procs: give one process count between 1 and 65536 (got '", procs, "')"));
  }
  r.shape = {absl::GetFlag(FLAGS_nodes), absl::GetFlag(FLAGS_cores_per_node)};
  if (r.shape.nodes < 1) throw PlaceError("--nodes: give the number of nodes (at least 1)");
  if (r.shape.cores_per_node < 1) throw PlaceError("--cores-per-node: give the cores per node (at least 1)");
  if (static_cast<long long>(r.shape.nodes) * r.shape.cores_per_node > (1 << 20)) {
    throw PlaceError("--nodes x --cores-per-node: more than 2^20 slots");
  }
  try {
    check_shape(r.procs, r.shape);
  } catch (const std::invalid_argument& e) {
    throw PlaceError(absl::StrCat("--nodes x --cores-per-node: ", e.what()));
  }
  if (const std::string hosts = absl::GetFlag(FLAGS_hosts); !hosts.empty()) {
    for (absl::string_view h : absl::StrSplit(hosts, ',')) {
      if (h.empty() || h.find_first_of(" \t=#") != absl::string_view::npos) {
        throw PlaceError(absl::StrCat("--hosts: '", h, "' is not a host name"));
      }
      r.hosts.emplace_back(h);
    }
    if (r.hosts.size() != static_cast<std::size_t>(r.shape.nodes)) {
      throw PlaceError(absl::StrFormat("--hosts: %d names for %d nodes", r.hosts.size(), r.shape.nodes));
    }
  }
  r.rankfile = absl::GetFlag(FLAGS_rankfile);
  r.portfolio = portfolio_from_flags(r.procs);
  return r;
}

CommEstimate estimate_matrix(const LoadedProfile& profile, const PlaceRequest& r) {
  if (r.portfolio.map) {
    try {
      r.portfolio.map->check(profile.arrays.size(), r.procs);
    } catch (const DistributionError& e) {
      throw PlaceError(absl::StrCat("--distribution: ", e.what()));
    }
  }
  const DensityDistanceScorer scorer = scorer_from_flags();
  const LogicalVolumeCostModel cost = cost_model_from_flags();
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  Estimator<LoadedProfile> estimator(profile, scorer, r.portfolio, cost, threads);
  return estimator.estimate(r.procs);
}

void print_nodes(std::ostream& out, const Placement& p, const std::vector<std::string>& hosts) {
  std::vector<std::vector<int>> ranks(static_cast<std::size_t>(p.shape.nodes));
  for (int r = 0; r < static_cast<int>(p.slot.size()); ++r) ranks[static_cast<std::size_t>(p.node_of(r))].push_back(r);
  for (int k = 0; k < p.shape.nodes; ++k) {
    out << "  " << (hosts.empty() ? absl::StrCat("node", k) : hosts[static_cast<std::size_t>(k)]) << ":";
    for (int r : ranks[static_cast<std::size_t>(k)]) out << " " << r;
    out << "\n";
  }
}

int place(const PlaceRequest& r) {
  ProfileInfo info;
  const LoadedProfile profile = load_profile(r.profile, &info);
  std::cerr << "[commanalyzer] estimating the matrix for " << r.procs << " processes\n";
  const CommEstimate e = estimate_matrix(profile, r);
  const TrafficMatrix traffic = TrafficMatrix::from_directed(e.matrix, r.procs);
  std::cerr << "[commanalyzer] placing\n";
  const Placement best = GraphPlacement{}.place(traffic, r.shape);
  if (!respects_capacity(best, r.procs)) throw std::logic_error("placement overfills a node");

  std::cout << absl::StrFormat("profile: %s\n%d processes, distribution %s: %s point-to-point in %d pairs",
                               info.metadata, r.procs, e.distribution, human_bytes(static_cast<double>(e.p2p_bytes)),
                               traffic.pairs().size());
  if (e.collective_bytes() > 0) {
    std::cout << absl::StrFormat(", %s in collectives (every process takes part: not placed)",
                                 human_bytes(static_cast<double>(e.collective_bytes())));
  }
  std::cout << absl::StrFormat("\nplacement on %d nodes x %d cores\n\n", r.shape.nodes, r.shape.cores_per_node);
  std::cout << absl::StrFormat("  %-28s %18s %10s\n", "placement", "bytes inside nodes", "share");
  auto row = [&](const std::string& name, double kept) {
    std::cout << absl::StrFormat("  %-28s %18.0f %9.1f %%\n", name, kept,
                                 traffic.total() == 0 ? 100.0 : 100.0 * kept / static_cast<double>(traffic.total()));
  };
  row("graph (METIS + KL swaps)", static_cast<double>(intra_node_bytes(traffic, best)));
  row("by-rank", static_cast<double>(intra_node_bytes(traffic, ByRankPlacement{}.place(traffic, r.shape))));
  row("round-robin", static_cast<double>(intra_node_bytes(traffic, RoundRobinPlacement{}.place(traffic, r.shape))));
  row(absl::StrCat("random (mean of ", kRandomSamples, ")"),
      mean_random_share(traffic, r.shape, kRandomSamples, kRandomSeed) * static_cast<double>(traffic.total()));
  std::cout << "\nranks on each node (graph placement):\n";
  print_nodes(std::cout, best, r.hosts);

  if (!r.rankfile.empty()) {
    // Through a temporary file: a failed run leaves no rankfile that looks complete.
    const std::string tmp = r.rankfile + ".partial";
    {
      std::ofstream out(tmp);
      if (!out) throw std::runtime_error(absl::StrCat("cannot write ", tmp));
      write_rankfile(out, best, r.hosts);
      out.flush();
      if (!out) throw std::runtime_error(absl::StrCat("error while writing ", tmp));
    }
    std::filesystem::rename(tmp, r.rankfile);
    std::cout << "\nwrote " << r.rankfile << " (mpirun --rankfile " << r.rankfile << ")\n";
  }
  return 0;
}

}  // namespace

int place_command(int argc, char** argv) {
  PlaceRequest request;
  try {
    request = parse_request(argc, argv);
    return place(request);
  } catch (const PlaceError& e) {
    std::cerr << "commanalyzer: place: " << e.what() << "\n";
    return 2;
  } catch (const ProfileError& e) {  // a missing or damaged profile is bad input too
    std::cerr << "commanalyzer: place: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace commanalyzer::cli

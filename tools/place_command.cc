#include "tools/place_command.h"

#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "commanalyzer/act/graph_placement.h"
#include "commanalyzer/act/placement.h"
#include "commanalyzer/record/profile_io.h"
#include "commanalyzer/act/rankfile.h"
#include "commanalyzer/report/report.h"
#include "tools/cli_errors.h"
#include "tools/estimate_run.h"
#include "tools/output_files.h"

ABSL_FLAG(int, nodes, 0, "place: number of nodes");
ABSL_FLAG(int, cores_per_node, 0, "place: cores (MPI slots) per node");
ABSL_FLAG(std::string, rankfile, "", "place: write an Open MPI rankfile here");
ABSL_FLAG(std::string, hosts, "", "place: comma-separated host names of the nodes (default node0,node1,...)");

namespace commanalyzer::cli {
namespace {

constexpr int kRandomSamples = 10000;
constexpr std::uint64_t kRandomSeed = 1;

// Where to place: the nodes, their names and the rankfile to write.
struct PlaceRequest {
  NodeShape shape;
  std::vector<std::string> hosts;
  std::string rankfile;
};

// place's own flags, checked before any work against the one process count.
PlaceRequest parse_place_flags(int procs) {
  PlaceRequest r;
  r.shape = {absl::GetFlag(FLAGS_nodes), absl::GetFlag(FLAGS_cores_per_node)};
  if (r.shape.nodes < 1) throw UsageError("--nodes: give the number of nodes (at least 1)");
  if (r.shape.cores_per_node < 1) throw UsageError("--cores-per-node: give the cores per node (at least 1)");
  if (static_cast<long long>(r.shape.nodes) * r.shape.cores_per_node > (1 << 20)) {
    throw UsageError("--nodes x --cores-per-node: more than 2^20 slots");
  }
  try {
    check_shape(procs, r.shape);
  } catch (const std::invalid_argument& e) {
    throw UsageError(absl::StrCat("--nodes x --cores-per-node: ", e.what()));
  }
  if (const std::string hosts = absl::GetFlag(FLAGS_hosts); !hosts.empty()) {
    for (absl::string_view h : absl::StrSplit(hosts, ',')) {
      if (h.empty() || h.find_first_of(" \t=#") != absl::string_view::npos) {
        throw UsageError(absl::StrCat("--hosts: '", h, "' is not a host name"));
      }
      r.hosts.emplace_back(h);
    }
    if (r.hosts.size() != static_cast<std::size_t>(r.shape.nodes)) {
      throw UsageError(absl::StrFormat("--hosts: %d names for %d nodes", r.hosts.size(), r.shape.nodes));
    }
  }
  r.rankfile = absl::GetFlag(FLAGS_rankfile);
  if (!r.rankfile.empty()) check_output_file("--rankfile", r.rankfile);
  return r;
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

}  // namespace

int place_command(const std::vector<char*>& positional, const EstimateRequest& request) {
  const std::string profile_path = profile_argument(positional, "place");
  const PlaceRequest r = parse_place_flags(request.procs.front());
  ProfileInfo info;
  const LoadedProfile profile = load_recorded_profile(profile_path, &info);
  const CommEstimate e = run_estimate(profile, request).estimates.front();
  const int procs = request.procs.front();
  const TrafficMatrix traffic = TrafficMatrix::from_directed(e.matrix, procs);
  std::cerr << "[commanalyzer] placing\n";
  const Placement best = GraphPlacement{}.place(traffic, r.shape);
  if (!respects_capacity(best, procs)) throw std::logic_error("placement overfills a node");

  std::cout << absl::StrFormat("profile: %s\n%d processes, distribution %s: %s point-to-point in %d pairs",
                               info.metadata, procs, e.distribution, human_bytes(static_cast<double>(e.p2p_bytes)),
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
    write_atomically(r.rankfile, [&](std::ostream& o) { write_rankfile(o, best, r.hosts); });
    std::cout << "\nwrote " << r.rankfile << " (mpirun --rankfile " << r.rankfile << ")\n";
  }
  return 0;
}

}  // namespace commanalyzer::cli

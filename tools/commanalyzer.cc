// commanalyzer: predict the MPI communication of a sequential program.
//
//   commanalyzer analyze  SOURCES... [flags] [-I.. -D.. -O..] [-- program args]
//   commanalyzer estimate PROFILE [--procs ...] [--json F] [--out DIR]
//   commanalyzer demo     [--procs ...] [--n N] [--steps T] [--json F] [--out DIR]
//
// See `commanalyzer help` for every subcommand.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <new>
#include <optional>
#include <iostream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "commanalyzer/analyzer.h"
#include "commanalyzer/connectivity_partitioner.h"
#include "commanalyzer/distribution.h"
#include "commanalyzer/estimate.h"
#include "commanalyzer/profile_io.h"
#include "commanalyzer/report.h"
#include "tools/benchgen_command.h"
#include "tools/builtin_examples.h"
#include "tools/distributed_partitioning.h"
#include "tools/huge_pages.h"
#include "tools/estimate_flags.h"
#include "tools/instrumented_build.h"
#include "tools/limits.h"
#include "tools/network_flags.h"
#include "tools/trace_command.h"
#include "tools/place_command.h"

ABSL_FLAG(std::string, procs, "2,4,8,16,32,64", "comma-separated process counts to estimate for");
ABSL_FLAG(std::string, json, "", "also write the estimates as JSON to this file");
ABSL_FLAG(std::string, out, "",
          "also write CSV matrices, SVG heatmaps, estimate.json, the graph (dot) and, for analyze, the "
          "instrumented build and its profile into this directory");
ABSL_FLAG(std::string, ownership, "location",
          "location (every memory location has one owner process for the whole region, as in owner-computes "
          "MPI codes; arrays of one extent distributed alike; see --distribution) or value (the paper's "
          "partition of value instances, each placed on its own; see --partitioner)");
ABSL_FLAG(std::string, distribution, "auto",
          "with --ownership=location: auto (cost block, cartesian and metis, keep the fastest), block (equal "
          "contiguous chunks of every array), cartesian (blocks of a process grid over the array's grid shape), "
          "metis (METIS on the location graph), hypergraph (Zoltan's PHG on the location hypergraph, by "
          "connectivity; auto offers metis and hypergraph where an array is indexed indirectly), or a FILE naming the owner of array elements "
          "(docs/DISTRIBUTION.md)");
ABSL_FLAG(std::string, partitioner, "auto",
          "with --ownership=value, how value instances are mapped to processes: connectivity (hypergraph connectivity, what the cost model "
          "counts; best estimates, slower), metis-volume (METIS k-way, communication volume; fast), "
          "metis-cut (METIS k-way, edge cut weighted by uses, as in the paper) or auto (connectivity; on "
          "mesh-like graphs past 16 million recorded value uses it refines METIS's partition only, without "
          "recursive bisection); parmetis: with --ownership=location, for estimate, the location graph "
          "partitioned over the ranks of an MPI job (ParMETIS API, provided by PT-Scotch): `mpirun -np K "
          "commanalyzer estimate PROFILE --partitioner parmetis`, or one rank without mpirun");
ABSL_FLAG(double, edge_penalty, commanalyzer::ConnectivityPartitioner{}.edge_penalty,
          "connectivity partitioner: weight of the normalised edge cut added to the connectivity (0 = pure "
          "connectivity; higher = prefer axis-aligned blocks)");
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
ABSL_FLAG(std::string, output, "", "build: where to write the instrumented executable");
ABSL_FLAG(double, timeout, 0,
          "stop the instrumented program after this many seconds and exit with status 3 (0 = no limit)");
ABSL_FLAG(std::string, max_memory, commanalyzer::cli::default_max_memory(),
          "memory the analysis may use (the instrumented program, then the estimate), e.g. 8G or "
          "512M; past it the run stops with status 3, naming what grew (default: 3/4 of the machine's memory)");
ABSL_FLAG(int, n, 128, "demo: grid points per side of the built-in Heat2D example");
ABSL_FLAG(int, steps, 10, "demo: time steps of the built-in Heat2D example");

namespace commanalyzer::cli {
namespace {

constexpr const char* kUsage = R"(commanalyzer: predict the communication an MPI version of a sequential
program would need on N processes, from the sequential program itself.

Usage:
  commanalyzer analyze SOURCES... [--procs 2,4,...] [--json FILE] [--out DIR]
                       [-I DIR] [-D NAME[=VALUE]] [-O LEVEL] [-std=...] [-l LIB] [-L DIR]
                       [-- PROGRAM ARGUMENTS...]
      Compiles the C/C++ sources with clang-16 and the CommAnalyzer pass,
      runs the program (its output passes through), and prints the
      predicted communication for each process count. Mark the region of
      interest and iterations with include/commanalyzer/annotate.h
      (CA_REGION_BEGIN, CA_ITERATION, CA_REGION_END); without marks the whole
      run counts. The profile is kept for `commanalyzer estimate`.
  commanalyzer estimate PROFILE [--procs 2,4,...] [--json FILE] [--out DIR]
      Re-estimates from a saved profile without re-running the program.
      With --partitioner parmetis under mpirun -np K, the location graph is
      partitioned over the K MPI ranks (ParMETIS API, provided by PT-Scotch);
      rank 0 prints the report (docs/SCALING.md).
  commanalyzer build SOURCES... --output FILE [-I DIR] [-D ...] [-O ...] [-l LIB]
      Only compiles and links the instrumented program; running it writes a
      profile to $COMMANALYZER_PROFILE (default ./commanalyzer.profile).
  commanalyzer demo [--procs 2,4,...] [--n 128] [--steps 10] [--json FILE] [--out DIR]
      Runs the analysis on a built-in Heat2D event stream (no compiler needed)
      and prints the predicted communication for each process count.
  commanalyzer trace PROFILE --procs P [--csv FILE]
      Every predicted message for P processes, from a saved profile (no
      re-run), as CSV (to FILE, else standard output): iteration,src,dst,
      bytes,kind. One row per point-to-point message as an MPI code sends
      it (kind p2p: all one process sends another in one iteration), and
      per collective call (kind bcast, src = root, or allreduce, src = -1;
      dst = -1; bytes = one rank's block). The last iteration number counts
      what follows the last iteration mark.
  commanalyzer benchgen PROFILE --procs P --out DIR [--compute_ns T]
      Writes DIR/bench.c and DIR/bench.h: a compact C + MPI program that
      performs that communication (Isend/Irecv + Waitall per iteration,
      MPI_Bcast / MPI_Allreduce; repeated iterations as loops, senders as
      rank lists). Build: mpicc DIR/bench.c -IDIR -o bench; run: mpirun -np P
      ./bench. Before its communication each iteration busy-waits
      --compute_ns (default 1) ns per value instance its busiest process
      computes; --compute_ns 0: communication only.
  commanalyzer place PROFILE --procs P --nodes K --cores-per-node C
                     [--rankfile FILE] [--hosts NAME,NAME,...]
      Estimates the P x P matrix from a saved profile (as estimate does,
      same --distribution and cost flags), then places the P processes on
      K nodes of C cores (K x C >= P) keeping as many point-to-point bytes
      inside nodes as it can: METIS k-way into the nodes, refined by
      Kernighan-Lin swaps from many starts. Prints the share of bytes kept
      inside nodes for it and for by-rank, round-robin and random placement
      (mean of 10000, fixed seed); --rankfile writes an Open MPI rankfile
      (rank N=HOST slot=S; hosts node0.. unless --hosts names them).
  commanalyzer help
      This text, with every flag and its default.

Ownership (analyze, estimate, demo): by default every array location has one
owner process for the whole region, as in owner-computes MPI codes; arrays of
one size are distributed alike. --distribution auto (default) costs block,
cartesian (a process grid over the array's grid shape) and, where the flows
are irregular, metis, and keeps the fastest; block, cartesian or metis force
one; --distribution FILE estimates your own map (docs/DISTRIBUTION.md).
--ownership=value partitions value instances instead (the paper's method;
--partitioner chooses how).

Columns: total bytes = point-to-point + collective bytes under the logical
volume convention (Bcast (N-1)m, Allreduce 2(N-1)m); messages = per
(sender, receiver, iteration), one per loop (or pipelined stage) that needs
values the earlier ones could not carry, plus one per collective call; time = predicted
communication time, Hockney model: a message of m bytes costs latency +
m / bandwidth (--latency, microseconds, default 1; --bandwidth, GB/s,
default 10: an InfiniBand-class network); an iteration costs its busiest
process's sends or receives plus its collectives (ceil(log2 N) rounds for a
Bcast, twice that for an Allreduce); the total sums the iterations. The
distribution kept is the candidate with the least predicted time: a
process's share of the computation and its waiting for others in an
iteration, --compute_ns per value instance (default 1: a stored result a
nanosecond), plus one latency per iteration and the busiest process's bytes
(docs/DISTRIBUTION.md). "where"
(for the largest count) names the source line consuming each exchange and
the loop sweeping it, per iteration; --json lists every site.

Exit status: 0 estimate printed; 1 the build or the program failed (compile
error, crash, non-zero exit) or a file could not be read or written; 2 bad
input (flags, paths, an empty or main-less source) or a program the analysis
cannot handle (one that starts threads); 3 a limit was reached (--timeout,
--max-memory); 128+N the tool got signal N (SIGINT, SIGTERM and SIGHUP are
forwarded to the compiler or program it runs, which ends with it).)";

// The subcommands a flag is for, where not analyze, estimate and demo.
const std::map<std::string, std::string, std::less<>> kFlagCommands = {
    {"output", "build"},          {"n", "demo"},     {"steps", "demo"},       {"timeout", "analyze"},
    {"csv", "trace"},             {"nodes", "place"}, {"cores_per_node", "place"},
    {"rankfile", "place"},        {"hosts", "place"}};

// Appends `text` to `out`, wrapped at 78 columns after `indent` spaces.
void append_wrapped(std::string& out, const std::string& text, std::size_t indent) {
  std::size_t column = 0;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (column > 0 && column + 1 + word.size() > 78) {
      out += "\n";
      column = 0;
    }
    if (column == 0) {
      out.append(indent, ' ');
      column = indent;
    } else {
      out += ' ';
      ++column;
    }
    out.append(word.data(), word.size());
    column += word.size();
  }
  out += "\n";
}

// Every flag the tool defines, from Abseil's registry (so none is left
// out), grouped by subcommand, with its default.
std::string flags_help() {
  std::map<std::string, std::map<std::string, const absl::CommandLineFlag*>> groups;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    const std::string file = flag->Filename();
    if (file.rfind("tools/", 0) != 0 && file.rfind("include/", 0) != 0) continue;  // Abseil's own
    const auto it = kFlagCommands.find(name);
    groups[it == kFlagCommands.end() ? "analyze, estimate, demo" : it->second][std::string(name)] = flag;
  }
  std::string out =
      "Flags (--name=VALUE or --name VALUE; booleans --name, --noname; a name's\nunderscores may be written as dashes):\n";
  for (const auto& [commands, flags] : groups) {
    out += absl::StrCat("\n  ", commands, ":\n");
    for (const auto& [name, flag] : flags) {
      const std::string value = flag->DefaultValue();
      out += absl::StrCat("    --", name, " (default: ", value.empty() ? "none" : value, ")\n");
      append_wrapped(out, flag->Help(), 8);
    }
  }
  return out;
}

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string mkdtemp_or_throw() {
  std::string dir = (std::filesystem::temp_directory_path() / "commanalyzer-XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) throw std::runtime_error("cannot create a temporary directory");
  return dir;
}

// The user's distribution map (--distribution FILE), read before any work.
std::optional<DistributionMap>& user_map() {
  static std::optional<DistributionMap> map;
  return map;
}

// Checks --partitioner, --ownership and --distribution (a map file is read
// and its ranks checked against every process count) before any work.
void check_partitioner_flag(const std::vector<int>& procs) {
  const std::string p = absl::GetFlag(FLAGS_partitioner);
  if (p != "auto" && p != "connectivity" && p != "metis-volume" && p != "metis-cut" && p != "parmetis") {
    throw UsageError(
        absl::StrCat("--partitioner: '", p, "' is not auto, connectivity, metis-volume, metis-cut or parmetis"));
  }
  const std::string ownership = absl::GetFlag(FLAGS_ownership);
  if (ownership != "location" && ownership != "value") {
    throw UsageError(absl::StrCat("--ownership: '", ownership, "' is not location or value"));
  }
  const std::string d = absl::GetFlag(FLAGS_distribution);
  if (p == "parmetis") {
    // ParMETIS partitions the location graph: it is the graph candidate.
    if (ownership != "location") throw UsageError("--partitioner parmetis partitions locations: use --ownership=location");
    if (d != "auto" && d != "metis") {
      throw UsageError(absl::StrCat("--partitioner parmetis is the graph distribution; it cannot go with --distribution ", d));
    }
  }
  if (is_distribution_name(d)) return;
  if (ownership != "location") throw UsageError("--distribution FILE needs --ownership=location");
  std::ifstream in(d);
  if (!in) {
    throw UsageError(
        absl::StrCat("--distribution: '", d, "' is not ", kDistributionNames, " or a readable distribution file"));
  }
  try {
    user_map() = DistributionMap::parse(in, d);
    for (int n : procs) user_map()->check(~std::size_t{0}, n);  // the arrays are checked once the profile is there
  } catch (const DistributionError& e) {
    throw UsageError(absl::StrCat("--distribution: ", e.what()));
  }
}

DistributionPortfolio portfolio_from_flags(std::size_t array_count) {
  DistributionPortfolio portfolio;
  if (user_map()) {
    try {
      user_map()->check(array_count, 1 + user_map()->max_rank());
    } catch (const DistributionError& e) {
      throw UsageError(absl::StrCat("--distribution: ", e.what()));
    }
    portfolio.map = user_map();
    return portfolio;
  }
  try {
    return *named_portfolio(absl::GetFlag(FLAGS_distribution));  // a name: check_flags saw to it
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

std::vector<int> parse_procs(const std::string& text) {
  std::vector<int> procs;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    int n = 0;
    if (!absl::SimpleAtoi(item, &n) || n < 1 || n > 65536) {
      throw UsageError(absl::StrCat("--procs: '", item, "' is not a process count between 1 and 65536"));
    }
    if (std::find(procs.begin(), procs.end(), n) == procs.end()) procs.push_back(n);  // 4,4: once
  }
  if (procs.empty()) throw UsageError("--procs: give at least one process count, e.g. --procs 2,4,8");
  return procs;
}

// Writes through a temporary file and a rename, so a failed run never
// leaves a truncated report that looks complete, nor the temporary.
void write_file(const std::filesystem::path& path, const std::function<void(std::ostream&)>& body) {
  const std::filesystem::path tmp = path.string() + ".partial";
  try {
    {
      std::ofstream out(tmp);
      if (!out) throw std::runtime_error(absl::StrCat("cannot write ", tmp.string()));
      body(out);
      out.flush();
      if (!out) throw std::runtime_error(absl::StrCat("error while writing ", tmp.string()));
    }
    std::filesystem::rename(tmp, path);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw;
  }
}

// Creates and removes a file in `dir`: the honest test of "can write here"
// (access(2) says yes to root on a read-only file system).
bool can_write_in(const std::filesystem::path& dir) {
  const std::filesystem::path probe = dir / absl::StrCat(".commanalyzer-probe-", getpid());
  std::ofstream out(probe);
  if (!out) return false;
  out.close();
  std::error_code ec;
  std::filesystem::remove(probe, ec);
  return true;
}

// --json and --out are checked before anything is built or run, so that a
// long run does not fail at its last step.
void check_output_flags() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const std::string json = absl::GetFlag(FLAGS_json); !json.empty()) {
    const fs::path path(json);
    const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
    if (fs::is_directory(path, ec)) throw UsageError(absl::StrCat("--json: '", json, "' is a folder; give a file name"));
    if (!fs::is_directory(folder, ec)) {
      throw UsageError(absl::StrCat("--json: folder '", folder.string(), "' does not exist"));
    }
    if (!can_write_in(folder)) throw UsageError(absl::StrCat("--json: cannot write in folder '", folder.string(), "'"));
  }
  if (const std::string out = absl::GetFlag(FLAGS_out); !out.empty()) {
    if (fs::exists(out, ec) && !fs::is_directory(out, ec)) {
      throw UsageError(absl::StrCat("--out: '", out, "' is a file, not a folder"));
    }
    fs::create_directories(out, ec);
    if (ec) throw UsageError(absl::StrCat("--out: cannot create folder '", out, "': ", ec.message()));
    if (!can_write_in(out)) throw UsageError(absl::StrCat("--out: cannot write in folder '", out, "'"));
  }
}

std::uint64_t max_memory_bytes() {
  const std::string text = absl::GetFlag(FLAGS_max_memory);
  const std::optional<std::uint64_t> bytes = parse_bytes(text);
  if (!bytes) throw UsageError(absl::StrCat("--max-memory: '", text, "' is not a size such as 512M or 8G"));
  return *bytes;
}

// Every flag check that needs no profile: run before any work.
std::vector<int> check_flags() {
  const std::vector<int> procs = parse_procs(absl::GetFlag(FLAGS_procs));
  check_partitioner_flag(procs);
  if (const std::string error = network_flag_error(); !error.empty()) throw UsageError(error);
  max_memory_bytes();
  if (absl::GetFlag(FLAGS_timeout) < 0) throw UsageError("--timeout: give seconds, 0 for no limit");
  check_output_flags();
  return procs;
}

template <class ProfileT, class PartitionerT>
int report_with(const ProfileT& profile, const std::vector<int>& procs, PartitionerT partitioner);

// Estimates for every process count, with progress on stderr for long runs,
// then the table and any requested files.
// What the estimate is doing, named when it runs out of --max-memory.
std::string& estimate_phase() {
  static std::string phase = "loading the profile";
  return phase;
}

template <class ProfileT>
int report(const ProfileT& profile, const std::vector<int>& procs) {
  // The estimate runs in this process: past --max-memory an allocation
  // fails (std::bad_alloc, caught in main) instead of the machine swapping
  // or the kernel killing something.
  const std::uint64_t limit = max_memory_bytes();
  const struct rlimit data{limit, limit};
  setrlimit(RLIMIT_DATA, &data);
  estimate_phase() = "building the value graph";
  if (absl::GetFlag(FLAGS_ownership) == "location" && absl::GetFlag(FLAGS_partitioner) == "parmetis") {
    DistributionPortfolio portfolio(false, false, false);
    portfolio.distributed = distributed_partitioner();
    std::cerr << "[commanalyzer] ownership by location, distribution: " << distributed_partitioner_description() << "\n";
    return report_with(profile, procs, std::move(portfolio));
  }
  if (absl::GetFlag(FLAGS_ownership) == "location") {
    DistributionPortfolio portfolio = portfolio_from_flags(profile.arrays.size());
    std::cerr << "[commanalyzer] ownership by location, distribution: "
              << (portfolio.map ? "the user's map" : absl::GetFlag(FLAGS_distribution)) << "\n";
    return report_with(profile, procs, std::move(portfolio));
  }
  std::string partitioner = absl::GetFlag(FLAGS_partitioner);
  ConnectivityPartitioner connectivity;
  connectivity.edge_penalty = absl::GetFlag(FLAGS_edge_penalty);
  if (partitioner == "auto") {
    // Past ~16 million value uses recursive bisection of a mesh takes many
    // minutes: there the connectivity refinement starts from METIS's
    // partition only (report_with says which the graph turned out to be).
    connectivity.bisection_start = profile.flows.source_count() <= ConnectivityPartitioner::kBisectionUseLimit;
    std::cerr << "[commanalyzer] partitioner: connectivity (--partitioner to choose)\n";
    partitioner = "connectivity";
  }
  if (partitioner == "connectivity") return report_with(profile, procs, connectivity);
  if (partitioner == "metis-volume" || partitioner == "metis-cut") {
    MetisPartitioner metis;
    metis.objective =
        partitioner == "metis-cut" ? MetisPartitioner::Objective::kEdgeCut : MetisPartitioner::Objective::kVolume;
    return report_with(profile, procs, metis);
  }
  throw std::logic_error("unchecked --partitioner");
}

template <class ProfileT, class PartitionerT>
int report_with(const ProfileT& profile, const std::vector<int>& procs, PartitionerT partitioner) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const DensityDistanceScorer scorer = scorer_from_flags();
  const LogicalVolumeCostModel cost = cost_model_from_flags();
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  Estimator<ProfileT, DensityDistanceScorer, PartitionerT> estimator(profile, scorer, partitioner, cost, threads);
  GraphSummary summary{profile.values.count(), profile.flows.flow_count(), estimator.graph().vertex_count(),
                       estimator.graph().edge_count(), 0, profile.iterations()};
  for (auto s : estimator.singletons()) summary.singletons += s;
  for (const auto& a : profile.arrays) summary.arrays.emplace_back(a.bytes, a.indexed_indirectly);
  if constexpr (std::is_same_v<PartitionerT, ConnectivityPartitioner>) {
    if (!partitioner.bisection_start) {
      std::cerr << (partitioner.bisects(estimator.graph(), estimator.singletons())
                        ? "[commanalyzer] large graph, not mesh-like: recursive bisection all the same\n"
                        : "[commanalyzer] large mesh-like graph: refining METIS's partition, without recursive bisection\n");
    }
  }
  if constexpr (decltype(estimator)::kByLocation) {
    const LocationIndex& locations = estimator.locations();
    std::size_t live_classes = 0;
    for (const auto& c : locations.classes()) live_classes += c.locations != 0;
    std::cerr << absl::StrFormat(
        "[commanalyzer] locations: %d array elements in %d aligned class%s, %d temporaries\n",
        locations.location_count(), live_classes, live_classes == 1 ? "" : "es",
        locations.node_count() - locations.location_count());
    if (locations.location_count() == 0 && locations.node_count() > 0) {
      std::cerr << "[commanalyzer] warning: no array of 1 KiB or more (heap, global or static) holds the region's "
                   "values, so no location has a fixed owner and every value is placed as a temporary; "
                   "--ownership=value partitions them as the paper does\n";
    }
  }
  // Past this, a distribution would leave processes with nothing to own.
  std::size_t units = 0;
  const char* unit_name = "value graph vertices";
  if constexpr (decltype(estimator)::kByLocation) {
    units = estimator.locations().location_count();
    unit_name = "array elements (locations)";
    if (units == 0) units = estimator.locations().node_count(), unit_name = "temporaries";
  } else {
    units = estimator.graph().vertex_count() - summary.singletons;
  }
  const int most = *std::max_element(procs.begin(), procs.end());
  if (static_cast<std::size_t>(most) > units) {
    throw UsageError(absl::StrCat("--procs ", most, ": the profile has ", units, " ", unit_name,
                                  " to distribute, so at most ", units, " processes"));
  }
  // The per-pair byte and message matrices take 16 N^2 bytes.
  if (const double matrices = 16.0 * most * most; matrices > static_cast<double>(max_memory_bytes())) {
    throw LimitError(absl::StrCat("--procs ", most, ": the per-pair matrices alone need ",
                                  format_bytes(static_cast<std::uint64_t>(matrices)), ", past --max-memory ",
                                  format_bytes(max_memory_bytes())));
  }
  estimate_phase() = absl::StrCat("partitioning and costing ", absl::StrJoin(procs, ","), " processes");
  std::cerr << absl::StrFormat("[commanalyzer] graph built in %.1fs; partitioning and costing %d process count%s\n",
                               elapsed(), procs.size(), procs.size() == 1 ? "" : "s");
  std::size_t finished = 0;
  const std::vector<CommEstimate> estimates =
      estimator.estimate(procs, threads, [&](int n) {
        if (procs.size() > 1) {
          std::cerr << absl::StrFormat("[commanalyzer] %d processes done (%d of %d, %.1fs)\n", n, ++finished,
                                       procs.size(), elapsed());
        }
      });
  std::cerr << absl::StrFormat("[commanalyzer] estimated in %.1fs\n", elapsed());
  print_table(std::cout, summary, estimates);

  if (const std::string json = absl::GetFlag(FLAGS_json); !json.empty()) {
    write_file(json, [&](std::ostream& o) { write_json(o, summary, estimates); });
    std::cout << "\nwrote " << json << "\n";
  }
  if (const std::string out = absl::GetFlag(FLAGS_out); !out.empty()) {
    std::filesystem::create_directories(out);
    const std::filesystem::path dir(out);
    for (const CommEstimate& e : estimates) {
      write_file(dir / absl::StrCat("matrix_", e.procs, ".csv"), [&](std::ostream& o) { write_matrix_csv(o, e); });
      write_file(dir / absl::StrCat("matrix_", e.procs, ".svg"), [&](std::ostream& o) {
        write_matrix_svg(o, e, absl::StrCat("point-to-point bytes, ", e.procs, " processes"));
      });
      for (const auto& [array, dims] : e.array_shapes) {
        if (dims.size() != 2) continue;
        write_file(dir / absl::StrCat("owners_", e.procs, "_array", array, ".svg"),
                   [&](std::ostream& o) { write_owner_map_svg(o, e, array, dims[0], dims[1]); });
      }
    }
    write_file(dir / "estimate.json", [&](std::ostream& o) { write_json(o, summary, estimates); });
    if (estimator.graph().edge_count() <= 100000) {
      write_file(dir / "vcg.dot", [&](std::ostream& o) { estimator.graph().write_graphviz(o); });
    }
    std::cout << "\nwrote matrices (CSV, SVG) and estimate.json to " << out << "\n";
  }
  return 0;
}

int demo(const std::vector<int>& procs) {
  const int n = absl::GetFlag(FLAGS_n), steps = absl::GetFlag(FLAGS_steps);
  if (n < 3 || n > 8192) throw UsageError("--n: the grid needs between 3 and 8192 points per side");
  if (steps < 1 || steps > 100000) throw UsageError("--steps: give between 1 and 100000 time steps");
  std::cout << absl::StrFormat("built-in example: Heat2D, %dx%d grid, %d time steps, 5-point stencil\n", n, n, steps);
  Analyzer<> analyzer;
  examples::heat2d(analyzer, static_cast<std::uint64_t>(n), steps);
  return report(analyzer.profile(), procs);
}

// Splits analyze's arguments: compiler flags (-I -D -U -O -std= -f -W -m -g
// -l -L) for clang, everything after `--` for the program, `--flag`s for
// Abseil, the rest are sources.
struct AnalyzeArgs {
  std::vector<char*> for_abseil;
  BuildRequest build;
  std::vector<std::string> program_args;
};

// "--max-memory=1G" -> "--max_memory=1G": flag names may be written with
// dashes. The strings live as long as the process (Abseil keeps pointers).
char* with_underscores(char* arg) {
  static std::deque<std::string> kept;
  std::string text = arg;
  if (text.rfind("--", 0) != 0 || text == "--") return arg;
  const std::size_t end = std::min(text.find('='), text.size());
  if (text.find('-', 2) >= end) return arg;
  std::replace(text.begin() + 2, text.begin() + static_cast<std::ptrdiff_t>(end), '-', '_');
  return kept.emplace_back(std::move(text)).data();
}

// A flag of ours that is not a boolean: "--name VALUE" takes the next
// argument. Unknown names are left to Abseil's error.
bool takes_value(const std::string& name) {
  const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  return flag != nullptr && !flag->IsOfType<bool>();
}

AnalyzeArgs split_analyze_args(int argc, char** argv) {
  AnalyzeArgs out;
  out.for_abseil.push_back(argv[0]);
  for (int i = 2; i < argc; ++i) {
    argv[i] = with_underscores(argv[i]);
    const std::string arg = argv[i];
    if (arg == "--") {
      out.program_args.assign(argv + i + 1, argv + argc);
      break;
    }
    if (arg.rfind("--", 0) == 0) {
      out.for_abseil.push_back(argv[i]);
      // "--flag value" form: keep the value with its flag, even when it
      // starts with '-' (--procs -4 is a bad count, not a compiler option).
      if (arg.find('=') == std::string::npos && i + 1 < argc && takes_value(arg.substr(2))) {
        out.for_abseil.push_back(argv[++i]);
      }
      continue;
    }
    if (arg.size() >= 2 && arg[0] == '-') {
      const char kind = arg[1];
      std::string flag = arg;
      if (arg.size() == 2 && (kind == 'I' || kind == 'D' || kind == 'U' || kind == 'l' || kind == 'L')) {
        if (i + 1 >= argc) throw UsageError(absl::StrCat(arg, " needs a value"));
        flag += argv[++i];
      }
      if (kind == 'l' || kind == 'L') {
        out.build.link_flags.push_back(flag);
      } else if (std::string("IDUOfWmg").find(kind) != std::string::npos || arg.rfind("-std=", 0) == 0) {
        out.build.compile_flags.push_back(flag);
      } else {
        throw UsageError(absl::StrCat("unknown option '", arg, "' (compiler flags allowed: -I -D -U -O -std= -f -W -m -g -l -L)"));
      }
      continue;
    }
    out.build.sources.emplace_back(arg);
  }
  return out;
}

template <class ProfileT>
void print_run_facts(const ProfileT& profile, const ProfileInfo& info) {
  std::cout << absl::StrFormat("profile: %s; %d iteration%s marked\n", info.metadata, profile.iterations(),
                               profile.iterations() == 1 ? "" : "s");
  // Arrays are named by these numbers in a --distribution file.
  if (!profile.arrays.empty()) {
    std::cout << "arrays (allocation order):";
    constexpr std::size_t kShown = 12;
    for (std::size_t k = 0; k < std::min(kShown, profile.arrays.size()); ++k) {
      std::cout << " #" << k + 1 << " " << profile.arrays[k].bytes << " B"
                << (profile.arrays[k].indexed_indirectly ? " (indexed indirectly)" : "")
                << (k + 1 < profile.arrays.size() ? "," : "");
    }
    if (profile.arrays.size() > kShown) std::cout << " ... (" << profile.arrays.size() << " in all)";
    std::cout << "\n";
  }
}

constexpr const char* kParmetisIsForEstimate =
    "--partitioner parmetis is for estimate: mpirun -np K commanalyzer estimate PROFILE --partitioner parmetis";

int analyze(int argc, char** argv) {
  AnalyzeArgs args = split_analyze_args(argc, argv);
  absl::ParseCommandLine(static_cast<int>(args.for_abseil.size()), args.for_abseil.data());
  const std::vector<int> procs = check_flags();
  if (absl::GetFlag(FLAGS_partitioner) == "parmetis") throw UsageError(kParmetisIsForEstimate);
  if (args.build.sources.empty()) throw UsageError("analyze: give at least one C or C++ source file");
  for (const auto& source : args.build.sources) {
    if (!std::filesystem::is_regular_file(source)) {
      throw RunError(absl::StrCat("source file '", source.string(), "' not found"));
    }
  }
  const std::string out = absl::GetFlag(FLAGS_out);
  args.build.work_dir = out.empty() ? std::filesystem::path(mkdtemp_or_throw()) : std::filesystem::path(out) / "build";
  const Toolchain toolchain = Toolchain::locate();
  std::cerr << "[commanalyzer] compiling " << args.build.sources.size() << " source file(s) with the pass\n";
  const std::filesystem::path program = build_instrumented(toolchain, args.build);
  const std::filesystem::path profile_path = args.build.work_dir / "program.profile";
  std::cerr << "[commanalyzer] running the instrumented program\n";
  const auto start = std::chrono::steady_clock::now();
  run_instrumented(program, args.program_args, profile_path,
                   RunLimits{absl::GetFlag(FLAGS_timeout), max_memory_bytes()});
  std::cerr << absl::StrFormat("[commanalyzer] program finished in %.2fs; estimating\n",
                               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  const std::string kept = absl::StrCat("profile kept at ", profile_path.string(), " (re-estimate: commanalyzer estimate ",
                                        profile_path.string(), " --procs ...)");
  try {
    ProfileInfo info;
    const auto profile = load_profile(profile_path.string(), &info);
    std::cout << "\n";
    print_run_facts(profile, info);
    const int status = report(profile, procs);
    std::cout << "\n" << kept << "\n";
    return status;
  } catch (...) {
    std::cerr << "[commanalyzer] " << kept << "\n";  // the run need not be repeated
    throw;
  }
}

int build(int argc, char** argv) {
  AnalyzeArgs args = split_analyze_args(argc, argv);
  absl::ParseCommandLine(static_cast<int>(args.for_abseil.size()), args.for_abseil.data());
  const std::string output = absl::GetFlag(FLAGS_output);
  if (output.empty()) throw UsageError("build: give --output FILE for the instrumented executable");
  if (args.build.sources.empty()) throw UsageError("build: give at least one C or C++ source file");
  if (!args.program_args.empty()) throw UsageError("build: program arguments (after --) are for analyze");
  args.build.work_dir = mkdtemp_or_throw();
  const std::filesystem::path program = build_instrumented(Toolchain::locate(), args.build);
  std::filesystem::copy_file(program, output, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::remove_all(args.build.work_dir);
  return 0;
}

int estimate(const std::vector<char*>& positional, const std::vector<int>& procs) {
  if (positional.size() != 2) throw UsageError("estimate: give exactly one profile file");
  ProfileInfo info;
  const auto profile = load_profile(positional[1], &info);
  print_run_facts(profile, info);
  return report(profile, procs);
}

int run(int argc, char** argv) {
  absl::SetProgramUsageMessage(kUsage);
  if (argc < 2 || std::string(argv[1]) == "help" || std::string(argv[1]) == "--help") {
    std::cout << kUsage << "\n\n" << flags_help();
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  if (command == "analyze") return analyze(argc, argv);
  if (command == "build") return build(argc, argv);
  if (command == "place") return place_command(argc, argv);
  // Abseil parses the flags of everything after the subcommand.
  std::vector<char*> rest{argv[0]};
  for (int i = 2; i < argc; ++i) rest.push_back(with_underscores(argv[i]));
  const std::vector<char*> positional = absl::ParseCommandLine(static_cast<int>(rest.size()), rest.data());
  if (command == "trace") return trace_command(positional);
  if (command == "benchgen") return benchgen_command(positional);
  const std::vector<int> procs = check_flags();
  if (absl::GetFlag(FLAGS_partitioner) == "parmetis") {
    if (command != "estimate") throw UsageError(kParmetisIsForEstimate);
    join_distributed_partitioning(argv);  // the other MPI ranks end here
  }
  if (command == "demo") {
    if (positional.size() > 1) throw UsageError(absl::StrCat("demo takes no arguments, got '", positional[1], "'"));
    return demo(procs);
  }
  if (command == "estimate") return estimate(positional, procs);
  throw UsageError(absl::StrCat("unknown command '", command, "' (try: commanalyzer help)"));
}

}  // namespace
}  // namespace commanalyzer::cli

int main(int argc, char** argv) {
  commanalyzer::cli::reexecute_with_huge_pages(argv);
  // Whatever the exit status, the other MPI ranks of --partitioner parmetis
  // are released.
  struct LeaveDistributed {
    ~LeaveDistributed() { commanalyzer::cli::leave_distributed_partitioning(); }
  } leave;
  try {
    return commanalyzer::cli::run(argc, argv);
  } catch (const commanalyzer::cli::UsageError& e) {
    std::cerr << "commanalyzer: " << e.what() << "\n";
    return 2;
  } catch (const commanalyzer::cli::UnsupportedError& e) {
    std::cerr << "commanalyzer: " << e.what() << "\n";
    return 2;
  } catch (const commanalyzer::cli::LimitError& e) {
    std::cerr << "commanalyzer: " << e.what() << "\n";
    return 3;
  } catch (const std::bad_alloc&) {
    std::cerr << "commanalyzer: out of memory while " << commanalyzer::cli::estimate_phase()
              << " (--max-memory " << absl::GetFlag(FLAGS_max_memory)
              << "); try fewer or smaller --procs, or a smaller problem\n";
    return 3;
  } catch (const commanalyzer::cli::RunError& e) {
    std::cerr << "commanalyzer: " << e.what() << "\n";
    return 1;
  } catch (const commanalyzer::ProfileError& e) {
    std::cerr << "commanalyzer: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "commanalyzer: error: " << e.what() << "\n";
    return 1;
  }
}

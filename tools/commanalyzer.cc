// commanalyzer: predict the MPI communication of a sequential program.
//
//   commanalyzer demo     [--procs ...] [--n N] [--steps T] [--json F] [--out DIR]
//
// See `commanalyzer help` for every subcommand.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "commanalyzer/analyzer.h"
#include "commanalyzer/estimate.h"
#include "commanalyzer/report.h"
#include "tools/builtin_examples.h"

ABSL_FLAG(std::string, procs, "2,4,8,16,32,64", "comma-separated process counts to estimate for");
ABSL_FLAG(std::string, json, "", "also write the estimates as JSON to this file");
ABSL_FLAG(std::string, out, "", "also write CSV matrices, SVG heatmaps and the graph (dot) into this directory");
ABSL_FLAG(int, n, 128, "demo: grid points per side of the built-in Heat2D example");
ABSL_FLAG(int, steps, 10, "demo: time steps of the built-in Heat2D example");

namespace commanalyzer::cli {
namespace {

constexpr const char* kUsage = R"(commanalyzer: predict the communication an MPI version of a sequential
program would need on N processes, from the sequential program itself.

Usage:
  commanalyzer demo [--procs 2,4,...] [--n 128] [--steps 10] [--json FILE] [--out DIR]
      Runs the analysis on a built-in Heat2D event stream (no compiler needed)
      and prints the predicted communication for each process count.
  commanalyzer help
      This text.

Columns: total bytes = point-to-point + collective bytes under the logical
volume convention (Bcast (N-1)m, Allreduce 2(N-1)m); messages = one per
(sender, receiver, iteration) plus one per collective call.)";

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::vector<int> parse_procs(const std::string& text) {
  std::vector<int> procs;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    int n = 0;
    if (!absl::SimpleAtoi(item, &n) || n < 1 || n > 65536) {
      throw UsageError(absl::StrCat("--procs: '", item, "' is not a process count between 1 and 65536"));
    }
    procs.push_back(n);
  }
  if (procs.empty()) throw UsageError("--procs: give at least one process count, e.g. --procs 2,4,8");
  return procs;
}

// Writes through a temporary file and a rename, so a failed run never
// leaves a truncated report that looks complete.
void write_file(const std::filesystem::path& path, const std::function<void(std::ostream&)>& body) {
  const std::filesystem::path tmp = path.string() + ".partial";
  {
    std::ofstream out(tmp);
    if (!out) throw std::runtime_error(absl::StrCat("cannot write ", tmp.string()));
    body(out);
    out.flush();
    if (!out) throw std::runtime_error(absl::StrCat("error while writing ", tmp.string()));
  }
  std::filesystem::rename(tmp, path);
}

// Estimates for every process count, with progress on stderr for long runs,
// then the table and any requested files.
template <class ProfileT>
int report(const ProfileT& profile, const std::vector<int>& procs) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  Estimator<ProfileT> estimator(profile);
  GraphSummary summary{profile.values.count(), profile.flows.flow_count(), estimator.graph().vertex_count(),
                       estimator.graph().edge_count(), 0, profile.iterations()};
  for (auto s : estimator.singletons()) summary.singletons += s;
  std::vector<CommEstimate> estimates;
  for (std::size_t k = 0; k < procs.size(); ++k) {
    if (elapsed() > 2) std::cerr << absl::StrFormat("[%.1fs] estimating for %d processes (%d/%d)\n", elapsed(), procs[k], k + 1, procs.size());
    estimates.push_back(estimator.estimate(procs[k]));
  }
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

int run(int argc, char** argv) {
  absl::SetProgramUsageMessage(kUsage);
  if (argc < 2 || std::string(argv[1]) == "help" || std::string(argv[1]) == "--help") {
    std::cout << kUsage << "\n";
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  // Abseil parses the flags of everything after the subcommand.
  std::vector<char*> rest{argv[0]};
  for (int i = 2; i < argc; ++i) rest.push_back(argv[i]);
  const std::vector<char*> positional = absl::ParseCommandLine(static_cast<int>(rest.size()), rest.data());
  const std::vector<int> procs = parse_procs(absl::GetFlag(FLAGS_procs));
  if (command == "demo") {
    if (positional.size() > 1) throw UsageError(absl::StrCat("demo takes no arguments, got '", positional[1], "'"));
    return demo(procs);
  }
  throw UsageError(absl::StrCat("unknown command '", command, "' (try: commanalyzer help)"));
}

}  // namespace
}  // namespace commanalyzer::cli

int main(int argc, char** argv) {
  try {
    return commanalyzer::cli::run(argc, argv);
  } catch (const commanalyzer::cli::UsageError& e) {
    std::cerr << "commanalyzer: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "commanalyzer: error: " << e.what() << "\n";
    return 1;
  }
}

#include "tools/compare_command.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "commanalyzer/comparison.h"
#include "commanalyzer/estimate_json.h"
#include "commanalyzer/measurement.h"
#include "commanalyzer/mpip_report.h"
#include "nlohmann/json.hpp"
#include "tools/cli_errors.h"
#include "tools/output_files.h"

ABSL_FLAG(double, tolerance, 8.0,
          "compare: mark a difference (per process, pair, iteration or total) when |estimated - measured| exceeds "
          "this percentage of the larger side (default 8: the paper's bound on a whole program's error, Table 2)");

namespace commanalyzer::cli {
namespace {

// How many pairs and iterations a process count lists (marked ones first);
// --json has all.
constexpr std::size_t kShown = 64;

std::string read_input(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw UsageError(absl::StrCat("compare: '", path, "' is not a file"));
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (!(text << in.rdbuf())) throw UsageError(absl::StrCat("compare: cannot read '", path, "'"));
  return text.str();
}

// The PMPI counter's JSON or mpiP's report, told apart by their first bytes.
Measurement read_measurement(const std::string& path) {
  const std::string text = read_input(path);
  std::istringstream in(text);
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  try {
    if (first != std::string::npos && text[first] == '{') return read_pmpi_counts(in);
    if (text.compare(first == std::string::npos ? 0 : first, 6, "@ mpiP") == 0) return read_mpip_report(in);
  } catch (const MeasurementError& e) {
    throw UsageError(absl::StrCat("compare: '", path, "': ", e.what()));
  }
  throw UsageError(absl::StrCat("compare: '", path,
                                "' is neither the PMPI counter's JSON (examples/measure) nor an mpiP report"));
}

struct MeasuredRun {
  std::string path;
  Measurement measurement;
};

std::string percent(double share) {
  if (std::isinf(share)) return share > 0 ? "+inf" : "-inf";
  return absl::StrFormat("%+.1f%%", 100 * share);
}

std::string mark(const Difference& d) { return d.marked ? "!" : " "; }

// "measured / estimated (+x%)", then '!' when marked.
std::string side_by_side(const Difference& d) {
  return absl::StrFormat("%d / %d (%s)%s", d.measured, d.estimated, percent(d.relative()), d.marked ? " !" : "");
}

void print_processes(const RunComparison& c) {
  if (c.process_bytes.empty()) return;
  std::cout << "  point-to-point sent per process   measured B  estimated B     diff   msgs meas  msgs est\n";
  for (std::size_t r = 0; r < c.process_bytes.size(); ++r) {
    const Difference& b = c.process_bytes[r];
    const Difference& m = c.process_messages[r];
    std::cout << absl::StrFormat("  %s%s %-29d %12d %12d %8s %11d %9d\n", mark(b), mark(m), r, b.measured, b.estimated,
                                 percent(b.relative()), m.measured, m.estimated);
  }
}

void print_pairs(const RunComparison& c) {
  if (c.pairs.empty()) return;
  std::vector<const PairDifference*> shown;
  for (const PairDifference& p : c.pairs) shown.push_back(&p);
  std::stable_sort(shown.begin(), shown.end(), [](const PairDifference* a, const PairDifference* b) {
    return (a->bytes.marked || a->messages.marked) > (b->bytes.marked || b->messages.marked);
  });
  const auto marked = std::count_if(shown.begin(), shown.end(), [](const PairDifference* p) { return p->bytes.marked; });
  std::cout << absl::StrFormat("  pairs (%d with traffic, %d marked by bytes)   measured B  estimated B     diff   "
                               "msgs meas  msgs est\n",
                               c.pairs.size(), marked);
  for (std::size_t k = 0; k < shown.size() && k < kShown; ++k) {
    const PairDifference& p = *shown[k];
    std::cout << absl::StrFormat("  %s%s %5d -> %-5d %24d %12d %8s %11d %9d\n", mark(p.bytes), mark(p.messages), p.from,
                                 p.to, p.bytes.measured, p.bytes.estimated, percent(p.bytes.relative()),
                                 p.messages.measured, p.messages.estimated);
  }
  if (shown.size() > kShown) std::cout << absl::StrFormat("  ... %d more pairs (--json lists all)\n", shown.size() - kShown);
}

void print_iterations(const RunComparison& c) {
  if (c.measured_iterations == 0) return;
  std::vector<std::string> marked;
  for (std::size_t k = 0; k < c.iterations.size(); ++k) {
    const Difference& d = c.iterations[k];
    if (d.marked && marked.size() < kShown) {
      marked.push_back(absl::StrFormat("%d: %d / %d (%s)", k, d.measured, d.estimated, percent(d.relative())));
    }
  }
  std::cout << absl::StrFormat("  iterations: %d measured, %d estimated; bytes marked in %s\n", c.measured_iterations,
                               c.estimated_iterations, marked.empty() ? "none" : absl::StrJoin(marked, ", "));
}

// Where each side's traffic is: the estimate's consuming source lines and
// the measured MPI call sites are in different programs, so they are
// listed, not matched.
void print_sites(const EstimatedRun& est, const Measurement& meas) {
  if (meas.sites.empty()) return;
  std::cout << "  sites (listed, not matched: the estimate's are lines of the sequential program)\n";
  for (const MeasuredSite& s : meas.sites) {
    std::cout << absl::StrFormat("    measured  %-10s site %-4d %-28s %12d B %8d calls\n", s.call, s.id, s.location,
                                 s.bytes, s.calls);
  }
  for (const EstimatedSite& s : est.sites) {
    std::cout << absl::StrFormat("    estimated %-44s %12d B %8d messages\n", s.location, s.bytes, s.messages);
  }
}

nlohmann::json difference_json(const Difference& d) {
  return {{"estimated", d.estimated}, {"measured", d.measured}, {"marked", d.marked}};
}

nlohmann::json comparison_json(const RunComparison& c, const MeasuredRun& run) {
  nlohmann::json out = {{"procs", c.procs},
                        {"measured_file", run.path},
                        {"measured_by", run.measurement.tool},
                        {"accuracy", c.accuracy},
                        {"d_p2p", c.d_p2p},
                        {"d_coll", c.d_coll},
                        {"total_bytes", difference_json(c.total_bytes)},
                        {"p2p_bytes", difference_json(c.p2p_bytes)},
                        {"collective_bytes", difference_json(c.collective_bytes)},
                        {"messages", difference_json(c.messages)},
                        {"notes", run.measurement.notes}};
  out["processes"] = nlohmann::json::array();
  for (std::size_t r = 0; r < c.process_bytes.size(); ++r) {
    out["processes"].push_back(
        {{"rank", r}, {"bytes", difference_json(c.process_bytes[r])}, {"messages", difference_json(c.process_messages[r])}});
  }
  out["pairs"] = nlohmann::json::array();
  for (const PairDifference& p : c.pairs) {
    out["pairs"].push_back({{"src", p.from}, {"dst", p.to}, {"bytes", difference_json(p.bytes)},
                            {"messages", difference_json(p.messages)}});
  }
  out["iterations"] = nlohmann::json::array();
  for (const Difference& d : c.iterations) out["iterations"].push_back(difference_json(d));
  return out;
}

}  // namespace

int compare_command(const std::vector<char*>& positional, const std::string& json) {
  if (positional.size() < 3) {
    throw UsageError(
        "compare: give the estimate (--json of analyze or estimate) and at least one measured run: commanalyzer "
        "compare ESTIMATE.json MEASURED...");
  }
  const double tolerance = absl::GetFlag(FLAGS_tolerance);
  if (!(tolerance >= 0 && tolerance <= 100)) {
    throw UsageError(absl::StrCat("--tolerance: ", tolerance, " is not a percentage between 0 and 100"));
  }
  std::vector<std::filesystem::path> inputs(positional.begin() + 1, positional.end());
  note_input_files(inputs);
  if (!json.empty()) check_output_file("--json", json);
  // Every input read and checked before anything is printed.
  const std::string estimate_path = positional[1];
  std::vector<EstimatedRun> estimates;
  try {
    std::istringstream in(read_input(estimate_path));
    estimates = read_estimate_json(in);
  } catch (const MeasurementError& e) {
    throw UsageError(absl::StrCat("compare: '", estimate_path, "': ", e.what()));
  }
  std::map<int, const EstimatedRun*> by_procs;
  for (const EstimatedRun& e : estimates) by_procs[e.procs] = &e;
  std::vector<std::string> counts;
  for (const auto& [procs, run] : by_procs) counts.push_back(absl::StrCat(procs));
  std::vector<MeasuredRun> measured;
  std::map<int, std::string> seen;
  for (std::size_t i = 2; i < positional.size(); ++i) {
    MeasuredRun run{positional[i], read_measurement(positional[i])};
    const int procs = run.measurement.procs;
    if (!by_procs.count(procs)) {
      throw UsageError(absl::StrCat("compare: '", run.path, "' was measured on ", procs, " processes; the estimate '",
                                    estimate_path, "' has ", absl::StrJoin(counts, ", "), " (estimate with --procs ",
                                    procs, ")"));
    }
    if (const auto [it, added] = seen.emplace(procs, run.path); !added) {
      throw UsageError(absl::StrCat("compare: '", it->second, "' and '", run.path, "' both measured ", procs, " processes"));
    }
    measured.push_back(std::move(run));
  }
  std::sort(measured.begin(), measured.end(),
            [](const MeasuredRun& a, const MeasuredRun& b) { return a.measurement.procs < b.measurement.procs; });

  const ComparisonRule rule{tolerance / 100};
  std::vector<RunComparison> comparisons;
  for (const MeasuredRun& run : measured) {
    comparisons.push_back(compare_run(*by_procs.at(run.measurement.procs), run.measurement, rule));
  }
  std::cout << absl::StrFormat(
      "estimate %s beside %d measured run(s); accuracy = 1 - |est - meas| / meas on total bytes; '!' marks a "
      "difference larger than %g%% of the larger side\n\n",
      estimate_path, measured.size(), tolerance);
  std::cout << " procs  measured B  estimated B  accuracy    d p2p   d coll   msgs meas   msgs est  measured by\n";
  double sum = 0;
  const RunComparison* worst = nullptr;
  for (std::size_t k = 0; k < comparisons.size(); ++k) {
    const RunComparison& c = comparisons[k];
    std::cout << absl::StrFormat("%s%5d %11d %12d %8.1f%% %8s %8s %s%10d %10d  %s (%s)\n", mark(c.total_bytes), c.procs,
                                 c.total_bytes.measured, c.total_bytes.estimated, 100 * c.accuracy, percent(c.d_p2p),
                                 percent(c.d_coll), mark(c.messages), c.messages.measured, c.messages.estimated,
                                 measured[k].measurement.tool, measured[k].path);
    sum += c.accuracy;
    if (worst == nullptr || c.accuracy < worst->accuracy) worst = &c;
  }
  const double average = sum / static_cast<double>(comparisons.size());
  std::cout << absl::StrFormat("average accuracy %.1f%%, largest error %.1f%% (P=%d)\n", 100 * average,
                               100 * (1 - worst->accuracy), worst->procs);
  for (std::size_t k = 0; k < comparisons.size(); ++k) {
    const RunComparison& c = comparisons[k];
    const Measurement& m = measured[k].measurement;
    std::cout << absl::StrFormat("\n%d processes, measured / estimated: point-to-point bytes %s, messages %s; collective bytes %s, calls "
                                 "%d / %d\n",
                                 c.procs, side_by_side(c.p2p_bytes),
                                 side_by_side({by_procs.at(c.procs)->p2p_messages, m.p2p_messages,
                                               rule.marks(by_procs.at(c.procs)->p2p_messages, m.p2p_messages)}),
                                 side_by_side(c.collective_bytes), m.collective_calls,
                                 by_procs.at(c.procs)->collective_calls);
    for (const std::string& note : m.notes) std::cout << "  note: " << note << "\n";
    print_processes(c);
    print_pairs(c);
    print_iterations(c);
    print_sites(*by_procs.at(c.procs), m);
  }
  if (!json.empty()) {
    nlohmann::json doc = {{"format", "commanalyzer-comparison-1"},
                          {"estimate", estimate_path},
                          {"tolerance", rule.tolerance},
                          {"average_accuracy", average},
                          {"runs", nlohmann::json::array()}};
    for (std::size_t k = 0; k < comparisons.size(); ++k) doc["runs"].push_back(comparison_json(comparisons[k], measured[k]));
    write_atomically(json, [&](std::ostream& o) { o << doc.dump(1) << "\n"; });
  }
  return 0;
}

}  // namespace commanalyzer::cli

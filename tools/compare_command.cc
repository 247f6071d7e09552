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
#include "absl/strings/str_split.h"
#include "commanalyzer/report/comparison.h"
#include "commanalyzer/report/estimate_json.h"
#include "commanalyzer/report/measurement.h"
#include "commanalyzer/report/mpip_report.h"
#include "nlohmann/json.hpp"
#include "tools/cli_errors.h"
#include "tools/output_files.h"

ABSL_FLAG(double, tolerance, 8.0,
          "compare: mark a difference (per process, pair, iteration or total) when |estimated - measured| exceeds "
          "this percentage of the larger side (default 8: the paper's bound on a whole program's error, Table 2)");

ABSL_FLAG(
    std::string, baseline, "",
    "compare: ESTIMATE.json,MEASURED,... of a shorter run of the same programs (e.g. one iteration): each side is "
    "compared less its baseline, so that what both runs do (set-up, input, a final gather) cancels");

namespace commanalyzer::cli {
namespace {

// How many pairs, marked iterations and sites a process count lists
// (marked pairs first); --json has every pair and iteration.
constexpr std::size_t kShown = 64;

std::string read_input(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw UsageError(absl::StrCat("compare: '", path, "' is not a file"));
  }
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
  throw UsageError(
      absl::StrCat("compare: '", path, "' is neither the PMPI counter's JSON (examples/measure) nor an mpiP report"));
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
  const auto marked =
      std::count_if(shown.begin(), shown.end(), [](const PairDifference* p) { return p->bytes.marked; });
  std::cout << absl::StrFormat(
      "  pairs (%d with traffic, %d marked by bytes)   measured B  estimated B     diff   "
      "msgs meas  msgs est\n",
      c.pairs.size(), marked);
  for (std::size_t k = 0; k < shown.size() && k < kShown; ++k) {
    const PairDifference& p = *shown[k];
    std::cout << absl::StrFormat("  %s%s %5d -> %-5d %24d %12d %8s %11d %9d\n", mark(p.bytes), mark(p.messages), p.from,
                                 p.to, p.bytes.measured, p.bytes.estimated, percent(p.bytes.relative()),
                                 p.messages.measured, p.messages.estimated);
  }
  if (shown.size() > kShown) {
    std::cout << absl::StrFormat("  ... %d more pairs (--json lists all)\n", shown.size() - kShown);
  }
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
  std::cout << "  sites (listed, not matched: the estimate's are lines of the sequential program; every rank counts a "
               "collective call)\n";
  for (std::size_t k = 0; k < meas.sites.size() && k < kShown; ++k) {
    const MeasuredSite& s = meas.sites[k];
    std::cout << absl::StrFormat("    measured  %-10s site %-4d %-28s %12d B %8d calls\n", s.call, s.id, s.location,
                                 s.bytes, s.calls);
  }
  for (std::size_t k = 0; k < est.sites.size() && k < kShown; ++k) {
    const EstimatedSite& s = est.sites[k];
    std::cout << absl::StrFormat("    estimated %-44s %12d B %8d messages\n", s.location, s.bytes, s.messages);
  }
  const std::size_t more = meas.sites.size() + est.sites.size() - std::min(meas.sites.size(), kShown) -
                           std::min(est.sites.size(), kShown);
  if (more > 0) std::cout << absl::StrFormat("    ... %d more sites\n", more);
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
    out["processes"].push_back({{"rank", r},
                                {"bytes", difference_json(c.process_bytes[r])},
                                {"messages", difference_json(c.process_messages[r])}});
  }
  out["pairs"] = nlohmann::json::array();
  for (const PairDifference& p : c.pairs) {
    out["pairs"].push_back({{"src", p.from},
                            {"dst", p.to},
                            {"bytes", difference_json(p.bytes)},
                            {"messages", difference_json(p.messages)}});
  }
  out["iterations"] = nlohmann::json::array();
  for (const Difference& d : c.iterations) out["iterations"].push_back(difference_json(d));
  return out;
}

std::vector<EstimatedRun> read_estimate(const std::string& path) {
  try {
    std::istringstream in(read_input(path));
    return read_estimate_json(in);
  } catch (const MeasurementError& e) {
    throw UsageError(absl::StrCat("compare: '", path, "': ", e.what()));
  }
}

// One measured run per process count, each a count `estimate` has.
std::vector<MeasuredRun> read_measured(const std::vector<std::string>& paths, const std::vector<EstimatedRun>& estimate,
                                       const std::string& estimate_path) {
  std::vector<std::string> counts;
  for (const EstimatedRun& e : estimate) counts.push_back(absl::StrCat(e.procs));
  std::vector<MeasuredRun> runs;
  std::map<int, std::string> seen;
  for (const std::string& path : paths) {
    MeasuredRun run{path, read_measurement(path)};
    const int procs = run.measurement.procs;
    if (std::none_of(estimate.begin(), estimate.end(), [procs](const EstimatedRun& e) { return e.procs == procs; })) {
      throw UsageError(absl::StrCat("compare: '", path, "' was measured on ", procs, " processes; the estimate '",
                                    estimate_path, "' has ", absl::StrJoin(counts, ", "), " (estimate with --procs ",
                                    procs, ")"));
    }
    if (const auto [it, added] = seen.emplace(procs, path); !added) {
      throw UsageError(
          absl::StrCat("compare: '", it->second, "' and '", path, "' both measured ", procs, " processes"));
    }
    runs.push_back(std::move(run));
  }
  std::sort(runs.begin(), runs.end(),
            [](const MeasuredRun& a, const MeasuredRun& b) { return a.measurement.procs < b.measurement.procs; });
  return runs;
}

const EstimatedRun& at_procs(const std::vector<EstimatedRun>& runs, int procs) {
  return *std::find_if(runs.begin(), runs.end(), [procs](const EstimatedRun& e) { return e.procs == procs; });
}

// What is compared: for each measured run, the estimate for its count;
// with --baseline, both less the baseline run's.
struct Inputs {
  std::string description;  // what the files are
  std::vector<MeasuredRun> measured;
  std::vector<EstimatedRun> estimated;  // one per measured run, in its order
};

Inputs read_inputs(const std::vector<std::string>& files, const std::vector<std::string>& baseline) {
  Inputs inputs;
  const std::vector<EstimatedRun> estimate = read_estimate(files[0]);
  inputs.measured = read_measured({files.begin() + 1, files.end()}, estimate, files[0]);
  inputs.description = absl::StrCat("estimate ", files[0], " beside ", inputs.measured.size(), " measured run(s)");
  if (baseline.empty()) {
    for (const MeasuredRun& run : inputs.measured) {
      inputs.estimated.push_back(at_procs(estimate, run.measurement.procs));
    }
    return inputs;
  }
  if (baseline.size() < 2) throw UsageError("--baseline: give the shorter run's estimate, then its measurements");
  const std::vector<EstimatedRun> base_estimate = read_estimate(baseline[0]);
  const std::vector<MeasuredRun> base_measured =
      read_measured({baseline.begin() + 1, baseline.end()}, base_estimate, baseline[0]);
  for (MeasuredRun& run : inputs.measured) {
    const int procs = run.measurement.procs;
    const auto base = std::find_if(base_measured.begin(), base_measured.end(),
                                   [procs](const MeasuredRun& b) { return b.measurement.procs == procs; });
    if (base == base_measured.end()) {
      throw UsageError(absl::StrCat("--baseline: no measurement on ", procs, " processes (for '", run.path, "')"));
    }
    try {
      run.measurement = subtract(run.measurement, base->measurement);
      inputs.estimated.push_back(subtract(at_procs(estimate, procs), at_procs(base_estimate, procs)));
    } catch (const MeasurementError& e) {
      throw UsageError(absl::StrCat("--baseline: '", run.path, "' less '", base->path, "': ", e.what()));
    }
    run.path = absl::StrCat(run.path, " - ", base->path);
  }
  absl::StrAppend(&inputs.description, ", each less the baseline run (estimate ", baseline[0], ")");
  return inputs;
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
  const std::vector<std::string> files(positional.begin() + 1, positional.end());
  const std::vector<std::string> baseline = absl::StrSplit(absl::GetFlag(FLAGS_baseline), ',', absl::SkipEmpty());
  std::vector<std::filesystem::path> inputs(files.begin(), files.end());
  inputs.insert(inputs.end(), baseline.begin(), baseline.end());
  note_input_files(inputs);
  if (!json.empty()) check_output_file("--json", json);
  // Every input read and checked before anything is printed.
  const Inputs in = read_inputs(files, baseline);
  const ComparisonRule rule{tolerance / 100};
  std::vector<RunComparison> comparisons;
  for (std::size_t k = 0; k < in.measured.size(); ++k) {
    comparisons.push_back(compare_run(in.estimated[k], in.measured[k].measurement, rule));
  }
  std::cout << absl::StrFormat(
      "%s; accuracy = 1 - |est - meas| / meas on total bytes; '!' marks a difference larger than %g%% of the "
      "larger side\n\n",
      in.description, tolerance);
  std::cout << " procs  measured B  estimated B  accuracy    d p2p   d coll   msgs meas   msgs est  measured by\n";
  double sum = 0;
  const RunComparison* worst = nullptr;
  for (std::size_t k = 0; k < comparisons.size(); ++k) {
    const RunComparison& c = comparisons[k];
    std::cout << absl::StrFormat("%s%5d %11d %12d %8.1f%% %8s %8s %s%10d %10d  %s (%s)\n", mark(c.total_bytes), c.procs,
                                 c.total_bytes.measured, c.total_bytes.estimated, 100 * c.accuracy, percent(c.d_p2p),
                                 percent(c.d_coll), mark(c.messages), c.messages.measured, c.messages.estimated,
                                 in.measured[k].measurement.tool, in.measured[k].path);
    sum += c.accuracy;
    if (worst == nullptr || c.accuracy < worst->accuracy) worst = &c;
  }
  const double average = sum / static_cast<double>(comparisons.size());
  std::cout << absl::StrFormat("average accuracy %.1f%%, largest error %.1f%% (P=%d)\n", 100 * average,
                               100 * (1 - worst->accuracy), worst->procs);
  for (std::size_t k = 0; k < comparisons.size(); ++k) {
    const RunComparison& c = comparisons[k];
    const Measurement& m = in.measured[k].measurement;
    const EstimatedRun& e = in.estimated[k];
    const Difference p2p_messages{e.p2p_messages, m.p2p_messages, rule.marks(e.p2p_messages, m.p2p_messages)};
    std::cout << absl::StrFormat(
        "\n%d processes, measured / estimated: point-to-point bytes %s, messages %s; collective bytes %s, calls %d / "
        "%d\n",
        c.procs, side_by_side(c.p2p_bytes), side_by_side(p2p_messages), side_by_side(c.collective_bytes),
        m.collective_calls, e.collective_calls);
    for (const std::string& note : m.notes) std::cout << "  note: " << note << "\n";
    print_processes(c);
    print_pairs(c);
    print_iterations(c);
    print_sites(e, m);
  }
  if (!json.empty()) {
    nlohmann::json doc = {
        {"format", "commanalyzer-comparison-1"}, {"estimate", files[0]},        {"baseline", baseline},
        {"tolerance", rule.tolerance},           {"average_accuracy", average}, {"runs", nlohmann::json::array()}};
    for (std::size_t k = 0; k < comparisons.size(); ++k) {
      doc["runs"].push_back(comparison_json(comparisons[k], in.measured[k]));
    }
    write_atomically(json, [&](std::ostream& o) { o << doc.dump(1) << "\n"; });
  }
  return 0;
}

}  // namespace commanalyzer::cli

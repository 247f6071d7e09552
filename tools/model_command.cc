#include "tools/model_command.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <ostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "commanalyzer/record/profile_io.h"
#include "commanalyzer/report/scaling_model.h"
#include "tools/cli_errors.h"
#include "tools/estimate_run.h"
#include "tools/output_files.h"
#include "tools/supervisor.h"

namespace commanalyzer::cli {
namespace fs = std::filesystem;

namespace {

constexpr const char* kSize = "{n";

// "32,48,64" -> {32, 48, 64}: positive integers, sorted, each once.
std::vector<double> parse_sizes(const std::string& flag, const std::string& text) {
  std::vector<double> sizes;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::uint64_t n = 0;
    if (!absl::SimpleAtoi(part, &n) || n == 0) {
      throw UsageError(absl::StrCat(flag, ": '", std::string(part), "' is not a positive whole size"));
    }
    sizes.push_back(static_cast<double>(n));
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

// The three metrics modelled, per iteration of the marked region (the
// whole run when none is marked).
struct Metric {
  const char* name;
  double (*of)(const CommEstimate&);
};
double per_iteration(const CommEstimate& e, double x) { return x / static_cast<double>(std::max<std::size_t>(e.iterations, 1)); }
const Metric kMetrics[] = {
    {"bytes", [](const CommEstimate& e) { return per_iteration(e, static_cast<double>(e.total_bytes())); }},
    {"messages", [](const CommEstimate& e) { return per_iteration(e, static_cast<double>(e.p2p_messages)); }},
    {"collective calls", [](const CommEstimate& e) { return per_iteration(e, static_cast<double>(e.collective_calls)); }},
};
constexpr std::size_t kMetricCount = sizeof(kMetrics) / sizeof(kMetrics[0]);

// The argument with {n} replaced by the size and {n*K} by K times it (a
// program whose dimensions keep a ratio: HPCCG's nz = 4 nx).
std::string with_size(const std::string& arg, double n) {
  std::string out;
  for (std::size_t at = 0; at < arg.size();) {
    const std::size_t open = arg.find("{n", at);
    const std::size_t close = open == std::string::npos ? open : arg.find('}', open);
    if (close == std::string::npos) {
      out += arg.substr(at);
      break;
    }
    out += arg.substr(at, open - at);
    const std::string inside = arg.substr(open + 2, close - open - 2);  // "" or "*K"
    std::uint64_t factor = 1;
    if (!inside.empty() && (inside[0] != '*' || !absl::SimpleAtoi(inside.substr(1), &factor) || factor == 0)) {
      throw UsageError(absl::StrCat("model: '", arg, "': write the size as {n} or {n*K}, K a whole number"));
    }
    out += absl::StrFormat("%.0f", n * static_cast<double>(factor));
    at = close + 1;
  }
  return out;
}

// Extra-P's text input: the parameters, every point, then per metric one
// DATA line per point in the same order.
void write_extrap(std::ostream& out, const std::vector<std::string>& params,
                  const std::array<std::vector<Measurement>, kMetricCount>& data) {
  for (const std::string& p : params) out << "PARAMETER " << p << "\n";
  out << "\nPOINTS";
  for (const Measurement& m : data[0]) {
    out << " (";
    for (double x : m.point) out << absl::StrFormat(" %g", x);
    out << " )";
  }
  out << "\n\nREGION communication_per_iteration\n";
  for (std::size_t k = 0; k < kMetricCount; ++k) {
    out << "METRIC " << absl::StrReplaceAll(kMetrics[k].name, {{" ", "_"}}) << "\n";
    for (const Measurement& m : data[k]) out << absl::StrFormat("DATA %.17g\n", m.value);
  }
}

// The metrics at every size and process count: the program built once
// in the tool's temporary directory, run and estimated at every size,
// the largest first. Each count keeps at every size the decomposition it
// keeps at the largest (where offered): an MPI code has one decomposition
// for every size, and the largest fitted is the nearest to those predicted.
std::array<std::vector<Measurement>, kMetricCount> analyse_at_sizes(ModelRequest& model, EstimateRequest request,
                                                                    std::vector<double> sizes) {
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  const char* tmp = std::getenv("TMPDIR");
  model.build.work_dir = fs::path(tmp != nullptr ? tmp : "/tmp") / "model";
  std::cerr << "[commanalyzer] compiling " << model.build.sources.size() << " source file(s) with the pass\n";
  set_activity("compiling the program");
  const fs::path program = build_instrumented(Toolchain::locate(), model.build);
  std::array<std::vector<Measurement>, kMetricCount> data;
  for (double n : sizes) {
    std::vector<std::string> args;
    for (const std::string& a : model.program_args) args.push_back(with_size(a, n));
    const fs::path profile_path = model.build.work_dir / absl::StrFormat("n%.0f.profile", n);
    std::cerr << absl::StrFormat("[commanalyzer] n = %.0f: running %s\n", n, absl::StrJoin(args, " "));
    set_activity(absl::StrFormat("running the instrumented program at n = %.0f", n));
    run_instrumented(program, args, profile_path, RunLimits{request.max_memory_bytes, request.record_iterations});
    set_activity(absl::StrFormat("estimating at n = %.0f", n));
    const EstimateResult result = run_estimate(load_recorded_profile(profile_path.string()), request);
    std::error_code ec;
    fs::remove(profile_path, ec);
    for (const CommEstimate& e : result.estimates) {
      for (std::size_t k = 0; k < kMetricCount; ++k) data[k].push_back({{n, static_cast<double>(e.procs)}, kMetrics[k].of(e)});
      if (n == sizes.front() && !request.portfolio.map) {
        request.portfolio.keep[e.procs] = e.distribution;
        std::cerr << absl::StrFormat("[commanalyzer] %d processes: %s at every size (kept at n = %.0f)\n", e.procs,
                                     e.distribution, n);
      }
    }
  }
  for (auto& metric : data) {  // by size, smallest first
    std::stable_sort(metric.begin(), metric.end(),
                     [](const Measurement& a, const Measurement& b) { return a.point[0] < b.point[0]; });
  }
  return data;
}

// One model per metric in (n, p) (with_p), or per metric and count in n;
// keyed by (metric, count or 0).
std::map<std::pair<std::size_t, int>, ScalingModel> fit_models(
    const std::array<std::vector<Measurement>, kMetricCount>& data, const std::vector<int>& procs, bool with_p) {
  std::map<std::pair<std::size_t, int>, ScalingModel> models;
  for (std::size_t k = 0; k < kMetricCount; ++k) {
    if (with_p) {
      models[{k, 0}] = fit_scaling_model(data[k], 2);
      continue;
    }
    for (int p : procs) {
      std::vector<Measurement> line;
      for (const Measurement& m : data[k]) {
        if (m.point[1] == p) line.push_back({{m.point[0]}, m.value});
      }
      if (line.empty()) throw UsageError(absl::StrCat("--procs ", p, ": more processes than any of --sizes has elements"));
      models[{k, p}] = fit_scaling_model(line, 1);
    }
  }
  return models;
}

}  // namespace

int model_command(ModelRequest model, const EstimateRequest& request) {
  // Every input checked before the build.
  if (model.build.sources.empty()) throw UsageError("model: give at least one C or C++ source file");
  const std::vector<double> sizes = parse_sizes("--sizes", model.sizes);
  if (sizes.size() < 3) {
    throw UsageError("--sizes: give at least 3 different sizes to fit a model to (e.g. --sizes 32,48,64,96)");
  }
  std::vector<double> predict = parse_sizes("--predict", model.predict);
  if (model.predict.empty()) predict = {2 * sizes.back(), 4 * sizes.back(), 8 * sizes.back()};
  if (predict.empty()) throw UsageError("--predict: give the sizes to predict, e.g. --predict 512,1024");
  if (std::none_of(model.program_args.begin(), model.program_args.end(),
                   [](const std::string& a) { return a.find(kSize) != std::string::npos; })) {
    throw UsageError("model: write {n} in the program's arguments where the size goes (e.g. -- {n} 10)");
  }
  for (const std::string& a : model.program_args) with_size(a, 1);  // malformed sizes, before the build
  if (!model.extrap.empty()) check_output_file("--extrap", model.extrap);
  for (const fs::path& source : model.build.sources) {
    if (!fs::is_regular_file(source)) throw RunError(absl::StrCat("source file '", source.string(), "' not found"));
  }

  const std::array<std::vector<Measurement>, kMetricCount> data = analyse_at_sizes(model, request, sizes);
  // p is a parameter of the model where it has as many values as a term
  // needs to be told from another (3, as n); with fewer counts, one model
  // in n per count.
  const bool with_p = request.procs.size() >= 3;
  const std::vector<std::string> params = with_p ? std::vector<std::string>{"n", "p"} : std::vector<std::string>{"n"};

  const std::map<std::pair<std::size_t, int>, ScalingModel> models = fit_models(data, request.procs, with_p);
  auto model_of = [&](std::size_t k, int p) -> const ScalingModel& { return models.at({k, with_p ? 0 : p}); };
  std::cout << absl::StrFormat(
      "\ncommunication per iteration in Extra-P's normal form (n: the size argument%s), fitted to n = %s and "
      "p = %s:\n",
      with_p ? ", p: processes" : "", absl::StrJoin(sizes, ", "), absl::StrJoin(request.procs, ", "));
  for (std::size_t k = 0; k < kMetricCount; ++k) {
    for (int p : with_p ? std::vector<int>{0} : request.procs) {
      const std::string name = p == 0 ? kMetrics[k].name : absl::StrFormat("%s (p = %d)", kMetrics[k].name, p);
      std::cout << absl::StrFormat("  %-24s = %s   (leave-one-out error %.2g %%)\n", name,
                                   model_of(k, p).formula(params), model_of(k, p).smape);
    }
  }
  auto row = [&](double n, int p, const std::array<double, kMetricCount>* analysed) {
    std::vector<double> x = {n};
    if (with_p) x.push_back(p);
    std::string line = absl::StrFormat("  %8.0f %6d", n, p);
    for (std::size_t k = 0; k < kMetricCount; ++k) {
      line += absl::StrFormat(" %14.6g", model_of(k, p)(x));
      if (analysed != nullptr) line += absl::StrFormat(" %14.6g", (*analysed)[k]);
    }
    std::cout << line << "\n";
  };
  std::cout << "\nanalysed, per iteration (model, analysis):\n"
            << absl::StrFormat("  %8s %6s %14s %14s %14s %14s %14s %14s\n", "n", "p", "bytes", "", "messages", "",
                               "collectives", "");
  for (std::size_t r = 0; r < data[0].size(); ++r) {
    std::array<double, kMetricCount> analysed{};
    for (std::size_t k = 0; k < kMetricCount; ++k) analysed[k] = data[k][r].value;
    row(data[0][r].point[0], static_cast<int>(data[0][r].point[1]), &analysed);
  }
  std::cout << "\npredicted, per iteration:\n"
            << absl::StrFormat("  %8s %6s %14s %14s %14s\n", "n", "p", "bytes", "messages", "collectives");
  for (double n : predict) {
    for (int p : request.procs) row(n, p, nullptr);
  }
  if (!model.extrap.empty()) {
    write_atomically(model.extrap, [&](std::ostream& out) { write_extrap(out, {"n", "p"}, data); });
    std::cout << "\nExtra-P input written to " << model.extrap.string() << "\n";
  }
  return 0;
}

}  // namespace commanalyzer::cli

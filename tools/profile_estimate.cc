#include "tools/profile_estimate.h"

#include <fstream>
#include <stdexcept>
#include <iostream>
#include <optional>
#include <utility>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "commanalyzer/distribution.h"
#include "commanalyzer/distribution_map.h"
#include "commanalyzer/estimate.h"
#include "commanalyzer/profile_io.h"
#include "tools/estimate_flags.h"
#include "tools/network_flags.h"

// Defined with the other flags in commanalyzer.cc.
ABSL_DECLARE_FLAG(std::string, procs);
ABSL_DECLARE_FLAG(std::string, ownership);
ABSL_DECLARE_FLAG(std::string, distribution);
ABSL_DECLARE_FLAG(std::string, partitioner);

namespace commanalyzer::cli {

int run_command(const std::function<int()>& body) {
  try {
    return body();
  } catch (const CommandError& e) {
    std::cerr << "commanalyzer: " << e.what() << "\n";
    return e.status;
  } catch (const ProfileError& e) {
    std::cerr << "commanalyzer: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "commanalyzer: error: " << e.what() << "\n";
    return 1;
  }
}

int single_procs(const std::string& command) {
  const std::string text = absl::GetFlag(FLAGS_procs);
  int n = 0;
  if (!absl::SimpleAtoi(text, &n) || n < 1 || n > 65536) {
    throw CommandError(absl::StrCat(command, ": --procs: give one process count between 1 and 65536, e.g. --procs 8 ",
                                    "(got '", text, "')"),
                       2);
  }
  return n;
}

namespace {

DistributionPortfolio portfolio_from_flags(std::size_t array_count, int procs) {
  const std::string d = absl::GetFlag(FLAGS_distribution);
  try {
    if (auto named = named_portfolio(d)) return *std::move(named);
  } catch (const std::invalid_argument& e) {
    throw CommandError(e.what(), 2);
  }
  std::ifstream in(d);
  if (!in) {
    throw CommandError(
        absl::StrCat("--distribution: '", d, "' is not ", kDistributionNames, " or a readable distribution file"), 2);
  }
  try {
    DistributionMap map = DistributionMap::parse(in, d);
    map.check(array_count, procs);
    return {false, false, false, std::move(map)};
  } catch (const DistributionError& e) {
    throw CommandError(absl::StrCat("--distribution: ", e.what()), 2);
  }
}

}  // namespace

ProfileEstimate estimate_profile(const std::string& path, int procs) {
  if (absl::GetFlag(FLAGS_ownership) != "location") {
    throw CommandError("--ownership: trace and benchgen estimate with ownership by location only", 2);
  }
  if (absl::GetFlag(FLAGS_partitioner) == "parmetis") {
    throw CommandError("--partitioner parmetis is for estimate (mpirun -np K commanalyzer estimate PROFILE ...)", 2);
  }
  if (const std::string error = network_flag_error(); !error.empty()) throw CommandError(error, 2);
  ProfileInfo info;
  const LoadedProfile profile = load_profile(path, &info);
  const DensityDistanceScorer scorer = scorer_from_flags();
  const LogicalVolumeCostModel cost = cost_model_from_flags();
  DistributionPortfolio portfolio = portfolio_from_flags(profile.arrays.size(), procs);
  Estimator<LoadedProfile, DensityDistanceScorer, DistributionPortfolio> estimator(profile, scorer,
                                                                                 std::move(portfolio), cost);
  return {estimator.estimate(procs), info.metadata};
}

void write_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& body) {
  const std::filesystem::path tmp = path.string() + ".partial";
  try {
    std::ofstream out(tmp);
    if (!out) throw CommandError(absl::StrCat("cannot write ", tmp.string()), 1);
    body(out);
    out.flush();
    if (!out) throw CommandError(absl::StrCat("error while writing ", tmp.string()), 1);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw;
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace commanalyzer::cli

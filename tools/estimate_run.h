// The one estimate every subcommand asks for: a profile and an
// EstimateRequest in, the estimates for the requested process counts out.
// analyze, estimate and demo format them as a table and files; trace,
// benchgen and place take the one count they asked for.
//
//   const EstimateRequest request = request_from_flags(...);
//   const LoadedProfile profile = load_recorded_profile(path, &info);
//   const EstimateResult result = run_estimate(profile, request);
//   print_table(std::cout, result.summary, result.estimates);
//
// It runs in this process under --max-memory (past it: LimitError naming
// what the estimate was doing) and logs its progress on stderr. A count
// larger than the elements the profile has to distribute is left out with
// a warning (UsageError when every count is).
#ifndef COMMANALYZER_TOOLS_ESTIMATE_RUN_H_
#define COMMANALYZER_TOOLS_ESTIMATE_RUN_H_

#include <string>
#include <vector>

#include "commanalyzer/record/profile_io.h"
#include "commanalyzer/report/report.h"
#include "tools/estimate_request.h"

namespace commanalyzer::cli {

struct EstimateResult {
  GraphSummary summary;
  std::vector<CommEstimate> estimates;  // one per count of request.procs that fits, in its order
  std::string graphviz;                 // the value graph as dot: with_graph and at most 100,000 edges
};

// A saved profile (profile_io.h's load_profile) with something to
// estimate: RunError where the program marks a region of interest
// (CA_REGION_BEGIN) that its run never reached, so nothing was recorded:
// a zero from it would be no estimate.
LoadedProfile load_recorded_profile(const std::string& path, ProfileInfo* info = nullptr);

// Defined for the two profiles the tool has: LoadedProfile (profile_io.h,
// a saved profile) and Analyzer<>::ProfileType (the built-in demo).
template <class ProfileT>
EstimateResult run_estimate(const ProfileT& profile, const EstimateRequest& request, bool with_graph = false);

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_ESTIMATE_RUN_H_

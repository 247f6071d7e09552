// What `trace` and `benchgen` share: one estimate from a saved profile for
// one process count, honouring the ownership, cost-model and time-model
// flags of `estimate`, and their error conventions.
//
//   return run_command([&] {
//     const int procs = single_procs("trace");
//     const ProfileEstimate e = estimate_profile(path, procs);   // e.estimate.trace ...
//     write_atomically(csv, [&](std::ostream& o) { ... });
//     return 0;
//   });
#ifndef COMMANALYZER_TOOLS_PROFILE_ESTIMATE_H_
#define COMMANALYZER_TOOLS_PROFILE_ESTIMATE_H_

#include <filesystem>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>

#include "commanalyzer/cost_model.h"

namespace commanalyzer::cli {

// A failure to report as "commanalyzer: WHAT" with exit status `status`
// (2: bad input or usage, 1: the run failed).
class CommandError : public std::runtime_error {
 public:
  CommandError(const std::string& what, int status) : std::runtime_error(what), status(status) {}
  int status;
};

// Runs a subcommand's body and turns its exceptions into messages and exit
// statuses (CommandError's own; a profile that cannot be read: 1).
int run_command(const std::function<int()>& body);

// The one process count --procs must name (status 2 otherwise).
int single_procs(const std::string& command);

struct ProfileEstimate {
  CommEstimate estimate;
  std::string metadata;  // the profile's, e.g. the program and its arguments
};

// Loads PROFILE and estimates it for `procs` processes, ownership by
// location (--distribution, the cost-model flags, --latency, --bandwidth).
ProfileEstimate estimate_profile(const std::string& path, int procs);

// Writes through PATH.partial and a rename: a failed run leaves no file
// that looks complete.
void write_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& body);

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_PROFILE_ESTIMATE_H_

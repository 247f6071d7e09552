// --latency and --bandwidth: the Hockney time model (time_model.h) every
// subcommand prices its messages with.
#ifndef COMMANALYZER_TOOLS_NETWORK_FLAGS_H_
#define COMMANALYZER_TOOLS_NETWORK_FLAGS_H_

#include <string>

#include "absl/flags/declare.h"
#include "commanalyzer/time_model.h"

ABSL_DECLARE_FLAG(double, latency);
ABSL_DECLARE_FLAG(double, bandwidth);

namespace commanalyzer::cli {

// What is wrong with --latency or --bandwidth, naming the flag; empty when
// both are usable.
std::string network_flag_error();

HockneyModel network_from_flags();

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_NETWORK_FLAGS_H_

// --latency and --bandwidth: the Hockney time model (time_model.h) every
// subcommand prices its messages with; --compute_ns: the computation per
// value instance that, with them, gives a distribution's predicted time.
#ifndef COMMANALYZER_TOOLS_NETWORK_FLAGS_H_
#define COMMANALYZER_TOOLS_NETWORK_FLAGS_H_

#include <string>

#include "absl/flags/declare.h"
#include "commanalyzer/time_model.h"

ABSL_DECLARE_FLAG(double, latency);
ABSL_DECLARE_FLAG(double, bandwidth);
ABSL_DECLARE_FLAG(double, compute_ns);

namespace commanalyzer::cli {

// What is wrong with --latency, --bandwidth or --compute_ns, naming the
// flag; empty when all are usable.
std::string network_flag_error();

HockneyModel network_from_flags();
double seconds_per_value_from_flags();

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_NETWORK_FLAGS_H_

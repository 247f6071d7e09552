#include "tools/network_flags.h"

#include <cmath>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"

// Defaults: an InfiniBand-class cluster network.
ABSL_FLAG(double, latency, 1.0, "time model: latency per message in microseconds (default 1 us)");
ABSL_FLAG(double, bandwidth, 10.0, "time model: bandwidth in GB/s, 1 GB = 1e9 bytes (default 10 GB/s)");

namespace commanalyzer::cli {

std::string network_flag_error() {
  const double latency = absl::GetFlag(FLAGS_latency), bandwidth = absl::GetFlag(FLAGS_bandwidth);
  if (!std::isfinite(latency) || latency < 0) {
    return absl::StrCat("--latency: ", latency, " is not a latency in microseconds (>= 0)");
  }
  if (!std::isfinite(bandwidth) || bandwidth <= 0) {
    return absl::StrCat("--bandwidth: ", bandwidth, " is not a bandwidth in GB/s (> 0)");
  }
  return "";
}

HockneyModel network_from_flags() {
  return {absl::GetFlag(FLAGS_latency) * 1e-6, 1.0 / (absl::GetFlag(FLAGS_bandwidth) * 1e9)};
}

}  // namespace commanalyzer::cli

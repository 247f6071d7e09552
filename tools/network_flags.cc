#include "tools/network_flags.h"

#include <cmath>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"

// Defaults: an InfiniBand-class cluster network.
ABSL_FLAG(double, latency, 1.0, "time model: latency per message in microseconds (default 1 us)");
ABSL_FLAG(double, bandwidth, 10.0, "time model: bandwidth in GB/s, 1 GB = 1e9 bytes (default 10 GB/s)");
// A value instance is one computed result stored to memory: in memory-bound
// loops a core of a cluster node stores about one a nanosecond.
ABSL_FLAG(double, compute_ns, 1.0,
          "time model: nanoseconds of computation per value instance (default 1); the distribution kept is the "
          "one whose computation and exchanges are predicted to take least time");

ABSL_FLAG(double, ghost_memory, 1.0,
          "cost model: a process keeps values it received for later iterations while they take fewer locations "
          "of an array than this times its own part of it; beyond, it receives them again in each iteration "
          "(default 1: ghosts smaller than the part owned; inf: keep everything received)");

namespace commanalyzer::cli {

std::string network_flag_error() {
  const double latency = absl::GetFlag(FLAGS_latency), bandwidth = absl::GetFlag(FLAGS_bandwidth);
  if (!std::isfinite(latency) || latency < 0) {
    return absl::StrCat("--latency: ", latency, " is not a latency in microseconds (>= 0)");
  }
  if (!std::isfinite(bandwidth) || bandwidth <= 0) {
    return absl::StrCat("--bandwidth: ", bandwidth, " is not a bandwidth in GB/s (> 0)");
  }
  if (const double ns = absl::GetFlag(FLAGS_compute_ns); !std::isfinite(ns) || ns < 0) {
    return absl::StrCat("--compute_ns: ", ns, " is not a time in nanoseconds (>= 0)");
  }
  if (const double ghosts = absl::GetFlag(FLAGS_ghost_memory); !(ghosts >= 0)) {
    return absl::StrCat("--ghost_memory: ", ghosts, " is not a share of the memory a process owns (>= 0, inf)");
  }
  return "";
}

double seconds_per_value_from_flags() { return absl::GetFlag(FLAGS_compute_ns) * 1e-9; }

HockneyModel network_from_flags() {
  return {absl::GetFlag(FLAGS_latency) * 1e-6, 1.0 / (absl::GetFlag(FLAGS_bandwidth) * 1e9)};
}

}  // namespace commanalyzer::cli

#include "tools/benchgen_command.h"

#include <cstdint>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>

#include "absl/strings/str_cat.h"
#include "commanalyzer/act/benchgen.h"
#include "commanalyzer/record/profile_io.h"
#include "tools/cli_errors.h"
#include "tools/estimate_run.h"
#include "tools/output_files.h"

namespace commanalyzer::cli {

int benchgen_command(const std::vector<char*>& positional, const EstimateRequest& request,
                     const std::filesystem::path& dir) {
  const std::string profile_path = profile_argument(positional, "benchgen");
  if (dir.empty()) throw UsageError("benchgen: give --out DIR for bench.c and bench.h");
  check_output_folder("--out", dir);
  const LoadedProfile profile = load_recorded_profile(profile_path);
  const CommEstimate e = run_estimate(profile, request).estimates.front();
  // Each iteration busy-waits its busiest process's computation (none
  // with --compute_ns 0).
  BenchmarkOptions options{profile_path, {}};
  if (const double seconds_per_value = request.cost.seconds_per_value; seconds_per_value > 0) {
    for (std::uint64_t values : e.phase_work) {
      options.compute_seconds.push_back(seconds_per_value * static_cast<double>(values));
    }
  }
  GeneratedBenchmark bench;
  try {
    bench = generate_benchmark(e.trace, options);
  } catch (const std::invalid_argument& error) {  // a message too large for an MPI count
    throw RunError(absl::StrCat("benchgen: ", error.what()));
  }
  write_atomically(dir / "bench.h", [&](std::ostream& o) { o << bench.header; });
  write_atomically(dir / "bench.c", [&](std::ostream& o) { o << bench.source; });
  std::cout << "wrote " << (dir / "bench.c").string() << " and bench.h: " << request.procs.front() << " processes, "
            << e.iterations << " iterations, " << e.trace.messages.size() << " point-to-point messages ("
            << e.p2p_bytes << " bytes), " << e.trace.collectives.size() << " collective calls ("
            << e.collective_bytes() << " bytes, logical volume)\n"
            << "build and run: mpicc " << (dir / "bench.c").string() << " -I" << dir.string()
            << " -o bench && mpirun -np " << request.procs.front() << " ./bench\n";
  return 0;
}

}  // namespace commanalyzer::cli

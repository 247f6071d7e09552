#include "tools/benchgen_command.h"

#include <cstdint>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "commanalyzer/benchgen.h"
#include "tools/network_flags.h"
#include "tools/profile_estimate.h"

ABSL_DECLARE_FLAG(std::string, out);  // commanalyzer.cc

namespace commanalyzer::cli {

int benchgen_command(const std::vector<char*>& positional) {
  return run_command([&] {
    if (positional.size() != 2) throw CommandError("benchgen: give exactly one profile file", 2);
    const int procs = single_procs("benchgen");
    const std::filesystem::path dir = absl::GetFlag(FLAGS_out);
    if (dir.empty()) throw CommandError("benchgen: give --out DIR for bench.c and bench.h", 2);
    if (std::filesystem::exists(dir) && !std::filesystem::is_directory(dir)) {
      throw CommandError(absl::StrCat("benchgen: --out: '", dir.string(), "' exists and is not a directory"), 2);
    }
    // The time model's computation (network_flags.h checked the value).
    const double seconds_per_value = seconds_per_value_from_flags();
    const ProfileEstimate run = estimate_profile(positional[1], procs);
    BenchmarkOptions options{positional[1], {}};
    if (seconds_per_value > 0) {
      for (std::uint64_t values : run.estimate.phase_work) {
        options.compute_seconds.push_back(seconds_per_value * static_cast<double>(values));
      }
    }
    GeneratedBenchmark bench;
    try {
      bench = generate_benchmark(run.estimate.trace, options);
    } catch (const std::invalid_argument& e) {
      throw CommandError(absl::StrCat("benchgen: ", e.what()), 1);
    }
    std::filesystem::create_directories(dir);
    write_atomically(dir / "bench.h", [&](std::ostream& o) { o << bench.header; });
    write_atomically(dir / "bench.c", [&](std::ostream& o) { o << bench.source; });
    const CommEstimate& e = run.estimate;
    std::cout << "wrote " << (dir / "bench.c").string() << " and bench.h: " << procs << " processes, "
              << e.iterations << " iterations, " << e.trace.messages.size() << " point-to-point messages ("
              << e.p2p_bytes << " bytes), " << e.trace.collectives.size() << " collective calls ("
              << e.collective_bytes() << " bytes, logical volume)\n"
              << "build and run: mpicc " << (dir / "bench.c").string() << " -I" << dir.string()
              << " -o bench && mpirun -np " << procs << " ./bench\n";
    return 0;
  });
}

}  // namespace commanalyzer::cli

// Compiling a user's sources with the CommAnalyzer pass and running the
// instrumented program: the front half of `commanalyzer analyze`.
#ifndef COMMANALYZER_TOOLS_INSTRUMENTED_BUILD_H_
#define COMMANALYZER_TOOLS_INSTRUMENTED_BUILD_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tools/cli_errors.h"

namespace commanalyzer::cli {

// Where the pass plugin, runtime archive and annotate.h are: next to the
// tool in its Bazel runfiles, or under $COMMANALYZER_HOME.
struct Toolchain {
  std::filesystem::path plugin;
  std::filesystem::path runtime;
  std::filesystem::path runtime_queries;  // the test queries, linked only where called
  std::filesystem::path include_dir;  // holds commanalyzer/annotate.h
  std::string cc = "clang-16";
  std::string cxx = "clang++-16";

  static Toolchain locate();
};

// tools/zoltan_phg next to the tool (the hypergraph distribution
// candidate), or an empty path when it is not there.
std::filesystem::path find_hypergraph_partitioner();

// tools/commanalyzer_mpi next to the tool (--partitioner parmetis re-executes
// as it); throws RunError when it is not there.
std::filesystem::path find_mpi_tool();

struct BuildRequest {
  std::vector<std::filesystem::path> sources;
  std::vector<std::string> compile_flags;  // -I -D -U -O -std= -f -W -m -g
  std::vector<std::string> link_flags;     // -l -L
  std::filesystem::path work_dir;
};

// Compiles and links; clang's diagnostics go to stderr as they are.
// Returns the instrumented executable. Throws UnsupportedError when no
// source defines main().
std::filesystem::path build_instrumented(const Toolchain& toolchain, const BuildRequest& request);

struct RunLimits {
  std::uint64_t max_memory_bytes = 0;  // 0: none
  std::size_t record_iterations = 0;   // the region's first ones costed (0: all; one more is recorded)
};

// Runs the program with its arguments; its stdout/stderr pass through.
// Writes the profile to `profile`; throws RunError if the program crashes,
// exits non-zero or leaves no profile, UnsupportedError if the runtime
// refused it (threads), LimitError past a limit. Progress goes to stderr
// on long runs; the runtime's warnings (fork) after the run. Returns the
// program's peak resident set in bytes (what its analysis state needs).
//
// Stop signals and --timeout reach every process the tool started through
// its supervisor (supervisor.h).
std::uint64_t run_instrumented(const std::filesystem::path& program, const std::vector<std::string>& args,
                               const std::filesystem::path& profile, const RunLimits& limits = {});

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_INSTRUMENTED_BUILD_H_

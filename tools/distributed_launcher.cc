// distributed_partitioning.h in the `commanalyzer` binary, which has no
// MPI: --partitioner parmetis re-executes the tool as commanalyzer_mpi.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "absl/strings/str_cat.h"
#include "tools/distributed_partitioning.h"
#include "tools/instrumented_build.h"

namespace commanalyzer::cli {

void join_distributed_partitioning(char** argv) {
  std::filesystem::path mpi_tool;
  try {
    mpi_tool = find_mpi_tool();
  } catch (const RunError& e) {
    throw RunError(absl::StrCat("--partitioner parmetis runs tools/commanalyzer_mpi: ", e.what()));
  }
  execv(mpi_tool.c_str(), argv);
  throw RunError(absl::StrCat("--partitioner parmetis: cannot run ", mpi_tool.string(), ": ", std::strerror(errno)));
}

std::function<std::vector<ProcId>(const LocationIndex&, int)> distributed_partitioner() {
  throw std::logic_error("distributed_partitioner: commanalyzer re-executes as commanalyzer_mpi first");
}

std::string distributed_partitioner_description() { return "none (not joined)"; }

void leave_distributed_partitioning() {}

}  // namespace commanalyzer::cli

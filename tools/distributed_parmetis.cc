// distributed_partitioning.h in `commanalyzer_mpi`: joins the MPI job and
// partitions the location graph with ParMETIS's API (PT-Scotch) over all
// of its ranks.
#include <mpi.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "absl/strings/str_cat.h"
#include "commanalyzer/estimate/parmetis_partitioner.h"
#include "tools/distributed_partitioning.h"
#include "tools/instrumented_build.h"

namespace commanalyzer::cli {
namespace {

bool& joined() {
  static bool value = false;
  return value;
}

int world_size() {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  return ranks;
}

}  // namespace

void join_distributed_partitioning(char**) {
  if (joined()) return;
  // Scotch's threaded algorithms give a different partition from run to
  // run; one thread per rank makes the estimate repeatable, and MPI ranks
  // are the parallelism here. A user's own setting is kept.
  setenv("SCOTCH_PTHREAD_NUMBER", "1", /*overwrite=*/0);
  int provided = MPI_THREAD_SINGLE;
  // Rank 0 estimates several process counts on several threads; the
  // partitioner serializes its MPI calls.
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
    throw RunError("--partitioner parmetis: MPI_Init failed");
  }
  joined() = true;
  if (provided < MPI_THREAD_SERIALIZED) {
    throw RunError("--partitioner parmetis: this MPI does not allow calls from several threads (MPI_THREAD_SERIALIZED)");
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) return;
  int status = 0;
  try {
    serve_partition_requests(MPI_COMM_WORLD);
  } catch (const std::exception& e) {
    std::cerr << "commanalyzer (MPI rank " << rank << "): " << e.what() << "\n";
    status = 1;
  }
  MPI_Finalize();
  std::exit(status);
}

std::function<std::vector<ProcId>(const LocationIndex&, int)> distributed_partitioner() {
  if (!joined()) throw std::logic_error("distributed_partitioner: join_distributed_partitioning first");
  return [](const LocationIndex& index, int procs) { return ParmetisPartitioner{MPI_COMM_WORLD}.partition(index, procs); };
}

std::string distributed_partitioner_description() {
  const int ranks = world_size();
  return absl::StrCat("parmetis (ParMETIS API, provided by PT-Scotch, on ", ranks, " MPI rank", ranks == 1 ? "" : "s", ")");
}

void leave_distributed_partitioning() {
  if (!joined()) return;
  joined() = false;
  try {
    ParmetisPartitioner{MPI_COMM_WORLD}.stop();
  } catch (const std::exception&) {
    MPI_Abort(MPI_COMM_WORLD, 1);  // the other ranks would wait for ever
  }
  MPI_Finalize();
}

}  // namespace commanalyzer::cli

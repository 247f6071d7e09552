// How `--partitioner parmetis` runs. The `commanalyzer` binary has no MPI
// (MPI_Init aborts the process where MPI cannot start): it re-executes
// itself as tools/commanalyzer_mpi with the same arguments, which joins the
// MPI job mpirun started (the environment is inherited through exec). There
// rank 0 estimates as usual, partitioning with ParMETIS's API over all the
// ranks; the other ranks hold only their share of the location graph while
// partitioning, and print nothing.
//
// Two implementations, one per binary: distributed_launcher.cc (exec) and
// distributed_parmetis.cc (MPI).
#ifndef COMMANALYZER_TOOLS_DISTRIBUTED_PARTITIONING_H_
#define COMMANALYZER_TOOLS_DISTRIBUTED_PARTITIONING_H_

#include <functional>
#include <string>
#include <vector>

#include "commanalyzer/estimate/locations.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer::cli {

// Called once the flags are checked, before the profile is read.
// commanalyzer: execs tools/commanalyzer_mpi with `argv`; returns only by
// throwing RunError. commanalyzer_mpi: MPI_Init; ranks other than 0 serve
// rank 0's partition requests and then end the process with status 0.
void join_distributed_partitioning(char** argv);

// Rank 0, after joining: the partitioner of the location graph over every
// rank, and how to name it in the log.
std::function<std::vector<ProcId>(const LocationIndex&, int)> distributed_partitioner();
std::string distributed_partitioner_description();

// Releases the other ranks and finalizes MPI; does nothing when not joined.
// Called as the tool exits, whatever its status.
void leave_distributed_partitioning();

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_DISTRIBUTED_PARTITIONING_H_

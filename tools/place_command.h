// `commanalyzer place PROFILE --procs P --nodes K --cores-per-node C
//  [--rankfile FILE] [--hosts a,b,...]`: estimates the P x P matrix from a
// saved profile as `estimate` does, places the processes on the nodes
// (graph_placement.h), compares with by-rank, round-robin and random
// placement, and writes an Open MPI rankfile.
#ifndef COMMANALYZER_TOOLS_PLACE_COMMAND_H_
#define COMMANALYZER_TOOLS_PLACE_COMMAND_H_

namespace commanalyzer::cli {

// argv[1] is "place". Returns the exit status: 0, or 2 for bad input
// (flags, a missing or damaged profile; the error on stderr, no rankfile
// written).
int place_command(int argc, char** argv);

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_PLACE_COMMAND_H_

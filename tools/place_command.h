// `commanalyzer place PROFILE --procs P --nodes K --cores-per-node C
//  [--rankfile FILE] [--hosts a,b,...]`: estimates the P x P matrix from a
// saved profile as `estimate` does, places the processes on the nodes
// (graph_placement.h), compares with by-rank, round-robin and random
// placement, and writes an Open MPI rankfile.
#ifndef COMMANALYZER_TOOLS_PLACE_COMMAND_H_
#define COMMANALYZER_TOOLS_PLACE_COMMAND_H_

#include <vector>

#include "tools/estimate_request.h"

namespace commanalyzer::cli {

// positional: the subcommand's arguments after flag parsing, [0] = program;
// `request` asks for one process count. The nodes, hosts and rankfile
// flags are checked before the profile is read; failures throw
// (cli_errors.h), and no rankfile is written then.
int place_command(const std::vector<char*>& positional, const EstimateRequest& request);

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_PLACE_COMMAND_H_

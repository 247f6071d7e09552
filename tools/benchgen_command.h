// commanalyzer benchgen PROFILE --procs P --out DIR [--compute_ns T]:
// DIR/bench.c and DIR/bench.h, an MPI program that performs the predicted
// communication for P processes (include/commanalyzer/act/benchgen.h).
#ifndef COMMANALYZER_TOOLS_BENCHGEN_COMMAND_H_
#define COMMANALYZER_TOOLS_BENCHGEN_COMMAND_H_

#include <filesystem>
#include <vector>

#include "tools/estimate_request.h"

namespace commanalyzer::cli {

// positional: the subcommand's arguments after flag parsing, [0] = program;
// `request` asks for one process count; `dir`: --out.
int benchgen_command(const std::vector<char*>& positional, const EstimateRequest& request,
                     const std::filesystem::path& dir);

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_BENCHGEN_COMMAND_H_

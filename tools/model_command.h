// `commanalyzer model`: the communication per iteration as a function of
// the problem size n and the process count p. The program is built once,
// analysed at each size (its arguments carry the size where they say
// {n}), and bytes, messages and collective calls per iteration are fitted
// in Extra-P's normal form (scaling_model.h); the formulas, the fit beside
// every analysis, and predictions at larger sizes are printed.
//
//   commanalyzer model heat2d.c --sizes 32,48,64,96 --procs 4,16,64 -- {n} 10
#ifndef COMMANALYZER_TOOLS_MODEL_COMMAND_H_
#define COMMANALYZER_TOOLS_MODEL_COMMAND_H_

#include <filesystem>
#include <string>
#include <vector>

#include "tools/estimate_request.h"
#include "tools/instrumented_build.h"

namespace commanalyzer::cli {

struct ModelRequest {
  BuildRequest build;                     // sources and compiler flags; work_dir is chosen here
  std::vector<std::string> program_args;  // with {n} where the size goes
  std::string sizes;                      // --sizes: at least 3, e.g. "32,48,64,96"
  std::string predict;                    // --predict; empty: 2, 4 and 8 times the largest size
  std::filesystem::path extrap;           // --extrap: also write the analyses in Extra-P's input format
};

// Checks the request (UsageError naming the flag), then runs it. Returns
// the exit status.
int model_command(ModelRequest model, const EstimateRequest& request);

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_MODEL_COMMAND_H_

// commanalyzer compare ESTIMATE.json MEASURED... [--tolerance PERCENT]
//                      [--json FILE]
// The estimate (analyze's or estimate's --json) beside measured MPI runs
// of the same program, one file per process count: the PMPI counter's JSON
// (examples/measure/pmpi_counter.c) or mpiP's report. Prints, per process
// count, the totals and the accuracy (as docs/VALIDATION.md computes it),
// then per process, per pair and per iteration what the measurement has,
// marking large differences (include/commanalyzer/report/comparison.h). Every
// input is read and checked before anything is printed: a missing file, a
// file of another format or a process count the estimate does not have is
// a UsageError (exit 2).
#ifndef COMMANALYZER_TOOLS_COMPARE_COMMAND_H_
#define COMMANALYZER_TOOLS_COMPARE_COMMAND_H_

#include <string>
#include <vector>

namespace commanalyzer::cli {

// positional: the subcommand's arguments after flag parsing, [0] = the
// program; `json`: --json, or empty.
int compare_command(const std::vector<char*>& positional, const std::string& json);

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_COMPARE_COMMAND_H_

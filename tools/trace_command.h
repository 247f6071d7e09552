// commanalyzer trace PROFILE --procs P [--csv FILE]: every predicted
// message for P processes, from a saved profile (no re-run).
#ifndef COMMANALYZER_TOOLS_TRACE_COMMAND_H_
#define COMMANALYZER_TOOLS_TRACE_COMMAND_H_

#include <ostream>
#include <vector>

#include "commanalyzer/estimate/messages.h"
#include "tools/estimate_request.h"

namespace commanalyzer::cli {

// positional: the subcommand's arguments after flag parsing, [0] = program;
// `request` asks for one process count.
int trace_command(const std::vector<char*>& positional, const EstimateRequest& request);

// iteration,src,dst,bytes,kind,site — one row per point-to-point message
// (kind p2p; site: the file:line consuming most of its bytes) and per
// collective call (kind bcast: src = root; allreduce: src = -1; dst = -1,
// bytes = one rank's block; no site), by iteration.
void write_trace_csv(std::ostream& out, const MessageTrace& trace);

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_TRACE_COMMAND_H_

// What analyze, estimate and demo show of an estimate: the profile's facts,
// the table for every process count, and the files --json, --html and --out
// ask for (JSON; an HTML page; CSV matrices, SVG heatmaps and owner maps,
// estimate.json, index.html, the value graph as dot).
//
//   check_report_outputs(outputs);   // before any work
//   ...
//   print_run_facts(profile, info);
//   write_report(run_estimate(profile, request, outputs.wants_graph()), outputs);
#ifndef COMMANALYZER_TOOLS_REPORT_COMMAND_H_
#define COMMANALYZER_TOOLS_REPORT_COMMAND_H_

#include <string>

#include "commanalyzer/record/profile_io.h"
#include "tools/estimate_run.h"

namespace commanalyzer::cli {

struct ReportOutputs {
  std::string json;  // --json FILE, or empty
  std::string html;  // --html FILE, or empty
  std::string out;   // --out DIR, or empty
  bool wants_graph() const { return !out.empty(); }
};

// --json, --html and --out can be written (the folder is created), and
// --json and --html name different files; checked before any work so that
// a long run does not fail at its last step. Throws UsageError.
void check_report_outputs(const ReportOutputs& outputs);

// "profile: ...; N iterations marked" and the arrays, numbered as a
// --distribution map names them.
void print_run_facts(const LoadedProfile& profile, const ProfileInfo& info);

// The table on stdout, then the files asked for.
void write_report(const EstimateResult& result, const ReportOutputs& outputs);

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_REPORT_COMMAND_H_

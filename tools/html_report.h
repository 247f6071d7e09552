// The estimate as one self-contained HTML page, for --html FILE and
// index.html under --out: the JSON document --json writes (report.h,
// write_json) embedded as one object, and html_report.js, which renders it
// with Chart.js (Debian's libjs-chart.js); both scripts are inline, so the
// page opens anywhere, without a network.
//
//   std::ostringstream json;
//   write_json(json, summary, estimates);
//   write_atomically(path, [&](std::ostream& o) { write_html_report(o, json.view()); });
//
// The page shows the table per process count, bytes and predicted time
// against the count, and for each count the pair matrices as heatmaps,
// bytes per rank and their imbalance, message sizes, bytes and time per
// iteration, "where" per source site, owner maps and every candidate
// distribution.
#ifndef COMMANALYZER_TOOLS_HTML_REPORT_H_
#define COMMANALYZER_TOOLS_HTML_REPORT_H_

#include <ostream>
#include <string_view>

namespace commanalyzer::cli {

// `json`: a document write_json wrote.
void write_html_report(std::ostream& out, std::string_view json);

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_HTML_REPORT_H_

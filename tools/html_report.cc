#include "tools/html_report.h"

#include <sstream>
#include <string>

#include "tools/html_report_assets.h"

namespace commanalyzer::cli {

namespace {

// JSON inside a <script> element: '<' can only stand inside a JSON string,
// where \u003c is the same character, and without it no "</script>" or
// "<!--" in a file name can end or change the element.
std::string script_safe(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

void write_html_report(std::ostream& out, const GraphSummary& graph, const std::vector<CommEstimate>& estimates) {
  std::ostringstream json;
  write_json(json, graph, estimates);
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"generator\" content=\"commanalyzer\">\n"
      << "<title>CommAnalyzer: predicted MPI communication</title>\n<style>\n"
      << kHtmlReportCss << "</style>\n</head>\n<body>\n"
      << "<h1>CommAnalyzer: predicted MPI communication</h1>\n"
      << "<div id=\"report\"><noscript>The report is drawn by JavaScript; its numbers are in the JSON "
         "document inside this page.</noscript></div>\n"
      << "<script type=\"application/json\" id=\"estimate\">\n"
      << script_safe(json.str()) << "</script>\n"
      << "<script>\n" << kHtmlReportErrorsJs << "</script>\n"
      << "<script>\n" << kChartJs << "\n</script>\n"
      << "<script>\n" << kHtmlReportJs << "</script>\n"
      << "</body>\n</html>\n";
}

}  // namespace commanalyzer::cli

#include "tools/html_report.h"

#include "absl/strings/str_replace.h"
#include "tools/html_report_assets.h"

namespace commanalyzer::cli {

void write_html_report(std::ostream& out, std::string_view json) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"generator\" content=\"commanalyzer\">\n"
      << "<title>CommAnalyzer: predicted MPI communication</title>\n<style>\n"
      << kHtmlReportCss << "</style>\n</head>\n<body>\n"
      << "<h1>CommAnalyzer: predicted MPI communication</h1>\n"
      << "<div id=\"report\"><noscript>The report is drawn by JavaScript; its numbers are in the JSON "
         "document inside this page.</noscript></div>\n"
      << "<script type=\"application/json\" id=\"estimate\">\n"
      // '<' only stands inside JSON strings, where \u003c is the same
      // character; without it no "</script>" or "<!--" in a file name can
      // end or change the element.
      << absl::StrReplaceAll(absl::string_view(json.data(), json.size()), {{"<", "\\u003c"}}) << "</script>\n"
      << "<script>\n" << kHtmlReportErrorsJs << "</script>\n"
      << "<script>\n" << kChartJs << "\n</script>\n"
      << "<script>\n" << kHtmlReportJs << "</script>\n"
      << "</body>\n</html>\n";
}

}  // namespace commanalyzer::cli

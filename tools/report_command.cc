#include "tools/report_command.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/cli_errors.h"
#include "tools/html_report.h"
#include "tools/output_files.h"

namespace commanalyzer::cli {

void check_report_outputs(const ReportOutputs& outputs) {
  if (!outputs.json.empty()) check_output_file("--json", outputs.json);
  if (!outputs.html.empty()) check_output_file("--html", outputs.html);
  auto resolved = [](const std::string& path) {
    std::error_code ec;
    const std::filesystem::path full = std::filesystem::weakly_canonical(path, ec);
    return ec ? std::filesystem::path(path) : full;
  };
  if (!outputs.json.empty() && !outputs.html.empty() && resolved(outputs.json) == resolved(outputs.html)) {
    throw UsageError(absl::StrCat("--html: '", outputs.html, "' is the --json file too; give each its own"));
  }
  if (!outputs.out.empty()) check_output_folder("--out", outputs.out);
}

void print_run_facts(const LoadedProfile& profile, const ProfileInfo& info) {
  std::cout << absl::StrFormat("profile: %s; %d iteration%s marked\n", info.metadata, profile.iterations(),
                               profile.iterations() == 1 ? "" : "s");
  // Arrays are named by these numbers (or their variables) in a
  // --distribution file: the program's arrays in allocation order, a
  // library's own buffers (stdout's) left out (Profile::array_numbers).
  const std::vector<std::uint32_t> number = profile.array_numbers();
  std::vector<std::size_t> listed;
  std::size_t rows = 0;
  for (std::size_t k = 0; k < profile.arrays.size(); ++k) {
    if (number[k] == 0) continue;
    // A row of a table of rows holds no bytes of its own: its table's
    // first row's array holds them (record/row_tables.h).
    (profile.arrays[k].bytes != 0 ? listed.push_back(k) : void(++rows));
  }
  if (listed.empty() && rows == 0) return;
  std::cout << "arrays (allocation order):";
  constexpr std::size_t kShown = 12;
  for (std::size_t i = 0; i < std::min(kShown, listed.size()); ++i) {
    const std::size_t k = listed[i];
    const std::string name = profile.array_label(static_cast<std::uint32_t>(k + 1));
    std::cout << " #" << number[k] << (name.empty() ? "" : " ") << name << " " << profile.arrays[k].bytes << " B"
              << (profile.arrays[k].row_table ? " (table of rows)" : "")
              << (profile.arrays[k].indexed_indirectly ? " (indexed indirectly)" : "")
              << (i + 1 < listed.size() ? "," : "");
  }
  if (listed.size() > kShown) std::cout << " ... (" << listed.size() << " in all)";
  if (rows != 0) std::cout << "; " << rows << " more: rows of tables of rows, each part of its table's first row's array";
  std::cout << "\n";
}

void write_report(const EstimateResult& result, const ReportOutputs& outputs) {
  const GraphSummary& summary = result.summary;
  const std::vector<CommEstimate>& estimates = result.estimates;
  print_table(std::cout, summary, estimates);
  // One JSON document for every file: the pages show exactly its numbers.
  std::ostringstream json;
  if (!outputs.json.empty() || !outputs.html.empty() || !outputs.out.empty()) write_json(json, summary, estimates);
  if (!outputs.json.empty()) {
    write_atomically(outputs.json, [&](std::ostream& o) { o << json.view(); });
    std::cout << "\nwrote " << outputs.json << "\n";
  }
  if (!outputs.html.empty()) {
    write_atomically(outputs.html, [&](std::ostream& o) { write_html_report(o, json.view()); });
    std::cout << "\nwrote " << outputs.html << "\n";
  }
  if (outputs.out.empty()) return;
  const std::filesystem::path dir(outputs.out);
  std::filesystem::create_directories(dir);
  for (const CommEstimate& e : estimates) {
    write_atomically(dir / absl::StrCat("matrix_", e.procs, ".csv"), [&](std::ostream& o) { write_matrix_csv(o, e); });
    write_atomically(dir / absl::StrCat("matrix_", e.procs, ".svg"), [&](std::ostream& o) {
      write_matrix_svg(o, e, absl::StrCat("point-to-point bytes, ", e.procs, " processes"));
    });
    for (const auto& [array, dims] : e.array_shapes) {
      if (dims.size() != 2) continue;
      write_atomically(dir / absl::StrCat("owners_", e.procs, "_array", array, ".svg"),
                       [&](std::ostream& o) {
                         const std::string name = array <= summary.array_names.size() ? summary.array_names[array - 1] : "";
                         write_owner_map_svg(o, e, array, dims[0], dims[1], name);
                       });
    }
  }
  write_atomically(dir / "estimate.json", [&](std::ostream& o) { o << json.view(); });
  write_atomically(dir / "index.html", [&](std::ostream& o) { write_html_report(o, json.view()); });
  if (!result.graphviz.empty()) {
    write_atomically(dir / "vcg.dot", [&](std::ostream& o) { o << result.graphviz; });
  }
  std::cout << "\nwrote matrices (CSV, SVG), estimate.json and index.html to " << outputs.out << "\n";
}

}  // namespace commanalyzer::cli

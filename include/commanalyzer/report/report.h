// Reports: the predicted communication as a terminal table, JSON, CSV
// matrices and SVG heatmaps. Pure formatting; no analysis here.
#ifndef COMMANALYZER_REPORT_H_
#define COMMANALYZER_REPORT_H_

#include <algorithm>
#include <cmath>
#include <iterator>
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "commanalyzer/estimate/cost_model.h"

namespace commanalyzer {

// Graph-level facts that do not depend on the process count.
struct GraphSummary {
  std::uint64_t values = 0;
  std::uint64_t flows = 0;
  std::uint64_t vertices = 0;
  std::uint64_t edges = 0;
  std::uint64_t singletons = 0;
  std::uint64_t iterations = 0;
  // Recorded by a window that counts the later ones (Profile::counts_beyond_window); 0: none.
  std::uint64_t recorded_iterations = 0;
  // The program's arrays in allocation order (their numbers in a
  // --distribution map; a library's own buffers left out): bytes, and
  // whether indexed indirectly.
  std::vector<std::pair<std::uint64_t, bool>> arrays;
  // Their names, "u (heat.c:31)" (Profile::array_label; "" if unknown).
  std::vector<std::string> array_names;
};

inline std::string human_bytes(double bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  return unit == 0 ? absl::StrFormat("%.0f %s", bytes, kUnits[unit]) : absl::StrFormat("%.2f %s", bytes, kUnits[unit]);
}

namespace report_internal {
// 30 or 0.5: counts per iteration without a useless ".0".
inline std::string count(double x) {
  return x == static_cast<double>(static_cast<std::uint64_t>(x)) ? absl::StrFormat("%.0f", x) : absl::StrFormat("%.1f", x);
}

inline std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "before the loop at f.c:45 (line 47)", "before the loop at f.c:45
// (grid.h:12)" when the statement is in another file, "at f.c:47", or
// unknown.
inline std::string site_place(const SiteTraffic& t, bool after) {
  if (t.line == 0) return "at a source site without debug information";
  const std::string file = base_name(t.file);
  if (t.loop_line == 0) return absl::StrFormat("at %s:%d", file, t.line);
  const std::string loop_file = base_name(t.loop_file);
  const std::string statement =
      t.file == t.loop_file ? absl::StrFormat("line %d", t.line) : absl::StrFormat("%s:%d", file, t.line);
  return absl::StrFormat("%s the loop at %s:%d (%s)", after ? "after" : "before", loop_file, t.loop_line, statement);
}
}  // namespace report_internal

// Where the largest estimate's traffic is consumed in the source, per
// iteration when iterations are marked: one line per site, largest first.
// `names`: GraphSummary::array_names; an array whose variable is known is
// "#1 u".
inline void print_where(std::ostream& out, const CommEstimate& e, std::size_t max_sites = 8,
                        const std::vector<std::string>& names = {}) {
  if (e.sites.empty() || (e.sites.size() == 1 && e.sites.front().site == 0)) return;
  const double per = e.iterations > 0 ? static_cast<double>(e.iterations) : 1.0;
  out << absl::StrFormat("\nwhere (%d processes%s):\n", e.procs, e.iterations > 0 ? ", per iteration" : "");
  for (std::size_t k = 0; k < std::min(max_sites, e.sites.size()); ++k) {
    const SiteTraffic& t = e.sites[k];
    if (t.p2p_bytes > 0) {
      std::string arrays;
      for (std::uint32_t a : t.arrays) {
        // "u (heat.c:31)" -> "u"; "heat.c:31" (no variable) -> "".
        const std::string label = a != 0 && a <= names.size() ? names[a - 1] : "";
        const std::string variable = label.find(" (") != std::string::npos ? label.substr(0, label.find(" (")) : "";
        arrays += absl::StrCat(arrays.empty() ? "" : ",", " #", a, variable.empty() ? "" : " ", variable);
      }
      if (!arrays.empty()) arrays = absl::StrCat(" values of array", t.arrays.size() == 1 ? "" : "s", arrays);
      const double messages = static_cast<double>(t.p2p_messages) / per;
      out << absl::StrFormat("  %s: exchange%s with up to %d neighbour%s, %.0f B in %s message%s\n",
                             report_internal::site_place(t, false), arrays, t.partners, t.partners == 1 ? "" : "s",
                             static_cast<double>(t.p2p_bytes) / per, report_internal::count(messages),
                             messages == 1 ? "" : "s");
    }
    if (t.allreduces > 0) {
      const double calls = static_cast<double>(t.allreduces) / per;
      out << absl::StrFormat("  %s: allreduce, %.0f B in %s call%s\n", report_internal::site_place(t, true),
                             static_cast<double>(t.allreduce_bytes) / per, report_internal::count(calls),
                             calls == 1 ? "" : "s");
    }
    if (t.broadcasts > 0) {
      const double calls = static_cast<double>(t.broadcasts) / per;
      out << absl::StrFormat("  %s: broadcast, %.0f B in %s call%s\n", report_internal::site_place(t, false),
                             static_cast<double>(t.broadcast_bytes) / per, report_internal::count(calls),
                             calls == 1 ? "" : "s");
    }
  }
  if (e.sites.size() > max_sites) out << absl::StrFormat("  ... %d more sites (--json lists all)\n", e.sites.size() - max_sites);
}

// How evenly the kept distribution shares the work (values computed) and
// the data (array bytes owned): the least and the most any process has,
// as multiples of the mean.
inline void print_balance(std::ostream& out, const CommEstimate& e) {
  auto spread = [](const std::vector<std::uint64_t>& per_process) {
    double total = 0;
    for (std::uint64_t x : per_process) total += static_cast<double>(x);
    const auto [least, most] = std::minmax_element(per_process.begin(), per_process.end());
    const double mean = total / static_cast<double>(per_process.size());
    return absl::StrFormat("%.2f..%.2fx the mean", static_cast<double>(*least) / mean, static_cast<double>(*most) / mean);
  };
  const bool works = std::any_of(e.process_work.begin(), e.process_work.end(), [](std::uint64_t w) { return w > 0; });
  if (e.procs < 2 || !works) return;
  out << absl::StrFormat("\nbalance (%d processes): work %s", e.procs, spread(e.process_work));
  const bool owns = std::any_of(e.process_memory.begin(), e.process_memory.end(), [](std::uint64_t b) { return b > 0; });
  if (owns) out << absl::StrFormat(", array bytes owned %s", spread(e.process_memory));
  out << "\n";
}

inline void print_table(std::ostream& out, const GraphSummary& graph, const std::vector<CommEstimate>& estimates) {
  out << absl::StrFormat("value instances %d, value-flow chains %d, graph %d vertices / %d edges, %d singleton%s",
                         graph.values, graph.flows, graph.vertices, graph.edges, graph.singletons,
                         graph.singletons == 1 ? "" : "s");
  if (graph.iterations > 0) out << absl::StrFormat(", %d iterations", graph.iterations);
  // A recording window's last recorded iteration looks ahead (repeated_iterations.h).
  if (graph.recorded_iterations > 0) {
    out << absl::StrFormat(" (the first %d costed, the other %d counted as the last of them: --record-iterations)",
                           graph.recorded_iterations - 1, graph.iterations - graph.recorded_iterations + 1);
  }
  out << "\n\n";
  const bool per_iteration = graph.iterations > 0;
  out << absl::StrFormat("%6s %16s %16s %16s %10s %11s", "procs", "total bytes", "p2p bytes", "collective bytes",
                         "messages", "collectives");
  if (per_iteration) out << absl::StrFormat(" %16s", "bytes/iteration");
  // Predicted communication time (time_model.h), microseconds.
  out << absl::StrFormat(" %12s", "time (us)");
  if (per_iteration) out << absl::StrFormat(" %13s", "us/iteration");
  const bool by_location = !estimates.empty() && !estimates.front().distribution.empty();
  out << absl::StrFormat("  %-10s", "total");
  if (by_location) {
    out << "  distribution, the fastest (each candidate's total bytes / predicted us";
    std::size_t learned = 0;  // the same for every count whose candidates were compared
    for (const CommEstimate& e : estimates) learned = std::max(learned, e.learned_iterations);
    if (learned == 1) out << " projected from the first iteration";
    if (learned > 1) out << absl::StrFormat(" projected from the first %d iterations", learned);
    out << ")";
  }
  out << "\n";
  for (const CommEstimate& e : estimates) {
    out << absl::StrFormat("%6d %16d %16d %16d %10d %11d", e.procs, e.total_bytes(), e.p2p_bytes, e.collective_bytes(),
                           e.messages(), e.broadcasts + e.allreduces);
    if (per_iteration) out << absl::StrFormat(" %16.0f", e.per_iteration_bytes());
    out << absl::StrFormat(" %12.2f", e.seconds * 1e6);
    if (per_iteration) out << absl::StrFormat(" %13.3f", e.seconds * 1e6 / static_cast<double>(e.iterations));
    out << absl::StrFormat("  %-10s", human_bytes(static_cast<double>(e.total_bytes())));
    if (by_location) {
      out << "  " << e.distribution;
      if (e.candidates.size() > 1) {
        out << " (";
        for (std::size_t k = 0; k < e.candidates.size(); ++k) {
          out << (k ? ", " : "") << e.candidates[k].name << " "
              << absl::StrFormat("%d / %.1f", e.candidates[k].bytes, e.candidates[k].seconds() * 1e6);
        }
        out << ")";
      }
    }
    out << "\n";
  }
  std::string drifting;  // the counts whose window's look-ahead differs from its last costed iteration
  for (const CommEstimate& e : estimates) {
    if (!e.window_steady) drifting += absl::StrCat(drifting.empty() ? "" : ", ", e.procs);
  }
  if (!drifting.empty()) {
    out << "\nnote: the iteration after the last costed one differs from it, or processes recompute what they "
           "would receive (" << drifting
        << " processes): the iterations counted as the last costed one may not cost what it did; analyse more of "
           "them (--record-iterations) or all to know\n";
  }
  if (!estimates.empty()) {
    const auto largest = std::max_element(estimates.begin(), estimates.end(),
                                          [](const CommEstimate& a, const CommEstimate& b) { return a.procs < b.procs; });
    print_balance(out, *largest);
    print_where(out, *largest, 8, graph.array_names);
  }
}

namespace report_internal {
// Text in an SVG/XML element: & < > escaped.
inline std::string xml_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    out += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : std::string(1, c);
  }
  return out;
}

// A JSON string's contents: quotes, backslashes and control characters
// escaped, and a byte that starts no valid UTF-8 sequence (a file name in
// another encoding) replaced by U+FFFD, so that the document stays JSON.
inline std::string json_escape(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c == '"' || c == '\\') out += '\\';
      if (c < 0x20) {
        out += absl::StrFormat("\\u%04x", static_cast<int>(c));
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    const std::size_t length = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    bool valid = length > 0 && i + length <= text.size();
    for (std::size_t k = 1; valid && k < length; ++k) valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (valid) {
      out.append(text, i, length);
      i += length;
    } else {
      out += "\\ufffd";
      ++i;
    }
  }
  return out;
}

// Point-to-point message sizes: (bytes, messages of that size), smallest first.
inline std::vector<std::pair<std::uint64_t, std::uint64_t>> message_sizes(const MessageTrace& trace) {
  std::vector<std::uint64_t> bytes;
  bytes.reserve(trace.messages.size());
  for (const Message& m : trace.messages) bytes.push_back(m.bytes);
  std::sort(bytes.begin(), bytes.end());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> sizes;
  for (std::uint64_t b : bytes) {
    if (sizes.empty() || sizes.back().first != b) sizes.emplace_back(b, 0);
    ++sizes.back().second;
  }
  return sizes;
}

inline void matrix_json(std::ostream& out, const std::vector<std::uint64_t>& m, int n) {
  out << "[";
  for (int i = 0; i < n; ++i) {
    out << (i ? ",[" : "[");
    for (int j = 0; j < n; ++j) out << (j ? "," : "") << m[static_cast<std::size_t>(i) * n + j];
    out << "]";
  }
  out << "]";
}
}  // namespace report_internal

inline void write_json(std::ostream& out, const GraphSummary& graph, const std::vector<CommEstimate>& estimates) {
  out << "{\"format\": \"commanalyzer-estimate-1\", \"procs\": [";
  for (std::size_t k = 0; k < estimates.size(); ++k) {
    const CommEstimate& e = estimates[k];
    out << (k ? ",\n  " : "\n  ");
    out << absl::StrFormat(
        "{\"n\": %d, \"total_bytes\": %d, \"p2p_bytes\": %d, \"collective_bytes\": %d, \"broadcast_bytes\": %d, "
        "\"allreduce_bytes\": %d, \"messages\": %d, \"p2p_messages\": %d, \"collective_calls\": %d, "
        "\"broadcasts\": %d, \"allreduces\": %d, \"per_iteration_bytes\": %.1f, \"seconds\": %.9g, \"matrix\": ",
        e.procs, e.total_bytes(), e.p2p_bytes, e.collective_bytes(), e.broadcast_bytes, e.allreduce_bytes,
        e.messages(), e.p2p_messages, e.collective_calls, e.broadcasts, e.allreduces, e.per_iteration_bytes(),
        e.seconds);
    report_internal::matrix_json(out, e.matrix, e.procs);
    out << ", \"messages_matrix\": ";
    report_internal::matrix_json(out, e.messages_matrix, e.procs);
    out << ", \"phase_bytes\": [";
    for (std::size_t p = 0; p < e.phase_bytes.size(); ++p) out << (p ? "," : "") << e.phase_bytes[p];
    out << "], \"phase_seconds\": [";
    for (std::size_t p = 0; p < e.phase_seconds.size(); ++p) {
      out << (p ? "," : "") << absl::StrFormat("%.9g", e.phase_seconds[p]);
    }
    out << absl::StrFormat("], \"compute_seconds\": %.9g, \"process_work\": [", e.compute_seconds);
    for (std::size_t p = 0; p < e.process_work.size(); ++p) out << (p ? "," : "") << e.process_work[p];
    out << "], \"process_memory\": [";
    for (std::size_t p = 0; p < e.process_memory.size(); ++p) out << (p ? "," : "") << e.process_memory[p];
    out << "], \"message_sizes\": [";  // [bytes, point-to-point messages of that size], smallest first
    const auto sizes = report_internal::message_sizes(e.trace);
    for (std::size_t k = 0; k < sizes.size(); ++k) out << (k ? "," : "") << "[" << sizes[k].first << "," << sizes[k].second << "]";
    out << "]";
    if (!e.distribution.empty()) {
      out << ", \"distribution\": \"" << e.distribution << "\", \"candidates\": {";
      for (std::size_t c = 0; c < e.candidates.size(); ++c) {
        out << (c ? ", " : "") << "\"" << e.candidates[c].name << "\": "
            << absl::StrFormat("{\"bytes\": %d, \"seconds\": %.9g, \"compute_seconds\": %.9g, \"exchange_seconds\": %.9g, "
                               "\"most_work\": %.4g, \"most_data\": %.4g}",
                               e.candidates[c].bytes, e.candidates[c].seconds(), e.candidates[c].compute_seconds,
                               e.candidates[c].exchange_seconds, e.candidates[c].most_work, e.candidates[c].most_data);
      }
      // Candidates costed over the region's first iterations only (0: all of them).
      out << "}, \"learned_iterations\": " << e.learned_iterations;
      // Iterations counted as the one they repeat, not costed again (repeated_iterations.h).
      out << ", \"counted_iterations\": " << e.counted_iterations;
      // Iterations beyond a recording window, counted as its last costed one.
      out << ", \"projected_iterations\": " << e.projected_iterations
          << ", \"window_steady\": " << (e.window_steady ? "true" : "false");
      // [array, first element, last element, rank]
      out << ", \"owner_map\": [";
      for (std::size_t r = 0; r < e.owner_map.size(); ++r) {
        const OwnerRun& run = e.owner_map[r];
        out << (r ? "," : "") << "[" << run.array << "," << run.first << "," << run.last << "," << run.rank << "]";
      }
      // [array, [dimensions]] where the distribution knows an array's grid shape
      out << "], \"array_shapes\": [";
      for (std::size_t a = 0; a < e.array_shapes.size(); ++a) {
        out << (a ? "," : "") << "[" << e.array_shapes[a].first << ",[";
        for (std::size_t d = 0; d < e.array_shapes[a].second.size(); ++d) out << (d ? "," : "") << e.array_shapes[a].second[d];
        out << "]]";
      }
      out << "]";
    }
    // Where the traffic is consumed (site_attribution.h), largest first.
    out << ", \"sites\": [";
    for (std::size_t k = 0; k < e.sites.size(); ++k) {
      const SiteTraffic& t = e.sites[k];
      out << (k ? ",\n    " : "\n    ");
      out << absl::StrFormat(
          "{\"file\": \"%s\", \"line\": %d, \"loop_file\": \"%s\", \"loop_line\": %d, \"p2p_bytes\": %d, "
          "\"p2p_messages\": %d, \"partners\": %d, \"allreduce_bytes\": %d, \"allreduces\": %d, "
          "\"broadcast_bytes\": %d, \"broadcasts\": %d, \"arrays\": [",
          report_internal::json_escape(t.file), t.line, report_internal::json_escape(t.loop_file), t.loop_line,
          t.p2p_bytes, t.p2p_messages, t.partners, t.allreduce_bytes, t.allreduces, t.broadcast_bytes, t.broadcasts);
      for (std::size_t a = 0; a < t.arrays.size(); ++a) out << (a ? "," : "") << t.arrays[a];
      out << "]}";
    }
    out << "]";
    out << "}";
  }
  out << absl::StrFormat(
      "\n], \"values\": %d, \"flows\": %d, \"vertices\": %d, \"edges\": %d, \"singletons\": %d, \"iterations\": %d",
      graph.values, graph.flows, graph.vertices, graph.edges, graph.singletons, graph.iterations);
  // [bytes, indexed indirectly (0/1)] per array, numbered from 1
  out << ", \"arrays\": [";
  for (std::size_t a = 0; a < graph.arrays.size(); ++a) {
    out << (a ? "," : "") << "[" << graph.arrays[a].first << "," << (graph.arrays[a].second ? 1 : 0) << "]";
  }
  out << "]";
  // "u (heat.c:31)" per array, as "arrays" ("" if unknown)
  if (!graph.array_names.empty()) {
    out << ", \"array_names\": [";
    for (std::size_t a = 0; a < graph.array_names.size(); ++a) {
      out << (a ? "," : "") << "\"" << report_internal::json_escape(graph.array_names[a]) << "\"";
    }
    out << "]";
  }
  out << "}\n";
}

// The owner map of a 2-D array (rows x cols, from CommEstimate::array_shapes)
// as a picture: one colour per process, grey where the region touched
// nothing; at most 256 x 256 cells (larger arrays are sampled).
// `name`: the array's (GraphSummary::array_names), "" if unknown.
inline void write_owner_map_svg(std::ostream& out, const CommEstimate& e, std::uint32_t array, std::uint64_t rows,
                                std::uint64_t cols, const std::string& name = "") {
  std::vector<OwnerRun> runs;
  for (const OwnerRun& run : e.owner_map) {
    if (run.array == array) runs.push_back(run);
  }
  const std::uint64_t shown_rows = std::min<std::uint64_t>(rows, 256), shown_cols = std::min<std::uint64_t>(cols, 256);
  const int cell = static_cast<int>(std::max<std::uint64_t>(2, 512 / std::max(shown_rows, shown_cols)));
  const int margin = 30;
  out << absl::StrFormat("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                         "font-family=\"sans-serif\" font-size=\"12\" shape-rendering=\"crispEdges\">\n",
                         cell * shown_cols + 2 * margin, cell * shown_rows + 2 * margin);
  out << absl::StrFormat("<text x=\"%d\" y=\"18\">array #%d%s%s (%d x %d), %d processes, %s</text>\n", margin, array,
                         name.empty() ? "" : " ", report_internal::xml_escape(name), rows, cols, e.procs, e.distribution);
  for (std::uint64_t r = 0; r < shown_rows; ++r) {
    for (std::uint64_t c = 0; c < shown_cols; ++c) {
      const std::uint64_t i = (r * rows / shown_rows) * cols + c * cols / shown_cols;
      auto it = std::upper_bound(runs.begin(), runs.end(), i, [](std::uint64_t x, const OwnerRun& run) { return x < run.first; });
      std::string fill = "#dddddd";
      if (it != runs.begin() && std::prev(it)->last >= i) {
        const double hue = std::fmod(std::prev(it)->rank * 137.508, 360.0);  // golden angle: neighbours differ
        fill = absl::StrFormat("hsl(%.0f,65%%,%d%%)", hue, 45 + 15 * (std::prev(it)->rank % 2));
      }
      out << absl::StrFormat("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
                             margin + cell * c, margin + cell * r, cell, cell, fill);
    }
  }
  out << "</svg>\n";
}

// Point-to-point bytes, sender rows, receiver columns.
inline void write_matrix_csv(std::ostream& out, const CommEstimate& e) {
  out << "from\\to";
  for (int j = 0; j < e.procs; ++j) out << "," << j;
  out << "\n";
  for (int i = 0; i < e.procs; ++i) {
    out << i;
    for (int j = 0; j < e.procs; ++j) out << "," << e.at(i, j);
    out << "\n";
  }
}

// A heatmap of the P x P matrix: white = nothing, dark blue = the largest
// entry, on a square-root scale so small halos stay visible.
inline void write_matrix_svg(std::ostream& out, const CommEstimate& e, const std::string& title) {
  const int n = e.procs;
  const int cell = std::max(4, 512 / std::max(n, 1));
  const int margin = 40, size = cell * n;
  const std::uint64_t peak = e.matrix.empty() ? 0 : *std::max_element(e.matrix.begin(), e.matrix.end());
  out << absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n",
      size + 2 * margin, size + 2 * margin);
  out << absl::StrFormat("<text x=\"%d\" y=\"16\">%s (peak %s)</text>\n", margin, title,
                         human_bytes(static_cast<double>(peak)));
  out << absl::StrFormat("<text x=\"%d\" y=\"%d\">receiver</text>\n", margin, margin - 6);
  out << absl::StrFormat("<text x=\"4\" y=\"%d\" transform=\"rotate(-90 12 %d)\">sender</text>\n", margin + size / 2,
                         margin + size / 2);
  if (n <= 32) {  // process numbers along both axes
    for (int k = 0; k < n; ++k) {
      out << absl::StrFormat("<text x=\"%d\" y=\"%d\" font-size=\"9\" text-anchor=\"middle\">%d</text>\n",
                             margin + k * cell + cell / 2, margin + size + 12, k);
      out << absl::StrFormat("<text x=\"%d\" y=\"%d\" font-size=\"9\" text-anchor=\"end\">%d</text>\n",
                             margin - 3, margin + k * cell + cell / 2 + 3, k);
    }
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const double t = peak == 0 ? 0 : std::sqrt(static_cast<double>(e.at(i, j)) / static_cast<double>(peak));
      const int r = static_cast<int>(255 - 247 * t), g = static_cast<int>(255 - 207 * t), b = static_cast<int>(255 - 148 * t);
      out << absl::StrFormat(
          "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" stroke=\"#ddd\" "
          "stroke-width=\"0.5\"><title>%d -> %d: %d bytes</title></rect>\n",
          margin + j * cell, margin + i * cell, cell, cell, r, g, b, i, j, e.at(i, j));
    }
  }
  out << "</svg>\n";
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_REPORT_H_

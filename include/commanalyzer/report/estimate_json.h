// The estimate read back from the tool's --json file (report.h's
// write_json, "format": "commanalyzer-estimate-1"): what a comparison with
// a measured run needs of each process count.
//
//   std::ifstream in("estimate.json");
//   std::vector<EstimatedRun> runs = read_estimate_json(in);   // throws MeasurementError
#ifndef COMMANALYZER_ESTIMATE_JSON_H_
#define COMMANALYZER_ESTIMATE_JSON_H_

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "commanalyzer/report/measurement.h"
#include "nlohmann/json.hpp"

namespace commanalyzer {

// Where the estimate consumes traffic (site_attribution.h): a source line
// of the sequential program.
struct EstimatedSite {
  std::string location;        // file:line
  std::uint64_t bytes = 0;     // point-to-point + collective
  std::uint64_t messages = 0;  // point-to-point messages + collective calls
};

struct EstimatedRun {
  int procs = 0;
  std::uint64_t p2p_bytes = 0, p2p_messages = 0, collective_bytes = 0, collective_calls = 0;
  std::vector<std::uint64_t> matrix, messages_matrix;  // P x P, sender rows
  std::vector<std::uint64_t> iteration_bytes;          // the marked iterations' bytes
  std::vector<EstimatedSite> sites;
  std::string distribution;

  std::uint64_t total_bytes() const { return p2p_bytes + collective_bytes; }
  std::uint64_t messages() const { return p2p_messages + collective_calls; }
  std::uint64_t pair_bytes(int from, int to) const { return matrix[static_cast<std::size_t>(from) * procs + to]; }
  std::uint64_t pair_messages(int from, int to) const {
    return messages_matrix[static_cast<std::size_t>(from) * procs + to];
  }
};

inline std::vector<EstimatedRun> read_estimate_json(std::istream& in) {
  using namespace measurement_internal;
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) throw MeasurementError("not JSON");
  if (doc.value("format", "") != "commanalyzer-estimate-1") {
    throw MeasurementError("not an estimate of commanalyzer --json (\"format\" is not \"commanalyzer-estimate-1\")");
  }
  const std::uint64_t iterations = count(doc, "iterations");
  const auto procs = doc.find("procs");
  if (procs == doc.end() || !procs->is_array()) throw MeasurementError("no \"procs\" list");
  std::vector<EstimatedRun> runs;
  try {
    for (const nlohmann::json& e : *procs) {
      EstimatedRun run;
      read_totals(run, e, "n");
      // phase_bytes has one more entry than there are marks: what follows the last.
      if (const auto it = e.find("phase_bytes"); it != e.end() && it->is_array()) {
        for (std::size_t k = 0; k < it->size() && k < iterations; ++k) {
          run.iteration_bytes.push_back((*it)[k].get<std::uint64_t>());
        }
      }
      if (const auto it = e.find("sites"); it != e.end() && it->is_array()) {
        for (const nlohmann::json& s : *it) {
          run.sites.push_back({absl::StrCat(s.value("file", ""), ":", s.value("line", 0)),
                               count(s, "p2p_bytes") + count(s, "allreduce_bytes") + count(s, "broadcast_bytes"),
                               count(s, "p2p_messages") + count(s, "allreduces") + count(s, "broadcasts")});
        }
      }
      run.distribution = e.value("distribution", "");
      runs.push_back(std::move(run));
    }
  } catch (const nlohmann::json::exception& e) {  // a value of the wrong type
    throw MeasurementError(e.what());
  }
  return runs;
}

// `run` less `baseline`, the estimate of the same program with fewer
// iterations on as many processes: as subtract() of two Measurements
// (measurement.h), sites by source line.
inline EstimatedRun subtract(const EstimatedRun& run, const EstimatedRun& baseline) {
  using measurement_internal::less;
  if (run.procs != baseline.procs) {
    throw MeasurementError(
        absl::StrCat("the baseline estimate is for ", baseline.procs, " processes, the run's for ", run.procs));
  }
  EstimatedRun e = run;
  measurement_internal::subtract_totals(e, run, baseline);
  for (EstimatedSite& site : e.sites) {
    for (const EstimatedSite& base : baseline.sites) {
      if (base.location == site.location) {
        site.bytes = less(site.bytes, base.bytes, "bytes at a site");
        site.messages = less(site.messages, base.messages, "messages at a site");
      }
    }
  }
  return e;
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_ESTIMATE_JSON_H_

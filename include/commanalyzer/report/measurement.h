// A measured MPI run, as a comparison with the estimate needs it: for one
// process count, the point-to-point bytes and messages (per sender and
// receiver where the measuring tool records the receiver, else per
// sender), the collective bytes under the logical volume convention of
// docs/DESIGN.md and the collective calls, and, where recorded, the bytes
// of each marked iteration and of each MPI call site.
//
//   std::ifstream in(path);
//   Measurement m = read_pmpi_counts(in);    // throws MeasurementError
//   m.total_bytes(), m.messages(), m.sent_bytes[rank], m.pair_bytes(i, j)
//
// This header reads the PMPI counter's JSON (examples/measure/
// pmpi_counter.c); mpip_report.h reads mpiP's text report into the same
// struct.
#ifndef COMMANALYZER_MEASUREMENT_H_
#define COMMANALYZER_MEASUREMENT_H_

#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace commanalyzer {

// A measurement file that is not what it claims, or not complete: the
// message says what is wrong.
class MeasurementError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// One MPI call site of the measured program (mpiP's callsite ID).
struct MeasuredSite {
  std::string call;         // e.g. "Isend", "Allreduce"
  int id = 0;               // the profiler's callsite ID
  std::string location;     // file:line, where the report names it
  std::uint64_t bytes = 0;  // point-to-point bytes, or a collective's logical volume
  std::uint64_t calls = 0;  // as recorded: point-to-point messages; a collective call once per rank
};

struct Measurement {
  std::string tool;  // "PMPI counter", "mpiP"
  int procs = 0;
  std::uint64_t p2p_bytes = 0, p2p_messages = 0;  // between different ranks
  std::uint64_t collective_bytes = 0, collective_calls = 0;
  // P x P, sender rows, receiver columns (point-to-point only); empty when
  // the tool does not record receivers.
  std::vector<std::uint64_t> matrix, messages_matrix;
  // Point-to-point bytes and messages each rank sent (to other ranks).
  std::vector<std::uint64_t> sent_bytes, sent_messages;
  std::vector<std::uint64_t> iteration_bytes;  // total bytes of each marked iteration; empty: not recorded
  std::vector<MeasuredSite> sites;             // empty: not recorded
  std::vector<std::string> notes;              // what was measured but could not be counted, and why

  std::uint64_t total_bytes() const { return p2p_bytes + collective_bytes; }
  std::uint64_t messages() const { return p2p_messages + collective_calls; }
  bool has_pairs() const { return !matrix.empty(); }
  std::uint64_t pair_bytes(int from, int to) const { return matrix[static_cast<std::size_t>(from) * procs + to]; }
  std::uint64_t pair_messages(int from, int to) const {
    return messages_matrix[static_cast<std::size_t>(from) * procs + to];
  }
};

namespace measurement_internal {

inline std::uint64_t count(const nlohmann::json& doc, const char* key) {
  const auto it = doc.find(key);
  if (it == doc.end() || !it->is_number_unsigned()) {
    throw MeasurementError(absl::StrCat("no count \"", key, "\" (a non-negative integer)"));
  }
  return it->get<std::uint64_t>();
}

// A P x P matrix of counts, row-major.
inline std::vector<std::uint64_t> matrix(const nlohmann::json& doc, const char* key, int procs) {
  const auto it = doc.find(key);
  if (it == doc.end() || !it->is_array() || it->size() != static_cast<std::size_t>(procs)) {
    throw MeasurementError(absl::StrCat("\"", key, "\" is not a ", procs, " x ", procs, " matrix"));
  }
  std::vector<std::uint64_t> out;
  for (const nlohmann::json& row : *it) {
    if (!row.is_array() || row.size() != static_cast<std::size_t>(procs)) {
      throw MeasurementError(absl::StrCat("\"", key, "\" is not a ", procs, " x ", procs, " matrix"));
    }
    for (const nlohmann::json& x : row) {
      if (!x.is_number_unsigned()) {
        throw MeasurementError(absl::StrCat("\"", key, "\" holds a value that is not a count"));
      }
      out.push_back(x.get<std::uint64_t>());
    }
  }
  return out;
}

// Row sums without the diagonal (a rank's sends to itself are not traffic).
inline std::vector<std::uint64_t> sent_by_rank(const std::vector<std::uint64_t>& m, int procs) {
  std::vector<std::uint64_t> out(procs, 0);
  for (int i = 0; i < procs; ++i) {
    for (int j = 0; j < procs; ++j) {
      if (i != j) out[i] += m[static_cast<std::size_t>(i) * procs + j];
    }
  }
  return out;
}

// a - b, element by element for counts per rank or pair; throws when b has
// more than a.
inline std::uint64_t less(std::uint64_t a, std::uint64_t b, const char* what) {
  if (b > a) throw MeasurementError(absl::StrCat("the baseline has more ", what, " (", b, ") than the run (", a, ")"));
  return a - b;
}

inline std::vector<std::uint64_t> less(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b,
                                       const char* what) {
  if (a.size() != b.size()) throw MeasurementError(absl::StrCat("the baseline's ", what, " has another size"));
  std::vector<std::uint64_t> out(a.size());
  for (std::size_t k = 0; k < a.size(); ++k) out[k] = less(a[k], b[k], what);
  return out;
}

// The run's iterations after as many as the baseline has.
inline std::vector<std::uint64_t> later(const std::vector<std::uint64_t>& run,
                                        const std::vector<std::uint64_t>& baseline) {
  if (baseline.size() >= run.size()) return {};
  return {run.begin() + static_cast<std::ptrdiff_t>(baseline.size()), run.end()};
}

// `out` = `run` less `baseline` in what a measurement and an estimate both
// carry: the totals, the pair matrices and the iterations.
template <class Run>
void subtract_totals(Run& out, const Run& run, const Run& baseline) {
  out.p2p_bytes = less(run.p2p_bytes, baseline.p2p_bytes, "point-to-point bytes");
  out.p2p_messages = less(run.p2p_messages, baseline.p2p_messages, "point-to-point messages");
  out.collective_bytes = less(run.collective_bytes, baseline.collective_bytes, "collective bytes");
  out.collective_calls = less(run.collective_calls, baseline.collective_calls, "collective calls");
  out.matrix = less(run.matrix, baseline.matrix, "bytes of a pair");
  out.messages_matrix = less(run.messages_matrix, baseline.messages_matrix, "messages of a pair");
  out.iteration_bytes = later(run.iteration_bytes, baseline.iteration_bytes);
}

// What a measurement and an estimate both carry, from one run's JSON
// object: its process count (under `procs_key`), totals and matrices.
template <class Run>
void read_totals(Run& out, const nlohmann::json& doc, const char* procs_key) {
  const std::uint64_t procs = count(doc, procs_key);
  if (procs < 1 || procs > 65536) {
    throw MeasurementError(absl::StrCat("\"", procs_key, "\" ", procs, " is not a process count"));
  }
  out.procs = static_cast<int>(procs);
  out.p2p_bytes = count(doc, "p2p_bytes");
  out.p2p_messages = count(doc, "p2p_messages");
  out.collective_bytes = count(doc, "collective_bytes");
  out.collective_calls = count(doc, "collective_calls");
  out.matrix = matrix(doc, "matrix", out.procs);
  out.messages_matrix = matrix(doc, "messages_matrix", out.procs);
}

}  // namespace measurement_internal

// `run` less `baseline`: the same program measured on as many processes
// with fewer iterations (e.g. one), so that what both runs do (set-up,
// reading input, a final gather) cancels and the extra iterations remain.
// Totals, matrices, what each rank sent and call sites (by ID) are
// subtracted; the iterations are the run's after as many as the baseline
// marked. Throws MeasurementError when the baseline has more of something.
inline Measurement subtract(const Measurement& run, const Measurement& baseline) {
  using measurement_internal::less;
  if (run.procs != baseline.procs || run.tool != baseline.tool || run.has_pairs() != baseline.has_pairs() ||
      run.sent_bytes.size() != baseline.sent_bytes.size()) {
    throw MeasurementError(absl::StrCat("the baseline (", baseline.tool, ", ", baseline.procs,
                                        " processes) is not measured as the run is (", run.tool, ", ", run.procs, ")"));
  }
  Measurement m = run;
  measurement_internal::subtract_totals(m, run, baseline);
  m.sent_bytes = less(run.sent_bytes, baseline.sent_bytes, "bytes sent by a rank");
  m.sent_messages = less(run.sent_messages, baseline.sent_messages, "messages sent by a rank");
  for (MeasuredSite& site : m.sites) {
    for (const MeasuredSite& base : baseline.sites) {
      if (base.id == site.id && base.call == site.call) {
        site.bytes = less(site.bytes, base.bytes, "bytes at a call site");
        site.calls = less(site.calls, base.calls, "calls at a call site");
      }
    }
  }
  return m;
}

// The PMPI counter's JSON (examples/measure/pmpi_counter.c): totals,
// matrices, and the bytes of each iteration marked with MPI_Pcontrol(2).
inline Measurement read_pmpi_counts(std::istream& in) {
  using namespace measurement_internal;
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) throw MeasurementError("not JSON");
  if (!doc.contains("messages_matrix") || !doc.contains("p2p_self_bytes")) {
    throw MeasurementError("JSON, but not the PMPI counter's (no \"messages_matrix\", \"p2p_self_bytes\")");
  }
  Measurement m;
  m.tool = "PMPI counter";
  read_totals(m, doc, "procs");
  m.sent_bytes = sent_by_rank(m.matrix, m.procs);
  m.sent_messages = sent_by_rank(m.messages_matrix, m.procs);
  if (const auto it = doc.find("per_iteration"); it != doc.end() && it->is_array()) {
    for (const nlohmann::json& iteration : *it) m.iteration_bytes.push_back(count(iteration, "total_bytes"));
  }
  return m;
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_MEASUREMENT_H_

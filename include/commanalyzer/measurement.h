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
  std::string call;      // e.g. "Isend", "Allreduce"
  int id = 0;            // the profiler's callsite ID
  std::string location;  // file:line, where the report names it
  std::uint64_t bytes = 0;  // point-to-point bytes, or a collective's logical volume
  std::uint64_t calls = 0;  // point-to-point messages, or collective calls
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
      if (!x.is_number_unsigned()) throw MeasurementError(absl::StrCat("\"", key, "\" holds a value that is not a count"));
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

}  // namespace measurement_internal

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
  const std::uint64_t procs = count(doc, "procs");
  if (procs < 1 || procs > 65536) throw MeasurementError(absl::StrCat("\"procs\" ", procs, " is not a process count"));
  m.procs = static_cast<int>(procs);
  m.p2p_bytes = count(doc, "p2p_bytes");
  m.p2p_messages = count(doc, "p2p_messages");
  m.collective_bytes = count(doc, "collective_bytes");
  m.collective_calls = count(doc, "collective_calls");
  m.matrix = matrix(doc, "matrix", m.procs);
  m.messages_matrix = matrix(doc, "messages_matrix", m.procs);
  m.sent_bytes = sent_by_rank(m.matrix, m.procs);
  m.sent_messages = sent_by_rank(m.messages_matrix, m.procs);
  if (const auto it = doc.find("per_iteration"); it != doc.end() && it->is_array()) {
    for (const nlohmann::json& iteration : *it) m.iteration_bytes.push_back(count(iteration, "total_bytes"));
  }
  return m;
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_MEASUREMENT_H_

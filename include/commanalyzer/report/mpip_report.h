// mpiP's text report (github.com/LLNL/mpiP, the PMPI profiler's
// "@ mpiP" file written at MPI_Finalize) read as a Measurement
// (measurement.h):
//
//   std::ifstream in("app.4.12345.1.mpiP");
//   Measurement m = read_mpip_report(in);    // throws MeasurementError
//
// What the report gives: the ranks ("@ MPI Task Assignment : RANK HOST"),
// the call sites ("Callsites" section: ID, level, file, line, function,
// MPI call) and, per call site and rank, how often the call ran and the
// bytes it sent ("Callsite Message Sent statistics (all, sent bytes)":
// Name Site Rank Count Max Mean Min Sum; rows with Rank '*' sum a site).
// mpiP records no receiver, so there is no P x P matrix, only what each
// rank sent. A report written with MPIP=-d (no per-rank sections) still has
// "Aggregate Sent Message Size" (Call Site Count Total Avrg Sent%), at most
// twenty sites: the totals are read from it, the per-rank figures are left
// empty, and a note says so.
//
// Counting, to match the PMPI counter and the estimate:
//   * point-to-point: Send, Isend, Ssend, Issend, Rsend, Irsend, Bsend,
//     Ibsend, Sendrecv, Sendrecv_replace; bytes as recorded, one message a
//     call;
//   * collectives: every rank records its own buffer, m bytes, so a call on
//     N ranks is N records (calls = records / N, the communicator taken to
//     be MPI_COMM_WORLD) and its logical volume is: Bcast, Reduce, Gather
//     (N-1)m, Allreduce 2(N-1)m, Allgather, Alltoall N(N-1)m;
//   * other calls with bytes (Scatter, the v-variants, Scan, I/O, ...) are
//     not counted, and a note names them; Barrier has no bytes and is not
//     in these sections.
// mpiP prints bytes with 4 significant digits (3 in the aggregate section)
// unless run with MPIP=-e (floating-point format, exact): the default
// report's totals are exact to about 0.05 %. mpiP counts a send to
// MPI_PROC_NULL (a boundary's Sendrecv) as sent; the PMPI counter does
// not. And mpiP resets its statistics at MPI_Pcontrol(2), the PMPI
// counter's iteration mark: a program that marks iterations so keeps, in
// mpiP's report, only what follows the last mark.
#ifndef COMMANALYZER_MPIP_REPORT_H_
#define COMMANALYZER_MPIP_REPORT_H_

#include <cmath>
#include <cstdint>
#include <istream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "commanalyzer/report/measurement.h"

namespace commanalyzer {

namespace mpip_internal {

// Bytes of the logical volume per recorded byte of a call on `procs`
// ranks (see above); 0: a collective this reading does not count; -1: a
// point-to-point send.
inline double volume_factor(const std::string& call, int procs) {
  static const std::set<std::string> kSends = {"Send",   "Isend", "Ssend",  "Issend",   "Rsend",
                                               "Irsend", "Bsend", "Ibsend", "Sendrecv", "Sendrecv_replace"};
  if (kSends.count(call)) return -1;
  const double n = procs;
  if (call == "Bcast" || call == "Reduce" || call == "Gather") return (n - 1) / n;
  if (call == "Allreduce") return 2 * (n - 1) / n;
  if (call == "Allgather" || call == "Alltoall") return n - 1;
  return 0;
}

// One row of a per-site table: the call, its site, its rank (-1: '*' or a
// table without ranks), how often it ran and the bytes it sent.
struct Row {
  std::string call;
  int site = 0, rank = -1;
  std::uint64_t count = 0;
  double bytes = 0;
};

inline std::vector<std::string> fields(const std::string& line) {
  return absl::StrSplit(line, ' ', absl::SkipWhitespace());
}

// The report's sections as read: the ranks, the call sites' locations and
// the rows of the per-rank and aggregate tables.
struct Sections {
  std::set<int> ranks;
  std::map<int, std::string> locations;  // callsite ID -> file:line
  std::vector<Row> per_rank, aggregate;
};

// Reads the sections; throws MeasurementError on a malformed row, a text
// that is not an mpiP report, or ranks that are not 0..N-1.
inline Sections read_sections(std::istream& in) {
  std::string line, section;
  Sections read;
  std::set<int>& ranks = read.ranks;
  std::map<int, std::string>& locations = read.locations;
  std::vector<Row>& per_rank = read.per_rank;
  std::vector<Row>& aggregate = read.aggregate;
  bool mpip = false;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (absl::StartsWith(line, "@ mpiP")) mpip = true;
    if (absl::StartsWith(line, "@--- ")) {
      section = line.substr(5);
      continue;
    }
    const std::vector<std::string> f = fields(line);
    if (absl::StartsWith(line, "@ MPI Task Assignment")) {
      int rank = 0;
      if (f.size() < 6 || !absl::SimpleAtoi(f[5], &rank) || rank < 0) {
        throw MeasurementError(absl::StrCat("line ", number, ": a task assignment without a rank: '", line, "'"));
      }
      ranks.insert(rank);
      continue;
    }
    int site = 0, level = 0, rank = 0;
    std::uint64_t count = 0;
    double bytes = 0;
    if (absl::StartsWith(section, "Callsites:")) {
      // ID Lev File/Address Line Parent_Funct MPI_Call: the call's own
      // frame is level 0; without source lookup, an address and no line.
      if (f.size() >= 5 && absl::SimpleAtoi(f[0], &site) && absl::SimpleAtoi(f[1], &level) && level == 0) {
        locations[site] = f.size() >= 6 ? absl::StrCat(f[2], ":", f[3]) : f[2];
      }
    } else if (absl::StartsWith(section, "Callsite Message Sent statistics (all, sent bytes)")) {
      // Name Site Rank Count Max Mean Min Sum
      if (f.size() == 8 && absl::SimpleAtoi(f[1], &site) && f[2] != "*") {
        if (!absl::SimpleAtoi(f[2], &rank) || rank < 0 || !absl::SimpleAtoi(f[3], &count) ||
            !absl::SimpleAtod(f[7], &bytes) || !(bytes >= 0)) {
          throw MeasurementError(
              absl::StrCat("line ", number, ": not a row of Name Site Rank Count Max Mean Min Sum: '", line, "'"));
        }
        per_rank.push_back({f[0], site, rank, count, bytes});
      }
    } else if (absl::StartsWith(section, "Aggregate Sent Message Size")) {
      // Call Site Count Total Avrg Sent%
      if (f.size() == 6 && absl::SimpleAtoi(f[1], &site)) {
        if (!absl::SimpleAtoi(f[2], &count) || !absl::SimpleAtod(f[3], &bytes) || !(bytes >= 0)) {
          throw MeasurementError(
              absl::StrCat("line ", number, ": not a row of Call Site Count Total Avrg Sent%: '", line, "'"));
        }
        aggregate.push_back({f[0], site, -1, count, bytes});
      }
    }
  }
  if (!mpip) throw MeasurementError("not an mpiP report (no '@ mpiP' header)");
  if (ranks.empty()) {
    throw MeasurementError("mpiP report without '@ MPI Task Assignment' lines: the process count is unknown");
  }
  if (*ranks.rbegin() + 1 != static_cast<int>(ranks.size())) {
    throw MeasurementError("mpiP report: the task assignments do not number the ranks 0..N-1");
  }
  return read;
}

}  // namespace mpip_internal

inline Measurement read_mpip_report(std::istream& in) {
  using namespace mpip_internal;
  Sections read = read_sections(in);
  std::map<int, std::string>& locations = read.locations;
  const std::vector<Row>& per_rank = read.per_rank;
  const std::vector<Row>& aggregate = read.aggregate;
  Measurement m;
  m.tool = "mpiP";
  m.procs = static_cast<int>(read.ranks.size());
  const bool by_rank = !per_rank.empty();
  if (by_rank) {
    m.sent_bytes.assign(m.procs, 0);
    m.sent_messages.assign(m.procs, 0);
  } else if (!aggregate.empty()) {
    m.notes.push_back(
        "the report has no per-rank section (MPIP=-d?): totals from 'Aggregate Sent Message Size', "
        "which lists at most twenty call sites");
  }
  // Bytes are summed as printed and rounded once: per kind of collective,
  // the bytes and calls its ranks recorded.
  std::map<int, MeasuredSite> sites;
  std::map<std::string, std::pair<double, std::uint64_t>> collectives;
  std::set<std::string> uncounted;
  double p2p_bytes = 0;
  std::vector<double> sent(by_rank ? m.procs : 0, 0.0);
  for (const Row& row : by_rank ? per_rank : aggregate) {
    if (row.rank >= m.procs) {
      throw MeasurementError(absl::StrCat("mpiP report: rank ", row.rank, " of site ", row.site, " is not one of the ",
                                          m.procs, " tasks"));
    }
    const double factor = volume_factor(row.call, m.procs);
    if (factor == 0) {
      uncounted.insert(row.call);
      continue;
    }
    MeasuredSite& site = sites[row.site];
    site.call = row.call, site.id = row.site, site.location = locations[row.site];
    site.bytes += static_cast<std::uint64_t>(std::llround(factor < 0 ? row.bytes : row.bytes * factor));
    site.calls += row.count;
    if (factor < 0) {
      p2p_bytes += row.bytes, m.p2p_messages += row.count;
      if (by_rank) sent[row.rank] += row.bytes, m.sent_messages[row.rank] += row.count;
    } else {
      collectives[row.call].first += row.bytes, collectives[row.call].second += row.count;
    }
  }
  m.p2p_bytes = static_cast<std::uint64_t>(std::llround(p2p_bytes));
  for (std::size_t r = 0; r < sent.size(); ++r) m.sent_bytes[r] = static_cast<std::uint64_t>(std::llround(sent[r]));
  for (const auto& [call, recorded] : collectives) {
    m.collective_bytes += static_cast<std::uint64_t>(std::llround(recorded.first * volume_factor(call, m.procs)));
    m.collective_calls += (recorded.second + m.procs / 2) / m.procs;  // every rank records each call
  }
  for (const auto& [id, site] : sites) m.sites.push_back(site);
  if (!uncounted.empty()) {
    m.notes.push_back(
        absl::StrCat("not counted (no logical volume from what mpiP records): ", absl::StrJoin(uncounted, ", ")));
  }
  return m;
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_MPIP_REPORT_H_

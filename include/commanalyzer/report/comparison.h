// An estimate beside a measured MPI run of the same program and process
// count: totals, accuracy as docs/VALIDATION.md computes it, and the
// differences per process, per process pair and per iteration, each marked
// when it is large.
//
//   const RunComparison c = compare_run(estimated, measured, {.tolerance = 0.08});
//   c.accuracy;                        // 1 - |est - meas| / meas, total bytes
//   for (const PairDifference& p : c.pairs) if (p.bytes.marked) ...
//
// A difference is marked when |estimated - measured| is more than
// `tolerance` times the larger of the two: symmetric, and a pair that
// only one side has is always marked. The default, 8 %, is the paper's
// bound on the error of a whole application's total (Table 2: maximum
// error below 8 %): a marked pair is further off than the paper allows the
// whole program to be. Process numbers are the estimate's; an MPI code
// that numbers its ranks otherwise differs per pair with the same totals
// (estimate with its decomposition as a --distribution map to line them
// up; docs/DISTRIBUTION.md).
#ifndef COMMANALYZER_COMPARISON_H_
#define COMMANALYZER_COMPARISON_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "commanalyzer/report/estimate_json.h"
#include "commanalyzer/report/measurement.h"

namespace commanalyzer {

struct ComparisonRule {
  double tolerance = 0.08;  // a share of the larger side
  bool marks(std::uint64_t estimated, std::uint64_t measured) const {
    const auto larger = static_cast<double>(std::max(estimated, measured));
    const auto gap = static_cast<double>(estimated > measured ? estimated - measured : measured - estimated);
    return gap > tolerance * larger;
  }
};

struct Difference {
  std::uint64_t estimated = 0, measured = 0;
  bool marked = false;
  // (estimated - measured) / measured; +inf when only the estimate has some.
  double relative() const {
    if (measured == 0) return estimated == 0 ? 0.0 : std::numeric_limits<double>::infinity();
    return (static_cast<double>(estimated) - static_cast<double>(measured)) / static_cast<double>(measured);
  }
};

struct PairDifference {
  int from = 0, to = 0;
  Difference bytes, messages;
};

struct RunComparison {
  int procs = 0;
  Difference total_bytes, p2p_bytes, collective_bytes, messages;
  double accuracy = 0;           // 1 - |est - meas| / meas on total bytes (1 if both 0, -inf if only est)
  double d_p2p = 0, d_coll = 0;  // (est - meas) of each part as a share of the measured total
  std::vector<Difference> process_bytes, process_messages;  // point-to-point sent by each rank; empty: not measured
  std::vector<PairDifference> pairs;   // every pair either side has traffic on; empty: no measured matrix
  std::vector<Difference> iterations;  // the first min(est, meas) marked iterations; empty: not measured
  std::size_t estimated_iterations = 0, measured_iterations = 0;
};

inline RunComparison compare_run(const EstimatedRun& est, const Measurement& meas, const ComparisonRule& rule = {}) {
  auto diff = [&rule](std::uint64_t e, std::uint64_t m) { return Difference{e, m, rule.marks(e, m)}; };
  if (est.procs != meas.procs) {
    throw MeasurementError(absl::StrCat("an estimate for ", est.procs, " processes beside a run on ", meas.procs));
  }
  RunComparison c;
  c.procs = est.procs;
  c.total_bytes = diff(est.total_bytes(), meas.total_bytes());
  c.p2p_bytes = diff(est.p2p_bytes, meas.p2p_bytes);
  c.collective_bytes = diff(est.collective_bytes, meas.collective_bytes);
  c.messages = diff(est.messages(), meas.messages());
  const auto measured = static_cast<double>(meas.total_bytes());
  const auto gap = static_cast<double>(est.total_bytes()) - measured;
  if (meas.total_bytes() == 0) {
    c.accuracy = est.total_bytes() == 0 ? 1.0 : -std::numeric_limits<double>::infinity();
  } else {
    c.accuracy = 1.0 - std::abs(gap) / measured;
    c.d_p2p = (static_cast<double>(est.p2p_bytes) - static_cast<double>(meas.p2p_bytes)) / measured;
    c.d_coll = (static_cast<double>(est.collective_bytes) - static_cast<double>(meas.collective_bytes)) / measured;
  }
  const int n = est.procs;
  if (!meas.sent_bytes.empty()) {
    for (int i = 0; i < n; ++i) {
      std::uint64_t bytes = 0, messages = 0;
      for (int j = 0; j < n; ++j) {
        if (j != i) bytes += est.pair_bytes(i, j), messages += est.pair_messages(i, j);
      }
      c.process_bytes.push_back(diff(bytes, meas.sent_bytes[i]));
      c.process_messages.push_back(diff(messages, meas.sent_messages[i]));
    }
  }
  if (meas.has_pairs()) {
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        if (i == j || (est.pair_bytes(i, j) == 0 && meas.pair_bytes(i, j) == 0)) continue;
        c.pairs.push_back({i, j, diff(est.pair_bytes(i, j), meas.pair_bytes(i, j)),
                           diff(est.pair_messages(i, j), meas.pair_messages(i, j))});
      }
    }
  }
  c.estimated_iterations = est.iteration_bytes.size();
  c.measured_iterations = meas.iteration_bytes.size();
  for (std::size_t k = 0; k < std::min(c.estimated_iterations, c.measured_iterations); ++k) {
    c.iterations.push_back(diff(est.iteration_bytes[k], meas.iteration_bytes[k]));
  }
  return c;
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_COMPARISON_H_

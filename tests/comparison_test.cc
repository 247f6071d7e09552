// compare's library: the PMPI counter's JSON, mpiP's report and the
// estimate's --json read from fixtures (tests/compare/), and the
// comparison's accuracy and marks.
#include "commanalyzer/report/comparison.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "commanalyzer/report/estimate_json.h"
#include "commanalyzer/report/measurement.h"
#include "commanalyzer/report/mpip_report.h"
#include "gtest/gtest.h"

namespace commanalyzer {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in("tests/compare/" + name);
  EXPECT_TRUE(in) << name;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Measurement pmpi(const std::string& text) {
  std::istringstream in(text);
  return read_pmpi_counts(in);
}

Measurement mpip(const std::string& text) {
  std::istringstream in(text);
  return read_mpip_report(in);
}

EstimatedRun estimate_p3() {
  std::istringstream in(fixture("estimate_p3.json"));
  const std::vector<EstimatedRun> runs = read_estimate_json(in);
  EXPECT_EQ(runs.size(), 1u);
  return runs.front();
}

TEST(Measurement, ReadsThePmpiCounter) {
  const Measurement m = pmpi(fixture("pmpi_p3.json"));
  EXPECT_EQ(m.procs, 3);
  EXPECT_EQ(m.total_bytes(), 3284u);
  EXPECT_EQ(m.messages(), 9u);
  EXPECT_EQ(m.pair_bytes(2, 1), 50u);
  EXPECT_EQ(m.pair_messages(2, 0), 2u);
  EXPECT_EQ(m.sent_bytes, (std::vector<std::uint64_t>{1000, 1100, 1120}));
  EXPECT_EQ(m.iteration_bytes, (std::vector<std::uint64_t>{1584, 1700}));
}

TEST(Measurement, RefusesOtherFiles) {
  EXPECT_THROW(pmpi("iteration,src,dst,bytes,kind,site\n0,0,1,8,p2p,\n"), MeasurementError);
  EXPECT_THROW(pmpi(fixture("estimate_p3.json")), MeasurementError);  // JSON, not the counter's
  std::string broken = fixture("pmpi_p3.json");
  broken.replace(broken.find("[2, 1, 0]"), 9, "[2, 1]");  // a short matrix row
  EXPECT_THROW(pmpi(broken), MeasurementError);
  std::istringstream counter(fixture("pmpi_p3.json"));
  EXPECT_THROW(read_estimate_json(counter), MeasurementError);
}

TEST(EstimateJson, ReadsTheToolsJson) {
  const EstimatedRun e = estimate_p3();
  EXPECT_EQ(e.procs, 3);
  EXPECT_EQ(e.total_bytes(), 3064u);
  EXPECT_EQ(e.messages(), 8u);
  EXPECT_EQ(e.iteration_bytes, (std::vector<std::uint64_t>{1532, 1532}));  // not what follows the last mark
  ASSERT_EQ(e.sites.size(), 2u);
  EXPECT_EQ(e.sites[1].location, "ring.c:30");
  EXPECT_EQ(e.sites[1].bytes, 64u);
}

TEST(Comparison, AccuracyAsTheValidationComputesIt) {
  const RunComparison c = compare_run(estimate_p3(), pmpi(fixture("pmpi_p3.json")));
  EXPECT_DOUBLE_EQ(c.accuracy, 1.0 - 220.0 / 3284.0);
  EXPECT_DOUBLE_EQ(c.d_p2p, -220.0 / 3284.0);
  EXPECT_DOUBLE_EQ(c.d_coll, 0.0);
  EXPECT_FALSE(c.total_bytes.marked);  // 220 of 3284: 6.7 %
  EXPECT_FALSE(c.collective_bytes.marked);
  EXPECT_TRUE(c.messages.marked);  // 8 of 9
}

TEST(Comparison, MarksPairsPastTheTolerance) {
  const RunComparison c = compare_run(estimate_p3(), pmpi(fixture("pmpi_p3.json")));
  ASSERT_EQ(c.pairs.size(), 4u);  // 0->1, 1->2, 2->0 on both sides, 2->1 measured only
  auto pair = [&c](int from, int to) {
    for (const PairDifference& p : c.pairs) {
      if (p.from == from && p.to == to) return p;
    }
    ADD_FAILURE() << from << " -> " << to << " not listed";
    return PairDifference{};
  };
  EXPECT_FALSE(pair(0, 1).bytes.marked);  // equal
  EXPECT_TRUE(pair(1, 2).bytes.marked);   // 1000 / 1100: 9.1 % of the larger
  EXPECT_FALSE(pair(2, 0).bytes.marked);  // 1000 / 1070: 6.5 %
  EXPECT_TRUE(pair(2, 1).bytes.marked);   // only measured
  EXPECT_TRUE(pair(2, 1).messages.marked);
  EXPECT_EQ(pair(2, 1).bytes.estimated, 0u);
  EXPECT_FALSE(c.process_bytes[0].marked);
  EXPECT_TRUE(c.process_bytes[1].marked);
  ASSERT_EQ(c.iterations.size(), 2u);
  EXPECT_FALSE(c.iterations[0].marked);  // 1532 / 1584
  EXPECT_TRUE(c.iterations[1].marked);   // 1532 / 1700

  const RunComparison loose = compare_run(estimate_p3(), pmpi(fixture("pmpi_p3.json")), {.tolerance = 0.10});
  for (const PairDifference& p : loose.pairs) {
    EXPECT_EQ(p.bytes.marked, p.from == 2 && p.to == 1) << p.from << " -> " << p.to;
  }
}

TEST(Comparison, RefusesAnotherProcessCount) {
  Measurement m = pmpi(fixture("pmpi_p3.json"));
  m.procs = 4;
  EXPECT_THROW(compare_run(estimate_p3(), m), MeasurementError);
}

TEST(Comparison, BaselineRunsCancel) {
  const Measurement run = pmpi(fixture("pmpi_p3.json"));
  Measurement base = run;  // a one-iteration run: every count halved, the first iteration only
  for (auto* v : {&base.matrix, &base.messages_matrix, &base.sent_bytes, &base.sent_messages}) {
    for (std::uint64_t& x : *v) x /= 2;
  }
  base.p2p_bytes /= 2, base.p2p_messages /= 2, base.collective_bytes /= 2, base.collective_calls /= 2;
  base.iteration_bytes.resize(1);
  const Measurement kernel = subtract(run, base);
  EXPECT_EQ(kernel.p2p_bytes, 3220u - 1610u);
  EXPECT_EQ(kernel.pair_bytes(1, 2), 550u);
  EXPECT_EQ(kernel.pair_messages(2, 1), 1u);  // 1 - 1 / 2
  EXPECT_EQ(kernel.sent_bytes[2], 560u);
  EXPECT_EQ(kernel.iteration_bytes, (std::vector<std::uint64_t>{1700}));
  EXPECT_THROW(subtract(base, run), MeasurementError);  // the baseline larger than the run

  EstimatedRun e = estimate_p3(), e_base = estimate_p3();
  e_base.matrix[1] = 400, e_base.p2p_bytes = 400, e_base.iteration_bytes.resize(1);
  const EstimatedRun e_kernel = subtract(e, e_base);
  EXPECT_EQ(e_kernel.pair_bytes(0, 1), 600u);
  EXPECT_EQ(e_kernel.p2p_bytes, 2600u);
  EXPECT_EQ(e_kernel.collective_bytes, 0u);
  EXPECT_EQ(e_kernel.iteration_bytes, (std::vector<std::uint64_t>{1532}));
  EXPECT_EQ(compare_run(e_kernel, kernel).procs, 3);
}

TEST(MpipReport, ReadsTheDocumentedFormat) {
  const Measurement m = mpip(fixture("mpip_p4.txt"));
  EXPECT_EQ(m.tool, "mpiP");
  EXPECT_EQ(m.procs, 4);
  EXPECT_FALSE(m.has_pairs());
  EXPECT_EQ(m.p2p_bytes, 23040u);
  EXPECT_EQ(m.p2p_messages, 60u);
  EXPECT_EQ(m.sent_bytes, (std::vector<std::uint64_t>{3840, 7680, 7680, 3840}));
  EXPECT_EQ(m.sent_messages, (std::vector<std::uint64_t>{10, 20, 20, 10}));
  // 10 Allreduces of 8 B on 4 ranks: 40 records, logical volume 2 (N-1) m each.
  EXPECT_EQ(m.collective_calls, 10u);
  EXPECT_EQ(m.collective_bytes, 10u * 2 * 3 * 8);
  ASSERT_EQ(m.sites.size(), 2u);
  EXPECT_EQ(m.sites[0].call, "Isend");
  EXPECT_EQ(m.sites[0].location, "heat2d_mpi.c:61");
  EXPECT_EQ(m.sites[1].calls, 40u);  // every rank records the call
  ASSERT_EQ(m.notes.size(), 1u);
  EXPECT_NE(m.notes[0].find("Scatter"), std::string::npos);
}

// mpiP 3.5's own report of examples/heat2d/heat2d_mpi.c without its
// MPI_Pcontrol calls (mpiP resets at the counter's iteration mark), 48 x 48,
// 10 steps, 4 ranks, built without source lookup: call sites are
// addresses, one per rank. The PMPI counter measures 15360 point-to-point
// bytes in 80 messages; mpiP also counts the Sendrecvs to MPI_PROC_NULL on
// the grid's edges, as many again.
TEST(MpipReport, ReadsARealReport) {
  const Measurement m = mpip(fixture("mpip_heat2d_p4.txt"));
  EXPECT_EQ(m.procs, 4);
  EXPECT_EQ(m.p2p_bytes, 2u * 15360);
  EXPECT_EQ(m.p2p_messages, 2u * 80);
  EXPECT_EQ(m.sent_bytes, (std::vector<std::uint64_t>(4, 2 * 3840)));
  EXPECT_EQ(m.collective_calls, 10u + 1);  // Allreduce each step, the checksum's Reduce
  EXPECT_EQ(m.collective_bytes, 10u * 2 * 3 * 8 + 3 * 8);
  ASSERT_FALSE(m.sites.empty());
  EXPECT_EQ(m.sites[0].location.rfind("0x", 0), 0u) << m.sites[0].location;
}

TEST(MpipReport, WithoutPerRankSectionsTotalsOnly) {
  std::string text = fixture("mpip_p4.txt");
  text.erase(text.find("@--- Callsite Message Sent statistics"));
  const Measurement m = mpip(text);
  EXPECT_EQ(m.p2p_bytes, 23040u);
  EXPECT_EQ(m.collective_bytes, 480u);
  EXPECT_TRUE(m.sent_bytes.empty());
  EXPECT_EQ(m.notes.size(), 2u);
}

TEST(MpipReport, RefusesWhatIsNotOne) {
  EXPECT_THROW(mpip(fixture("pmpi_p3.json")), MeasurementError);
  std::string no_tasks = fixture("mpip_p4.txt");
  for (std::size_t at; (at = no_tasks.find("@ MPI Task Assignment")) != std::string::npos;) no_tasks[at + 2] = 'X';
  EXPECT_THROW(mpip(no_tasks), MeasurementError);
  std::string bad_row = fixture("mpip_p4.txt");
  bad_row.replace(bad_row.find("      3840\n"), 11, "      lots\n");
  EXPECT_THROW(mpip(bad_row), MeasurementError);
}

}  // namespace
}  // namespace commanalyzer

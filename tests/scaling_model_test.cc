// Extra-P's normal form recovered from metrics whose law is known.
#include "commanalyzer/report/scaling_model.h"

#include <cmath>

#include "gtest/gtest.h"

namespace commanalyzer {
namespace {

std::vector<Measurement> grid(const std::vector<double>& ns, const std::vector<double>& ps, double (*law)(double, double)) {
  std::vector<Measurement> data;
  for (double n : ns) {
    for (double p : ps) data.push_back({{n, p}, law(n, p)});
  }
  return data;
}

TEST(ScalingModel, HaloOfASquareGridIsNTimesRootP) {
  // A 2-D halo exchange: every process sends its four sides, n / sqrt(p).
  const auto law = [](double n, double p) { return 32.0 * n * std::sqrt(p); };
  const ScalingModel m = fit_scaling_model(grid({64, 96, 128, 192, 256}, {4, 16, 64, 256}, law), 2);
  EXPECT_EQ(m.formula({"n", "p"}), "32 * n * p^(1/2)");
  EXPECT_NEAR(m({2048, 1024}), law(2048, 1024), 1e-6 * law(2048, 1024));
  EXPECT_LT(m.smape, 1e-6);
}

TEST(ScalingModel, SumsAndLogarithms) {
  // A tree allreduce (log2 p) beside a volume term that does not depend on p.
  const auto law = [](double n, double p) { return 100 + 3 * n * n + 40 * std::log2(p); };
  const ScalingModel m = fit_scaling_model(grid({8, 16, 32, 64, 128}, {2, 4, 8, 16, 32}, law), 2);
  EXPECT_EQ(m.formula({"n", "p"}), "100 + 3 * n^2 + 40 * log2(p)");
  EXPECT_NEAR(m({1024, 512}), law(1024, 512), 1e-6 * law(1024, 512));
}

TEST(ScalingModel, ParametersTheMetricDoesNotDependOn) {
  // A setup cost beside n^(3/2) that no process count changes: p stays out
  // of the model, and 8 times the largest size is predicted exactly.
  const auto law = [](double n, double) { return 500 + 7 * std::pow(n, 1.5); };
  const ScalingModel m = fit_scaling_model(grid({16, 32, 48, 64, 96}, {4, 8, 16}, law), 2);
  EXPECT_EQ(m.formula({"n", "p"}), "500 + 7 * n^(3/2)");
  EXPECT_NEAR(m({768, 8}), law(768, 8), 1e-6 * law(768, 8));
}

TEST(ScalingModel, ConstantAndZeroMetrics) {
  const ScalingModel zero = fit_scaling_model(grid({8, 16, 32}, {2, 4, 8}, [](double, double) { return 0.0; }), 2);
  EXPECT_EQ(zero.formula({"n", "p"}), "0");
  const ScalingModel two = fit_scaling_model(grid({8, 16, 32}, {2, 4, 8}, [](double, double) { return 2.0; }), 2);
  EXPECT_EQ(two.formula({"n", "p"}), "2");
}

TEST(ScalingModel, OneParameter) {
  std::vector<Measurement> data;
  for (double n : {10.0, 20.0, 40.0, 80.0}) data.push_back({{n}, 5 * n * std::log2(n)});
  const ScalingModel m = fit_scaling_model(data, 1);
  EXPECT_EQ(m.formula({"n"}), "5 * n * log2(n)");
}

TEST(ScalingModel, BadInputIsRefused) {
  EXPECT_THROW(fit_scaling_model({}, 2), std::invalid_argument);
  EXPECT_THROW(fit_scaling_model({{{4, 0}, 1}}, 2), std::invalid_argument);
  EXPECT_THROW(fit_scaling_model({{{4}, 1}}, 2), std::invalid_argument);
}

}  // namespace
}  // namespace commanalyzer

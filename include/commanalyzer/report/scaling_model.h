// A metric as a function of its parameters (problem size n, processes p),
// in Extra-P's performance-model normal form (Calotoiu et al., SC13; the
// multi-parameter search of Calotoiu et al., CLUSTER 2016):
//
//   f(x) = c0 + sum_k c_k * prod_l x_l^(i_kl) * log2(x_l)^(j_kl)
//
// with i in Extra-P's default exponent set I = {0, 1/4, 1/3, 1/2, 2/3, 3/4,
// 1, 5/4, 4/3, 3/2, 5/3, 7/4, 2, 9/4, 7/3, 5/2, 8/3, 11/4, 3} and j in
// J = {0, 1, 2}.
//
//   std::vector<Measurement> data = {{{16, 4}, 1024}, ...};
//   const ScalingModel m = fit_scaling_model(data, 2);
//   m.formula({"n", "p"});   // "64 * n * p^(1/2)"
//   m({128, 16});            // the prediction
//
// The search is Extra-P's: per parameter, the single term x^i log2(x)^j
// that best explains the metric along each line of the measurement grid
// where the other parameters are fixed; then every additive and
// multiplicative combination of those terms, each fitted by least squares
// over all points, the one with the least leave-one-out error (SMAPE) kept.
// A hypothesis that fits no better than one with fewer terms loses to it.
#ifndef COMMANALYZER_SCALING_MODEL_H_
#define COMMANALYZER_SCALING_MODEL_H_

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace commanalyzer {

struct Measurement {
  std::vector<double> point;  // one value per parameter
  double value = 0;
};

// x^(num/den) * log2(x)^log of one parameter.
struct TermFactor {
  std::size_t param = 0;
  int num = 0, den = 1, log = 0;
  double operator()(std::span<const double> x) const {
    const double v = x[param];
    return std::pow(v, static_cast<double>(num) / den) * std::pow(std::log2(v), log);
  }
  bool constant() const { return num == 0 && log == 0; }
};

struct ScalingModel {
  double constant = 0;
  std::vector<std::vector<TermFactor>> terms;  // each a product of factors
  std::vector<double> coefficients;            // one per term
  double smape = 0;                            // leave-one-out, in percent

  double operator()(std::span<const double> x) const {
    double f = constant;
    for (std::size_t k = 0; k < terms.size(); ++k) f += coefficients[k] * term_value(terms[k], x);
    return f;
  }
  double operator()(std::initializer_list<double> x) const { return (*this)(std::span<const double>(x.begin(), x.size())); }
  static double term_value(const std::vector<TermFactor>& term, std::span<const double> x) {
    double v = 1;
    for (const TermFactor& f : term) v *= f(x);
    return v;
  }

  // "100 + 3 * n^2 + 40 * log2(p)"; a zero constant is left out.
  std::string formula(const std::vector<std::string>& names) const {
    std::string out = constant != 0 || terms.empty() ? number(constant) : "";
    for (std::size_t k = 0; k < terms.size(); ++k) {
      const double c = coefficients[k];
      if (out.empty()) {
        out = c < 0 ? "-" + number(-c) : number(c);
      } else {
        absl::StrAppend(&out, c < 0 ? " - " : " + ", number(std::fabs(c)));
      }
      for (const TermFactor& f : terms[k]) {
        const std::string& x = names[f.param];
        if (f.num != 0) {
          absl::StrAppend(&out, " * ", x);
          if (f.num != f.den) absl::StrAppend(&out, f.den == 1 ? absl::StrCat("^", f.num) : absl::StrCat("^(", f.num, "/", f.den, ")"));
        }
        if (f.log != 0) absl::StrAppend(&out, " * log2(", x, ")", f.log == 1 ? "" : absl::StrCat("^", f.log));
      }
    }
    return out;
  }

 private:
  static std::string number(double c) {
    if (c == 0) return "0";
    return std::fabs(c) >= 1e6 || std::fabs(c) < 1e-3 ? absl::StrFormat("%.4g", c) : absl::StrFormat("%.6g", c);
  }
};

namespace scaling_model_internal {

// Extra-P's default exponents: quarters and thirds up to 3.
inline std::vector<std::pair<int, int>> exponents() {
  return {{0, 1}, {1, 4}, {1, 3}, {1, 2}, {2, 3}, {3, 4}, {1, 1}, {5, 4}, {4, 3}, {3, 2},
          {5, 3}, {7, 4}, {2, 1}, {9, 4}, {7, 3}, {5, 2}, {8, 3}, {11, 4}, {3, 1}};
}

// Symmetric mean absolute percentage error of predictions against values.
inline double smape(std::span<const double> predicted, std::span<const double> actual) {
  double sum = 0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const double d = std::fabs(predicted[i]) + std::fabs(actual[i]);
    sum += d == 0 ? 0 : 2 * std::fabs(predicted[i] - actual[i]) / d;
  }
  return actual.empty() ? 0 : 100 * sum / static_cast<double>(actual.size());
}

// Least squares c0 + sum c_k term_k over `rows` of data; the coefficients,
// or nothing when the system is rank deficient.
inline bool least_squares(const std::vector<Measurement>& data, std::span<const std::size_t> rows,
                          const std::vector<std::vector<TermFactor>>& terms, ScalingModel* m) {
  Eigen::MatrixXd a(rows.size(), terms.size() + 1);
  Eigen::VectorXd b(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const Measurement& d = data[rows[r]];
    a(r, 0) = 1;
    for (std::size_t k = 0; k < terms.size(); ++k) a(r, k + 1) = ScalingModel::term_value(terms[k], d.point);
    b(r) = d.value;
  }
  const auto qr = a.colPivHouseholderQr();
  if (qr.rank() < a.cols()) return false;
  const Eigen::VectorXd c = qr.solve(b);
  m->terms = terms;
  m->constant = c(0);
  m->coefficients.assign(c.data() + 1, c.data() + c.size());
  return true;
}

// The hypothesis fitted on all of `rows`, with its leave-one-out SMAPE
// (infinite when some fit is underdetermined).
inline ScalingModel evaluate(const std::vector<Measurement>& data, const std::vector<std::size_t>& rows,
                             const std::vector<std::vector<TermFactor>>& terms) {
  ScalingModel m;
  m.smape = std::numeric_limits<double>::infinity();
  if (rows.size() < terms.size() + 2 || !least_squares(data, rows, terms, &m)) return m;
  std::vector<double> predicted, actual;
  std::vector<std::size_t> rest;
  for (std::size_t out = 0; out < rows.size(); ++out) {
    rest.clear();
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (r != out) rest.push_back(rows[r]);
    }
    ScalingModel without;
    if (!least_squares(data, rest, terms, &without)) return m;
    predicted.push_back(without(data[rows[out]].point));
    actual.push_back(data[rows[out]].value);
  }
  m.smape = smape(predicted, actual);
  return m;
}

// Of two hypotheses, the one that explains the data better; with equal
// errors (to a relative 1e-9, or both exact), the one with fewer terms.
inline bool better(const ScalingModel& a, const ScalingModel& b) {
  if (!std::isfinite(b.smape)) return std::isfinite(a.smape);
  if (!std::isfinite(a.smape)) return false;
  const double tolerance = 1e-9 * std::max(1.0, std::max(a.smape, b.smape));
  if (std::fabs(a.smape - b.smape) > tolerance) return a.smape < b.smape;
  return a.terms.size() < b.terms.size();
}

// The single factor x_param^i log2(x_param)^j that best explains the
// metric along every line of the grid where the other parameters are
// fixed (summed error); the constant when the parameter has fewer than 3
// values on every line.
inline TermFactor best_factor(const std::vector<Measurement>& data, std::size_t param) {
  std::map<std::vector<double>, std::vector<std::size_t>> lines;
  for (std::size_t r = 0; r < data.size(); ++r) {
    std::vector<double> others = data[r].point;
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(param));
    lines[others].push_back(r);
  }
  TermFactor best{param, 0, 1, 0};
  double best_error = std::numeric_limits<double>::infinity();
  for (const auto& [num, den] : exponents()) {
    for (int log = 0; log <= 2; ++log) {
      const TermFactor f{param, num, den, log};
      const std::vector<std::vector<TermFactor>> terms =
          f.constant() ? std::vector<std::vector<TermFactor>>{} : std::vector<std::vector<TermFactor>>{{f}};
      double error = 0;
      std::size_t used = 0;
      for (const auto& [key, rows] : lines) {
        if (rows.size() < 3) continue;
        error += evaluate(data, rows, terms).smape;
        ++used;
      }
      if (used == 0) continue;
      // Ties keep the simpler factor (earlier: smaller exponents, no log).
      if (!std::isfinite(best_error) || error < best_error - 1e-9 * std::max(1.0, best_error)) best_error = error, best = f;
    }
  }
  return best;
}

}  // namespace scaling_model_internal

// Fits `data` (each point with `params` values, positive) in the normal
// form. Throws std::invalid_argument on an empty or malformed input.
inline ScalingModel fit_scaling_model(const std::vector<Measurement>& data, std::size_t params) {
  namespace in = scaling_model_internal;
  if (data.empty()) throw std::invalid_argument("scaling model: no measurements");
  for (const Measurement& d : data) {
    if (d.point.size() != params) throw std::invalid_argument("scaling model: a point with the wrong number of parameters");
    for (double x : d.point) {
      if (!(x > 0)) throw std::invalid_argument("scaling model: parameters must be positive");
    }
  }
  std::vector<std::size_t> all(data.size());
  for (std::size_t r = 0; r < data.size(); ++r) all[r] = r;
  // Per parameter its best factor; then every combination: each non-empty
  // subset of the parameters' factors as one product term, and sums of
  // such terms (for two parameters: a, b, a + b, a*b, a*b + a, a*b + b,
  // a*b + a + b).
  std::vector<TermFactor> factors;
  for (std::size_t l = 0; l < params; ++l) {
    const TermFactor f = in::best_factor(data, l);
    if (!f.constant()) factors.push_back(f);
  }
  std::vector<std::vector<TermFactor>> products;
  for (unsigned mask = 1; mask < (1u << factors.size()); ++mask) {
    std::vector<TermFactor> term;
    for (std::size_t k = 0; k < factors.size(); ++k) {
      if (mask & (1u << k)) term.push_back(factors[k]);
    }
    products.push_back(std::move(term));
  }
  ScalingModel best = in::evaluate(data, all, {});
  for (unsigned mask = 1; mask < (1u << products.size()); ++mask) {
    std::vector<std::vector<TermFactor>> terms;
    for (std::size_t k = 0; k < products.size(); ++k) {
      if (mask & (1u << k)) terms.push_back(products[k]);
    }
    ScalingModel m = in::evaluate(data, all, terms);
    if (in::better(m, best)) best = std::move(m);
  }
  if (!std::isfinite(best.smape)) {  // too few points for any hypothesis: the mean
    best = ScalingModel{};
    for (const Measurement& d : data) best.constant += d.value / static_cast<double>(data.size());
  }
  // A constant within the solve's rounding of the largest value is zero.
  double largest = 0;
  for (const Measurement& d : data) largest = std::max(largest, std::fabs(d.value));
  if (std::fabs(best.constant) <= 1e-9 * largest) best.constant = 0;
  return best;
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_SCALING_MODEL_H_

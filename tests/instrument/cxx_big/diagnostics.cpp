// diagnostics.cpp: probes, statistics, histogram, checksum.
#include "tests/instrument/cxx_big/diagnostics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

namespace thermo {

FieldStats field_stats(const std::vector<double>& values, const std::vector<double>& weights) {
  FieldStats s;
  if (values.empty()) return s;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  s.min = *lo;
  s.max = *hi;
  s.argmin = static_cast<int>(lo - values.begin());
  s.argmax = static_cast<int>(hi - values.begin());
  double wsum = 0.0, first = 0.0, second = 0.0;
  for (size_t i = 0; i < values.size(); ++i) {
    const double w = i < weights.size() ? weights[i] : 1.0;
    wsum += w;
    first += w * values[i];
    second += w * values[i] * values[i];
  }
  if (wsum > 0.0) {
    s.mean = first / wsum;
    s.rms = std::sqrt(second / wsum);
  }
  return s;
}

void ProbeSet::add(const Mesh& mesh, const std::string& label, const Vec3& point) {
  Probe probe{label, point, -1, {}};
  for (int e = 0; e < mesh.num_elements() && probe.element < 0; ++e) {
    const Hex8::Coords x = mesh.element_coords(e);
    Box3 box;
    for (const Vec3& corner : x) box.grow(corner);
    if (!box.contains(point, 1e-12)) continue;
    Vec3 xi;
    if (Hex8::inverse_map(x, point, xi)) {
      probe.element = e;
      probe.shape = Hex8::shape(xi);
    }
  }
  probes_.push_back(std::move(probe));
}

std::vector<double> ProbeSet::sample(const Mesh& mesh, const std::vector<double>& nodal) const {
  std::vector<double> out;
  out.reserve(probes_.size());
  for (const Probe& p : probes_) {
    if (p.element < 0) {
      out.push_back(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    double v = 0.0;
    const HexNodes& conn = mesh.element(p.element);
    for (int a = 0; a < Hex8::kNodes; ++a) v += p.shape[a] * nodal[conn[a]];
    out.push_back(v);
  }
  return out;
}

std::string ProbeSet::report(const Mesh& mesh, const std::vector<double>& nodal) const {
  const std::vector<double> values = sample(mesh, nodal);
  std::string out;
  char line[200];
  for (size_t i = 0; i < probes_.size(); ++i) {
    const Probe& p = probes_[i];
    if (p.element < 0) {
      std::snprintf(line, sizeof line, "  probe %-8s (%.4f, %.4f, %.4f): outside the mesh\n", p.label.c_str(),
                    p.point[0], p.point[1], p.point[2]);
    } else {
      std::snprintf(line, sizeof line, "  probe %-8s (%.4f, %.4f, %.4f): %.6f in element %d\n", p.label.c_str(),
                    p.point[0], p.point[1], p.point[2], values[i], p.element);
    }
    out += line;
  }
  return out;
}

std::string histogram(const std::vector<double>& values, int bins, int width) {
  if (values.empty() || bins < 1) return "";
  const auto [lo_it, hi_it] = std::minmax_element(values.begin(), values.end());
  const double lo = *lo_it, hi = *hi_it;
  const double span = hi > lo ? hi - lo : 1.0;
  std::map<int, int> counts;  // only the bins that occur
  for (double v : values) {
    const int b = std::min(bins - 1, static_cast<int>((v - lo) / span * bins));
    ++counts[b];
  }
  int peak = 0;
  for (const auto& [bin, count] : counts) peak = std::max(peak, count);
  std::string out;
  char line[160];
  for (int b = 0; b < bins; ++b) {
    const auto it = counts.find(b);
    const int count = it == counts.end() ? 0 : it->second;
    const int bar = peak > 0 ? (count * width + peak - 1) / peak : 0;
    std::snprintf(line, sizeof line, "  %10.4f .. %10.4f %6d ", lo + span * b / bins, lo + span * (b + 1) / bins,
                  count);
    out += line;
    out.append(static_cast<size_t>(bar), '#');
    out += '\n';
  }
  return out;
}

double checksum(const State& state) {
  double a = 0.0, b = 0.0;
  for (size_t i = 0; i < state.temperature.size(); ++i) a += state.temperature[i] * (1.0 + static_cast<double>(i % 7) / 7.0);
  for (size_t e = 0; e < state.concentration.size(); ++e) {
    b += state.concentration[e] * (1.0 + static_cast<double>(e % 5) / 5.0);
  }
  return a + 1000.0 * b;
}

}  // namespace thermo

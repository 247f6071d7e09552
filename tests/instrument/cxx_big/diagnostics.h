// diagnostics.h: what the run reports about its solution.
//
// Point probes (located once by a bounding-box search plus a Newton inverse
// map of the trilinear element, then interpolated), weighted field
// statistics, a text histogram, and a checksum that a changed result cannot
// keep by accident: every entry is weighted by a factor depending on its
// index, so a permutation or a single changed value shows.
#ifndef CXX_BIG_DIAGNOSTICS_H_
#define CXX_BIG_DIAGNOSTICS_H_

#include <string>
#include <vector>

#include "tests/instrument/cxx_big/mesh.h"
#include "tests/instrument/cxx_big/operators.h"

namespace thermo {

struct FieldStats {
  double min = 0.0, max = 0.0;
  double mean = 0.0;  // weighted
  double rms = 0.0;   // weighted
  int argmin = -1, argmax = -1;
};

// Statistics of values[i] with weights[i] (e.g. capacities or volumes).
FieldStats field_stats(const std::vector<double>& values, const std::vector<double>& weights);

class ProbeSet {
 public:
  // Locates the point; points outside the mesh are kept and reported as such.
  void add(const Mesh& mesh, const std::string& label, const Vec3& point);
  int size() const { return static_cast<int>(probes_.size()); }
  // Interpolated nodal field at every probe; NaN outside the mesh.
  std::vector<double> sample(const Mesh& mesh, const std::vector<double>& nodal) const;
  std::string report(const Mesh& mesh, const std::vector<double>& nodal) const;

 private:
  struct Probe {
    std::string label;
    Vec3 point;
    int element = -1;
    Hex8::Values shape;
  };
  std::vector<Probe> probes_;
};

// "lo .. hi  count  ####" lines, `bins` equal bins between min and max.
std::string histogram(const std::vector<double>& values, int bins, int width = 40);

// Index-weighted sums of both fields, mixed into one number.
double checksum(const State& state);

}  // namespace thermo

#endif  // CXX_BIG_DIAGNOSTICS_H_

// simulation.h: configuration and the driver of one run.
//
// A run sets up the mesh (generate, renumber, build topology), the materials
// by layer, the boundary conditions, the conduction and transport
// operators, the initial state (a hot spot and a front of reactant), and
// then advances in time with a globally reduced stable step. The time loop
// is the region of interest for CommAnalyzer; each step is one iteration.
#ifndef CXX_BIG_SIMULATION_H_
#define CXX_BIG_SIMULATION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tests/instrument/cxx_big/diagnostics.h"
#include "tests/instrument/cxx_big/mesh.h"
#include "tests/instrument/cxx_big/operators.h"
#include "tests/instrument/cxx_big/physics.h"
#include "tests/instrument/cxx_big/timestep.h"

namespace thermo {

struct Config {
  int nx = 6, ny = 6, nz = 6;
  int steps = 10;                // at most this many steps ...
  double end_time = 600.0;       // ... and no further than this time (s)
  int quadrature = 2;            // Gauss points per direction
  double jitter = 0.15;          // interior node perturbation (fraction of a cell)
  double twist = 0.3;            // radians over the height
  double grading = 1.25;         // cell growth ratio along x
  double cfl = 0.8;              // fraction of the stable step
  double velocity = 0.004;       // mean flow speed (m/s)
  std::string flux = "blend:upwind:central:0.25";
  std::string integrator = "ssprk2";
  std::string materials = "steel,composite,ceramic";  // bottom to top
  std::string layout = "layers";                      // layers | checker | uniform
  int report_every = 5;
  bool scramble = true;   // generate with a random numbering, as if read from a file
  bool renumber = true;   // then restore locality (RCM nodes, Morton elements)
  uint64_t seed = 2024;

  std::string describe() const;
};

// Parses "[n] [steps] [key=value ...]" (n sets nx = ny = nz). Throws
// std::invalid_argument with a message naming the bad argument.
Config parse_config(const std::vector<std::string>& args);
std::string usage(const std::string& program);

struct StepRecord {
  int step;
  double time, dt;
  double max_rate;       // max |dT/dt| over the nodes
  double species;        // amount of reactant in the domain
  double energy;         // thermal energy
};

class Simulation {
 public:
  explicit Simulation(Config config);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Builds everything; prints a summary of the set-up to stdout.
  void setup();
  // The time loop (the CommAnalyzer region).
  void run();
  // Final statistics, probes, histogram and the checksum.
  void report() const;

  const State& state() const { return state_; }
  const std::vector<StepRecord>& history() const { return history_; }

 private:
  void build_mesh();
  void assign_materials();
  void build_operators();
  void initialise();

  Config config_;
  MaterialLibrary library_;
  std::unique_ptr<CoordinateMap> map_;
  std::vector<std::unique_ptr<Material>> materials_;
  std::unique_ptr<Mesh> mesh_;
  std::unique_ptr<HeatOperator> heat_;
  std::unique_ptr<SpeciesTransport> species_;
  std::unique_ptr<CoupledSystem> system_;
  std::unique_ptr<TimeIntegrator> integrator_;
  State state_;
  double time_ = 0.0;
  Box3 domain_;
  std::vector<StepRecord> history_;
  ProbeSet probes_;
};

}  // namespace thermo

#endif  // CXX_BIG_SIMULATION_H_

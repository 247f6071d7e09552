// cxx_big: a coupled heat-conduction / reacting-flow solver on an
// unstructured hexahedral mesh, written as a test program for CommAnalyzer's
// C++ support (classes, templates, virtual dispatch, std containers and
// algorithms, lambdas, std::function, unique_ptr, exceptions in set-up).
//
// Usage: cxx_big [n] [steps] [key=value ...]   (cxx_big help for the keys)
//        cxx_big check                          (self-checks, exit 0 if all pass)
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/instrument/cxx_big/selfcheck.h"
#include "tests/instrument/cxx_big/simulation.h"

int main(int argc, char** argv) {
  // Messages use a fixed program name: the output must not depend on the
  // path the binary runs from.
  const std::string program = "cxx_big";
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 1 && (args[0] == "help" || args[0] == "--help")) {
    std::printf("%s", thermo::usage(program).c_str());
    return 0;
  }
  if (args.size() == 1 && args[0] == "check") return thermo::run_self_checks() == 0 ? 0 : 1;

  thermo::Config config;
  try {
    config = thermo::parse_config(args);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: %s\n%s", program.c_str(), e.what(), thermo::usage(program).c_str());
    return 1;
  }
  try {
    thermo::Simulation simulation(config);
    simulation.setup();
    simulation.run();
    simulation.report();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), e.what());
    return 2;
  }
  return 0;
}

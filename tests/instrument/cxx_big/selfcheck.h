// selfcheck.h: consistency checks of the solver's building blocks.
//
// `cxx_big check` runs them: quadrature exactness, shape function
// identities, small dense algebra, mesh topology counts and volumes,
// renumbering invariants, the finite element patch test on a distorted mesh,
// discrete conservation of the finite volume transport, steady-state
// preservation by every time integrator, flux factory parsing, and probe
// location. Each prints one line; the result is the number of failures.
#ifndef CXX_BIG_SELFCHECK_H_
#define CXX_BIG_SELFCHECK_H_

namespace thermo {

int run_self_checks();

}  // namespace thermo

#endif  // CXX_BIG_SELFCHECK_H_

// Loop control is not a decision on data (DESIGN.md): a comparison of an
// induction variable with a bound, even a bound loaded from memory (CSR
// row pointers: `p < rowptr[i + 1]`) or computed from several values
// (`k < nx * ny`), and the guard of a rotated loop, which compares its
// start with its bound (`rowptr[i] < rowptr[i + 1]`, `n > 0`). Each
// process of the SPMD program runs its own iterations; the bounds are
// structure, like an index used as an address. A branch on loop control
// gets no __ca_use (label_demand.h).
#ifndef COMMANALYZER_INSTRUMENT_PASS_LOOP_CONTROL_H_
#define COMMANALYZER_INSTRUMENT_PASS_LOOP_CONTROL_H_

#include "llvm/IR/Value.h"

namespace commanalyzer::pass {

bool isLoopControl(llvm::Value *C);

} // namespace commanalyzer::pass

#endif // COMMANALYZER_INSTRUMENT_PASS_LOOP_CONTROL_H_

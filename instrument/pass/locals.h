// Locals still in memory after SROA (DESIGN.md, "Optimizer independence"):
// a small one is a stack temporary that holds labels, like the registers it
// would be in at a higher -O level or once its loops are unrolled; any other
// is memory like the heap. The runtime is told which is which where the
// local is allocated (runtime_abi.h, __ca_stack_temp / __ca_stack_mem).
#ifndef COMMANALYZER_INSTRUMENT_PASS_LOCALS_H_
#define COMMANALYZER_INSTRUMENT_PASS_LOCALS_H_

#include <cstdint>

#include "runtime_hooks.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Instructions.h"

namespace commanalyzer::pass {

// The static size of a small local (a temporary, runtime_abi.h), or 0.
uint64_t temporarySize(const llvm::AllocaInst &AI, const llvm::DataLayout &DL);

// Tell the runtime about a local still in memory, right after its alloca.
void announceLocal(llvm::AllocaInst &AI, const Runtime &RT, const llvm::DataLayout &DL);

} // namespace commanalyzer::pass

#endif // COMMANALYZER_INSTRUMENT_PASS_LOCALS_H_

// Arrays indexed indirectly (runtime_abi.h, __ca_indexed_indirectly): an
// access at an index read from an array (x[col[k]], a node list, a CSR row
// start plus an offset) marks the array it touches, which an MPI code
// distributes by a graph partition rather than in blocks. Decided from the
// address computation at compile time; the run only names the array.
//
//   if (indexedIndirectly(Addr)) emitIndirectMark(B, RT, Addr);
#ifndef COMMANALYZER_INSTRUMENT_PASS_INDIRECT_INDEX_H_
#define COMMANALYZER_INSTRUMENT_PASS_INDIRECT_INDEX_H_

#include "runtime_hooks.h"
#include "llvm/IR/IRBuilder.h"

namespace commanalyzer::pass {

// Addr's index is read from an array: integer arithmetic back from a
// variable GEP index reaches a load of an array element. Loop counters
// (phis) and sizes read from scalars (n, mesh->n) do not count.
bool indexedIndirectly(llvm::Value *Addr);

// Marks Addr's array as indexed indirectly, calling the runtime only for
// addresses outside the last array marked.
void emitIndirectMark(llvm::IRBuilder<> &B, const Runtime &RT, llvm::Value *Addr);

} // namespace commanalyzer::pass

#endif // COMMANALYZER_INSTRUMENT_PASS_INDIRECT_INDEX_H_

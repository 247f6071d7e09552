// Global and static arrays of data, 1 KiB or more (the runtime's
// kMinTrackedAllocation), are registered with __ca_array from a constructor
// that runs after the runtime's (priority 101): a data distribution names
// and aligns them as it does heap arrays.
#ifndef COMMANALYZER_INSTRUMENT_PASS_GLOBAL_ARRAYS_H_
#define COMMANALYZER_INSTRUMENT_PASS_GLOBAL_ARRAYS_H_

#include "array_sites.h"
#include "llvm/IR/Module.h"

namespace commanalyzer::pass {

// Whether M got a constructor (M changed). Each array's site (its
// declaration) goes to Sites, announced before its __ca_array.
bool registerGlobalArrays(llvm::Module &M, ArraySites &Sites);

} // namespace commanalyzer::pass

#endif // COMMANALYZER_INSTRUMENT_PASS_GLOBAL_ARRAYS_H_

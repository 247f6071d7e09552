// The label of one load of at most kMaxAccess bytes: __ca_load(P, Size), or,
// for a small access whose words are in a page of the runtime's page cache
// and all hold the same value v, v itself without a call (runtime_abi.h,
// "Memory"). Most loads of a sweep take the inline path, so it is the
// loads' share of the run's time.
#ifndef COMMANALYZER_INSTRUMENT_PASS_SHADOW_LOAD_H_
#define COMMANALYZER_INSTRUMENT_PASS_SHADOW_LOAD_H_

#include <cstdint>

#include "runtime_hooks.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/Alignment.h"

namespace commanalyzer::pass {

// A: what P is known to be a multiple of. B ends up after the merge.
llvm::Value *emitShadowLoad(llvm::IRBuilder<> &B, const Runtime &RT, llvm::Value *P,
                            uint64_t Size, llvm::Align A);

} // namespace commanalyzer::pass

#endif // COMMANALYZER_INSTRUMENT_PASS_SHADOW_LOAD_H_

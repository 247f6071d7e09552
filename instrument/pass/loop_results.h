// A loop's results (a reduction, a minimum, a carried value) as one value
// instance each, as a local holding the result would be at -O0: every later
// use reads that instance, not the loop's whole slice (a dot product used by
// n later stores would otherwise give each of them the n products: n^2
// flows). loopResults finds them before instrumenting; LoopResultHooks gives
// each its __ca_value call while instrumenting.
//
//   SmallPtrSet<PHINode *, 16> Results = loopResults(F, FAM);
//   LoopResultHooks Hooks(F, RT, Results, Sites);
//   if (Hooks.isResult(Phi)) Label = Hooks.instanceLabel(Phi, Label);
#ifndef COMMANALYZER_INSTRUMENT_PASS_LOOP_RESULTS_H_
#define COMMANALYZER_INSTRUMENT_PASS_LOOP_RESULTS_H_

#include "runtime_hooks.h"
#include "sites.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/PassManager.h"

namespace commanalyzer::pass {

// Where a loop's results (the values leaving a loop through its LCSSA phis,
// LCSSAPass ran) are used after it. The result is followed through the
// phis that merge it with other paths (a rotated loop's guard, an unrolled
// loop's remainder) to the phis whose value is used by something other
// than a phi: there it is final. Into another loop's header (the remainder
// loop goes on accumulating) it is not yet.
llvm::SmallPtrSet<llvm::PHINode *, 16> loopResults(llvm::Function &F,
                                                   llvm::FunctionAnalysisManager &FAM);

class LoopResultHooks {
public:
  LoopResultHooks(llvm::Function &F, const Runtime &RT,
                  const llvm::SmallPtrSetImpl<llvm::PHINode *> &Results, SiteTable &Sites)
      : F(F), RT(RT), Results(Results), Sites(Sites) {}

  bool isResult(llvm::PHINode *P) const { return Results.count(P); }

  // The label of result Orig from here on: __ca_value(Label, site) at the
  // head of its block, read by the value and the decision shadows alike
  // (the first one built is materialized).
  llvm::Value *instanceLabel(llvm::PHINode *Orig, llvm::Value *Label);

private:
  llvm::Function &F;
  const Runtime &RT;
  const llvm::SmallPtrSetImpl<llvm::PHINode *> &Results;
  SiteTable &Sites;
  llvm::DenseMap<llvm::PHINode *, llvm::Value *> Labels;
};

} // namespace commanalyzer::pass

#endif // COMMANALYZER_INSTRUMENT_PASS_LOOP_RESULTS_H_

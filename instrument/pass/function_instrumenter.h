// Instruments one function (pass.cpp, "Structure"): runs the demand
// analysis and store forwarding on the program's own IR, then visits the
// instructions in reverse post order (defs before uses), handing each to
// the part that instruments it: memory accesses to MemoryHooks, calls and
// returns to CallProtocol, and every other needed value to the label rule
// of value_rules.h, emitted by LabelCode. Shadow phis are created empty and
// filled at the end, when every incoming label exists.
//
//   FunctionInstrumenter(F, RT, loopResults(F, FAM), Sites).run();
#ifndef COMMANALYZER_INSTRUMENT_PASS_FUNCTION_INSTRUMENTER_H_
#define COMMANALYZER_INSTRUMENT_PASS_FUNCTION_INSTRUMENTER_H_

#include <cstdint>
#include <utility>

#include "call_protocol.h"
#include "label_code.h"
#include "label_demand.h"
#include "labels.h"
#include "loop_results.h"
#include "value_rules.h"
#include "memory_hooks.h"
#include "runtime_hooks.h"
#include "sites.h"
#include "store_forwarding.h"
#include "store_trees.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

namespace commanalyzer::pass {

class FunctionInstrumenter {
public:
  FunctionInstrumenter(llvm::Function &F, const Runtime &RT,
                       const llvm::SmallPtrSetImpl<llvm::PHINode *> &LoopResults,
                       SiteTable &Sites)
      : F(F), RT(RT), Sites(Sites), Demand(F, Reachable), Labels(RT, Forwarding), Code(F, RT),
        Memory(F, RT, Labels, Code, Sites, Trees), Calls(F, RT, Demand, Labels),
        Results(F, RT, LoopResults, Sites) {}

  void run();

private:
  void visit(llvm::Instruction &I);
  void visitCall(llvm::CallBase &CB);
  void visitBranch(llvm::Instruction &I, uint32_t Site);
  void computeShadow(llvm::Instruction &I);
  void computeDecisionShadow(llvm::Instruction &I);
  llvm::Value *emitCompute(llvm::IRBuilder<> &B, llvm::ArrayRef<llvm::Value *> Ops,
                           bool Decision);
  void fillPendingPhis();
  // ruleFor(I), for a phi as it was before instrumenting split any block
  // (a phi's rule reads the branches it joins).
  Rule rule(llvm::Instruction &I, llvm::SmallVectorImpl<llvm::Value *> &Ops) const;

  llvm::Function &F;
  const Runtime &RT;
  SiteTable &Sites;
  llvm::SmallPtrSet<llvm::BasicBlock *, 32> Reachable;
  LabelDemand Demand;
  StoreForwarding Forwarding;
  StoreTrees Trees;
  LabelTable Labels;
  LabelCode Code;
  MemoryHooks Memory;
  CallProtocol Calls;
  LoopResultHooks Results;
  struct PhiRule {
    Rule R;
    llvm::SmallVector<llvm::Value *, 4> Ops;
  };
  llvm::DenseMap<const llvm::PHINode *, PhiRule> PhiRules;
  // Shadow phis (ordinary and decision) and the phis they shadow.
  llvm::SmallVector<std::pair<llvm::PHINode *, llvm::PHINode *>, 16> PendingPhis;
  llvm::SmallVector<std::pair<llvm::PHINode *, llvm::PHINode *>, 16> PendingDecisionPhis;
};

} // namespace commanalyzer::pass

#endif // COMMANALYZER_INSTRUMENT_PASS_FUNCTION_INSTRUMENTER_H_

// The labels of a function's values while it is instrumented: the i64
// shadow each value got (Shadows), the decision label of the values whose
// decision label differs (DecisionShadows, label_demand.h), and, for a use
// after a dominating store of the value, the label that store returned
// (store_forwarding.h). Which use is asking is set before each instruction
// is visited, since forwarding depends on the use, not only on the value.
//
//   Labels.setCurrentUse(&I, nullptr);
//   Value *L = Labels.shadowOf(I.getOperand(0));
//   Labels.setShadow(&I, Code.emitCompute(B, {L}));
#ifndef COMMANALYZER_INSTRUMENT_PASS_LABELS_H_
#define COMMANALYZER_INSTRUMENT_PASS_LABELS_H_

#include <utility>

#include "runtime_hooks.h"
#include "store_forwarding.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Instructions.h"

namespace commanalyzer::pass {

class LabelTable {
public:
  LabelTable(const Runtime &RT, const StoreForwarding &Forwarding)
      : RT(RT), Forwarding(Forwarding) {}

  // The use whose label shadowOf gives: the instruction being visited (and
  // for a phi, which incoming use).
  void setCurrentUse(llvm::Instruction *User, const llvm::Use *U) { CurrentUse = {User, U}; }

  // The label of V. Constants, globals, pointers and values whose label was
  // never needed have label 0.
  llvm::Value *shadowOf(llvm::Value *V) const;
  llvm::Value *decisionShadowOf(llvm::Value *V) const;

  void setShadow(llvm::Value *V, llvm::Value *L) { Shadows[V] = L; }
  void setDecisionShadow(llvm::Value *V, llvm::Value *L) { DecisionShadows[V] = L; }
  // The label __ca_store returned for S, once S has been visited.
  void setStored(llvm::StoreInst *S, llvm::Value *L) { StoredLabels[S] = L; }

private:
  llvm::Value *forwardedLabel(llvm::Value *V) const;

  const Runtime &RT;
  const StoreForwarding &Forwarding;
  llvm::DenseMap<llvm::Value *, llvm::Value *> Shadows;         // value -> its i64 label
  llvm::DenseMap<llvm::Value *, llvm::Value *> DecisionShadows; // their decision labels
  llvm::DenseMap<llvm::StoreInst *, llvm::Value *> StoredLabels;
  std::pair<llvm::Instruction *, const llvm::Use *> CurrentUse = {nullptr, nullptr};
};

} // namespace commanalyzer::pass

#endif // COMMANALYZER_INSTRUMENT_PASS_LABELS_H_

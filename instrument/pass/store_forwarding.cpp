// Store-to-use forwarding (store_forwarding.h): by dominance, on the
// program's own blocks.
#include "store_forwarding.h"

#include "locals.h"
#include "runtime_hooks.h"
#include "value_rules.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"

using namespace llvm;

namespace commanalyzer::pass {

// Only stores whose label is worth replacing: a value computed here (not a
// load, whose label is already the leaf the store replicates), of a data
// type without pointer fields, stored in one piece.
void StoreForwarding::compute(Function &F, ArrayRef<Instruction *> Insts,
                              const SmallPtrSetImpl<BasicBlock *> &Reachable) {
  const DataLayout &DL = F.getParent()->getDataLayout();
  SmallVector<StoreInst *, 32> Stores;
  for (Instruction *I : Insts) {
    auto *SI = dyn_cast<StoreInst>(I);
    if (!SI || !instrumentedAddress(SI->getPointerOperand()))
      continue;
    Value *V = SI->getValueOperand();
    Type *T = V->getType();
    // A store into a temporary keeps the label: no instance to stand for.
    if (auto *AI = dyn_cast<AllocaInst>(
            getUnderlyingObject(SI->getPointerOperand()));
        AI && temporarySize(*AI, DL))
      continue;
    if (!isDataType(T) || hasPointer(T) || isa<LoadInst>(V) ||
        !(isa<Instruction>(V) || isa<Argument>(V)) ||
        DL.getTypeStoreSize(T).getFixedValue() > kMaxAccess ||
        V->hasOneUse())
      continue;
    Stores.push_back(SI);
  }
  if (Stores.empty())
    return;
  DominatorTree DT(F);
  // Insts is in reverse post order: of two stores that both dominate a
  // use, the later one is dominated by the earlier, and wins.
  for (StoreInst *SI : Stores) {
    Value *V = SI->getValueOperand();
    for (Use &U : V->uses()) {
      auto *User = dyn_cast<Instruction>(U.getUser());
      if (!User || User == SI || !Reachable.count(User->getParent()) ||
          !DT.dominates(SI, U))
        continue;
      if (isa<PHINode>(User))
        ForwardedPhi[&U] = SI;
      else
        Forwarded[{User, V}] = SI;
    }
  }
}

StoreInst *StoreForwarding::storeFor(Instruction *User, const Use *U, Value *V) const {
  if (!User || (Forwarded.empty() && ForwardedPhi.empty()))
    return nullptr;
  if (U) {
    if (U->get() != V)
      return nullptr;
    auto It = ForwardedPhi.find(U);
    return It == ForwardedPhi.end() ? nullptr : It->second;
  }
  auto It = Forwarded.find({User, V});
  return It == Forwarded.end() ? nullptr : It->second;
}

} // namespace commanalyzer::pass

// Store trees (store_trees.h): found on the program's own blocks, before
// any code is added.
#include "store_trees.h"

#include "locals.h"
#include "runtime_hooks.h"
#include "value_rules.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"

using namespace llvm;

namespace commanalyzer::pass {

namespace {

// A computation whose label is the union of its operands' and that needs
// only its ordinary label: it can be part of a tree.
bool computes(Instruction &I, const LabelDemand &Demand) {
  if (isa<PHINode>(I) || !isDataType(I.getType()) || !Demand.needsLabel(&I) ||
      Demand.needsOwnDecision(&I))
    return false;
  if (auto *CB = dyn_cast<CallBase>(&I); CB && classifyCall(*CB) != CallKind::Compute)
    return false;
  SmallVector<Value *, 4> Ops;
  return ruleFor(I, Ops) == Rule::Compute;
}

} // namespace

void StoreTrees::compute(ArrayRef<Instruction *> Insts, const LabelDemand &Demand,
                         const StoreForwarding &Forwarding) {
  for (Instruction *I : Insts) {
    auto *S = dyn_cast<StoreInst>(I);
    if (!S || !instrumentedAddress(S->getPointerOperand()))
      continue;
    const DataLayout &DL = S->getModule()->getDataLayout();
    auto *V = dyn_cast<Instruction>(S->getValueOperand());
    if (!V || V->getParent() != S->getParent() || hasPointer(V->getType()) ||
        DL.getTypeStoreSize(V->getType()).getFixedValue() > kMaxAccess ||
        !computes(*V, Demand) || Forwarding.storeFor(S, nullptr, V))
      continue;
    // A store into a temporary keeps the label itself.
    if (auto *AI = dyn_cast<AllocaInst>(getUnderlyingObject(S->getPointerOperand()));
        AI && temporarySize(*AI, DL))
      continue;
    // Every other use of the value stands for the stored instance.
    bool OnlyStored = true;
    for (Use &U : V->uses()) {
      auto *User = cast<Instruction>(U.getUser());
      if (User == S)
        OnlyStored &= U.getOperandNo() == 0;
      else
        OnlyStored &= Forwarding.storeFor(User, isa<PHINode>(User) ? &U : nullptr, V) == S;
    }
    if (!OnlyStored)
      continue;
    // The computations before it in the block used only by the tree.
    SmallPtrSet<Instruction *, 8> Tree;
    Tree.insert(V);
    for (Instruction *J = V->getPrevNode(); J; J = J->getPrevNode()) {
      if (!computes(*J, Demand))
        continue;
      bool Inside = !J->use_empty();
      for (User *U : J->users())
        Inside &= isa<Instruction>(U) && Tree.count(cast<Instruction>(U));
      if (Inside)
        Tree.insert(J);
    }
    // Its operands from outside: loaded values (a leaf, usually) or ones a
    // store stands for (the leaf it returned); constants have no label.
    bool Leafy = true;
    unsigned Leaves = 0;
    SmallPtrSet<Value *, 8> Seen;
    const SmallVector<Instruction *, 8> Nodes(Tree.begin(), Tree.end());
    forEachOutsideOperand(
        Nodes, [&](Instruction *I) { return Tree.count(I) != 0; },
        [&](Instruction *N, Value *Op) {
          if (isa<Constant>(Op))
            return;
          Leafy &= isa<LoadInst>(Op) || Forwarding.storeFor(N, nullptr, Op) != nullptr;
          Leaves += Seen.insert(Op).second;
        });
    if (!Leafy || Leaves < 3 || Leaves > kMaxStoreLeaves)
      continue;
    StoreTree &T = Trees[S];
    for (Instruction &J : *S->getParent())
      if (Tree.count(&J)) {
        T.Nodes.push_back(&J);
        Members.insert(&J);
      }
  }
}

} // namespace commanalyzer::pass

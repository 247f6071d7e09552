// Loop control (loop_control.h): recognised from the induction variables
// and the bounds they are compared with, on the IR as it is at every -O
// level (rotated, runtime-unrolled, or loading its bound twice at -O0).
#include "loop_control.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace commanalyzer::pass {
namespace {

// A phi advanced by a constant step around its loop (i = phi(i0, i + c)),
// or its next value i + c (the rotated loop's exit test); through casts.
bool isInduction(Value *V) {
  while (auto *Cast = dyn_cast<CastInst>(V))
    V = Cast->getOperand(0);
  auto steps = [](Value *Next, PHINode *P) {
    auto *BO = dyn_cast<BinaryOperator>(Next);
    if (!BO || (BO->getOpcode() != Instruction::Add &&
                BO->getOpcode() != Instruction::Sub))
      return false;
    return (BO->getOperand(0) == P && isa<Constant>(BO->getOperand(1))) ||
           (BO->getOperand(1) == P && isa<Constant>(BO->getOperand(0)));
  };
  auto isIV = [&](PHINode *P) {
    return any_of(P->incoming_values(),
                  [&](Value *In) { return steps(In, P); });
  };
  if (auto *P = dyn_cast<PHINode>(V))
    return isIV(P);
  if (auto *BO = dyn_cast<BinaryOperator>(V))
    for (Value *Op : BO->operands())
      if (auto *P = dyn_cast<PHINode>(Op))
        if (steps(BO, P) && is_contained(P->incoming_values(), BO))
          return true;
  return false;
}

// X (or a cast of X) starts an induction variable or is compared with one.
// A load counts with the other loads of its address: at -O0 a rotated
// loop's guard loads its bound once more (`p < rowptr[i + 1]` before the
// loop and in its latch; nothing proves that the body keeps it).
bool boundsInduction(Value *X) {
  SmallVector<Value *, 4> Loads = {X};
  if (auto *LI = dyn_cast<LoadInst>(X))
    for (User *U : LI->getPointerOperand()->users())
      if (auto *Other = dyn_cast<LoadInst>(U);
          Other && Other != LI && Other->getType() == LI->getType() &&
          Other->getPointerOperand() == LI->getPointerOperand())
        Loads.push_back(Other);
  SmallVector<Value *, 4> Forms(Loads.begin(), Loads.end());
  for (Value *L : Loads)
    for (User *U : L->users())
      if (isa<CastInst>(U))
        Forms.push_back(U);
  for (Value *Form : Forms)
    for (User *U : Form->users()) {
      if (auto *P = dyn_cast<PHINode>(U); P && isInduction(P))
        return true;
      if (auto *Cmp = dyn_cast<ICmpInst>(U))
        if (isInduction(Cmp->getOperand(0)) ||
            isInduction(Cmp->getOperand(1)))
          return true;
    }
  return false;
}

// C is integer arithmetic on loop bounds and induction variables only:
// the trip-count tests a runtime-unrolled loop adds above -O1
// (`((hi - lo) & 3) == 0`, `hi + ~lo < 3` on CSR row bounds) are loop
// control as much as the loop's own exit test, which -O0 and -O1 have
// alone.
bool computedFromBounds(Value *C) {
  SmallVector<Value *, 16> Work = {C};
  SmallPtrSet<Value *, 16> Seen;
  bool AnyBound = false;
  while (!Work.empty()) {
    Value *V = Work.pop_back_val();
    if (!Seen.insert(V).second || isa<Constant>(V))
      continue;
    if (Seen.size() > 32 || !V->getType()->isIntOrIntVectorTy())
      return false;
    auto *I = dyn_cast<Instruction>(V);
    if (I && (isa<BinaryOperator>(I) || isa<ICmpInst>(I) ||
              isa<CastInst>(I) || isa<FreezeInst>(I))) {
      for (Value *Op : I->operands())
        Work.push_back(Op);
      continue;
    }
    if (!isInduction(V) && !boundsInduction(V))
      return false;
    AnyBound = true;
  }
  return AnyBound;
}

} // namespace

bool isLoopControl(Value *C) {
  auto *Cmp = dyn_cast<ICmpInst>(C);
  if (Cmp) {
    Value *A = Cmp->getOperand(0), *B = Cmp->getOperand(1);
    if (isInduction(A) || isInduction(B))
      return true;
    auto bound = [](Value *X) {
      return isa<Constant>(X) || boundsInduction(X);
    };
    if (bound(A) && bound(B))
      return true;
  }
  return computedFromBounds(C);
}

} // namespace commanalyzer::pass

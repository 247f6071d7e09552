// Indirect indexing (indirect_index.h).
#include "indirect_index.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Operator.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace commanalyzer::pass {
namespace {

// An element of an array: an address that is not a scalar's (a global,
// a local, an argument or a field of one, at constant offsets).
bool isElementAddress(Value *Addr) {
  Value *P = Addr->stripPointerCasts();
  while (auto *G = dyn_cast<GEPOperator>(P)) {
    if (!G->hasAllConstantIndices())
      return true;
    P = G->getPointerOperand()->stripPointerCasts();
  }
  return !isa<GlobalValue>(P) && !isa<AllocaInst>(P) && !isa<Argument>(P) &&
         !isa<LoadInst>(P) && !isa<CallBase>(P);
}

} // namespace

bool indexedIndirectly(Value *Addr) {
  SmallVector<Value *, 8> Work;
  Value *P = Addr->stripPointerCasts();
  while (auto *G = dyn_cast<GEPOperator>(P)) {
    for (Value *Index : G->indices())
      if (!isa<Constant>(Index))
        Work.push_back(Index);
    P = G->getPointerOperand()->stripPointerCasts();
  }
  SmallPtrSet<Value *, 16> Seen;
  while (!Work.empty() && Seen.size() < 32) {
    Value *V = Work.pop_back_val();
    if (!Seen.insert(V).second)
      continue;
    if (auto *LI = dyn_cast<LoadInst>(V)) {
      if (LI->getType()->isIntegerTy() && isElementAddress(LI->getPointerOperand()))
        return true;
    } else if (auto *C = dyn_cast<CastInst>(V)) {
      Work.push_back(C->getOperand(0));
    } else if (auto *B = dyn_cast<BinaryOperator>(V)) {
      Work.push_back(B->getOperand(0));
      Work.push_back(B->getOperand(1));
    }
  }
  return false;
}

void emitIndirectMark(IRBuilder<> &B, const Runtime &RT, Value *Addr) {
  Value *A = B.CreatePtrToInt(Addr, RT.I64);
  Value *First = RT.tag(B.CreateLoad(RT.I64, RT.IndirectFirst), Runtime::kRunState);
  Value *End = RT.tag(B.CreateLoad(RT.I64, RT.IndirectEnd), Runtime::kRunState);
  Value *Outside = B.CreateICmpUGE(B.CreateSub(A, First), B.CreateSub(End, First));
  Instruction *SplitBefore = &*B.GetInsertPoint();
  MDNode *Cold = MDBuilder(B.getContext()).createBranchWeights(1, 1000);
  Instruction *Then = SplitBlockAndInsertIfThen(Outside, SplitBefore, /*Unreachable=*/false, Cold);
  IRBuilder<>(Then).CreateCall(RT.IndexedIndirectly, {Addr});
  B.SetInsertPoint(SplitBefore);
}

} // namespace commanalyzer::pass

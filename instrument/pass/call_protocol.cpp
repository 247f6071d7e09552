// The call protocol (call_protocol.h).
#include "call_protocol.h"

#include "label_code.h"
#include "value_rules.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"

using namespace llvm;

namespace commanalyzer::pass {

// Arguments: labels come from __ca_arg_labels, but only if the caller
// addressed them to this very function (see runtime_abi.h).
//
// A byval argument is a copy the call lowering makes of the caller's
// object, out of our sight; its slot carries the address of the caller's
// object instead of a label, and the copy is replayed with __ca_memcpy.
void CallProtocol::emitPrologue() {
  SmallVector<Argument *, 8> Args;
  for (Argument &A : F.args())
    if (A.getArgNo() < kMaxArgLabels &&
        (Demand.needsLabel(&A) || A.hasByValAttr()))
      Args.push_back(&A);
  if (Args.empty())
    return; // nothing to read; a stale __ca_arg_callee == F is harmless
  IRBuilder<> B(&*F.getEntryBlock().getFirstInsertionPt());
  Value *Callee = RT.tag(B.CreateLoad(RT.Ptr, RT.ArgCallee, "ca.callee"), Runtime::kAbiSlots);
  Value *Mine = B.CreateICmpEQ(Callee, &F, "ca.args.mine");
  RT.tag(B.CreateStore(ConstantPointerNull::get(cast<PointerType>(RT.Ptr)),
                       RT.ArgCallee),
         Runtime::kAbiSlots);
  const DataLayout &DL = F.getParent()->getDataLayout();
  for (Argument *A : Args) {
    Value *Slot = B.CreateConstInBoundsGEP2_64(RT.ArgLabelsTy, RT.ArgLabels,
                                               0, A->getArgNo());
    Value *L = RT.tag(B.CreateLoad(RT.I64, Slot), Runtime::kAbiSlots);
    if (A->hasByValAttr()) {
      // Branch-free (no block split in the entry block, where the allocas
      // are): from an instrumented caller copy Size bytes, else copy 0
      // bytes onto itself and clear the object: it holds data from an
      // uninstrumented source, so its first load makes input values.
      uint64_t Size = DL.getTypeAllocSize(A->getParamByValType());
      Value *Src = B.CreateSelect(Mine, B.CreateIntToPtr(L, RT.Ptr), A);
      Value *N = B.CreateSelect(Mine, B.getInt64(Size), B.getInt64(0));
      B.CreateCall(RT.MemCpy, {A, Src, N});
      B.CreateCall(RT.Clear, {A, B.CreateSub(B.getInt64(Size), N)});
      continue;
    }
    Labels.setShadow(A, B.CreateSelect(Mine, L, RT.zero(), A->getName() + ".ca"));
  }
}

void CallProtocol::visitCall(CallBase &CB) {
  CB.removeFnAttr(Attribute::Memory); // see CommAnalyzerPass::run
  IRBuilder<> B(&CB);
  bool AnyData = false;
  for (unsigned K = 0; K < CB.arg_size() && K < kMaxArgLabels; ++K) {
    Value *A = CB.getArgOperand(K);
    Value *Slot =
        B.CreateConstInBoundsGEP2_64(RT.ArgLabelsTy, RT.ArgLabels, 0, K);
    if (CB.isByValArgument(K)) // the source object's address, see the prologue
      RT.tag(B.CreateStore(B.CreatePtrToInt(A, RT.I64), Slot), Runtime::kAbiSlots);
    else if (isDataType(A->getType()))
      // Written even when 0, so the callee cannot see a stale label.
      RT.tag(B.CreateStore(Labels.shadowOf(A), Slot), Runtime::kAbiSlots);
    else
      continue;
    AnyData = true;
  }
  if (AnyData)
    RT.tag(B.CreateStore(CB.getCalledOperand(), RT.ArgCallee), Runtime::kAbiSlots);
  // A musttail call must be followed by ret: the callee's __ca_ret_* go
  // straight to our caller, which is exactly right.
  auto *CI = dyn_cast<CallInst>(&CB);
  if (!Demand.needsLabel(&CB) || (CI && CI->isMustTailCall()) ||
      isa<CallBrInst>(CB))
    return;
  RT.tag(B.CreateStore(B.getInt32(0), RT.RetValid), Runtime::kAbiSlots);
  IRBuilder<> A = builderAfter(CB);
  Value *Valid = RT.tag(A.CreateLoad(RT.I32, RT.RetValid), Runtime::kAbiSlots);
  Value *L = RT.tag(A.CreateLoad(RT.I64, RT.RetLabel), Runtime::kAbiSlots);
  Labels.setShadow(&CB, A.CreateSelect(A.CreateICmpNE(Valid, A.getInt32(0)), L,
                                       RT.computedBit(), "ca.ret"));
}

void CallProtocol::visitReturn(ReturnInst &RI) {
  Value *V = RI.getReturnValue();
  if (!V || !isDataType(V->getType()))
    return;
  if (auto *CI = dyn_cast_or_null<CallInst>(RI.getPrevNode()))
    if (CI->isMustTailCall())
      return;
  IRBuilder<> B(&RI);
  RT.tag(B.CreateStore(Labels.shadowOf(V), RT.RetLabel), Runtime::kAbiSlots);
  RT.tag(B.CreateStore(B.getInt32(1), RT.RetValid), Runtime::kAbiSlots);
}

} // namespace commanalyzer::pass

// The inline load path (shadow_load.h): a probe of the runtime's shadow
// cache, then of the page it points to, each on the likely branch.
#include "shadow_load.h"

#include "label_code.h"
#include "llvm/IR/MDBuilder.h"

using namespace llvm;

namespace commanalyzer::pass {

Value *emitShadowLoad(IRBuilder<> &B, const Runtime &RT, Value *P, uint64_t Size, Align A) {
  if (Size > kMaxInlineLoad)
    return B.CreateCall(RT.Load, {P, B.getInt32(Size)});
  Function &F = *B.GetInsertBlock()->getParent();
  LLVMContext &C = F.getContext();
  auto [SplitBefore, Head, Tail] = splitForInlinePath(B, "ca.load.done");
  BasicBlock *Probe = BasicBlock::Create(C, "ca.load.probe", &F, Tail);
  BasicBlock *Fast = BasicBlock::Create(C, "ca.load.fast", &F, Tail);
  BasicBlock *Slow = BasicBlock::Create(C, "ca.load.slow", &F, Tail);
  MDNode *Likely = MDBuilder(C).createBranchWeights(1000, 1);

  // An aligned access of at most a word lies in one word; an aligned
  // 8-byte access in an even word and the next, in the same page (pages
  // have an even number of words). Either needs no check of its last
  // word's page, only of the alignment the IR promises (a program that
  // breaks the promise takes the call). (Other accesses touch at most two
  // words when Size <= 8.)
  const uint64_t WordBytes = uint64_t(1) << kShadowWordShift;
  const bool OneWord = Size <= WordBytes && A.value() >= Size;
  const bool WordPair = Size == 2 * WordBytes && A.value() >= Size;

  // Head: is the page of the first word cached, and the last word in it?
  IRBuilder<> H(Head);
  Value *Addr = H.CreatePtrToInt(P, RT.I64);
  Value *W0 = H.CreateLShr(Addr, kShadowWordShift);
  Value *W1 = OneWord    ? W0
              : WordPair ? H.CreateAdd(W0, H.getInt64(1))
                         : H.CreateLShr(H.CreateAdd(Addr, H.getInt64(Size - 1)),
                                        kShadowWordShift);
  Value *Page0 = H.CreateLShr(W0, kShadowPageBits);
  Value *Slot = H.CreateLShr(
      H.CreateMul(Page0, H.getInt64(kShadowCacheMultiplier)), 64 - kShadowCacheBits);
  Value *Entry = H.CreateInBoundsGEP(RT.CacheTy, RT.ShadowCache,
                                     {H.getInt64(0), Slot});
  Value *Number = RT.tag(H.CreateLoad(RT.I64, Entry), Runtime::kCache);
  Value *Hit = H.CreateICmpEQ(Number, Page0);
  if (OneWord || WordPair)
    Hit = H.CreateAnd(Hit, H.CreateICmpEQ(H.CreateAnd(Addr, Size - 1),
                                          H.getInt64(0)));
  if (!OneWord && !WordPair) { // at most two words, both in the page
    if (Size > 1)
      Hit = H.CreateAnd(
          Hit, H.CreateICmpEQ(H.CreateLShr(W1, kShadowPageBits), Page0));
    if (Size > 4)
      Hit = H.CreateAnd(Hit, H.CreateICmpULT(H.CreateSub(W1, W0),
                                             H.getInt64(2)));
  }
  H.CreateCondBr(Hit, Probe, Slow, Likely);

  // Probe: the words hold one value?
  IRBuilder<> PB(Probe);
  Value *PagePtr = RT.tag(PB.CreateLoad(
      RT.Ptr, PB.CreateStructGEP(RT.CacheEntryTy, Entry, 1)), Runtime::kCache);
  const uint64_t Mask = (uint64_t(1) << kShadowPageBits) - 1;
  LoadInst *V0 = RT.tag(PB.CreateLoad(
      RT.I32, PB.CreateInBoundsGEP(RT.I32, PagePtr,
                                   PB.CreateAnd(W0, PB.getInt64(Mask)))),
      Runtime::kShadowPages);
  Value *Ok = PB.CreateICmpNE(V0, PB.getInt32(0));
  if (!OneWord && Size > 1) {
    Value *V1 = RT.tag(PB.CreateLoad(
        RT.I32, WordPair ? PB.CreateConstInBoundsGEP1_64(
                               RT.I32, V0->getPointerOperand(), 1)
                         : PB.CreateInBoundsGEP(
                               RT.I32, PagePtr,
                               PB.CreateAnd(W1, PB.getInt64(Mask)))),
        Runtime::kShadowPages);
    Ok = PB.CreateAnd(Ok, PB.CreateICmpEQ(V0, V1));
  }
  PB.CreateCondBr(Ok, Fast, Slow, Likely);

  IRBuilder<> FB(Fast);
  Value *Leaf = FB.CreateZExt(V0, RT.I64);
  FB.CreateBr(Tail);

  IRBuilder<> SB(Slow);
  Value *Called = SB.CreateCall(RT.Load, {P, SB.getInt32(Size)});
  SB.CreateBr(Tail);

  B.SetInsertPoint(SplitBefore); // the first instruction of Tail
  PHINode *L = B.CreatePHI(RT.I64, 2, "ca.load");
  L->addIncoming(Leaf, Fast);
  L->addIncoming(Called, Slow);
  return L;
}

} // namespace commanalyzer::pass

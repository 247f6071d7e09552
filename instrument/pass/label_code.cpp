// Label code (label_code.h). The inline union mirrors the runtime's join
// (runtime_abi.h): any change to one must be made to the other.
#include "label_code.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace commanalyzer::pass {

IRBuilder<> builderAfter(Instruction &I) {
  if (auto *II = dyn_cast<InvokeInst>(&I)) {
    Function &F = *II->getFunction();
    BasicBlock *From = II->getParent(), *To = II->getNormalDest();
    BasicBlock *Edge =
        BasicBlock::Create(F.getContext(), "ca.invoke.cont", &F, To);
    BranchInst::Create(To, Edge);
    II->setNormalDest(Edge);
    To->replacePhiUsesWith(From, Edge);
    return IRBuilder<>(Edge->getTerminator());
  }
  if (isa<PHINode>(I)) // after every phi of the block
    return IRBuilder<>(&*I.getParent()->getFirstInsertionPt());
  return IRBuilder<>(I.getNextNode());
}

InlinePath splitForInlinePath(IRBuilder<> &B, const char *TailName) {
  Instruction *SplitBefore = &*B.GetInsertPoint();
  BasicBlock *Head = SplitBefore->getParent();
  BasicBlock *Tail = Head->splitBasicBlock(SplitBefore, TailName);
  Head->getTerminator()->eraseFromParent();
  return {SplitBefore, Head, Tail};
}

// Equal labels (up to the computed bit) give LA | CA_COMPUTED_BIT, a zero
// and a label that label | CA_COMPUTED_BIT, two distinct small leaves
// their pair, and two distinct non-zero labels a new node from the
// runtime's run of free node slots while it lasts. The call is left for an
// exhausted run.
Value *LabelCode::emitUnion(IRBuilder<> &B, Value *LA, Value *LB) {
  if (Value *Reused = reusedUnion(B, LA, LB))
    return Reused;
  return emitInlineUnion(B, LA, LB);
}

// A union whose label is already known here, without the inline path, or
// null.
Value *LabelCode::reusedUnion(IRBuilder<> &B, Value *LA, Value *LB) {
  // LA = LA0 (+) LB0 with LB == LB0 or LA0 (up to the computed bit): the
  // code below would give LA | CA_COMPUTED_BIT on every path (LA is then
  // LB itself, or a node with LB as an operand, which the runtime also
  // tells), and so it is, without code: c + a * (b - c) joins c twice.
  // A select between such operands counts too (`if (d > m) m = d;` joins
  // the comparison's label with the maximum it picks).
  if (auto It = UnionOperands.find(stripComputed(LA));
      It != UnionOperands.end()) {
    auto IsOperand = [&](Value *V) {
      V = stripComputed(V);
      return V == It->second.first || V == It->second.second;
    };
    auto *Sel = dyn_cast<SelectInst>(stripComputed(LB));
    // LB a union of the same operands (the select's label joins the
    // comparison's, made from the same two values): LA again.
    auto LBOperands = UnionOperands.find(stripComputed(LB));
    if (IsOperand(LB) ||
        (Sel && IsOperand(Sel->getTrueValue()) &&
         IsOperand(Sel->getFalseValue())) ||
        (LBOperands != UnionOperands.end() &&
         IsOperand(LBOperands->second.first) &&
         IsOperand(LBOperands->second.second)))
      return B.CreateOr(LA, kComputedBit);
  }
  // The same two labels joined earlier in this block (a comparison and
  // the select it decides both join their operands): that union's label,
  // not a second node with the same leaves. Its phi heads the block, so
  // it dominates the insertion point.
  auto Earlier = UnionsByOperands.find(
      orderedPair(stripComputed(LA), stripComputed(LB)));
  if (Earlier != UnionsByOperands.end() &&
      Earlier->second->getParent() == B.GetInsertBlock())
    return Earlier->second;
  return nullptr;
}

Value *LabelCode::emitInlineUnion(IRBuilder<> &B, Value *LA, Value *LB) {
  LLVMContext &C = F.getContext();
  auto [SplitBefore, Head, Tail] = splitForInlinePath(B, "ca.union.done");
  BasicBlock *PairCheck = BasicBlock::Create(C, "ca.union.pair", &F, Tail);
  BasicBlock *Check = BasicBlock::Create(C, "ca.union.check", &F, Tail);
  BasicBlock *Bump = BasicBlock::Create(C, "ca.union.node", &F, Tail);
  BasicBlock *Slow = BasicBlock::Create(C, "ca.union.call", &F, Tail);
  MDNode *Likely = MDBuilder(C).createBranchWeights(1000, 1);

  IRBuilder<> H(Head);
  Value *A = H.CreateAnd(LA, ~kComputedBit);
  Value *Bv = H.CreateAnd(LB, ~kComputedBit);
  Value *Same = H.CreateOr(A, kComputedBit);
  H.CreateCondBr(H.CreateICmpEQ(A, Bv), Tail, PairCheck);

  // Two plain leaves below 2^CA_PAIR_SHIFT, neither 0: their pair.
  IRBuilder<> PCB(PairCheck);
  Value *Lo = PCB.CreateBinaryIntrinsic(Intrinsic::umin, A, Bv);
  Value *Hi = PCB.CreateBinaryIntrinsic(Intrinsic::umax, A, Bv);
  Value *Pair = PCB.CreateOr(PCB.CreateOr(PCB.CreateShl(Lo, kPairShift), Hi),
                             kPairBit | kComputedBit);
  // One operand 0 (a constant, or an accumulator's first step): the other,
  // computed. Lo is 0 exactly then.
  Value *LoZero = PCB.CreateICmpEQ(Lo, RT.zero());
  Value *IsPair = PCB.CreateAnd(
      PCB.CreateICmpULT(Hi, PCB.getInt64(uint64_t(1) << kPairShift)),
      PCB.CreateNot(LoZero));
  Value *PairOrOther = PCB.CreateSelect(LoZero, PCB.CreateOr(Hi, kComputedBit), Pair);
  PCB.CreateCondBr(PCB.CreateOr(IsPair, LoZero), Tail, Check);

  // Both operands non-zero and distinct from here on.
  IRBuilder<> CB(Check);
  Value *NextPtr = CB.CreateStructGEP(RT.NodeRunTy, RT.NodeRun, 1);
  Value *Next = RT.tag(CB.CreateLoad(RT.I64, NextPtr), Runtime::kRunState);
  Value *End = RT.tag(CB.CreateLoad(RT.I64, CB.CreateStructGEP(RT.NodeRunTy, RT.NodeRun, 2)),
                      Runtime::kRunState);
  CB.CreateCondBr(CB.CreateICmpNE(Next, End), Bump, Slow, Likely);

  // a (+) b is a itself when b is an operand of node a: f(x) - x, or a
  // decision accumulator joined with what it just selected. No new node,
  // as in the runtime's join (which also tries the other way round; here
  // that costs more in a register-tight loop than the nodes it saves).
  // The run is not empty, so the arena has a node 0 to read for a leaf.
  IRBuilder<> OB(Bump);
  Value *Base = RT.tag(OB.CreateLoad(RT.Ptr, RT.NodeRun), Runtime::kRunState); // field 0
  Value *AHoldsB = nodeHolds(OB, Base, A, Bv);
  Value *Kept = OB.CreateOr(A, kComputedBit);
  BasicBlock *Make = BasicBlock::Create(C, "ca.union.make", &F, Tail);
  OB.CreateCondBr(AHoldsB, Tail, Make);

  IRBuilder<> NB(Make);
  Value *Slot = NB.CreateInBoundsGEP(RT.NodeTy, Base, Next);
  RT.tag(NB.CreateStore(A, Slot), Runtime::kNodes);
  RT.tag(NB.CreateStore(Bv, NB.CreateStructGEP(RT.NodeTy, Slot, 1)), Runtime::kNodes);
  RT.tag(NB.CreateStore(NB.CreateAdd(Next, NB.getInt64(1)), NextPtr), Runtime::kRunState);
  Value *Node = NB.CreateOr(Next, kNodeBit | kComputedBit);
  NB.CreateBr(Tail);

  IRBuilder<> SB(Slow);
  Value *Called = SB.CreateCall(RT.Union, {LA, LB});
  SB.CreateBr(Tail);

  B.SetInsertPoint(SplitBefore); // the first instruction of Tail
  PHINode *P = B.CreatePHI(RT.I64, 5, "ca.union");
  P->addIncoming(Same, Head);
  P->addIncoming(PairOrOther, PairCheck);
  P->addIncoming(Kept, Bump);
  P->addIncoming(Node, Make);
  P->addIncoming(Called, Slow);
  UnionOperands[P] = {stripComputed(LA), stripComputed(LB)};
  UnionsByOperands[orderedPair(stripComputed(LA), stripComputed(LB))] = P;
  return P;
}

// Whether label N names a node of the arena at Base with X as an operand.
Value *LabelCode::nodeHolds(IRBuilder<> &OB, Value *Base, Value *N, Value *X) {
  Value *IsNode = OB.CreateICmpNE(OB.CreateAnd(N, kNodeBit), RT.zero());
  Value *Index = OB.CreateSelect(
      IsNode, OB.CreateAnd(N, ~(kNodeBit | kComputedBit)), RT.zero());
  Value *Op = OB.CreateInBoundsGEP(RT.NodeTy, Base, Index);
  Value *OpA = RT.tag(OB.CreateLoad(RT.I64, Op), Runtime::kNodes);
  Value *OpB = RT.tag(OB.CreateLoad(RT.I64, OB.CreateStructGEP(RT.NodeTy, Op, 1)),
                      Runtime::kNodes);
  return OB.CreateAnd(IsNode, OB.CreateOr(OB.CreateICmpEQ(OpA, X),
                                          OB.CreateICmpEQ(OpB, X)));
}

// Emit `FastCond ? FastVal : __ca_union(A, B)` with the call on a cold
// branch, leaving B positioned after the merge.
Value *LabelCode::unionUnless(IRBuilder<> &B, Value *FastCond, Value *FastVal,
                              Value *LA, Value *LB) {
  Instruction *SplitBefore = &*B.GetInsertPoint();
  BasicBlock *Head = SplitBefore->getParent();
  MDNode *Weights = MDBuilder(F.getContext()).createBranchWeights(1, 1000);
  Instruction *ThenTerm = SplitBlockAndInsertIfThen(
      B.CreateNot(FastCond), SplitBefore, /*Unreachable=*/false, Weights);
  IRBuilder<> TB(ThenTerm);
  Value *Slow = TB.CreateCall(RT.Union, {LA, LB});
  B.SetInsertPoint(SplitBefore); // now the first instruction of the tail
  PHINode *P = B.CreatePHI(RT.I64, 2, "ca.union");
  P->addIncoming(FastVal, Head);
  P->addIncoming(Slow, ThenTerm->getParent());
  return P;
}

std::pair<Value *, Value *> LabelCode::orderedPair(Value *X, Value *Y) {
  return std::less<Value *>()(X, Y) ? std::make_pair(X, Y) : std::make_pair(Y, X);
}

// V without the computed bits the pass or'ed into it: the same label but
// for that bit.
Value *LabelCode::stripComputed(Value *V) {
  while (auto *Or = dyn_cast<BinaryOperator>(V)) {
    auto *Bit = dyn_cast<ConstantInt>(Or->getOperand(1));
    if (Or->getOpcode() != Instruction::Or || !Bit ||
        Bit->getZExtValue() != kComputedBit)
      break;
    V = Or->getOperand(0);
  }
  return V;
}

Value *LabelCode::emitCompute(IRBuilder<> &B, ArrayRef<Value *> Labels) {
  SmallVector<Value *, 4> Ls;
  for (Value *L : Labels) {
    // An operand with no label (a constant) does not take part: x * 2.0 is
    // a one-operand computation on x.
    if (!isZeroLabel(L) && !is_contained(Ls, L))
      Ls.push_back(L);
  }
  if (Ls.empty())
    return RT.computedBit();
  Value *Acc = Ls[0];
  if (Ls.size() == 1)
    return B.CreateOr(Acc, kComputedBit);
  for (Value *L : drop_begin(Ls))
    Acc = emitUnion(B, Acc, L);
  return Acc;
}

Value *LabelCode::emitCombine(IRBuilder<> &B, Value *LA, Value *LB) {
  if (isZeroLabel(LA) || LA == LB)
    return LB;
  if (isZeroLabel(LB))
    return LA;
  Value *AZero = B.CreateICmpEQ(LA, RT.zero());
  Value *Fast = B.CreateOr(
      B.CreateOr(AZero, B.CreateICmpEQ(LB, RT.zero())), B.CreateICmpEQ(LA, LB));
  return unionUnless(B, Fast, B.CreateSelect(AZero, LB, LA), LA, LB);
}

} // namespace commanalyzer::pass

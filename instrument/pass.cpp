//===- instrument/pass.cpp - CommAnalyzer value-flow instrumentation ------===//
//
// An LLVM 16 new-pass-manager plugin that instruments a sequential program
// for the runtime ABI in instrument/runtime_abi.h. It is a small relative of
// DataFlowSanitizer: every SSA value of a data type (integer, floating point,
// vectors and aggregates of those) gets a 64-bit shadow *label*, labels are
// propagated along data dependences only, and the runtime owns shadow memory
// (stores call hooks; a load reads the runtime's cached shadow pages inline
// and calls its hook only when that does not settle it, and a union makes
// its label-DAG node inline from a run of slots the runtime hands out:
// runtime_abi.h).
//
// What carries a label and what does not (DESIGN.md, "Semantics contract"):
//   - pointers are structure, not values: no labels, address arithmetic and
//     index values used only in addresses never reach the loaded data;
//   - branch conditions and loop control reach no stored value (we only
//     follow data), but the data that decides a conditional branch or switch
//     is *consumed* there: every process of an SPMD program takes the same
//     branch, so it must know that data. The pass reports it with __ca_use
//     (a global residual tested only in a loop condition is an Allreduce);
//   - a load yields a leaf label (inline or from __ca_load); a copy-like
//     instruction (bitcast/trunc/zext/sext/extract) keeps its operand's label;
//     every arithmetic/logic/compare/math step is a *computation*: the label is
//     the union of the operand labels with CA_COMPUTED_BIT set.
//
// Structure (per function, like DFSan):
//   1. "needed" analysis: starting from the sinks (stores, returns, argument
//      passing) walk the data operands backwards; only those values get shadow
//      code. Branch conditions are sinks too, but only for the part of their
//      slice that can carry a value instance ("leafy": loads, call results,
//      arguments and what is computed from them): loop counters and other
//      values derived from constants alone get no shadow code, and a branch
//      on them no hook.
//   2. one pass over the instructions in reverse post order (defs before
//      uses): hooks for loads/stores/memcpy/memset/calls/returns, and shadow
//      code for the needed values. Shadow phis are created empty and filled at
//      the end, when every incoming label exists.
//
// Pipeline position: registerOptimizerLastEPCallback, which LLVM 16 also runs
// in the -O0 pipeline (buildO0DefaultPipeline invokes it), so one
// registration covers -O0 and -O1..-O3. The pass is a module pass marked
// isRequired(), so `optnone` (which -O0 puts on every function) does not skip
// it. The estimate must not depend on the -O level (DESIGN.md, "Optimizer
// independence"), so at -O0 the plugin first lifts optnone and noinline and
// runs LLVM's -O1 inliner pipeline (LiftOptNonePass), and before
// instrumenting SROA promotes locals on every function (on optnone IR given
// to `opt`, EarlyCSE, InstCombine, SimplifyCFG and LoopRotate +
// LoopIdiomRecognize do what -O1 does first);
// locals still in memory are announced to the runtime (small ones are stack
// temporaries holding labels); a store of a computed register gives the
// uses it dominates the stored instance's label (computeForwarding); loads
// from constant globals are constants. Above -O0, a few general passes
// (EarlyCSE, InstCombine, GVN) then clean up the label code, as clang does
// after MemorySanitizer; alias-scope metadata tells them that the runtime's
// memory and the program's never overlap.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Analysis/GlobalsModRef.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/GVN.h"
#include "llvm/Transforms/Scalar/LoopIdiomRecognize.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/LoopRotation.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Utils/LCSSA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "pass/global_arrays.h"
#include "pass/label_demand.h"
#include "pass/loop_results.h"
#include "pass/runtime_hooks.h"
#include "pass/sites.h"
#include "pass/value_rules.h"

using namespace llvm;
using namespace commanalyzer::pass;

namespace {

class FunctionInstrumenter {
public:
  FunctionInstrumenter(Function &F, Runtime &RT, const SmallPtrSetImpl<PHINode *> &LoopResults,
                       SiteTable &Sites)
      : F(F), RT(RT), DL(F.getParent()->getDataLayout()), Demand(F, Reachable),
        LoopResults(LoopResults), Sites(Sites) {}

  void run() {
    // Reverse post order: every non-phi operand is visited before its use.
    // Unreachable blocks are not instrumented (they may even contain
    // self-referencing instructions); their labels are 0.
    SmallVector<Instruction *, 256> Insts;
    for (BasicBlock *BB : ReversePostOrderTraversal<Function *>(&F)) {
      Reachable.insert(BB);
      for (Instruction &I : *BB)
        Insts.push_back(&I);
    }
    Demand.compute(Insts);
    computeForwarding(Insts);
    emitPrologue();
    for (Instruction *I : Insts)
      if (auto *AI = dyn_cast<AllocaInst>(I))
        announceLocal(*AI);
    for (Instruction *I : Insts) {
      CurrentUse = {I, nullptr};
      visit(*I);
      if (Demand.needsOwnDecision(I))
        computeDecisionShadow(*I);
    }
    // Fill the shadow phis now that every incoming label exists. The
    // incoming blocks are read from the original phi at this point, because
    // splitting blocks (inline union) has updated them in both phis.
    for (auto [Orig, Shadow] : PendingPhis)
      for (unsigned K = 0, E = Orig->getNumIncomingValues(); K != E; ++K) {
        BasicBlock *In = Orig->getIncomingBlock(K);
        CurrentUse = {Orig, &Orig->getOperandUse(K)};
        Shadow->addIncoming(shadowOf(Orig->getIncomingValue(K)), In);
      }
    for (auto [Orig, Shadow] : PendingDecisionPhis)
      for (unsigned K = 0, E = Orig->getNumIncomingValues(); K != E; ++K) {
        BasicBlock *In = Orig->getIncomingBlock(K);
        CurrentUse = {Orig, &Orig->getOperandUse(K)};
        Shadow->addIncoming(decisionShadowOf(Orig->getIncomingValue(K)), In);
      }
  }

private:
  Function &F;
  Runtime &RT;
  const DataLayout &DL;
  SmallPtrSet<BasicBlock *, 32> Reachable;
  LabelDemand Demand;                       // which values get label code
  DenseMap<Value *, Value *> DecisionShadows; // decision labels of their own
  SmallVector<std::pair<PHINode *, PHINode *>, 16> PendingDecisionPhis;
  DenseMap<Value *, Value *> Shadows;       // value -> its i64 label
  // emitUnion's results -> their operands (stripComputed).
  DenseMap<Value *, std::pair<Value *, Value *>> UnionOperands;
  // ... and the other way round: (lower, higher operand) -> the latest union.
  DenseMap<std::pair<Value *, Value *>, PHINode *> UnionsByOperands;
  SmallVector<std::pair<PHINode *, PHINode *>, 16> PendingPhis;
  const SmallPtrSetImpl<PHINode *> &LoopResults;
  DenseMap<PHINode *, Value *> LoopResultLabels;
  SiteTable &Sites;

  // Store-to-use forwarding (DESIGN.md, "Optimizer independence"): once a
  // computed register value has been stored, the uses of that register the
  // store dominates stand for the stored instance, as a reload would at
  // -O0. Forwarded: (user, value) -> the nearest dominating store of value
  // (non-phi users); ForwardedPhi: the same for a phi's incoming use (it
  // happens at the end of the incoming block). StoredLabels: a store ->
  // the label __ca_store returned, once the store has been visited.
  DenseMap<std::pair<Instruction *, Value *>, StoreInst *> Forwarded;
  DenseMap<const Use *, StoreInst *> ForwardedPhi;
  DenseMap<StoreInst *, Value *> StoredLabels;
  // The use whose label shadowOf gives: the instruction being visited (and
  // for a phi, which incoming use).
  std::pair<Instruction *, const Use *> CurrentUse = {nullptr, nullptr};

  Constant *zero() { return ConstantInt::get(RT.I64, 0); }
  Constant *computedBit() { return ConstantInt::get(RT.I64, kComputedBit); }
  static bool isZero(Value *L) {
    auto *C = dyn_cast<Constant>(L);
    return C && C->isNullValue();
  }

  // The label of V. Constants, globals, pointers and values whose label was
  // never needed have label 0.
  Value *shadowOf(Value *V) {
    if (!isDataType(V->getType()))
      return zero();
    if (Value *L = forwardedLabel(V))
      return L;
    auto It = Shadows.find(V);
    return It == Shadows.end() ? zero() : It->second;
  }

  // The label of the instance a dominating store of V made, if the current
  // use (CurrentUse) is one.
  Value *forwardedLabel(Value *V) {
    auto [User, U] = CurrentUse;
    if (!User || (Forwarded.empty() && ForwardedPhi.empty()))
      return nullptr;
    StoreInst *S = nullptr;
    if (U) {
      if (U->get() != V)
        return nullptr;
      auto It = ForwardedPhi.find(U);
      if (It != ForwardedPhi.end())
        S = It->second;
    } else if (auto It = Forwarded.find({User, V}); It != Forwarded.end()) {
      S = It->second;
    }
    if (!S)
      return nullptr;
    auto L = StoredLabels.find(S);
    return L == StoredLabels.end() ? nullptr : L->second;
  }

  // The static size of a small local (a temporary, runtime_abi.h), or 0.
  uint64_t temporarySize(const AllocaInst &AI) const {
    std::optional<TypeSize> Size = AI.getAllocationSize(DL);
    if (!Size || Size->isScalable() || Size->getFixedValue() == 0 ||
        Size->getFixedValue() > kMaxStackTemporary)
      return 0;
    return Size->getFixedValue();
  }

  // Tell the runtime about a local still in memory (runtime_abi.h): a small
  // one is a temporary that holds labels, like the registers it would be
  // in at a higher -O level or once its loops are unrolled.
  void announceLocal(AllocaInst &AI) {
    if (AI.use_empty() || !instrumentedAddress(&AI))
      return;
    IRBuilder<> B(AI.getNextNode());
    if (uint64_t Size = temporarySize(AI)) {
      B.CreateCall(RT.StackTemp, {&AI, B.getInt64(Size)});
      return;
    }
    Value *Size = B.getInt64(DL.getTypeAllocSize(AI.getAllocatedType()));
    if (AI.isArrayAllocation())
      Size = B.CreateMul(Size, B.CreateZExtOrTrunc(AI.getArraySize(), RT.I64));
    B.CreateCall(RT.StackMem, {&AI, Size});
  }

  // Which uses take a store's instance (see Forwarded). Only stores whose
  // label is worth replacing: a value computed here (not a load, whose
  // label is already the leaf the store replicates), of a data type without
  // pointer fields, stored in one piece. Dominance is decided here, before
  // the instrumentation splits blocks.
  void computeForwarding(ArrayRef<Instruction *> Insts) {
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
          AI && temporarySize(*AI))
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

  // Arguments: labels come from __ca_arg_labels, but only if the caller
  // addressed them to this very function (see runtime_abi.h).
  //
  // A byval argument is a copy the call lowering makes of the caller's
  // object, out of our sight; its slot carries the address of the caller's
  // object instead of a label, and the copy is replayed with __ca_memcpy.
  void emitPrologue() {
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
      Shadows[A] = B.CreateSelect(Mine, L, zero(), A->getName() + ".ca");
    }
  }

  // A builder positioned right after I, where I's label is computed. An
  // invoke's result only exists on its normal edge, so the edge gets its own
  // block (a phi in the normal destination may use the result on that edge).
  IRBuilder<> builderAfter(Instruction &I) {
    if (auto *II = dyn_cast<InvokeInst>(&I)) {
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

  // Emit `FastCond ? FastVal : __ca_union(A, B)` with the call on a cold
  // branch, leaving B positioned after the merge.
  Value *unionUnless(IRBuilder<> &B, Value *FastCond, Value *FastVal,
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

  // Splits B's block before its insert point for an inline fast path: the
  // head (its branch removed; the caller branches to the new blocks) and
  // the tail, the rest of the block, whose first instruction (SplitBefore)
  // is where the result's phi goes.
  struct InlinePath {
    Instruction *SplitBefore;
    BasicBlock *Head, *Tail;
  };
  InlinePath splitForInlinePath(IRBuilder<> &B, const char *TailName) {
    Instruction *SplitBefore = &*B.GetInsertPoint();
    BasicBlock *Head = SplitBefore->getParent();
    BasicBlock *Tail = Head->splitBasicBlock(SplitBefore, TailName);
    Head->getTerminator()->eraseFromParent();
    return {SplitBefore, Head, Tail};
  }

  // The label of a computation on labels LA and LB, as __ca_union(LA, LB),
  // inline where runtime_abi.h allows: equal labels (up to the computed
  // bit) give LA | CA_COMPUTED_BIT, two distinct small leaves their pair,
  // and two distinct non-zero labels a new node from the runtime's run of
  // free node slots while it lasts. The call is left for zero operands and
  // an exhausted run. B ends up after the merge.
  Value *emitUnion(IRBuilder<> &B, Value *LA, Value *LB) {
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
    {
      auto Earlier = UnionsByOperands.find(
          orderedPair(stripComputed(LA), stripComputed(LB)));
      if (Earlier != UnionsByOperands.end() &&
          Earlier->second->getParent() == B.GetInsertBlock())
        return Earlier->second;
    }
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
    Value *IsPair = PCB.CreateAnd(
        PCB.CreateICmpULT(Hi, PCB.getInt64(uint64_t(1) << kPairShift)),
        PCB.CreateICmpNE(Lo, zero()));
    PCB.CreateCondBr(IsPair, Tail, Check);

    IRBuilder<> CB(Check);
    Value *NextPtr = CB.CreateStructGEP(RT.NodeRunTy, RT.NodeRun, 1);
    Value *Next = RT.tag(CB.CreateLoad(RT.I64, NextPtr), Runtime::kRunState);
    Value *End = RT.tag(CB.CreateLoad(RT.I64, CB.CreateStructGEP(RT.NodeRunTy, RT.NodeRun, 2)),
                        Runtime::kRunState);
    Value *Ok = CB.CreateAnd(
        CB.CreateAnd(CB.CreateICmpNE(A, zero()), CB.CreateICmpNE(Bv, zero())),
        CB.CreateICmpNE(Next, End));
    CB.CreateCondBr(Ok, Bump, Slow, Likely);

    // a (+) b is a itself when b is an operand of node a: f(x) - x, or a
    // decision accumulator joined with what it just selected. No new node,
    // as in the runtime's join (which also tries the other way round; here
    // that costs more in a register-tight loop than the nodes it saves).
    // The run is not empty, so the arena has a node 0 to read for a leaf.
    IRBuilder<> OB(Bump);
    Value *Base = RT.tag(OB.CreateLoad(RT.Ptr, RT.NodeRun), Runtime::kRunState); // field 0
    auto holds = [&](Value *N, Value *X) {
      Value *IsNode = OB.CreateICmpNE(OB.CreateAnd(N, kNodeBit), zero());
      Value *Index = OB.CreateSelect(
          IsNode, OB.CreateAnd(N, ~(kNodeBit | kComputedBit)), zero());
      Value *Op = OB.CreateInBoundsGEP(RT.NodeTy, Base, Index);
      Value *OpA = RT.tag(OB.CreateLoad(RT.I64, Op), Runtime::kNodes);
      Value *OpB = RT.tag(OB.CreateLoad(RT.I64, OB.CreateStructGEP(RT.NodeTy, Op, 1)),
                          Runtime::kNodes);
      return OB.CreateAnd(IsNode, OB.CreateOr(OB.CreateICmpEQ(OpA, X),
                                              OB.CreateICmpEQ(OpB, X)));
    };
    Value *AHoldsB = holds(A, Bv);
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
    P->addIncoming(Pair, PairCheck);
    P->addIncoming(Kept, Bump);
    P->addIncoming(Node, Make);
    P->addIncoming(Called, Slow);
    UnionOperands[P] = {stripComputed(LA), stripComputed(LB)};
    UnionsByOperands[orderedPair(stripComputed(LA), stripComputed(LB))] = P;
    return P;
  }

  static std::pair<Value *, Value *> orderedPair(Value *X, Value *Y) {
    return std::less<Value *>()(X, Y) ? std::make_pair(X, Y) : std::make_pair(Y, X);
  }

  // V without the computed bits the pass or'ed into it: the same label but
  // for that bit.
  static Value *stripComputed(Value *V) {
    while (auto *Or = dyn_cast<BinaryOperator>(V)) {
      auto *Bit = dyn_cast<ConstantInt>(Or->getOperand(1));
      if (Or->getOpcode() != Instruction::Or || !Bit ||
          Bit->getZExtValue() != kComputedBit)
        break;
      V = Or->getOperand(0);
    }
    return V;
  }

  // A computation over the labels of Ops: fold pairwise with __ca_union,
  // inlining the two cases the ABI defines (a == b, which covers both == 0).
  Value *emitCompute(IRBuilder<> &B, ArrayRef<Value *> Ops,
                     bool Decision = false) {
    SmallVector<Value *, 4> Ls;
    for (Value *Op : Ops) {
      Value *L = Decision ? decisionShadowOf(Op) : shadowOf(Op);
      // An operand with no label (a constant) does not take part: x * 2.0 is
      // a one-operand computation on x.
      if (!isZero(L) && !is_contained(Ls, L))
        Ls.push_back(L);
    }
    if (Ls.empty())
      return computedBit();
    Value *Acc = Ls[0];
    if (Ls.size() == 1)
      return B.CreateOr(Acc, kComputedBit);
    for (Value *L : drop_begin(Ls))
      Acc = emitUnion(B, Acc, L);
    return Acc;
  }

  // Assembling a vector/aggregate from parts is not a computation: keep a
  // single part's label as is; only distinct non-zero parts need a union.
  Value *emitCombine(IRBuilder<> &B, Value *LA, Value *LB) {
    if (isZero(LA) || LA == LB)
      return LB;
    if (isZero(LB))
      return LA;
    Value *AZero = B.CreateICmpEQ(LA, zero());
    Value *Fast = B.CreateOr(
        B.CreateOr(AZero, B.CreateICmpEQ(LB, zero())), B.CreateICmpEQ(LA, LB));
    return unionUnless(B, Fast, B.CreateSelect(AZero, LB, LA), LA, LB);
  }

  void computeShadow(Instruction &I) {
    SmallVector<Value *, 4> Ops;
    const Rule R = ruleFor(I, Ops);
    switch (R) {
    case Rule::Phi: {
      auto *Orig = cast<PHINode>(&I);
      PHINode *P = PHINode::Create(RT.I64, Orig->getNumIncomingValues(),
                                   I.getName() + ".ca", Orig);
      PendingPhis.push_back({Orig, P});
      Shadows[&I] = P;
      if (LoopResults.count(Orig))
        Shadows[&I] = loopResult(Orig, P);
      return;
    }
    case Rule::Same:
      Shadows[&I] = Ops.empty() ? zero() : shadowOf(Ops[0]);
      return;
    case Rule::Select: {
      IRBuilder<> B = builderAfter(I);
      Shadows[&I] = B.CreateSelect(I.getOperand(0), shadowOf(I.getOperand(1)),
                                   shadowOf(I.getOperand(2)));
      return;
    }
    case Rule::Combine: {
      IRBuilder<> B = builderAfter(I);
      Value *Acc = zero();
      for (Value *Op : Ops)
        Acc = emitCombine(B, Acc, shadowOf(Op));
      Shadows[&I] = Acc;
      return;
    }
    case Rule::Compute: {
      IRBuilder<> B = builderAfter(I);
      Shadows[&I] = emitCompute(B, Ops);
      return;
    }
    case Rule::Leaf:
      // A result with no better source (va_arg, callbr, ...): data from
      // outside the instrumented world.
      Shadows[&I] = computedBit();
      return;
    }
  }

  // The decision label of a value whose decision label is its own
  // (LabelDemand::needsOwnDecision), right after it (before its ordinary
  // label's code, if any: neither reads the other).
  void computeDecisionShadow(Instruction &I) {
    SmallVector<Value *, 4> Ops;
    const Rule R = ruleFor(I, Ops);
    if (R == Rule::Phi) {
      auto *Orig = cast<PHINode>(&I);
      PHINode *P = PHINode::Create(RT.I64, Orig->getNumIncomingValues(),
                                   I.getName() + ".ca.decision", Orig);
      PendingDecisionPhis.push_back({Orig, P});
      DecisionShadows[&I] = LoopResults.count(Orig) ? loopResult(Orig, P) : P;
      return;
    }
    IRBuilder<> B(I.getNextNode()); // never an invoke (LabelDemand: hasHookLabel)
    Value *L = computedBit();
    switch (R) {
    case Rule::Same:
      L = Ops.empty() ? zero() : decisionShadowOf(Ops[0]);
      break;
    case Rule::Select:
      L = B.CreateSelect(I.getOperand(0), decisionShadowOf(I.getOperand(1)),
                         decisionShadowOf(I.getOperand(2)));
      break;
    case Rule::Combine:
      L = zero();
      for (Value *Op : Ops)
        L = emitCombine(B, L, decisionShadowOf(Op));
      break;
    case Rule::Compute:
      L = emitCompute(B, Ops, /*Decision=*/true);
      break;
    default:
      break;
    }
    if (auto *S = dyn_cast<SelectInst>(&I))
      L = emitComputeLabels(B, decisionShadowOf(S->getCondition()), L);
    DecisionShadows[&I] = L;
  }

  // A loop's result (loopResults): one value instance from here on, as a
  // local holding it would be at -O0 (__ca_value), read by the value and
  // the decision shadows alike (the first one built is materialized).
  Value *loopResult(PHINode *Orig, Value *Label) {
    auto [It, Fresh] = LoopResultLabels.try_emplace(Orig, nullptr);
    if (Fresh) {
      IRBuilder<> B(&*Orig->getParent()->getFirstInsertionPt());
      const uint32_t Site = static_cast<uint32_t>(xxHash64(F.getName())) ^
                            (static_cast<uint32_t>(LoopResultLabels.size()) * 0x85EBCA77u);
      Sites.add(Site, *Orig);
      It->second = B.CreateCall(RT.LoopResult, {Label, B.getInt32(Site)});
    }
    return It->second;
  }

  Value *decisionShadowOf(Value *V) {
    auto It = DecisionShadows.find(V);
    return It == DecisionShadows.end() ? shadowOf(V) : It->second;
  }

  // Accesses are split into pieces of at most kMaxAccess bytes (only huge
  // aggregates and vectors need this).
  // Align: what the access's address is known to be a multiple of.
  Value *emitLoadHook(IRBuilder<> &B, Value *Addr, uint64_t Size,
                      Align A = Align(1)) {
    Value *Acc = nullptr;
    for (uint64_t Off = 0; Off < Size; Off += kMaxAccess) {
      Value *P = offset(B, Addr, Off);
      Value *L = emitLoadPiece(B, P, std::min(kMaxAccess, Size - Off),
                               commonAlignment(A, Off));
      Acc = Acc ? emitCombine(B, Acc, L) : L;
    }
    return Acc ? Acc : zero();
  }

  // The label of one load piece: __ca_load(P, Size), or for a small access
  // whose words are in a page of the runtime's page cache and all hold the
  // same value v, v itself without a call (runtime_abi.h). B ends up after
  // the merge.
  Value *emitLoadPiece(IRBuilder<> &B, Value *P, uint64_t Size, Align A) {
    if (Size > kMaxInlineLoad)
      return B.CreateCall(RT.Load, {P, B.getInt32(Size)});
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

  // Returns the label __ca_store gave for the last piece.
  // Site: the store's source site (SiteTable), 0 if unknown.
  Value *emitStoreHook(IRBuilder<> &B, Value *Addr, uint64_t Size, Value *L, uint32_t Site) {
    Value *Stored = L;
    for (uint64_t Off = 0; Off < Size; Off += kMaxAccess) {
      Value *P = offset(B, Addr, Off);
      Stored = B.CreateCall(RT.Store,
                            {P, B.getInt32(std::min(kMaxAccess, Size - Off)), L, B.getInt32(Site)});
    }
    return Stored;
  }

  bool instrumentedAddress(Value *Addr) {
    return Addr->getType()->getPointerAddressSpace() == 0;
  }

  void visit(Instruction &I) {
    if (isa<LoadInst>(I) || isa<StoreInst>(I))
      RT.tagProgram(&I);
    if (I.isTerminator())
      if (std::optional<uint32_t> Site = Demand.decisionSite(I))
        return visitBranch(I, *Site);
    if (auto *LI = dyn_cast<LoadInst>(&I))
      return visitLoad(*LI);
    if (auto *SI = dyn_cast<StoreInst>(&I))
      return visitStore(*SI);
    if (auto *RMW = dyn_cast<AtomicRMWInst>(&I))
      return visitAtomicRMW(*RMW);
    if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I))
      return visitCmpXchg(*CX);
    if (auto *CB = dyn_cast<CallBase>(&I))
      return visitCall(*CB);
    if (auto *RI = dyn_cast<ReturnInst>(&I))
      return visitReturn(*RI);
    if (Demand.needsLabel(&I))
      computeShadow(I);
  }

  // A conditional branch or switch on leafy data: report the decision.
  void visitBranch(Instruction &I, uint32_t Site) {
    Value *L = decisionShadowOf(branchCondition(I));
    if (isZero(L))
      return;
    IRBuilder<> B(&I);
    Sites.add(Site, I);
    B.CreateCall(RT.Use, {L, B.getInt32(Site)});
  }

  // Calls Fn(leaf type, byte offset) for the scalar/vector fields of T.
  void forEachLeaf(Type *T, uint64_t Off,
                   function_ref<void(Type *, uint64_t)> Fn) {
    if (auto *ST = dyn_cast<StructType>(T)) {
      const StructLayout *SL = DL.getStructLayout(ST);
      for (unsigned K = 0; K < ST->getNumElements(); ++K)
        forEachLeaf(ST->getElementType(K), Off + SL->getElementOffset(K), Fn);
    } else if (auto *AT = dyn_cast<ArrayType>(T)) {
      uint64_t Stride = DL.getTypeAllocSize(AT->getElementType());
      for (uint64_t K = 0; K < AT->getNumElements(); ++K)
        forEachLeaf(AT->getElementType(), Off + K * Stride, Fn);
    } else {
      Fn(T, Off);
    }
  }

  static Value *offset(IRBuilder<> &B, Value *Addr, uint64_t Off) {
    return Off ? B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Addr, Off) : Addr;
  }

  // A load from a constant global (`static const int corner[8][3]`, a
  // string literal) reads a constant, as the optimizer makes of it whenever
  // the index becomes constant (after unrolling): label 0, no value.
  static bool readsConstant(Value *Addr) {
    auto *GV = dyn_cast<GlobalVariable>(getUnderlyingObject(Addr));
    return GV && GV->isConstant() && GV->hasDefinitiveInitializer();
  }

  // An element of an array: an address that is not a scalar's (a global,
  // a local, an argument or a field of one, at constant offsets).
  static bool isElementAddress(Value *Addr) {
    Value *P = Addr->stripPointerCasts();
    while (auto *G = dyn_cast<GEPOperator>(P)) {
      if (!G->hasAllConstantIndices())
        return true;
      P = G->getPointerOperand()->stripPointerCasts();
    }
    return !isa<GlobalValue>(P) && !isa<AllocaInst>(P) && !isa<Argument>(P) &&
           !isa<LoadInst>(P) && !isa<CallBase>(P);
  }

  // Addr's index is read from an array (x[col[k]], a node list, a CSR row
  // start plus an offset): integer arithmetic back from a variable GEP
  // index reaches a load of an array element. Loop counters (phis) and
  // sizes read from scalars (n, mesh->n) do not count.
  static bool indexedIndirectly(Value *Addr) {
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

  // Marks Addr's array as indexed indirectly, calling the runtime only for
  // addresses outside the last array marked.
  void emitIndirectMark(IRBuilder<> &B, Value *Addr) {
    Value *A = B.CreatePtrToInt(Addr, RT.I64);
    Value *First = RT.tag(B.CreateLoad(RT.I64, RT.IndirectFirst), Runtime::kRunState);
    Value *End = RT.tag(B.CreateLoad(RT.I64, RT.IndirectEnd), Runtime::kRunState);
    Value *Outside = B.CreateICmpUGE(B.CreateSub(A, First), B.CreateSub(End, First));
    Instruction *SplitBefore = &*B.GetInsertPoint();
    MDNode *Cold = MDBuilder(F.getContext()).createBranchWeights(1, 1000);
    Instruction *Then = SplitBlockAndInsertIfThen(Outside, SplitBefore, /*Unreachable=*/false, Cold);
    IRBuilder<>(Then).CreateCall(RT.IndexedIndirectly, {Addr});
    B.SetInsertPoint(SplitBefore);
  }

  // Every data load calls the hook, needed or not: the first load of a
  // location creates an input value there (DESIGN.md). Pointer fields of a
  // mixed aggregate are not loaded as data.
  void visitLoad(LoadInst &LI) {
    Type *T = LI.getType();
    Value *Addr = LI.getPointerOperand();
    if (!isDataType(T) || !instrumentedAddress(Addr) || readsConstant(Addr))
      return;
    IRBuilder<> B(LI.getNextNode());
    if (indexedIndirectly(Addr))
      emitIndirectMark(B, Addr);
    if (!hasPointer(T)) {
      Shadows[&LI] = emitLoadHook(
          B, Addr, DL.getTypeStoreSize(T).getFixedValue(), LI.getAlign());
      return;
    }
    Value *Acc = zero();
    forEachLeaf(T, 0, [&](Type *Leaf, uint64_t Off) {
      if (isDataType(Leaf))
        Acc = emitCombine(B, Acc,
                          emitLoadHook(B, offset(B, Addr, Off),
                                       DL.getTypeStoreSize(Leaf).getFixedValue(),
                                       commonAlignment(LI.getAlign(), Off)));
    });
    Shadows[&LI] = Acc;
  }

  void visitStore(StoreInst &SI) {
    Value *V = SI.getValueOperand(), *Addr = SI.getPointerOperand();
    if (!instrumentedAddress(Addr))
      return;
    Type *T = V->getType();
    uint64_t Size = DL.getTypeStoreSize(T).getFixedValue();
    IRBuilder<> B(&SI);
    if (isDataType(T) && indexedIndirectly(Addr))
      emitIndirectMark(B, Addr);
    if (!isDataType(T)) { // a pointer: kills what was there
      B.CreateCall(RT.Clear, {Addr, B.getInt64(Size)});
    } else if (!hasPointer(T)) {
      Value *Stored = emitStoreHook(B, Addr, Size, shadowOf(V), Sites.storeSite(SI));
      StoredLabels[&SI] = Stored;
    } else {
      Value *L = shadowOf(V);
      const uint32_t Site = Sites.storeSite(SI);
      forEachLeaf(T, 0, [&](Type *Leaf, uint64_t Off) {
        uint64_t LeafSize = DL.getTypeStoreSize(Leaf).getFixedValue();
        if (isDataType(Leaf))
          emitStoreHook(B, offset(B, Addr, Off), LeafSize, L, Site);
        else
          B.CreateCall(RT.Clear, {offset(B, Addr, Off), B.getInt64(LeafSize)});
      });
    }
  }

  // Sequential programs meet atomics only in library code (reference
  // counts); model them as a load followed by a store.
  void visitAtomicRMW(AtomicRMWInst &RMW) {
    Value *V = RMW.getValOperand(), *Addr = RMW.getPointerOperand();
    if (!instrumentedAddress(Addr))
      return;
    uint64_t Size = DL.getTypeStoreSize(V->getType()).getFixedValue();
    IRBuilder<> B(&RMW);
    if (!isDataType(V->getType())) {
      B.CreateCall(RT.Clear, {Addr, B.getInt64(Size)});
      return;
    }
    Value *Old = emitLoadHook(B, Addr, Size);
    Shadows[&RMW] = Old;
    Value *New = RMW.getOperation() == AtomicRMWInst::Xchg
                     ? shadowOf(V)
                     : emitComputeLabels(B, Old, shadowOf(V));
    emitStoreHook(B, Addr, Size, New, Sites.storeSite(RMW));
  }

  Value *emitComputeLabels(IRBuilder<> &B, Value *LA, Value *LB) {
    // emitCompute works on values; wrap two labels by hand.
    if (isZero(LA) && isZero(LB))
      return computedBit();
    if (isZero(LB) || LA == LB)
      return B.CreateOr(LA, kComputedBit);
    if (isZero(LA))
      return B.CreateOr(LB, kComputedBit);
    return emitUnion(B, LA, LB);
  }

  void visitCmpXchg(AtomicCmpXchgInst &CX) {
    Value *Addr = CX.getPointerOperand(), *New = CX.getNewValOperand();
    if (!instrumentedAddress(Addr))
      return;
    uint64_t Size = DL.getTypeStoreSize(New->getType()).getFixedValue();
    IRBuilder<> B(&CX);
    if (!isDataType(New->getType())) {
      B.CreateCall(RT.Clear, {Addr, B.getInt64(Size)});
      return;
    }
    Value *Old = emitLoadHook(B, Addr, Size);
    Shadows[&CX] = Old; // the {old, success} pair carries the old label
    IRBuilder<> A(CX.getNextNode());
    Value *Ok = A.CreateExtractValue(&CX, 1);
    emitStoreHook(A, Addr, Size, A.CreateSelect(Ok, shadowOf(New), Old), Sites.storeSite(CX));
  }

  void visitCall(CallBase &CB) {
    switch (classifyCall(CB)) {
    case CallKind::MemCpy: {
      IRBuilder<> B(&CB);
      B.CreateCall(RT.MemCpy,
                   {CB.getArgOperand(0), CB.getArgOperand(1),
                    B.CreateZExtOrTrunc(CB.getArgOperand(2), RT.I64)});
      return;
    }
    case CallKind::MemSet: {
      IRBuilder<> B(&CB);
      B.CreateCall(RT.MemSet, {CB.getArgOperand(0),
                               B.CreateZExtOrTrunc(CB.getArgOperand(2), RT.I64)});
      return;
    }
    case CallKind::Protocol:
      return visitProtocolCall(CB);
    default:
      if (Demand.needsLabel(&CB))
        computeShadow(CB);
      return;
    }
  }

  // A call that may reach instrumented code (runtime_abi.h protocol).
  void visitProtocolCall(CallBase &CB) {
    CB.removeFnAttr(Attribute::Memory); // see CommAnalyzerPass::run
    IRBuilder<> B(&CB);
    bool AnyData = false;
    for (unsigned K = 0; K < CB.arg_size() && K < kMaxArgLabels; ++K) {
      Value *A = CB.getArgOperand(K);
      Value *Slot =
          B.CreateConstInBoundsGEP2_64(RT.ArgLabelsTy, RT.ArgLabels, 0, K);
      if (CB.isByValArgument(K)) // the source object's address, see prologue
        RT.tag(B.CreateStore(B.CreatePtrToInt(A, RT.I64), Slot), Runtime::kAbiSlots);
      else if (isDataType(A->getType()))
        // Written even when 0, so the callee cannot see a stale label.
        RT.tag(B.CreateStore(shadowOf(A), Slot), Runtime::kAbiSlots);
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
    Shadows[&CB] = A.CreateSelect(A.CreateICmpNE(Valid, A.getInt32(0)), L,
                                  computedBit(), "ca.ret");
  }

  void visitReturn(ReturnInst &RI) {
    Value *V = RI.getReturnValue();
    if (!V || !isDataType(V->getType()))
      return;
    if (auto *CI = dyn_cast_or_null<CallInst>(RI.getPrevNode()))
      if (CI->isMustTailCall())
        return;
    IRBuilder<> B(&RI);
    RT.tag(B.CreateStore(shadowOf(V), RT.RetLabel), Runtime::kAbiSlots);
    RT.tag(B.CreateStore(B.getInt32(1), RT.RetValid), Runtime::kAbiSlots);
  }
};

struct CommAnalyzerPass : PassInfoMixin<CommAnalyzerPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
    const bool Registered = registerGlobalArrays(M);
    SmallVector<Function *, 32> Work;
    for (Function &F : M)
      if (!F.isDeclaration() && !isRuntimeName(F.getName()) &&
          !F.hasFnAttribute(Attribute::Naked))
        Work.push_back(&F);
    if (Work.empty())
      return Registered ? PreservedAnalyses::none() : PreservedAnalyses::all();
    // Locals are registers at every -O level (DESIGN.md, "Optimizer
    // independence": stack temporaries are private to their process). At
    // -O0 they are still allocas, and every function is optnone, which
    // makes the pass managers skip SROA; run it here directly. Above -O0
    // it finds (almost) nothing left to do.
    FunctionAnalysisManager &FAM =
        MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
    // At -O0 (optnone, lifted meanwhile), EarlyCSE, InstCombine,
    // SimplifyCFG and LoopIdiomRecognize then do what every higher level
    // does first: `1.0 * v` is a copy of v, not a computation; `if (d > m)
    // m = d;` a select (data), not a branch (a decision); a zeroing loop a
    // memset, which numbers its values array by array.
    for (Function *F : Work) {
      const bool OptNone = F->hasOptNone();
      FunctionPassManager FPM;
      FPM.addPass(SROAPass(SROAOptions::PreserveCFG));
      if (OptNone) {
        F->removeFnAttr(Attribute::OptimizeNone);
        FPM.addPass(EarlyCSEPass(/*UseMemorySSA=*/false));
        FPM.addPass(InstCombinePass());
        FPM.addPass(SimplifyCFGPass());
        LoopPassManager LPM;
        LPM.addPass(LoopRotatePass());
        LPM.addPass(LoopIdiomRecognizePass());
        FPM.addPass(createFunctionToLoopPassAdaptor(std::move(LPM)));
        FPM.addPass(EarlyCSEPass(/*UseMemorySSA=*/false)); // the guard's copies
      }
      FPM.addPass(LCSSAPass()); // last: a loop's results leave it through phis (loopResults)
      PreservedAnalyses PA = FPM.run(*F, FAM);
      FAM.invalidate(*F, PA);
      if (OptNone)
        F->addFnAttr(Attribute::OptimizeNone);
    }
    Runtime RT(M);
    SiteTable Sites;
    for (Function *F : Work) {
      SmallPtrSet<PHINode *, 16> LoopResults = loopResults(*F, FAM);
      Sites.locate(*F, FAM.getResult<LoopAnalysis>(*F), LoopResults);
      FunctionInstrumenter(*F, RT, LoopResults, Sites).run();
    }
    Sites.emit(M);
    // Instrumented code reads and writes the protocol TLS variables, so a
    // function (or declaration that may be instrumented elsewhere) can no
    // longer be memory(none)/readonly; code generation must not move the
    // argument-label stores across the call. Like DFSan, drop the memory
    // effects from functions here and from call sites in visitProtocolCall.
    for (Function &F : M) {
      if (F.isIntrinsic() || isRuntimeName(F.getName()))
        continue;
      if (!F.isDeclaration() || !isMathLibName(F.getName()))
        F.removeFnAttr(Attribute::Memory);
    }
    // GlobalsAA counts as stateless: only abandoning it drops its stale
    // "this function writes no global" facts, which the cleanup passes
    // would otherwise apply to the runtime's TLS slots.
    PreservedAnalyses PA = PreservedAnalyses::none();
    PA.abandon<GlobalsAA>();
    return PA;
  }
  // Run even on optnone functions (every function at -O0).
  static bool isRequired() { return true; }
};

// -O0 puts optnone and noinline on every function. Lifting both lets the
// -O1 inliner and simplification run before instrumenting, so that the
// program is analysed as -O1 compiles it: helpers inlined into their loops
// (a min over cells, an index read through `node(e, k)`), not calls. (A
// noinline the user wrote cannot be told apart at -O0.)
struct LiftOptNonePass : PassInfoMixin<LiftOptNonePass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    bool Changed = false;
    for (Function &F : M) {
      if (F.isDeclaration() || !F.hasOptNone())
        continue;
      F.removeFnAttr(Attribute::OptimizeNone);
      F.removeFnAttr(Attribute::NoInline);
      Changed = true;
    }
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "CommAnalyzerPass", "0.1",
          [](PassBuilder &PB) {
            PB.registerOptimizerLastEPCallback(
                [&PB](ModulePassManager &MPM, OptimizationLevel Level) {
                  if (Level == OptimizationLevel::O0) {
                    // The estimate must not depend on the -O level: -O0
                    // is instrumented as -O1 would compile it.
                    MPM.addPass(LiftOptNonePass());
                    MPM.addPass(PB.buildInlinerPipeline(
                        OptimizationLevel::O1, ThinOrFullLTOPhase::None));
                  }
                  MPM.addPass(CommAnalyzerPass());
                  if (Level == OptimizationLevel::O0)
                    return;
                  // The label code repeats address and run-state
                  // computations; general passes clean up after it.
                  FunctionPassManager FPM;
                  FPM.addPass(EarlyCSEPass(/*UseMemorySSA=*/true));
                  FPM.addPass(InstCombinePass());
                  FPM.addPass(GVNPass());
                  FPM.addPass(InstCombinePass());
                  MPM.addPass(createModuleToFunctionPassAdaptor(std::move(FPM)));
                });
            // opt -load-pass-plugin=... -passes=commanalyzer-instrument
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name != "commanalyzer-instrument")
                    return false;
                  MPM.addPass(CommAnalyzerPass());
                  return true;
                });
          }};
}

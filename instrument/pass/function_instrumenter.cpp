// One function's instrumentation (function_instrumenter.h): the order of
// the steps, and the labels of the values no hook provides.
#include "function_instrumenter.h"

#include <cstdlib>
#include <string>

#include "locals.h"
#include "value_rules.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/IRBuilder.h"

using namespace llvm;

namespace commanalyzer::pass {

namespace {
// COMMANALYZER_STORE_TREES=0 at compile time: every store makes its label
// (store_trees.h), to compare the two.
bool storeTreesEnabled() {
  const char *Off = std::getenv("COMMANALYZER_STORE_TREES");
  return !Off || std::string(Off) != "0";
}
} // namespace

void FunctionInstrumenter::run() {
  // Reverse post order: every non-phi operand is visited before its use.
  // Unreachable blocks are not instrumented (they may even contain
  // self-referencing instructions); their labels are 0.
  SmallVector<Instruction *, 256> Insts;
  for (BasicBlock *BB : ReversePostOrderTraversal<Function *>(&F)) {
    Reachable.insert(BB);
    for (Instruction &I : *BB)
      Insts.push_back(&I);
    for (PHINode &P : BB->phis()) {
      PhiRule &Frozen = PhiRules[&P];
      Frozen.R = ruleFor(P, Frozen.Ops);
    }
  }
  Demand.compute(Insts);
  Forwarding.compute(F, Insts, Reachable);
  if (storeTreesEnabled())
    Trees.compute(Insts, Demand, Forwarding);
  Calls.emitPrologue();
  const DataLayout &DL = F.getParent()->getDataLayout();
  for (Instruction *I : Insts)
    if (auto *AI = dyn_cast<AllocaInst>(I))
      announceLocal(*AI, RT, DL);
  for (Instruction *I : Insts) {
    Labels.setCurrentUse(I, nullptr);
    visit(*I);
    if (Demand.needsOwnDecision(I))
      computeDecisionShadow(*I);
  }
  fillPendingPhis();
}

// Fills the shadow phis, now that every incoming label exists. The incoming
// blocks are read from the original phi at this point, because splitting
// blocks (inline union) has updated them in both phis.
void FunctionInstrumenter::fillPendingPhis() {
  for (auto [Orig, Shadow] : PendingPhis)
    for (unsigned K = 0, E = Orig->getNumIncomingValues(); K != E; ++K) {
      BasicBlock *In = Orig->getIncomingBlock(K);
      Labels.setCurrentUse(Orig, &Orig->getOperandUse(K));
      Shadow->addIncoming(Labels.shadowOf(Orig->getIncomingValue(K)), In);
    }
  for (auto [Orig, Shadow] : PendingDecisionPhis)
    for (unsigned K = 0, E = Orig->getNumIncomingValues(); K != E; ++K) {
      BasicBlock *In = Orig->getIncomingBlock(K);
      Labels.setCurrentUse(Orig, &Orig->getOperandUse(K));
      Shadow->addIncoming(Labels.decisionShadowOf(Orig->getIncomingValue(K)), In);
    }
}

Rule FunctionInstrumenter::rule(Instruction &I, SmallVectorImpl<Value *> &Ops) const {
  auto *P = dyn_cast<PHINode>(&I);
  if (!P)
    return ruleFor(I, Ops);
  const PhiRule &Frozen = PhiRules.find(P)->second;
  Ops.append(Frozen.Ops.begin(), Frozen.Ops.end());
  return Frozen.R;
}

void FunctionInstrumenter::visit(Instruction &I) {
  if (isa<LoadInst>(I) || isa<StoreInst>(I))
    RT.tagProgram(&I);
  if (I.isTerminator())
    if (std::optional<uint32_t> Site = Demand.decisionSite(I))
      return visitBranch(I, *Site);
  if (auto *LI = dyn_cast<LoadInst>(&I))
    return Memory.visitLoad(*LI);
  if (auto *SI = dyn_cast<StoreInst>(&I))
    return Memory.visitStore(*SI);
  if (auto *RMW = dyn_cast<AtomicRMWInst>(&I))
    return Memory.visitAtomicRMW(*RMW);
  if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I))
    return Memory.visitCmpXchg(*CX);
  if (auto *CB = dyn_cast<CallBase>(&I))
    return visitCall(*CB);
  if (auto *RI = dyn_cast<ReturnInst>(&I))
    return Calls.visitReturn(*RI);
  if (Demand.needsLabel(&I) && !Trees.inTree(&I)) // a tree's labels are its store's
    computeShadow(I);
}

void FunctionInstrumenter::visitCall(CallBase &CB) {
  switch (classifyCall(CB)) {
  case CallKind::MemCpy:
    return Memory.visitMemCpy(CB);
  case CallKind::MemSet:
    return Memory.visitMemSet(CB);
  case CallKind::Protocol:
    return Calls.visitCall(CB);
  default:
    if (Demand.needsLabel(&CB) && !Trees.inTree(&CB))
      computeShadow(CB);
    return;
  }
}

// A conditional branch or switch on leafy data: report the decision.
void FunctionInstrumenter::visitBranch(Instruction &I, uint32_t Site) {
  Value *L = Labels.decisionShadowOf(branchCondition(I));
  if (isZeroLabel(L))
    return;
  IRBuilder<> B(&I);
  Sites.add(Site, I);
  B.CreateCall(RT.Use, {L, B.getInt32(Site)});
}

// The label of a computation over the labels of Ops (their decision labels
// if Decision).
Value *FunctionInstrumenter::emitCompute(IRBuilder<> &B, ArrayRef<Value *> Ops, bool Decision) {
  SmallVector<Value *, 4> Ls;
  for (Value *Op : Ops)
    Ls.push_back(Decision ? Labels.decisionShadowOf(Op) : Labels.shadowOf(Op));
  return Code.emitCompute(B, Ls);
}

void FunctionInstrumenter::computeShadow(Instruction &I) {
  SmallVector<Value *, 4> Ops;
  const Rule R = rule(I, Ops);
  switch (R) {
  case Rule::Phi:
  case Rule::FilteredPhi: {
    auto *Orig = cast<PHINode>(&I);
    PHINode *P = PHINode::Create(RT.I64, Orig->getNumIncomingValues(),
                                 I.getName() + ".ca", Orig);
    PendingPhis.push_back({Orig, P});
    Labels.setShadow(&I, P);
    if (Results.isResult(Orig)) {
      Labels.setShadow(&I, Results.instanceLabel(Orig, P));
    } else if (R == Rule::FilteredPhi) {
      IRBuilder<> B = builderAfter(I);
      Labels.setShadow(&I, Code.emitCompute(B, {P, Labels.shadowOf(Ops.back())}));
    }
    return;
  }
  case Rule::Same:
    Labels.setShadow(&I, Ops.empty() ? RT.zero() : Labels.shadowOf(Ops[0]));
    return;
  case Rule::Select: {
    IRBuilder<> B = builderAfter(I);
    Labels.setShadow(&I, B.CreateSelect(I.getOperand(0), Labels.shadowOf(I.getOperand(1)),
                                        Labels.shadowOf(I.getOperand(2))));
    return;
  }
  case Rule::Combine: {
    IRBuilder<> B = builderAfter(I);
    Value *Acc = RT.zero();
    for (Value *Op : Ops)
      Acc = Code.emitCombine(B, Acc, Labels.shadowOf(Op));
    Labels.setShadow(&I, Acc);
    return;
  }
  case Rule::Compute: {
    IRBuilder<> B = builderAfter(I);
    Labels.setShadow(&I, emitCompute(B, Ops, /*Decision=*/false));
    return;
  }
  case Rule::Leaf:
    // A result with no better source (va_arg, callbr, ...): data from
    // outside the instrumented world.
    Labels.setShadow(&I, RT.computedBit());
    return;
  }
}

// The decision label of a value whose decision label is its own
// (LabelDemand::needsOwnDecision), right after it (before its ordinary
// label's code, if any: neither reads the other).
void FunctionInstrumenter::computeDecisionShadow(Instruction &I) {
  SmallVector<Value *, 4> Ops;
  const Rule R = rule(I, Ops);
  if (R == Rule::Phi || R == Rule::FilteredPhi) {
    auto *Orig = cast<PHINode>(&I);
    PHINode *P = PHINode::Create(RT.I64, Orig->getNumIncomingValues(),
                                 I.getName() + ".ca.decision", Orig);
    PendingDecisionPhis.push_back({Orig, P});
    Labels.setDecisionShadow(&I, Results.isResult(Orig) ? Results.instanceLabel(Orig, P) : P);
    return;
  }
  IRBuilder<> B(I.getNextNode()); // never an invoke (LabelDemand: hasHookLabel)
  Value *L = RT.computedBit();
  switch (R) {
  case Rule::Same:
    L = Ops.empty() ? RT.zero() : Labels.decisionShadowOf(Ops[0]);
    break;
  case Rule::Select:
    L = B.CreateSelect(I.getOperand(0), Labels.decisionShadowOf(I.getOperand(1)),
                       Labels.decisionShadowOf(I.getOperand(2)));
    break;
  case Rule::Combine:
    L = RT.zero();
    for (Value *Op : Ops)
      L = Code.emitCombine(B, L, Labels.decisionShadowOf(Op));
    break;
  case Rule::Compute:
    L = emitCompute(B, Ops, /*Decision=*/true);
    break;
  default:
    break;
  }
  if (auto *S = dyn_cast<SelectInst>(&I))
    L = Code.emitCompute(B, {Labels.decisionShadowOf(S->getCondition()), L});
  Labels.setDecisionShadow(&I, L);
}

} // namespace commanalyzer::pass

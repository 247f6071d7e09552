// The demand analysis (label_demand.h): three fixed points over the
// function's data flow, leafy values forward from the runtime's labels,
// needed and decided values backward from the sinks.
#include "label_demand.h"

#include <functional>

#include "loop_control.h"
#include "runtime_hooks.h"
#include "value_rules.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/xxhash.h"

using namespace llvm;

namespace commanalyzer::pass {
namespace {

// The operands whose labels flow into V's *decision* label: ruleFor's,
// and the condition of a select. `if (d > diff) diff = d;` is a select;
// the maximum it keeps is decided by every element compared, not only by
// the one kept, so a branch on it depends on all of them (DFSan does this
// for every select). Stored data keeps the thin slice. A minimum or
// maximum by its own comparison needs no condition: its label is the union
// of the two compared already (isMinMaxByItsOwnComparison).
void decisionOperands(Instruction &I, SmallVectorImpl<Value *> &Ops) {
  ruleFor(I, Ops);
  if (auto *S = dyn_cast<SelectInst>(&I); S && !isMinMaxByItsOwnComparison(I))
    Ops.push_back(S->getCondition());
}

// Values whose label a hook provides; and invokes, whose label is
// computed on an edge block of their own (builderAfter): their decision
// label is their ordinary label.
bool hasHookLabel(Instruction &I) {
  if (isa<LoadInst>(I) || isa<AtomicRMWInst>(I) ||
      isa<AtomicCmpXchgInst>(I) || isa<InvokeInst>(I))
    return true;
  auto *CB = dyn_cast<CallBase>(&I);
  return CB && classifyCall(*CB) == CallKind::Protocol;
}

} // namespace

Value *branchCondition(Instruction &I) {
  if (auto *BI = dyn_cast<BranchInst>(&I))
    return BI->isConditional() ? BI->getCondition() : nullptr;
  if (auto *SI = dyn_cast<SwitchInst>(&I))
    return SI->getCondition();
  return nullptr;
}

// Leafy values: those whose label may name a value instance at run time.
// Seeds are the values whose label comes from the runtime or a caller
// (loads, atomic updates, possibly instrumented calls, arguments); then
// everything that takes a label from a leafy operand (decisionOperands:
// ruleFor's, and a select's condition). The rest have label 0 or
// CA_COMPUTED_BIT (constants, loop counters).
void LabelDemand::computeLeafy(ArrayRef<Instruction *> Insts) {
  SmallVector<Value *, 64> Work;
  auto mark = [&](Value *V) {
    if (isDataType(V->getType()) && Leafy.insert(V).second)
      Work.push_back(V);
  };
  for (Argument &A : F.args())
    mark(&A);
  for (Instruction *I : Insts) {
    if (isa<LoadInst>(I) || isa<AtomicRMWInst>(I) ||
        isa<AtomicCmpXchgInst>(I))
      mark(I);
    else if (auto *CB = dyn_cast<CallBase>(I))
      if (!isa<CallBrInst>(CB) && classifyCall(*CB) == CallKind::Protocol)
        mark(I);
  }
  while (!Work.empty()) {
    Value *V = Work.pop_back_val();
    for (User *U : V->users()) {
      auto *I = dyn_cast<Instruction>(U);
      if (!I || Leafy.count(I) || !Reachable.count(I->getParent()))
        continue;
      SmallVector<Value *, 4> Ops;
      decisionOperands(*I, Ops);
      if (is_contained(Ops, V))
        mark(I);
    }
  }
}

// Protocol calls need their arguments' labels; stores, returns and atomic
// updates need the stored value's label. Everything these depend on
// through ruleFor is needed too.
void LabelDemand::computeNeeded(ArrayRef<Instruction *> Insts) {
  SmallVector<Value *, 64> Work;
  auto need = [&](Value *V) {
    if ((isa<Instruction>(V) || isa<Argument>(V)) &&
        isDataType(V->getType()) && Needed.insert(V).second)
      Work.push_back(V);
  };
  for (Instruction *I : Insts) {
    if (auto *SI = dyn_cast<StoreInst>(I))
      need(SI->getValueOperand());
    else if (auto *RI = dyn_cast<ReturnInst>(I)) {
      if (Value *V = RI->getReturnValue())
        need(V);
    } else if (auto *RMW = dyn_cast<AtomicRMWInst>(I))
      need(RMW->getValOperand());
    else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(I))
      need(CX->getNewValOperand());
    else if (auto *CB = dyn_cast<CallBase>(I)) {
      if (classifyCall(*CB) == CallKind::Protocol)
        for (unsigned K = 0; K < CB->arg_size() && K < kMaxArgLabels; ++K)
          need(CB->getArgOperand(K));
    }
  }
  while (!Work.empty()) {
    auto *I = dyn_cast<Instruction>(Work.pop_back_val());
    if (!I || !Reachable.count(I->getParent()))
      continue;
    SmallVector<Value *, 4> Ops;
    ruleFor(*I, Ops);
    for (Value *Op : Ops)
      need(Op);
  }
  computeDecided(Insts);
}

// Branch conditions that are not loop control get a __ca_use with their
// decision label. Only leafy operands are followed: the others have label
// 0 or CA_COMPUTED_BIT, which __ca_use cannot tell apart from no operand
// (__ca_union(0, b) == __ca_union(CA_COMPUTED_BIT, b)). A decision label
// is the ordinary label (Shadows) unless the value is computed from a
// select or needs no ordinary label (OwnDecision: DecisionShadows).
void LabelDemand::computeDecided(ArrayRef<Instruction *> Insts) {
  SmallVector<Value *, 64> Work;
  auto decide = [&](Value *V) {
    if (Leafy.count(V) && Decided.insert(V).second)
      Work.push_back(V);
  };
  computeStops();
  // Site ids: a hash of the function name, and the position in the
  // instruction list (distinct positions give distinct ids in a function).
  const uint32_t FnHash = static_cast<uint32_t>(xxHash64(F.getName()));
  for (size_t Pos = 0; Pos < Insts.size(); ++Pos) {
    Instruction *I = Insts[Pos];
    Value *C = branchCondition(*I);
    if (!C || !Leafy.count(C) || isLoopControl(C) || onlyDecidesToStop(*I) ||
        testsWhetherLoopChangedIt(C))
      continue;
    UseSites[I] = FnHash ^ (static_cast<uint32_t>(Pos) * 0x9E3779B1u);
    decide(C);
  }
  SmallVector<Value *, 64> Own;
  while (!Work.empty()) {
    Value *V = Work.pop_back_val();
    auto *I = dyn_cast<Instruction>(V);
    SmallVector<Value *, 4> Ops;
    const bool Hook = !I || hasHookLabel(*I);
    if (Hook)
      Needed.insert(V); // arguments, loads, calls: the label is the hook's
    else if (Reachable.count(I->getParent()))
      decisionOperands(*I, Ops);
    // (A sweep's running maximum would otherwise carry a second label of
    // the same set, a node per element.)
    const bool SelectOwnsDecision = isa<SelectInst>(V) && !isMinMaxByItsOwnComparison(*I);
    if (!Hook && (SelectOwnsDecision || !Needed.count(V)))
      Own.push_back(V);
    for (Value *Op : Ops)
      decide(Op);
  }
  // OwnDecision: the seeds, and every decided value computed from one.
  while (!Own.empty()) {
    Value *V = Own.pop_back_val();
    if (!OwnDecision.insert(V).second)
      continue;
    for (User *U : V->users()) {
      auto *I = dyn_cast<Instruction>(U);
      if (!I || !Decided.count(I) || hasHookLabel(*I))
        continue;
      SmallVector<Value *, 4> Ops;
      decisionOperands(*I, Ops);
      if (is_contained(Ops, V))
        Own.push_back(I);
    }
  }
}

// A branch that only decides whether the program stops: at most one of
// its successors goes on (assert(idx < n), exit on a bad value). An MPI
// code makes such a check on what each process holds and sends nothing
// for it, so the data is not consumed there.
bool LabelDemand::onlyDecidesToStop(Instruction &I) const {
  SmallPtrSet<const BasicBlock *, 4> GoOn;
  for (const BasicBlock *S : successors(I.getParent()))
    if (!Stops.count(S))
      GoOn.insert(S);
  return GoOn.size() <= 1;
}

// A test whether a loop's accumulator is still the value it started from
// (`if (elem != -1)` after a search for the element of the minimum, -1 if
// the loop found none): each process of an MPI code asks it of its own
// part, whose result is then folded or not into the reduction; nothing is
// sent for it. The compared value is carried around a loop (a cycle of
// phis and selects) and the constant it is compared with for equality
// enters that cycle (the loop's start, or a guard that skipped the loop).
// The optimizer may fold the guard's test into its answer: a phi of such
// tests and constants (-O1's `phi i1 [true, %guard], [%elem_is_minus_1,
// %exit]`, the loop skipped or run) tests the same.
bool LabelDemand::testsWhetherLoopChangedIt(Value *C) const {
  if (auto *P = dyn_cast<PHINode>(C)) {
    bool Tests = false;
    for (Value *In : P->incoming_values()) {
      if (isa<Constant>(In))
        continue;
      if (In == P || isa<PHINode>(In) || !testsWhetherLoopChangedIt(In))
        return false;
      Tests = true;
    }
    return Tests;
  }
  auto *Cmp = dyn_cast<CmpInst>(C);
  if (!Cmp || !Cmp->isEquality())
    return false;
  Value *Carried = Cmp->getOperand(0)->stripPointerCasts();
  auto *Start = dyn_cast<Constant>(Cmp->getOperand(1));
  if (!Start) {
    Carried = Cmp->getOperand(1)->stripPointerCasts();
    Start = dyn_cast<Constant>(Cmp->getOperand(0));
  }
  if (!Start)
    return false;
  bool Starts = false, Cycles = false;
  SmallPtrSet<Value *, 16> Done, OnPath;
  std::function<void(Value *)> walk = [&](Value *V) {
    if (V == Start)
      Starts = true;
    if (!isa<PHINode>(V) && !isa<SelectInst>(V))
      return;
    if (OnPath.count(V))
      Cycles = true;
    if (!Done.insert(V).second)
      return;
    OnPath.insert(V);
    if (auto *P = dyn_cast<PHINode>(V))
      for (Value *In : P->incoming_values())
        walk(In);
    if (auto *S = dyn_cast<SelectInst>(V))
      walk(S->getTrueValue()), walk(S->getFalseValue());
    OnPath.erase(V);
  };
  walk(Carried);
  return Starts && Cycles;
}

// Stops: the blocks every path from which ends in a call that does not
// return (abort, exit, __assert_fail, std::terminate, any function
// declared noreturn) or in `unreachable`. A path around a cycle does not
// end, so a block that may loop is not one (the least fixed point).
void LabelDemand::computeStops() {
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (BasicBlock *BB : post_order(&F)) {
      if (Stops.count(BB))
        continue;
      const bool Stop =
          isa<UnreachableInst>(BB->getTerminator()) ||
          any_of(*BB, [](const Instruction &I) {
            const auto *Call = dyn_cast<CallInst>(&I);
            return Call && Call->doesNotReturn();
          }) ||
          (succ_size(BB) > 0 &&
           all_of(successors(BB), [&](const BasicBlock *S) { return Stops.count(S) > 0; }));
      if (Stop) {
        Stops.insert(BB);
        Changed = true;
      }
    }
  }
}

} // namespace commanalyzer::pass

// The code that computes labels at run time: the union of two labels,
// inline where runtime_abi.h allows (equal labels, a pair of small leaves, a
// node from the runtime's run of free slots) and a __ca_union call where it
// does not; a computation over several labels; the assembly of an aggregate
// from parts. Kept apart from the rules of which labels to join
// (value_rules.h) because this is where the run's time goes (docs/DESIGN.md,
// "Where the instrumented run's time goes").
//
//   LabelCode Code(F, RT);
//   Value *L = Code.emitCompute(B, {LabelOfA, LabelOfB}); // a + b
#ifndef COMMANALYZER_INSTRUMENT_PASS_LABEL_CODE_H_
#define COMMANALYZER_INSTRUMENT_PASS_LABEL_CODE_H_

#include <utility>

#include "runtime_hooks.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

namespace commanalyzer::pass {

inline bool isZeroLabel(llvm::Value *L) {
  auto *C = llvm::dyn_cast<llvm::Constant>(L);
  return C && C->isNullValue();
}

// A builder positioned right after I, where I's label is computed. An
// invoke's result only exists on its normal edge, so the edge gets its own
// block (a phi in the normal destination may use the result on that edge).
llvm::IRBuilder<> builderAfter(llvm::Instruction &I);

// Splits B's block before its insert point for an inline fast path: the
// head (its branch removed; the caller branches to the new blocks) and
// the tail, the rest of the block, whose first instruction (SplitBefore)
// is where the result's phi goes.
struct InlinePath {
  llvm::Instruction *SplitBefore;
  llvm::BasicBlock *Head, *Tail;
};
InlinePath splitForInlinePath(llvm::IRBuilder<> &B, const char *TailName);

class LabelCode {
public:
  LabelCode(llvm::Function &F, const Runtime &RT) : F(F), RT(RT) {}

  // The label of a computation on labels LA and LB, as __ca_union(LA, LB),
  // inline where runtime_abi.h allows. B ends up after the merge.
  llvm::Value *emitUnion(llvm::IRBuilder<> &B, llvm::Value *LA, llvm::Value *LB);
  // A computation over Labels (the operands' labels): fold pairwise with
  // __ca_union, inlining the two cases the ABI defines (a == b, which
  // covers both == 0).
  llvm::Value *emitCompute(llvm::IRBuilder<> &B, llvm::ArrayRef<llvm::Value *> Labels);
  // Assembling a vector/aggregate from parts is not a computation: keep a
  // single part's label as is; only distinct non-zero parts need a union.
  llvm::Value *emitCombine(llvm::IRBuilder<> &B, llvm::Value *LA, llvm::Value *LB);

private:
  llvm::Value *reusedUnion(llvm::IRBuilder<> &B, llvm::Value *LA, llvm::Value *LB);
  llvm::Value *emitInlineUnion(llvm::IRBuilder<> &B, llvm::Value *LA, llvm::Value *LB);
  llvm::Value *nodeHolds(llvm::IRBuilder<> &OB, llvm::Value *Base, llvm::Value *N,
                         llvm::Value *X);
  llvm::Value *unionUnless(llvm::IRBuilder<> &B, llvm::Value *FastCond, llvm::Value *FastVal,
                           llvm::Value *LA, llvm::Value *LB);
  static std::pair<llvm::Value *, llvm::Value *> orderedPair(llvm::Value *X, llvm::Value *Y);
  static llvm::Value *stripComputed(llvm::Value *V);

  llvm::Function &F;
  const Runtime &RT;
  // emitUnion's results -> their operands (stripComputed).
  llvm::DenseMap<llvm::Value *, std::pair<llvm::Value *, llvm::Value *>> UnionOperands;
  // ... and the other way round: (lower, higher operand) -> the latest union.
  llvm::DenseMap<std::pair<llvm::Value *, llvm::Value *>, llvm::PHINode *> UnionsByOperands;
};

} // namespace commanalyzer::pass

#endif // COMMANALYZER_INSTRUMENT_PASS_LABEL_CODE_H_

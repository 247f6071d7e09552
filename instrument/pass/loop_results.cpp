// Loop results (loop_results.h): found on the program's loops before
// instrumenting, their instances made where they leave the loop.
#include "loop_results.h"

#include "value_rules.h"
#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/xxhash.h"

using namespace llvm;

namespace commanalyzer::pass {

SmallPtrSet<PHINode *, 16> loopResults(Function &F, FunctionAnalysisManager &FAM) {
  SmallPtrSet<PHINode *, 16> Results;
  LoopInfo &LI = FAM.getResult<LoopAnalysis>(F);
  SmallPtrSet<PHINode *, 32> Seen;
  SmallVector<PHINode *, 16> Work;
  for (Loop *Top : LI)
    for (Loop *L : depth_first(Top)) {
      SmallVector<BasicBlock *, 4> Exits;
      L->getExitBlocks(Exits);
      for (BasicBlock *E : Exits)
        for (PHINode &P : E->phis()) {
          if (!isDataType(P.getType()) || LI.getLoopFor(E) == L)
            continue;
          bool FromLoop = false;
          for (unsigned K = 0; K < P.getNumIncomingValues(); ++K) {
            auto *In = dyn_cast<Instruction>(P.getIncomingValue(K));
            FromLoop |= L->contains(P.getIncomingBlock(K)) && In && L->contains(In);
          }
          if (FromLoop && Seen.insert(&P).second)
            Work.push_back(&P);
        }
    }
  while (!Work.empty()) {
    PHINode *P = Work.pop_back_val();
    bool UsedAsData = false;
    for (User *U : P->users()) {
      auto *Next = dyn_cast<PHINode>(U);
      if (!Next) {
        UsedAsData = true;
        continue;
      }
      const Loop *Of = LI.getLoopFor(Next->getParent());
      const bool Header = Of && Of->getHeader() == Next->getParent();
      if (!Header && Seen.insert(Next).second)
        Work.push_back(Next);
    }
    if (UsedAsData)
      Results.insert(P);
  }
  return Results;
}

Value *LoopResultHooks::instanceLabel(PHINode *Orig, Value *Label) {
  auto [It, Fresh] = Labels.try_emplace(Orig, nullptr);
  if (Fresh) {
    IRBuilder<> B(&*Orig->getParent()->getFirstInsertionPt());
    const uint32_t Site = static_cast<uint32_t>(xxHash64(F.getName())) ^
                          (static_cast<uint32_t>(Labels.size()) * 0x85EBCA77u);
    Sites.add(Site, *Orig);
    It->second = B.CreateCall(RT.LoopResult, {Label, B.getInt32(Site)});
  }
  return It->second;
}

} // namespace commanalyzer::pass

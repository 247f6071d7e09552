// Which values get label code, and which branches report a decision: the
// analysis run on a function before any code is added to it (pass.cpp,
// "Structure", step 1). Only what a sink depends on gets shadow code:
// stores, returns and argument passing need their data's labels; a branch
// on data (not loop control, not a check that only stops the program, not
// a test whether a loop changed its accumulator)
// needs the decision label of its condition, built only from "leafy"
// values, those whose label may name a value instance.
//
//   LabelDemand Demand(F, Reachable);
//   Demand.compute(Insts);                  // reverse post order
//   if (Demand.needsLabel(&I)) ...          // ordinary label code
//   if (Demand.needsOwnDecision(&I)) ...    // a decision label of its own
//   if (auto Site = Demand.decisionSite(I)) // __ca_use before branch I
#ifndef COMMANALYZER_INSTRUMENT_PASS_LABEL_DEMAND_H_
#define COMMANALYZER_INSTRUMENT_PASS_LABEL_DEMAND_H_

#include <cstdint>
#include <optional>

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instruction.h"

namespace commanalyzer::pass {

// The condition of a conditional branch or a switch (select is data, not
// control flow: see ruleFor), or null.
llvm::Value *branchCondition(llvm::Instruction &I);

class LabelDemand {
public:
  LabelDemand(llvm::Function &F, const llvm::SmallPtrSetImpl<llvm::BasicBlock *> &Reachable)
      : F(F), Reachable(Reachable) {}

  // Insts: the reachable instructions in reverse post order.
  void compute(llvm::ArrayRef<llvm::Instruction *> Insts) {
    computeLeafy(Insts);
    computeNeeded(Insts);
  }

  bool needsLabel(const llvm::Value *V) const { return Needed.count(V); }
  // A decision label that differs from the ordinary one (computeDecided).
  bool needsOwnDecision(const llvm::Value *V) const { return OwnDecision.count(V); }
  // The site of the __ca_use that reports branch I's decision, if it has one.
  std::optional<uint32_t> decisionSite(llvm::Instruction &I) const {
    auto It = UseSites.find(&I);
    if (It == UseSites.end())
      return std::nullopt;
    return It->second;
  }

private:
  void computeLeafy(llvm::ArrayRef<llvm::Instruction *> Insts);
  void computeNeeded(llvm::ArrayRef<llvm::Instruction *> Insts);
  void computeDecided(llvm::ArrayRef<llvm::Instruction *> Insts);
  void computeStops();
  bool onlyDecidesToStop(llvm::Instruction &I) const;
  bool testsWhetherLoopChangedIt(llvm::Value *C) const;

  llvm::Function &F;
  const llvm::SmallPtrSetImpl<llvm::BasicBlock *> &Reachable;
  llvm::SmallPtrSet<llvm::Value *, 32> Needed;      // values whose label is used
  llvm::SmallPtrSet<llvm::Value *, 32> Leafy;       // labels that may name a value
  llvm::SmallPtrSet<llvm::Value *, 32> Decided;     // labels a __ca_use depends on
  llvm::SmallPtrSet<llvm::Value *, 32> OwnDecision; // ... that differ from the ordinary ones
  llvm::DenseMap<llvm::Instruction *, uint32_t> UseSites; // branches reported by __ca_use
  llvm::SmallPtrSet<const llvm::BasicBlock *, 16> Stops;  // computeStops
};

} // namespace commanalyzer::pass

#endif // COMMANALYZER_INSTRUMENT_PASS_LABEL_DEMAND_H_

// Store-to-use forwarding (DESIGN.md, "Optimizer independence"): once a
// computed register value has been stored, the uses of that register the
// store dominates stand for the stored instance, as a reload would at -O0.
// Decided on the function as the program wrote it, before the
// instrumentation splits blocks; LabelTable (labels.h) then gives such a
// use the label __ca_store returned.
//
//   StoreForwarding Forwarding;
//   Forwarding.compute(F, Insts, Reachable);
//   if (StoreInst *S = Forwarding.storeFor(User, nullptr, V)) ...
#ifndef COMMANALYZER_INSTRUMENT_PASS_STORE_FORWARDING_H_
#define COMMANALYZER_INSTRUMENT_PASS_STORE_FORWARDING_H_

#include <utility>

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

namespace commanalyzer::pass {

class StoreForwarding {
public:
  // Insts: the reachable instructions in reverse post order.
  void compute(llvm::Function &F, llvm::ArrayRef<llvm::Instruction *> Insts,
               const llvm::SmallPtrSetImpl<llvm::BasicBlock *> &Reachable);

  // The store whose instance the use of V by User stands for, or null. U:
  // for a phi, which incoming use (it happens at the end of the incoming
  // block); null for any other user.
  llvm::StoreInst *storeFor(llvm::Instruction *User, const llvm::Use *U, llvm::Value *V) const;

private:
  // (user, value) -> the nearest dominating store of value (non-phi users);
  // ForwardedPhi: the same for a phi's incoming use.
  llvm::DenseMap<std::pair<llvm::Instruction *, llvm::Value *>, llvm::StoreInst *> Forwarded;
  llvm::DenseMap<const llvm::Use *, llvm::StoreInst *> ForwardedPhi;
};

} // namespace commanalyzer::pass

#endif // COMMANALYZER_INSTRUMENT_PASS_STORE_FORWARDING_H_

// Stores of a value computed in the storing block from loaded values, by
// computations nothing else uses (a stencil's point update: a sum of its
// neighbours): the store passes the loaded values' labels to
// __ca_store_union instead of the label code making the union nodes of
// the tree, which the store would only flatten again (runtime_abi.h).
// Where the runtime cannot tell the union's effect without its label (a
// label that is a node, fewer than three values, a stack temporary), it
// refuses, and the store makes the tree's labels as any computation does
// and calls __ca_store: both ways the profile is the same.
//
//   StoreTrees Trees;
//   Trees.compute(Insts, Demand, Forwarding);
//   if (Trees.inTree(&I)) ...                     // no label code of its own
//   if (const StoreTree *T = Trees.treeOf(SI)) ... // T->Nodes: its computations
//   forEachOutsideOperand(T->Nodes, InTree, Fn);  // what they are computed from
#ifndef COMMANALYZER_INSTRUMENT_PASS_STORE_TREES_H_
#define COMMANALYZER_INSTRUMENT_PASS_STORE_TREES_H_

#include "label_demand.h"
#include "store_forwarding.h"
#include "value_rules.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Instructions.h"

namespace commanalyzer::pass {

struct StoreTree {
  // The computations, in block order; the stored value last.
  llvm::SmallVector<llvm::Instruction *, 8> Nodes;
};

// Calls Fn(N, Op) for every operand Op of the computations N in Nodes that
// is not one of them (InTree(Op) false): what the tree is computed from.
template <class IsMember, class Visit>
void forEachOutsideOperand(llvm::ArrayRef<llvm::Instruction *> Nodes, IsMember InTree, Visit Fn) {
  for (llvm::Instruction *N : Nodes) {
    llvm::SmallVector<llvm::Value *, 4> Ops;
    ruleFor(*N, Ops);
    for (llvm::Value *Op : Ops) {
      auto *OpI = llvm::dyn_cast<llvm::Instruction>(Op);
      if (!OpI || !InTree(OpI))
        Fn(N, Op);
    }
  }
}

class StoreTrees {
public:
  // Insts: the reachable instructions in reverse post order.
  void compute(llvm::ArrayRef<llvm::Instruction *> Insts, const LabelDemand &Demand,
               const StoreForwarding &Forwarding);

  bool inTree(const llvm::Instruction *I) const { return Members.count(I); }
  const StoreTree *treeOf(const llvm::StoreInst *S) const {
    auto It = Trees.find(S);
    return It == Trees.end() ? nullptr : &It->second;
  }

private:
  llvm::DenseMap<const llvm::StoreInst *, StoreTree> Trees;
  llvm::SmallPtrSet<const llvm::Instruction *, 32> Members;
};

} // namespace commanalyzer::pass

#endif // COMMANALYZER_INSTRUMENT_PASS_STORE_TREES_H_

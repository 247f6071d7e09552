// Memory hooks (memory_hooks.h). Accesses are split into pieces of at most
// kMaxAccess bytes (only huge aggregates and vectors need this); the
// pointer fields of a mixed aggregate are cleared, not loaded or stored as
// data.
#include "memory_hooks.h"

#include <algorithm>

#include "indirect_index.h"
#include "shadow_load.h"
#include "value_rules.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/MDBuilder.h"

using namespace llvm;

namespace commanalyzer::pass {
namespace {

Value *offset(IRBuilder<> &B, Value *Addr, uint64_t Off) {
  return Off ? B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Addr, Off) : Addr;
}

// A load from a constant global (`static const int corner[8][3]`, a
// string literal) reads a constant, as the optimizer makes of it whenever
// the index becomes constant (after unrolling): label 0, no value.
bool readsConstant(Value *Addr) {
  auto *GV = dyn_cast<GlobalVariable>(getUnderlyingObject(Addr));
  return GV && GV->isConstant() && GV->hasDefinitiveInitializer();
}

} // namespace

// A: what the access's address is known to be a multiple of.
Value *MemoryHooks::emitLoadHook(IRBuilder<> &B, Value *Addr, uint64_t Size, Align A) {
  Value *Acc = nullptr;
  for (uint64_t Off = 0; Off < Size; Off += kMaxAccess) {
    Value *P = offset(B, Addr, Off);
    Value *L = emitShadowLoad(B, RT, P, std::min(kMaxAccess, Size - Off),
                              commonAlignment(A, Off));
    Acc = Acc ? Code.emitCombine(B, Acc, L) : L;
  }
  return Acc ? Acc : RT.zero();
}

// Returns the label __ca_store gave for the last piece.
// Site: the store's source site (SiteTable), 0 if unknown.
Value *MemoryHooks::emitStoreHook(IRBuilder<> &B, Value *Addr, uint64_t Size, Value *L,
                                  uint32_t Site) {
  Value *Stored = L;
  for (uint64_t Off = 0; Off < Size; Off += kMaxAccess) {
    Value *P = offset(B, Addr, Off);
    Stored = B.CreateCall(RT.Store,
                          {P, B.getInt32(std::min(kMaxAccess, Size - Off)), L, B.getInt32(Site)});
  }
  return Stored;
}

// A store tree's store (store_trees.h): the labels of the tree's operands
// to __ca_store_union; where it refuses, the tree's labels, made as
// computeShadow makes them, to __ca_store. Fewer than three operand labels
// that are not constants: __ca_store_union would refuse, so only the second.
Value *MemoryHooks::emitTreeStore(IRBuilder<> &B, StoreInst &SI, const StoreTree &T, uint64_t Size,
                                  uint32_t Site) {
  Value *Addr = SI.getPointerOperand();
  SmallVector<Value *, kMaxStoreLeaves> Leaves;
  forEachOutsideOperand(
      T.Nodes, [&](Instruction *I) { return Trees.inTree(I); },
      [&](Instruction *N, Value *Op) {
        Labels.setCurrentUse(N, nullptr); // a forwarded operand is forwarded to its user
        Value *L = Labels.shadowOf(Op);
        if (!isZeroLabel(L) && !is_contained(Leaves, L))
          Leaves.push_back(L);
      });
  Labels.setCurrentUse(&SI, nullptr);
  if (Leaves.size() < 3)
    return emitStoreHook(B, Addr, Size, emitTreeLabel(B, SI, T), Site);
  for (unsigned K = 0; K < Leaves.size(); ++K)
    RT.tag(B.CreateStore(Leaves[K], B.CreateConstInBoundsGEP2_64(RT.StoreLabelsTy, RT.StoreLabels, 0, K)),
           Runtime::kAbiSlots);
  Value *Stored = B.CreateCall(RT.StoreUnion, {Addr, B.getInt32(Size), B.getInt32(Leaves.size()),
                                               B.getInt32(Site)});
  // The refusal's path, out of line.
  auto [SplitBefore, Head, Tail] = splitForInlinePath(B, "ca.store.done");
  LLVMContext &C = Head->getContext();
  BasicBlock *Refused = BasicBlock::Create(C, "ca.store.refused", Head->getParent(), Tail);
  IRBuilder<> H(Head);
  H.CreateCondBr(H.CreateICmpEQ(Stored, H.getInt64(kStoreNeedsLabel)), Refused, Tail,
                 MDBuilder(C).createBranchWeights(1, 1000));
  // Before its branch: the inline unions split the block there.
  IRBuilder<> R(BranchInst::Create(Tail, Refused));
  Value *Made = emitStoreHook(R, Addr, Size, emitTreeLabel(R, SI, T), Site);
  B.SetInsertPoint(SplitBefore);
  PHINode *P = B.CreatePHI(RT.I64, 2, "ca.stored");
  P->addIncoming(Stored, Head);
  P->addIncoming(Made, R.GetInsertBlock());
  return P;
}

// The label of the tree's stored value, its computations' labels made in
// order, each as computeShadow makes a computation's.
Value *MemoryHooks::emitTreeLabel(IRBuilder<> &B, StoreInst &SI, const StoreTree &T) {
  DenseMap<Value *, Value *> Made;
  for (Instruction *N : T.Nodes) {
    SmallVector<Value *, 4> Ops;
    ruleFor(*N, Ops);
    Labels.setCurrentUse(N, nullptr);
    SmallVector<Value *, 4> Ls;
    for (Value *Op : Ops) {
      auto It = Made.find(Op);
      Ls.push_back(It != Made.end() ? It->second : Labels.shadowOf(Op));
    }
    Made[N] = Code.emitCompute(B, Ls);
  }
  Labels.setCurrentUse(&SI, nullptr);
  return Made[T.Nodes.back()];
}

// Calls Fn(leaf type, byte offset) for the scalar/vector fields of T.
void MemoryHooks::forEachLeaf(Type *T, uint64_t Off, function_ref<void(Type *, uint64_t)> Fn) {
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

void MemoryHooks::visitLoad(LoadInst &LI) {
  Type *T = LI.getType();
  Value *Addr = LI.getPointerOperand();
  if (!isDataType(T) || !instrumentedAddress(Addr) || readsConstant(Addr))
    return;
  IRBuilder<> B(LI.getNextNode());
  if (indexedIndirectly(Addr))
    emitIndirectMark(B, RT, Addr);
  if (!hasPointer(T)) {
    Labels.setShadow(&LI, emitLoadHook(
        B, Addr, DL.getTypeStoreSize(T).getFixedValue(), LI.getAlign()));
    return;
  }
  Value *Acc = RT.zero();
  forEachLeaf(T, 0, [&](Type *Leaf, uint64_t Off) {
    if (isDataType(Leaf))
      Acc = Code.emitCombine(B, Acc,
                             emitLoadHook(B, offset(B, Addr, Off),
                                          DL.getTypeStoreSize(Leaf).getFixedValue(),
                                          commonAlignment(LI.getAlign(), Off)));
  });
  Labels.setShadow(&LI, Acc);
}

void MemoryHooks::visitStore(StoreInst &SI) {
  Value *V = SI.getValueOperand(), *Addr = SI.getPointerOperand();
  if (!instrumentedAddress(Addr))
    return;
  Type *T = V->getType();
  uint64_t Size = DL.getTypeStoreSize(T).getFixedValue();
  IRBuilder<> B(&SI);
  if (isDataType(T) && indexedIndirectly(Addr))
    emitIndirectMark(B, RT, Addr);
  if (T->isPointerTy()) { // a pointer: kills what was there, and may make a row table
    B.CreateCall(RT.StorePointer, {Addr, V});
  } else if (!isDataType(T)) {
    B.CreateCall(RT.Clear, {Addr, B.getInt64(Size)});
  } else if (const StoreTree *Tree = Trees.treeOf(&SI)) {
    Labels.setStored(&SI, emitTreeStore(B, SI, *Tree, Size, Sites.storeSite(SI)));
  } else if (!hasPointer(T)) {
    Value *Stored = emitStoreHook(B, Addr, Size, Labels.shadowOf(V), Sites.storeSite(SI));
    Labels.setStored(&SI, Stored);
  } else {
    Value *L = Labels.shadowOf(V);
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
void MemoryHooks::visitAtomicRMW(AtomicRMWInst &RMW) {
  Value *V = RMW.getValOperand(), *Addr = RMW.getPointerOperand();
  if (!instrumentedAddress(Addr))
    return;
  IRBuilder<> B(&RMW);
  Value *Old = emitAtomicLoad(B, RMW, Addr, V->getType());
  if (!Old)
    return;
  Value *New = RMW.getOperation() == AtomicRMWInst::Xchg
                   ? Labels.shadowOf(V)
                   : Code.emitCompute(B, {Old, Labels.shadowOf(V)});
  emitStoreHook(B, Addr, DL.getTypeStoreSize(V->getType()).getFixedValue(), New,
                Sites.storeSite(RMW));
}

void MemoryHooks::visitCmpXchg(AtomicCmpXchgInst &CX) {
  Value *Addr = CX.getPointerOperand(), *New = CX.getNewValOperand();
  if (!instrumentedAddress(Addr))
    return;
  IRBuilder<> B(&CX);
  Value *Old = emitAtomicLoad(B, CX, Addr, New->getType()); // the {old, success} pair's label
  if (!Old)
    return;
  IRBuilder<> A(CX.getNextNode());
  Value *Ok = A.CreateExtractValue(&CX, 1);
  emitStoreHook(A, Addr, DL.getTypeStoreSize(New->getType()).getFixedValue(),
                A.CreateSelect(Ok, Labels.shadowOf(New), Old), Sites.storeSite(CX));
}

// The load half of atomic update I of data of type T at Addr: the old
// value's label, which is I's label too; or null for a pointer, whose
// update only kills what was there.
Value *MemoryHooks::emitAtomicLoad(IRBuilder<> &B, Instruction &I, Value *Addr, Type *T) {
  uint64_t Size = DL.getTypeStoreSize(T).getFixedValue();
  if (!isDataType(T)) {
    B.CreateCall(RT.Clear, {Addr, B.getInt64(Size)});
    return nullptr;
  }
  Value *Old = emitLoadHook(B, Addr, Size);
  Labels.setShadow(&I, Old);
  return Old;
}

void MemoryHooks::visitMemCpy(CallBase &CB) {
  IRBuilder<> B(&CB);
  B.CreateCall(RT.MemCpy,
               {CB.getArgOperand(0), CB.getArgOperand(1),
                B.CreateZExtOrTrunc(CB.getArgOperand(2), RT.I64)});
}

void MemoryHooks::visitMemSet(CallBase &CB) {
  IRBuilder<> B(&CB);
  B.CreateCall(RT.MemSet, {CB.getArgOperand(0),
                           B.CreateZExtOrTrunc(CB.getArgOperand(2), RT.I64)});
}

} // namespace commanalyzer::pass

// The program's memory accesses and their hooks (runtime_abi.h, "Memory"):
// a load's label from the runtime's shadow memory, a store's value instance,
// atomics as a load and a store, memcpy/memset as replication and new
// constants, and the arrays indexed indirectly. Every data load is hooked,
// needed or not: the first load of a location creates an input value there
// (DESIGN.md).
//
//   MemoryHooks Memory(F, RT, Labels, Code, Sites);
//   Memory.visitStore(SI);  // before SI: __ca_store(addr, size, label, site)
#ifndef COMMANALYZER_INSTRUMENT_PASS_MEMORY_HOOKS_H_
#define COMMANALYZER_INSTRUMENT_PASS_MEMORY_HOOKS_H_

#include <cstdint>

#include "label_code.h"
#include "labels.h"
#include "runtime_hooks.h"
#include "sites.h"
#include "store_trees.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

namespace commanalyzer::pass {

class MemoryHooks {
public:
  MemoryHooks(llvm::Function &F, const Runtime &RT, LabelTable &Labels, LabelCode &Code,
              SiteTable &Sites, const StoreTrees &Trees)
      : RT(RT), DL(F.getParent()->getDataLayout()), Labels(Labels), Code(Code), Sites(Sites),
        Trees(Trees) {}

  void visitLoad(llvm::LoadInst &LI);
  void visitStore(llvm::StoreInst &SI);
  void visitAtomicRMW(llvm::AtomicRMWInst &RMW);
  void visitCmpXchg(llvm::AtomicCmpXchgInst &CX);
  void visitMemCpy(llvm::CallBase &CB);
  void visitMemSet(llvm::CallBase &CB);

private:
  llvm::Value *emitLoadHook(llvm::IRBuilder<> &B, llvm::Value *Addr, uint64_t Size,
                            llvm::Align A = llvm::Align(1));
  llvm::Value *emitAtomicLoad(llvm::IRBuilder<> &B, llvm::Instruction &I, llvm::Value *Addr,
                              llvm::Type *T);
  llvm::Value *emitStoreHook(llvm::IRBuilder<> &B, llvm::Value *Addr, uint64_t Size,
                             llvm::Value *L, uint32_t Site);
  llvm::Value *emitTreeStore(llvm::IRBuilder<> &B, llvm::StoreInst &SI, const StoreTree &T,
                             uint64_t Size, uint32_t Site);
  llvm::Value *emitTreeLabel(llvm::IRBuilder<> &B, llvm::StoreInst &SI, const StoreTree &T);
  void forEachLeaf(llvm::Type *T, uint64_t Off,
                   llvm::function_ref<void(llvm::Type *, uint64_t)> Fn);

  const Runtime &RT;
  const llvm::DataLayout &DL;
  LabelTable &Labels;
  LabelCode &Code;
  SiteTable &Sites;
  const StoreTrees &Trees;
};

} // namespace commanalyzer::pass

#endif // COMMANALYZER_INSTRUMENT_PASS_MEMORY_HOOKS_H_

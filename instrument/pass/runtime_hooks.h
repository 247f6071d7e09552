// The runtime as the pass sees it: the ABI's constants (runtime_abi.h) the
// inline label code depends on, and the declarations of the hooks and of the
// variables the inline code reads and writes. One place, so every part of
// the pass emits calls to the same declarations.
//
//   Runtime RT(M);
//   B.CreateCall(RT.Store, {Addr, Size, Label, Site});
//   RT.tag(B.CreateLoad(RT.I64, RT.RetLabel), Runtime::kAbiSlots);
#ifndef COMMANALYZER_INSTRUMENT_PASS_RUNTIME_HOOKS_H_
#define COMMANALYZER_INSTRUMENT_PASS_RUNTIME_HOOKS_H_

#include "../runtime_abi.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

namespace commanalyzer::pass {

// The runtime's ABI (runtime_abi.h, next to this folder: a quote include
// needs no extra flags). The inline paths depend on these constants.
constexpr uint64_t kComputedBit = CA_COMPUTED_BIT;
constexpr unsigned kMaxArgLabels = CA_MAX_ARG_LABELS;
constexpr uint64_t kMaxAccess = 64;  // largest size __ca_load/__ca_store take
constexpr unsigned kMaxStoreLeaves = CA_MAX_STORE_LEAVES;   // __ca_store_union's labels
constexpr uint64_t kStoreNeedsLabel = CA_STORE_NEEDS_LABEL;  // ... and its refusal
constexpr uint64_t kMaxStackTemporary = CA_MAX_STACK_TEMPORARY;
// The runtime's shadow memory as the inline load path sees it
// (CA_SHADOW_*, __ca_shadow_cache).
constexpr uint64_t kShadowWordShift = 2;  // log2(CA_SHADOW_WORD_BYTES)
constexpr uint64_t kShadowPageBits = CA_SHADOW_PAGE_BITS;
constexpr unsigned kShadowCacheBits = 6;  // log2(CA_SHADOW_CACHE_ENTRIES), direct-mapped
constexpr unsigned kShadowCacheEntries = CA_SHADOW_CACHE_ENTRIES;
constexpr uint64_t kShadowCacheMultiplier = CA_SHADOW_CACHE_MULTIPLIER;
static_assert(uint64_t(1) << kShadowWordShift == CA_SHADOW_WORD_BYTES, "shadow word size");
static_assert(1u << kShadowCacheBits == CA_SHADOW_CACHE_ENTRIES, "shadow cache size");
constexpr uint64_t kMaxInlineLoad = 8;          // larger loads always call
constexpr uint64_t kNodeBit = CA_NODE_BIT;  // a label naming a union node
constexpr uint64_t kPairBit = CA_PAIR_BIT;  // a label holding two leaves
constexpr uint64_t kPairShift = CA_PAIR_SHIFT;

// Declarations of the runtime hooks and the TLS protocol variables.
struct Runtime {
  llvm::Type *I32, *I64, *Ptr;
  llvm::ArrayType *ArgLabelsTy;
  llvm::FunctionCallee Load, Store, StoreUnion, Clear, StorePointer, MemCpy, MemSet, Union, Use, LoopResult, StackTemp,
      StackMem, IndexedIndirectly;
  llvm::GlobalVariable *IndirectFirst, *IndirectEnd;
  llvm::GlobalVariable *ArgLabels, *ArgCallee, *RetLabel, *RetValid;
  llvm::ArrayType *StoreLabelsTy;
  llvm::GlobalVariable *StoreLabels;  // __ca_store_union's labels
  llvm::StructType *CacheEntryTy;
  llvm::ArrayType *CacheTy;
  llvm::GlobalVariable *ShadowCache;
  llvm::StructType *NodeTy, *NodeRunTy;
  llvm::GlobalVariable *NodeRun;

  // The runtime memory the inline code touches, each kind an alias scope:
  // no kind overlaps another or the program's memory. Tagging the accesses
  // says so, which lets the cleanup passes keep the run's state in
  // registers across node writes and program stores.
  enum MemoryKind { kRunState, kNodes, kCache, kShadowPages, kAbiSlots, kMemoryKinds };
  llvm::MDNode *Scope[kMemoryKinds], *NotScope[kMemoryKinds], *AllScopes;

  explicit Runtime(llvm::Module &M);

  // I accesses runtime memory of kind K.
  template <class InstT> InstT *tag(InstT *I, MemoryKind K) const {
    I->setMetadata(llvm::LLVMContext::MD_alias_scope, Scope[K]);
    I->setMetadata(llvm::LLVMContext::MD_noalias, NotScope[K]);
    return I;
  }
  // I, a load or store of the program, accesses program memory.
  void tagProgram(llvm::Instruction *I) const;

  // The labels every part of the pass writes: none, and "computed from
  // constants only" (runtime_abi.h).
  llvm::Constant *zero() const { return llvm::ConstantInt::get(I64, 0); }
  llvm::Constant *computedBit() const { return llvm::ConstantInt::get(I64, kComputedBit); }
};

// The runtime's shadow memory covers the default address space only.
inline bool instrumentedAddress(llvm::Value *Addr) {
  return Addr->getType()->getPointerAddressSpace() == 0;
}

} // namespace commanalyzer::pass

#endif // COMMANALYZER_INSTRUMENT_PASS_RUNTIME_HOOKS_H_

// The runtime's declarations (runtime_hooks.h): made once per module, before
// any function is instrumented, so that every hook has one declaration.
#include "runtime_hooks.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/MDBuilder.h"

using namespace llvm;

namespace commanalyzer::pass {
namespace {

GlobalVariable *global(Module &M, StringRef Name, Type *Ty) {
  if (GlobalVariable *G = M.getGlobalVariable(Name, /*AllowInternal=*/true))
    return G;
  return new GlobalVariable(M, Ty, /*isConstant=*/false,
                            GlobalValue::ExternalLinkage, nullptr, Name);
}

GlobalVariable *tls(Module &M, StringRef Name, Type *Ty) {
  if (GlobalVariable *G = M.getGlobalVariable(Name, /*AllowInternal=*/true))
    return G;
  // General-dynamic: correct whether the runtime ends up in the executable
  // or in a shared library; the linker relaxes it in executables.
  return new GlobalVariable(M, Ty, /*isConstant=*/false,
                            GlobalValue::ExternalLinkage, nullptr, Name,
                            nullptr, GlobalValue::GeneralDynamicTLSModel);
}

} // namespace

Runtime::Runtime(Module &M) {
  LLVMContext &C = M.getContext();
  I32 = Type::getInt32Ty(C);
  I64 = Type::getInt64Ty(C);
  Ptr = PointerType::get(C, 0);
  Type *Void = Type::getVoidTy(C);
  AttributeList NoUnwind = AttributeList().addFnAttribute(C, Attribute::NoUnwind);
  auto fn = [&](StringRef Name, Type *Ret, ArrayRef<Type *> Params) {
    return M.getOrInsertFunction(Name, FunctionType::get(Ret, Params, false),
                                 NoUnwind);
  };
  Load = fn("__ca_load", I64, {Ptr, I32});
  Store = fn("__ca_store", I64, {Ptr, I32, I64, I32});
  StoreUnion = fn("__ca_store_union", I64, {Ptr, I32, I32, I32});
  Clear = fn("__ca_clear", Void, {Ptr, I64});
  StorePointer = fn("__ca_store_pointer", Void, {Ptr, Ptr});
  MemCpy = fn("__ca_memcpy", Void, {Ptr, Ptr, I64});
  MemSet = fn("__ca_memset", Void, {Ptr, I64});
  Union = fn("__ca_union", I64, {I64, I64});
  Use = fn("__ca_use", Void, {I64, I32});
  LoopResult = fn("__ca_value", I64, {I64, I32});
  StackTemp = fn("__ca_stack_temp", Void, {Ptr, I64});
  StackMem = fn("__ca_stack_mem", Void, {Ptr, I64});
  IndexedIndirectly = fn("__ca_indexed_indirectly", Void, {Ptr});
  IndirectFirst = global(M, "__ca_indirect_first", I64);
  IndirectEnd = global(M, "__ca_indirect_end", I64);
  ArgLabelsTy = ArrayType::get(I64, kMaxArgLabels);
  ArgLabels = tls(M, "__ca_arg_labels", ArgLabelsTy);
  ArgCallee = tls(M, "__ca_arg_callee", Ptr);
  RetLabel = tls(M, "__ca_ret_label", I64);
  RetValid = tls(M, "__ca_ret_valid", I32);
  StoreLabelsTy = ArrayType::get(I64, kMaxStoreLeaves);
  StoreLabels = tls(M, "__ca_store_labels", StoreLabelsTy);
  CacheEntryTy = StructType::get(C, {I64, Ptr});
  CacheTy = ArrayType::get(CacheEntryTy, kShadowCacheEntries);
  ShadowCache = global(M, "__ca_shadow_cache", CacheTy);
  NodeTy = StructType::get(C, {I64, I64});
  NodeRunTy = StructType::get(C, {Ptr, I64, I64});
  NodeRun = global(M, "__ca_node_run", NodeRunTy);
  MDBuilder MDB(C);
  MDNode *Domain = MDB.createAnonymousAliasScopeDomain("commanalyzer");
  SmallVector<Metadata *, kMemoryKinds> Scopes;
  for (const char *Name : {"run", "nodes", "cache", "shadow", "abi"})
    Scopes.push_back(MDB.createAnonymousAliasScope(Domain, Name));
  for (int K = 0; K < kMemoryKinds; ++K) {
    Scope[K] = MDNode::get(C, Scopes[K]);
    SmallVector<Metadata *, kMemoryKinds> Others(Scopes);
    Others.erase(Others.begin() + K);
    NotScope[K] = MDNode::get(C, Others);
  }
  AllScopes = MDNode::get(C, Scopes);
}

void Runtime::tagProgram(Instruction *I) const {
  I->setMetadata(LLVMContext::MD_noalias,
                 MDNode::concatenate(I->getMetadata(LLVMContext::MD_noalias), AllScopes));
}

} // namespace commanalyzer::pass

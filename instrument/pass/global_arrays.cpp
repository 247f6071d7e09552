// Global arrays (global_arrays.h): one constructor per module, made before
// any function is instrumented.
#include "global_arrays.h"

#include "value_rules.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace commanalyzer::pass {

bool registerGlobalArrays(Module &M, ArraySites &Sites) {
  const DataLayout &DL = M.getDataLayout();
  SmallVector<GlobalVariable *, 16> Arrays;
  for (GlobalVariable &G : M.globals())
    if (!G.isDeclaration() && !G.isConstant() && !G.isThreadLocal() &&
        !isRuntimeName(G.getName()) && !G.getName().startswith("llvm.") &&
        isDataType(G.getValueType()) &&
        DL.getTypeAllocSize(G.getValueType()).getFixedValue() >= 1024)
      Arrays.push_back(&G);
  if (Arrays.empty())
    return false;
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::getUnqual(C), *I64 = Type::getInt64Ty(C);
  FunctionCallee Hook = M.getOrInsertFunction(
      "__ca_array", FunctionType::get(Type::getVoidTy(C), {Ptr, I64}, false));
  Function *Ctor = Function::Create(FunctionType::get(Type::getVoidTy(C), false),
                                    GlobalValue::InternalLinkage,
                                    "__ca_register_arrays", M);
  FunctionCallee Site = M.getOrInsertFunction(
      "__ca_allocation_site", FunctionType::get(Type::getVoidTy(C), {Type::getInt32Ty(C)}, false));
  IRBuilder<> B(BasicBlock::Create(C, "", Ctor));
  for (GlobalVariable *G : Arrays) {
    B.CreateCall(Site, {ConstantInt::get(Type::getInt32Ty(C), Sites.globalSite(*G))});
    B.CreateCall(Hook, {G, ConstantInt::get(I64, DL.getTypeAllocSize(G->getValueType()).getFixedValue())});
  }
  B.CreateRetVoid();
  appendToGlobalCtors(M, Ctor, 102);
  return true;
}

} // namespace commanalyzer::pass

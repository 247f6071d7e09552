// Allocation sites (array_sites.h).
#include "array_sites.h"

#include "value_rules.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace commanalyzer::pass {

namespace {

// A file of the system's headers (the C and C++ libraries'), not the
// program's.
bool isSystemPath(StringRef Dir, StringRef File) {
  SmallString<256> Path(File.startswith("/") ? File.str() : (Dir + "/" + File).str());
  sys::path::remove_dots(Path, /*remove_dot_dot=*/true); // /usr/bin/../lib/gcc/../../include/c++
  for (StringRef Prefix : {"/usr/include/", "/usr/lib/", "/usr/local/include/", "/usr/local/lib/"})
    if (StringRef(Path).startswith(Prefix))
      return true;
  return false;
}

bool isSystemFile(const DIFile *F) { return F && isSystemPath(F->getDirectory(), F->getFilename()); }

// The first frame of the program's own code, from L out through the
// frames it was inlined into; null if all are in system headers.
const DILocation *programFrame(const DILocation *L) {
  for (; L; L = L->getInlinedAt())
    if (!isSystemPath(L->getDirectory(), L->getFilename()))
      return L;
  return nullptr;
}

// V's name, if it is a variable of the program: a global, or a local of
// `Owner`, the function the allocating statement is in (so that inlining
// a helper into its caller or not gives the same name: the helper's).
std::string variableName(const DIVariable *V, const DISubprogram *Owner) {
  if (!V || V->getName().empty() || isSystemFile(V->getFile()))
    return "";
  if (auto *Local = dyn_cast<DILocalVariable>(V))
    if (Owner && Local->getScope()->getSubprogram() != Owner)
      return "";
  return V->getName().str();
}

std::string globalName(const GlobalVariable &G) {
  SmallVector<DIGlobalVariableExpression *, 1> GVEs;
  G.getDebugInfo(GVEs);
  for (DIGlobalVariableExpression *E : GVEs)
    if (std::string Name = variableName(E->getVariable(), nullptr); !Name.empty())
      return Name;
  return "";
}

// A pointer to pointers (double **), through typedefs and qualifiers.
bool pointsToPointers(const DIType *T) {
  auto strip = [](const DIType *T) {
    while (auto *D = dyn_cast_or_null<DIDerivedType>(T)) {
      if (D->getTag() != dwarf::DW_TAG_typedef && D->getTag() != dwarf::DW_TAG_const_type &&
          D->getTag() != dwarf::DW_TAG_volatile_type && D->getTag() != dwarf::DW_TAG_restrict_type)
        break;
      T = D->getBaseType();
    }
    return T;
  };
  auto *D = dyn_cast_or_null<DIDerivedType>(strip(T));
  if (!D || D->getTag() != dwarf::DW_TAG_pointer_type)
    return false;
  auto *Base = dyn_cast_or_null<DIDerivedType>(strip(D->getBaseType()));
  return Base && Base->getTag() == dwarf::DW_TAG_pointer_type;
}

// The program's variable holding the memory at P: a local (its
// dbg.declare), or a global; "" if none.
std::string variableAt(Value *P, const DISubprogram *Owner) {
  const Value *O = getUnderlyingObject(P);
  if (auto *A = dyn_cast<AllocaInst>(O)) {
    auto *Local = const_cast<AllocaInst *>(A);
    for (DbgDeclareInst *D : FindDbgDeclareUses(Local))
      if (std::string Name = variableName(D->getVariable(), Owner); !Name.empty())
        return Name;
    // InstCombine lowers a dbg.declare to dbg.values: at a call taking
    // the local's address, the local is its memory (DW_OP_deref).
    SmallVector<DbgValueInst *, 4> Values;
    findDbgValues(Values, Local);
    for (DbgValueInst *D : Values)
      if (D->getExpression()->startsWithDeref())
        if (std::string Name = variableName(D->getVariable(), Owner); !Name.empty())
          return Name;
    return "";
  }
  if (auto *G = dyn_cast<GlobalVariable>(O))
    return globalName(*G);
  // An element of an array of pointers (grid[v] = calloc(...), grid[0]
  // stored at grid itself): "grid[]", grid a pointer to pointers held in
  // a register or in memory.
  Value *Table = P;
  if (auto *E = dyn_cast<GEPOperator>(P)) {
    if (E->getNumIndices() != 1 || !E->getSourceElementType()->isPointerTy())
      return "";
    Table = E->getPointerOperand();
  }
  auto table = [&](const DIVariable *V) -> std::string {
    std::string Name = variableName(V, Owner);
    return !Name.empty() && pointsToPointers(V->getType()) ? Name + "[]" : "";
  };
  SmallVector<DbgValueInst *, 4> Values;
  findDbgValues(Values, Table);
  for (DbgValueInst *D : Values)
    if (D->getExpression()->getNumElements() == 0)
      if (std::string Name = table(D->getVariable()); !Name.empty())
        return Name;
  if (auto *L = dyn_cast<LoadInst>(Table)) {
    const Value *Slot = getUnderlyingObject(L->getPointerOperand());
    if (auto *A = dyn_cast<AllocaInst>(Slot))
      for (DbgDeclareInst *D : FindDbgDeclareUses(const_cast<AllocaInst *>(A)))
        if (std::string Name = table(D->getVariable()); !Name.empty())
          return Name;
    if (auto *G = dyn_cast<GlobalVariable>(Slot)) {
      SmallVector<DIGlobalVariableExpression *, 1> GVEs;
      G->getDebugInfo(GVEs);
      for (DIGlobalVariableExpression *E : GVEs)
        if (std::string Name = table(E->getVariable()); !Name.empty())
          return Name;
    }
  }
  return "";
}

// The program's variable the allocation's result goes into.
std::string resultName(CallBase &CB, const DISubprogram *Owner) {
  if (CB.getCalledFunction()->getName() == "posix_memalign")
    return variableAt(CB.getArgOperand(0), Owner);
  // The result, and the phis and selects it reaches (a std::vector's
  // `n != 0 ? allocate(n) : pointer()`).
  SmallVector<Value *, 8> Results{&CB};
  for (std::size_t K = 0; K < Results.size() && Results.size() < 32; ++K)
    for (User *U : Results[K]->users())
      if ((isa<PHINode>(U) || isa<SelectInst>(U)) && !is_contained(Results, U))
        Results.push_back(U);
  for (Value *R : Results) {
    SmallVector<DbgValueInst *, 4> Values;
    findDbgValues(Values, R);
    for (DbgValueInst *D : Values)
      if (std::string Name = variableName(D->getVariable(), Owner); !Name.empty())
        return Name;
  }
  for (Value *R : Results)
    for (User *U : R->users())
      if (auto *S = dyn_cast<StoreInst>(U))
        if (S->getValueOperand() == R)
          if (std::string Name = variableAt(S->getPointerOperand(), Owner); !Name.empty())
            return Name;
  return "";
}

// A function defined in a system header (a std::vector's member).
bool inSystemHeader(const Function *F) {
  if (!F || F->isDeclaration())
    return false;
  const DISubprogram *SP = F->getSubprogram();
  return SP && isSystemFile(SP->getFile());
}

} // namespace

bool isAllocationName(StringRef N) {
  return N == "malloc" || N == "calloc" || N == "realloc" || N == "aligned_alloc" ||
         N == "posix_memalign" || N == "memalign" || N == "valloc" || N.startswith("_Znw") ||
         N.startswith("_Zna");
}

uint32_t ArraySites::add(const std::string &File, uint32_t Line, const std::string &Name) {
  uint32_t Id = static_cast<uint32_t>(xxHash64(File + ":" + std::to_string(Line) + ":" + Name));
  Id = Id ? Id : 1;
  if (Ids.insert(Id).second)
    Entries.push_back({Id, Line, File, Name});
  return Id;
}

uint32_t ArraySites::globalSite(const GlobalVariable &G) {
  SmallVector<DIGlobalVariableExpression *, 1> GVEs;
  G.getDebugInfo(GVEs);
  for (DIGlobalVariableExpression *E : GVEs)
    if (const DIGlobalVariable *V = E->getVariable())
      return add(V->getFilename().str(), V->getLine(), V->getName().str());
  return add("", 0, G.getName().str());
}

void ArraySites::instrument(Function &F) {
  SmallVector<CallBase *, 16> Allocations, LibraryCalls;
  for (Instruction &I : instructions(F)) {
    auto *CB = dyn_cast<CallBase>(&I);
    const Function *Callee = CB ? CB->getCalledFunction() : nullptr;
    if (!Callee || Callee->isIntrinsic() || isRuntimeName(Callee->getName()))
      continue;
    if (isAllocationName(Callee->getName()) && Callee->isDeclaration())
      Allocations.push_back(CB);
    else if (inSystemHeader(Callee))
      LibraryCalls.push_back(CB);
  }
  if (Allocations.empty() && LibraryCalls.empty())
    return;
  Module &M = *F.getParent();
  LLVMContext &C = M.getContext();
  Type *I32 = Type::getInt32Ty(C);
  FunctionCallee Hook = M.getOrInsertFunction(
      "__ca_allocation_site", FunctionType::get(Type::getVoidTy(C), {I32}, false));
  for (CallBase *CB : Allocations) {
    const DILocation *At = CB->getDebugLoc().get();
    const DILocation *Program = At ? programFrame(At) : nullptr;
    uint32_t Id = 0; // in a system header's code: the program's call into it
    if (Program)
      Id = add(Program->getFilename().str(), Program->getLine(),
               resultName(*CB, Program->getScope()->getSubprogram()));
    else if (!At)
      Id = add("", 0, resultName(*CB, nullptr));
    IRBuilder<> B(CB);
    B.CreateCall(Hook, {ConstantInt::get(I32, Id)});
  }
  if (LibraryCalls.empty())
    return;
  GlobalVariable *UserSite = M.getGlobalVariable("__ca_user_site");
  if (!UserSite)
    UserSite = new GlobalVariable(M, I32, false, GlobalValue::ExternalLinkage, nullptr, "__ca_user_site");
  for (CallBase *CB : LibraryCalls) {
    const DILocation *At = CB->getDebugLoc().get();
    const DILocation *Program = At ? programFrame(At) : nullptr;
    if (!Program)
      continue; // inside the library: the program's call into it stands
    std::string Name;
    if (CB->arg_size() > 0 && CB->getArgOperand(0)->getType()->isPointerTy())
      Name = variableAt(CB->getArgOperand(0), // the object it works on (`this`)
                        Program->getScope()->getSubprogram());
    const uint32_t Id = add(Program->getFilename().str(), Program->getLine(), Name);
    IRBuilder<> B(CB);
    Value *Old = B.CreateLoad(I32, UserSite, /*isVolatile=*/true);
    B.CreateStore(ConstantInt::get(I32, Id), UserSite, /*isVolatile=*/true);
    Instruction *After = nullptr;
    if (auto *Call = dyn_cast<CallInst>(CB))
      After = Call->getNextNode();
    else if (auto *Invoke = dyn_cast<InvokeInst>(CB))
      if (BasicBlock *Next = Invoke->getNormalDest(); Next->getSinglePredecessor())
        After = &*Next->getFirstInsertionPt();
    if (After) {
      B.SetInsertPoint(After);
      B.CreateStore(Old, UserSite, /*isVolatile=*/true);
    }
  }
}

void ArraySites::emit(Module &M) {
  if (Entries.empty())
    return;
  LLVMContext &C = M.getContext();
  Type *I32 = Type::getInt32Ty(C), *Ptr = PointerType::getUnqual(C);
  StructType *SiteTy = StructType::get(C, {I32, I32, Ptr, Ptr});
  StringMap<Constant *> Texts;
  auto text = [&](const std::string &S) {
    Constant *&T = Texts[S];
    if (!T) {
      Constant *Data = ConstantDataArray::getString(C, S);
      T = new GlobalVariable(M, Data->getType(), true, GlobalValue::PrivateLinkage, Data,
                             "__ca_array_site_text");
    }
    return T;
  };
  SmallVector<Constant *, 32> Rows;
  for (const Entry &E : Entries)
    Rows.push_back(ConstantStruct::get(SiteTy, {ConstantInt::get(I32, E.Id), ConstantInt::get(I32, E.Line),
                                                text(E.File), text(E.Name)}));
  ArrayType *TableTy = ArrayType::get(SiteTy, Rows.size());
  auto *Table = new GlobalVariable(M, TableTy, true, GlobalValue::PrivateLinkage,
                                   ConstantArray::get(TableTy, Rows), "__ca_array_site_table");
  FunctionCallee Hook = M.getOrInsertFunction(
      "__ca_array_sites", FunctionType::get(Type::getVoidTy(C), {Ptr, I32}, false));
  Function *Ctor = Function::Create(FunctionType::get(Type::getVoidTy(C), false),
                                    GlobalValue::InternalLinkage, "__ca_register_array_sites", M);
  IRBuilder<> B(BasicBlock::Create(C, "", Ctor));
  B.CreateCall(Hook, {Table, ConstantInt::get(I32, Rows.size())});
  B.CreateRetVoid();
  appendToGlobalCtors(M, Ctor, 102);
}

} // namespace commanalyzer::pass

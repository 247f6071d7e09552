// The site table (sites.h): locations are read per function before it is
// instrumented; the table is written once per module.
#include "sites.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace commanalyzer::pass {

uint32_t SiteTable::storeSite(const Instruction &I) {
  auto It = Locs.find(&I);
  if (It == Locs.end())
    return 0;
  const SiteLoc &L = It->second;
  uint32_t Id = static_cast<uint32_t>(
      xxHash64((L.File + ":" + std::to_string(L.Line) + ":" + L.LoopFile + ":" +
                std::to_string(L.LoopLine))));
  Id = Id ? Id : 1;
  add(Id, I);
  return Id;
}

void SiteTable::add(uint32_t Id, const Instruction &I) {
  auto It = Locs.find(&I);
  if (Id != 0 && It != Locs.end() && Ids.insert(Id).second)
    Entries.push_back({Id, It->second});
}

void SiteTable::locate(Function &F, LoopInfo &LI, const SmallPtrSetImpl<PHINode *> &LoopResults) {
  Locs.clear();
  Marks.clear();
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      const Instruction *At = &I;
      if (auto *P = dyn_cast<PHINode>(&I)) {
        if (!LoopResults.count(const_cast<PHINode *>(P)))
          continue;
        At = resultSource(*P, LI);
      } else if (!isa<StoreInst>(I) && !isa<AtomicRMWInst>(I) &&
                 !isa<AtomicCmpXchgInst>(I) && !isa<BranchInst>(I) && !isa<SwitchInst>(I)) {
        continue;
      }
      if (!At)
        continue;
      const DILocation *D = At->getDebugLoc().get();
      if (!D || D->getLine() == 0)
        continue;
      const Loop *L = sweepLoop(LI.getLoopFor(At->getParent()));
      SiteLoc &Loc = Locs[&I];
      Loc.File = D->getFilename().str();
      Loc.Line = D->getLine();
      if (L)
        if (const DebugLoc Start = L->getStartLoc()) {
          Loc.LoopFile = Start->getFilename().str();
          Loc.LoopLine = Start.getLine();
        }
    }
}

void SiteTable::emit(Module &M) {
  if (Entries.empty())
    return;
  LLVMContext &C = M.getContext();
  Type *I32 = Type::getInt32Ty(C), *Ptr = PointerType::getUnqual(C);
  StructType *SiteTy = StructType::get(C, {I32, I32, I32, Ptr, Ptr});
  StringMap<Constant *> Names;
  auto name = [&](const std::string &File) {
    Constant *&Name = Names[File];
    if (!Name) {
      Constant *Text = ConstantDataArray::getString(C, File);
      Name = new GlobalVariable(M, Text->getType(), true, GlobalValue::PrivateLinkage, Text,
                                "__ca_site_file");
    }
    return Name;
  };
  SmallVector<Constant *, 64> Rows;
  for (const auto &[Id, L] : Entries)
    Rows.push_back(ConstantStruct::get(
        SiteTy, {ConstantInt::get(I32, Id), ConstantInt::get(I32, L.Line),
                 ConstantInt::get(I32, L.LoopLine), name(L.File), name(L.LoopFile)}));
  ArrayType *TableTy = ArrayType::get(SiteTy, Rows.size());
  auto *Table = new GlobalVariable(M, TableTy, true, GlobalValue::PrivateLinkage,
                                   ConstantArray::get(TableTy, Rows), "__ca_site_table");
  FunctionCallee Hook = M.getOrInsertFunction(
      "__ca_sites", FunctionType::get(Type::getVoidTy(C), {Ptr, I32}, false));
  Function *Ctor = Function::Create(FunctionType::get(Type::getVoidTy(C), false),
                                    GlobalValue::InternalLinkage, "__ca_register_sites", M);
  IRBuilder<> B(BasicBlock::Create(C, "", Ctor));
  B.CreateCall(Hook, {Table, ConstantInt::get(I32, Rows.size())});
  B.CreateRetVoid();
  appendToGlobalCtors(M, Ctor, 102);
}

// The instruction inside the loop that computes a loop result (the
// accumulation `s += ...`), found through the phis that carry it out of
// the loop: the result's location.
const Instruction *SiteTable::resultSource(PHINode &P, LoopInfo &LI) {
  SmallPtrSet<const PHINode *, 8> Seen{&P};
  SmallVector<const PHINode *, 8> Work{&P};
  while (!Work.empty()) {
    const PHINode *Phi = Work.pop_back_val();
    for (const Value *In : Phi->incoming_values()) {
      if (auto *Next = dyn_cast<PHINode>(In)) {
        if (Seen.insert(Next).second)
          Work.push_back(Next);
      } else if (auto *I = dyn_cast<Instruction>(In)) {
        const Loop *L = LI.getLoopFor(I->getParent());
        if (I->getDebugLoc() && L && !L->contains(P.getParent()))
          return I;
      }
    }
  }
  return nullptr;
}

// The loop a statement is swept by: the outermost loop around it below
// any loop that marks iterations (CA_ITERATION), so a stencil's site is
// the loop over the grid, not the time loop, nor the innermost loop.
const Loop *SiteTable::sweepLoop(const Loop *L) {
  if (!L)
    return nullptr;
  while (L->getParentLoop() && !marksIterations(L->getParentLoop()))
    L = L->getParentLoop();
  return L;
}

bool SiteTable::marksIterations(const Loop *L) {
  auto [It, Fresh] = Marks.try_emplace(L, false);
  if (!Fresh)
    return It->second;
  for (BasicBlock *BB : L->blocks())
    for (Instruction &I : *BB)
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (Function *Callee = CB->getCalledFunction())
          if (Callee->getName() == "__commanalyzer_iteration" ||
              Callee->getName() == "commanalyzer_iteration")
            return It->second = true;
  return false;
}

} // namespace commanalyzer::pass

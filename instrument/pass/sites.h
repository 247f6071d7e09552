// Source sites (runtime_abi.h, __ca_sites): where the stores, branch
// decisions and loop results the hooks report are in the source, so the
// estimate can say which statement consumes communicated values and which
// loop sweeps it. Locations come from debug info (the instrumented build
// adds -gline-tables-only); without it a site is 0, unknown.
// The loop has a file of its own: a statement of a header's function
// inlined into a loop of a .cc file is in the header, its loop in the .cc.
//
//   SiteTable Sites;
//   Sites.locate(F, LI, LoopResults);       // per function, before instrumenting
//   uint32_t Site = Sites.storeSite(Store); // while instrumenting
//   Sites.emit(M);                          // once, at the end
#ifndef COMMANALYZER_INSTRUMENT_PASS_SITES_H_
#define COMMANALYZER_INSTRUMENT_PASS_SITES_H_

#include <cstdint>
#include <string>
#include <utility>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

namespace commanalyzer::pass {

struct SiteLoc {
  std::string File, LoopFile;
  uint32_t Line = 0, LoopLine = 0;
};

class SiteTable {
public:
  // The id of a store site: a hash of its location, the same in every
  // module (0 if unknown).
  uint32_t storeSite(const llvm::Instruction &I);
  // A site whose id the pass chose otherwise (__ca_use, __ca_value).
  void add(uint32_t Id, const llvm::Instruction &I);

  // Locations of a function's sites, read before instrumenting (the loop
  // structure is the program's, before inline paths split its blocks).
  void locate(llvm::Function &F, llvm::LoopInfo &LI,
              const llvm::SmallPtrSetImpl<llvm::PHINode *> &LoopResults);

  // __ca_sites(table, count) from a constructor after the runtime's.
  void emit(llvm::Module &M);

private:
  static const llvm::Instruction *resultSource(llvm::PHINode &P, llvm::LoopInfo &LI);
  const llvm::Loop *sweepLoop(const llvm::Loop *L);
  bool marksIterations(const llvm::Loop *L);

  llvm::DenseMap<const llvm::Instruction *, SiteLoc> Locs;
  llvm::DenseMap<const llvm::Loop *, bool> Marks;
  llvm::DenseSet<uint32_t> Ids;
  llvm::SmallVector<std::pair<uint32_t, SiteLoc>, 64> Entries;
};

} // namespace commanalyzer::pass

#endif // COMMANALYZER_INSTRUMENT_PASS_SITES_H_

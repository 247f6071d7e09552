// Allocation sites (runtime_abi.h, __ca_allocation_site): each call of the
// program that allocates an array is told to the runtime just before it
// runs, with the statement the user wrote and the variable the array goes
// into, so reports name arrays `u (heat.c:31)` and leave out a library's
// own buffers. The same array gets the same name at every -O level:
//   - a location inlined from a system header (a std::vector's operator
//     new at -O2) is the first frame of the program's own code around it,
//     found through the DILocation's inlinedAt chain;
//   - a call in a system header's function that is not inlined (the same
//     operator new at -O0) takes the program's call into the library
//     (__ca_user_site, which the pass sets before each such call);
//   - the name is the program's variable the result reaches: its
//     dbg.value (a promoted local), the local or global it is stored into
//     (also through a member: a std::vector's start pointer), or the
//     object a call into the library is made on (a std::vector's `this`).
//
//   ArraySites Sites;
//   registerGlobalArrays(M, Sites);  // a global's site: its declaration
//   Sites.instrument(F);             // per function, after its hooks
//   Sites.emit(M);                   // once: __ca_array_sites
#ifndef COMMANALYZER_INSTRUMENT_PASS_ARRAY_SITES_H_
#define COMMANALYZER_INSTRUMENT_PASS_ARRAY_SITES_H_

#include <cstdint>
#include <string>

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

namespace commanalyzer::pass {

class ArraySites {
public:
  // __ca_allocation_site and __ca_user_site calls for F's allocations and
  // calls into system headers.
  void instrument(llvm::Function &F);
  // The id of global G's site (its declaration), registered.
  uint32_t globalSite(const llvm::GlobalVariable &G);
  // __ca_array_sites(table, count) from a constructor after the runtime's.
  void emit(llvm::Module &M);

private:
  uint32_t add(const std::string &File, uint32_t Line, const std::string &Name);

  struct Entry {
    uint32_t Id, Line;
    std::string File, Name;
  };
  llvm::DenseSet<uint32_t> Ids;
  llvm::SmallVector<Entry, 32> Entries;
};

// The allocation functions whose result is an array (malloc & co., the
// operator new family).
bool isAllocationName(llvm::StringRef Name);

} // namespace commanalyzer::pass

#endif // COMMANALYZER_INSTRUMENT_PASS_ARRAY_SITES_H_

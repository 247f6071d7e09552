// Blocks of a huge page or more go back to the system when freed. The
// estimate's tables are arrays of the program's data size (per location,
// per vertex, per candidate), made and freed phase after phase and on two
// threads. glibc serves a large block with its own mapping, but raises
// that threshold to the size of each such block freed (up to 32 MiB): from
// the first table freed on, tables come from the heaps, where freed memory
// stays resident, and a thread's arena keeps what the other thread cannot
// reuse. The threshold is fixed at one transparent huge page instead: a
// mapping that size or larger is backed by huge pages (tools/huge_pages.h),
// so faulting it in costs what the heap's pages do, while smaller blocks,
// which would fault 4 KiB at a time, stay in the heaps (bench/large_blocks.sh).
// A GLIBC_TUNABLES that names glibc.malloc.mmap_threshold is the user's
// choice and is kept.
#ifndef COMMANALYZER_TOOLS_LARGE_BLOCKS_H_
#define COMMANALYZER_TOOLS_LARGE_BLOCKS_H_

#include <malloc.h>

#include <cstdlib>
#include <fstream>
#include <string_view>

namespace commanalyzer::cli {

// The kernel's transparent huge page size (2 MiB on x86-64, where the
// kernel does not say).
inline long huge_page_bytes() {
  long bytes = 0;
  std::ifstream("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size") >> bytes;
  return bytes > 0 ? bytes : 2L << 20;
}

inline void return_large_blocks_when_freed() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && std::string_view(tunables).find("glibc.malloc.mmap_threshold") != std::string_view::npos) {
    return;
  }
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(huge_page_bytes()));
}

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_LARGE_BLOCKS_H_

// Transparent huge pages for the tool's heap. The estimate's tables (the
// value graph, per-value marks and source lists) are hundreds of MiB
// touched once each: at 4 KiB a page, faulting them in costs about a third
// of an estimate's time on a 2-core virtual machine (bench/huge_pages.sh).
// glibc's malloc advises its memory to use huge pages (where the kernel
// leaves THP to madvise) only when told at start-up, through
// GLIBC_TUNABLES, so the tool re-executes itself once with
// glibc.malloc.hugetlb=1 added. A GLIBC_TUNABLES that names
// glibc.malloc.hugetlb already is the user's choice and is kept
// (glibc.malloc.hugetlb=0 turns this off). The re-executed tool puts the
// user's GLIBC_TUNABLES back at once (glibc read it at start-up), so the
// programs it runs see the environment the user gave.
#ifndef COMMANALYZER_TOOLS_HUGE_PAGES_H_
#define COMMANALYZER_TOOLS_HUGE_PAGES_H_

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace commanalyzer::cli {

// Returns only when it does not re-execute (or the exec failed: the tool
// then runs as it is).
inline void reexecute_with_huge_pages(char** argv) {
  constexpr const char* kReexecuted = "COMMANALYZER_REEXECUTED";
  constexpr const char* kUserTunables = "COMMANALYZER_USER_GLIBC_TUNABLES";  // set only if the user's was
  if (std::getenv(kReexecuted) != nullptr) {
    if (const char* user = std::getenv(kUserTunables); user != nullptr) {
      setenv("GLIBC_TUNABLES", user, 1);
    } else {
      unsetenv("GLIBC_TUNABLES");
    }
    unsetenv(kUserTunables);
    unsetenv(kReexecuted);
    return;
  }
  if (argv == nullptr || argv[0] == nullptr) return;
  constexpr const char* kTunable = "glibc.malloc.hugetlb";
  const char* current = std::getenv("GLIBC_TUNABLES");
  const std::string tunables = current != nullptr ? current : "";
  if (tunables.find(kTunable) != std::string::npos) return;
  const std::string wanted = (tunables.empty() ? "" : tunables + ":") + kTunable + "=1";
  if (current != nullptr && setenv(kUserTunables, current, 1) != 0) return;
  if (setenv(kReexecuted, "1", 1) != 0 || setenv("GLIBC_TUNABLES", wanted.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  unsetenv(kReexecuted);  // the exec failed: the tool runs as it is
  unsetenv(kUserTunables);
}

}  // namespace commanalyzer::cli

#endif  // COMMANALYZER_TOOLS_HUGE_PAGES_H_

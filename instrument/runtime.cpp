// The CommAnalyzer runtime: the C-ABI hooks of runtime_abi.h, forwarded to
// one commanalyzer::Analyzer with the default policies. Linked statically
// into the instrumented program by `commanalyzer analyze`.
//
// At exit it writes the profile to $COMMANALYZER_PROFILE (default
// ./commanalyzer.profile). It never writes to stdout and leaves the exit
// status alone: the instrumented program behaves as the original.
// The program under analysis is sequential; the hooks are not thread-safe.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "commanalyzer/analyzer.h"
#include "commanalyzer/profile_io.h"
#include "instrument/runtime_abi.h"

static_assert(CA_COMPUTED_BIT == commanalyzer::kComputedBit, "label encoding shared with the pass");

extern "C" {
__thread ca_label __ca_arg_labels[CA_MAX_ARG_LABELS];
__thread const void* __ca_arg_callee;
__thread ca_label __ca_ret_label;
__thread uint32_t __ca_ret_valid;
}

namespace {

using RuntimeAnalyzer = commanalyzer::Analyzer<>;
RuntimeAnalyzer* g_analyzer = nullptr;

void write_profile_at_exit() {
  RuntimeAnalyzer& a = *g_analyzer;
  a.finish();
  const char* env = std::getenv("COMMANALYZER_PROFILE");
  const std::string path = env && *env ? env : "commanalyzer.profile";
  const auto& s = a.stats();
  commanalyzer::ProfileInfo info;
  info.word_bytes = RuntimeAnalyzer::kWordBytes;
  info.metadata = "loads=" + std::to_string(s.loads) + " stores=" + std::to_string(s.stores) +
                  " replications=" + std::to_string(s.replications) + " creations=" + std::to_string(s.creations) +
                  " inputs=" + std::to_string(s.inputs) + " analysis_memory_bytes=" + std::to_string(a.memory_bytes());
  try {
    commanalyzer::save_profile(path, a.profile(), info);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "commanalyzer runtime: %s\n", e.what());
  }
}

[[gnu::noinline, gnu::cold]] RuntimeAnalyzer& start() {
  g_analyzer = new RuntimeAnalyzer();  // never freed: hooks may run during exit
  std::atexit(write_profile_at_exit);
  return *g_analyzer;
}

inline RuntimeAnalyzer& analyzer() {
  if (__builtin_expect(g_analyzer == nullptr, 0)) return start();
  return *g_analyzer;
}

// Start before any instrumented static constructor can run.
[[gnu::constructor(101)]] void start_early() { analyzer(); }

inline commanalyzer::Address address(const void* p) { return reinterpret_cast<commanalyzer::Address>(p); }

}  // namespace

extern "C" {

ca_label __ca_load(const void* addr, uint32_t size) { return analyzer().load(address(addr), size); }

void __ca_store(void* addr, uint32_t size, ca_label label) { analyzer().store(address(addr), size, label); }

void __ca_clear(void* addr, uint64_t size) { analyzer().clear(address(addr), size); }

void __ca_memcpy(void* dst, const void* src, uint64_t size) { analyzer().copy(address(dst), address(src), size); }

void __ca_memset(void* dst, uint64_t size) { analyzer().fill(address(dst), size); }

ca_label __ca_union(ca_label a, ca_label b) { return analyzer().join(a, b); }

void __commanalyzer_region_begin(void) { analyzer().region_begin(); }
void __commanalyzer_region_end(void) { analyzer().region_end(); }
void __commanalyzer_iteration(void) { analyzer().iteration(); }

}  // extern "C"

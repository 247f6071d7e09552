// What the runtime's test queries (runtime_debug.cpp) share with the
// runtime itself (runtime.cpp): the analyzer they read and the state of the
// inline hooks they pause. Not part of the ABI the pass compiles against.
#ifndef COMMANALYZER_INSTRUMENT_RUNTIME_INTERNAL_H_
#define COMMANALYZER_INSTRUMENT_RUNTIME_INTERNAL_H_

#include "commanalyzer/record/analyzer.h"
#include "instrument/runtime_abi.h"

namespace commanalyzer::runtime {

// Flows varint-coded (2-3 bytes per source instead of 4, 2 per chain instead
// of 12): the profile file holds the same code, so writing it is one copy.
// Liveness marked at exit, not counted on every store: the profile does not
// need the counts.
using RuntimeAnalyzer = Analyzer<PagedShadowMemory<>, UnionDagSlicer, CoalesceExclusiveUpdates,
                                 LiveAtEndValueStore, VarintFlowStore>;
using ShadowCacheEntry = PagedShadowMemory<>::CacheEntry;

// The analyzer every hook reports to (started on first use).
RuntimeAnalyzer& recording_analyzer();

// While it lives, hooks report to a scratch analyzer instead and the
// inline paths (shadow page cache, free node run) start empty; the
// recorded ones are back when it ends. A query that runs program code (an
// owner callback) reads memory without recording it.
class PausedRecording {
 public:
  PausedRecording();
  ~PausedRecording();
  PausedRecording(const PausedRecording&) = delete;
  PausedRecording& operator=(const PausedRecording&) = delete;
  RuntimeAnalyzer& recorded() { return recorded_; }

 private:
  RuntimeAnalyzer& recorded_;
  RuntimeAnalyzer scratch_;
  ShadowCacheEntry saved_cache_[CA_SHADOW_CACHE_ENTRIES];
  UnionDagSlicer::NodeRun saved_run_;
};

}  // namespace commanalyzer::runtime

#endif  // COMMANALYZER_INSTRUMENT_RUNTIME_INTERNAL_H_

// The test queries of runtime_testing.h: what a self-checking test program
// (tests/instrument/) asks the runtime about the values it recorded. An
// archive of its own (//instrument:runtime_queries), linked before the
// runtime: a program takes it only if it calls one, and the estimate it
// can run stays out of every other.
#include <cstddef>
#include <cstdint>
#include <span>

#include "commanalyzer/estimate/estimate.h"
#include "instrument/runtime_internal.h"
#include "instrument/runtime_testing.h"

using commanalyzer::runtime::recording_analyzer;

extern "C" {

uint32_t __ca_debug_value_at(const void* addr) {
  return recording_analyzer().value_at(reinterpret_cast<commanalyzer::Address>(addr));
}

size_t __ca_debug_sources(uint32_t value, uint32_t* out, size_t capacity) {
  size_t count = 0;
  recording_analyzer().profile().flows.for_each(
      [&](commanalyzer::ValueId v, std::span<const commanalyzer::ValueId> sources) {
        if (v != value) return;
        count = sources.size();
        for (size_t i = 0; i < sources.size() && i < capacity; ++i) out[i] = sources[i];
      });
  return count;
}

int __ca_debug_is_input(uint32_t value) {
  const auto& values = recording_analyzer().profile().values;
  return value != 0 && value <= values.count() && values.is_input(value);
}

uint64_t __ca_debug_value_count(void) { return recording_analyzer().profile().values.count(); }

uint64_t __ca_debug_use_count(void) { return recording_analyzer().stats().uses; }

uint64_t __ca_debug_p2p_bytes(int procs, int (*owner)(uintptr_t home, int procs)) {
  commanalyzer::runtime::PausedRecording paused;  // the callback reads memory
  using Profile = commanalyzer::runtime::RuntimeAnalyzer::ProfileType;
  commanalyzer::OwnerMapPartitioner map{[owner](commanalyzer::Address home, int n) -> commanalyzer::ProcId {
    return owner(static_cast<uintptr_t>(home), n);
  }};
  commanalyzer::Estimator<Profile, commanalyzer::NoSingletons, commanalyzer::OwnerMapPartitioner> estimator(
      paused.recorded().profile(), {}, map);
  return estimator.estimate(procs).p2p_bytes;
}

}  // extern "C"

// The sharers of a location's partial sums: for each tracked (location,
// phase), the processes that contribute an instance there and its newest
// instance. The cost model's exchange of partials (a process that needs a
// sum it contributed to receives every other sharer's partial instead of
// the sum) asks who they are:
//
//   PartialSharers s;
//   s.track(chain, phase, vertex_count);     // before the flows are replayed
//   s.add(chain, phase, v, p);               // p contributed instance v
//   if (const auto* procs = s.of_newest(chain, phase, v)) ...  // v is the newest
#ifndef COMMANALYZER_PARTIAL_SHARERS_H_
#define COMMANALYZER_PARTIAL_SHARERS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

class PartialSharers {
 public:
  // Track the sharers of a location in one phase.
  void track(VertexId chain, std::size_t phase, std::size_t vertex_count) {
    if (chains_.empty()) chains_.assign(vertex_count, 0);
    chains_[chain] = 1;
    sharers_.try_emplace({chain, phase});
  }
  // Whether some phase of the location is tracked.
  bool tracks(VertexId chain) const { return !chains_.empty() && chains_[chain] != 0; }
  // p contributes instance v of the location in the phase (if tracked).
  void add(VertexId chain, std::size_t phase, ValueId v, ProcId p) {
    const auto it = sharers_.find({chain, phase});
    if (it == sharers_.end()) return;  // not a phase anyone asks about
    Entry& s = it->second;
    s.newest = std::max(s.newest, v);
    if (std::find(s.procs.begin(), s.procs.end(), p) == s.procs.end()) s.procs.push_back(p);
  }
  // The sharers of the location in the phase if v is its newest instance
  // there; null otherwise (or if the phase is not tracked).
  const std::vector<ProcId>* of_newest(VertexId chain, std::size_t phase, ValueId v) const {
    const auto it = sharers_.find({chain, phase});
    if (it == sharers_.end() || it->second.newest != v) return nullptr;
    return &it->second.procs;
  }

 private:
  struct Entry {
    ValueId newest = 0;
    std::vector<ProcId> procs;
  };
  absl::flat_hash_map<std::pair<VertexId, std::size_t>, Entry> sharers_;  // (location, phase) tracked
  std::vector<std::uint8_t> chains_;  // by vertex: has a tracked phase (empty: none)
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_PARTIAL_SHARERS_H_

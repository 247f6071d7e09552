// Send points: where in the sequential order a message is sent, so that
// the values one process sends another are grouped as an MPI code groups
// them (messages.h, MessageLog::send).
//
//   SendPoints<ProfileT> points(profile, procs);
//   points.follow(v, owner);                 // every value, in creation order
//   points.opens_at(q, created);             // a message q needs now
//   points.after_sweep_of(created);          // one sent after the run
//
// A sweep is a run of the sequential order created by one loop's
// statements (the sites' loop files and lines; a statement outside loops
// is its own); a stretch is a run one process computes with no other process's
// values in between (a row of its block). A value created before the sweep
// that uses it comes with a message sent as the sweep starts: a halo is
// exchanged before the loop that needs it, and red-black SOR exchanges
// before each colour's loop. A value created in that sweep itself (a
// wavefront pipelined across processes, each waiting for its neighbour's
// row) comes with a message sent as the receiver's stretch starts: once
// per stage.
#ifndef COMMANALYZER_SEND_POINTS_H_
#define COMMANALYZER_SEND_POINTS_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

template <class ProfileT>
class SendPoints {
 public:
  SendPoints(const ProfileT& profile, int procs) : profile_(profile), stretch_start_(procs, 0) {
    // One number per loop (its file and line: a header's statement
    // inlined into a loop is in that loop), one per statement outside
    // loops; 0 for unknown sites.
    absl::flat_hash_map<std::pair<std::string, std::uint64_t>, std::uint32_t> loops;
    for (const auto& site : profile.sites) {
      const bool in_loop = site.loop_line != 0;
      const std::uint64_t line = in_loop ? site.loop_line : (std::uint64_t{1} << 32) | site.line;
      const auto [it, added] = loops.try_emplace({in_loop ? site.loop_file : site.file, line},
                                                 static_cast<std::uint32_t>(loops.size() + 1));
      loop_of_site_[site.id] = it->second;
    }
  }

  // v, computed by `owner` (kReplicated: every process), is the next value
  // in creation order.
  void follow(ValueId v, ProcId owner) {
    const auto& runs = profile_.value_sites;
    bool new_loop = false;
    for (; next_run_ < runs.size() && runs[next_run_].first <= v; ++next_run_) {
      const auto found = loop_of_site_.find(runs[next_run_].site);
      const std::uint32_t loop = found == loop_of_site_.end() ? 0 : found->second;
      new_loop = new_loop || loop != loop_;
      loop_ = loop;
    }
    if (new_loop) {
      sweep_start_ = v;
      sweep_starts_.push_back(v);
    }
    if (owner == kReplicated) return;
    if (owner != last_owner_) stretch_start_[static_cast<std::size_t>(owner)] = v;
    last_owner_ = owner;
  }
  // A new iteration: its first value starts a sweep and a stretch.
  void new_iteration() {
    loop_ = kNoLoop;
    last_owner_ = kReplicated;
  }

  // Where a message opened now for a value created at `created` and
  // used by q's current stretch is sent.
  ValueId opens_at(ProcId q, ValueId created) const {
    return created < sweep_start_ ? sweep_start_ : stretch_start_[static_cast<std::size_t>(q)];
  }
  // Where a value sent after the run (recomputation's) goes: as the sweep
  // after the one that created it starts, with what that sweep's receivers
  // need.
  ValueId after_sweep_of(ValueId created) const {
    const auto next = std::upper_bound(sweep_starts_.begin(), sweep_starts_.end(), created);
    return next == sweep_starts_.end() ? created + 1 : *next;
  }

 private:
  static constexpr std::uint32_t kNoLoop = ~std::uint32_t{0};

  const ProfileT& profile_;
  absl::flat_hash_map<std::uint32_t, std::uint32_t> loop_of_site_;
  std::size_t next_run_ = 0;  // of profile_.value_sites
  std::uint32_t loop_ = kNoLoop;
  ValueId sweep_start_ = 0;
  std::vector<ValueId> sweep_starts_;
  std::vector<ValueId> stretch_start_;
  ProcId last_owner_ = kReplicated;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_SEND_POINTS_H_

// Alike replays: the replayed iterations (flow_replays.h) that a pass over
// the flows in graph vertices need not read, because read as vertices
// their chains are those of the iteration they replay.
//
//   AlikeReplays alike = AlikeReplays::of(profile, graph_vertex);  // graph_vertex(profile vertex)
//   alike.for_each_flow(profile, f);   // f(value, sources) without the alike replays
//   alike.weight(phase);               // 1 + the alike replays of that phase
//   ReplayedUses replayed(alike, marks);  // the instances they use, for passes that count them
//
// A replay's chains are its reference iteration's with every value and
// every source from the iterations moved by the same distance (`shift`).
// Where the values so moved are in the same graph vertices (a stencil's
// step: each element's new value in the element's vertex, computed from
// the same neighbours' vertices), the replay adds to the graph exactly
// what its reference did: the same uses of the same edges, the same
// vertices touched in its iteration, the same neighbours within it. A
// pass counting uses counts the reference's `weight` times; a pass
// taking the most over iterations (phase_degrees.h) reads it once. A
// pass counting the uses of value instances takes a replay's from
// ReplayedUses: its own instances used as its reference used the ones at
// the same offsets, and the values from before the iterations again.
#ifndef COMMANALYZER_ESTIMATE_ALIKE_REPLAYS_H_
#define COMMANALYZER_ESTIMATE_ALIKE_REPLAYS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "commanalyzer/record/profile.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

class AlikeReplays {
 public:
  template <class Profile, class GraphVertex>
  static AlikeReplays of(const Profile& profile, const GraphVertex& graph_vertex);

  bool any() const { return !replays_.empty(); }
  std::size_t count() const { return replays_.size(); }
  std::uint32_t weight(std::size_t phase) const { return phase < weight_.size() ? weight_[phase] : 1; }
  // The oldest value from the iterations that a reference iteration
  // (weight > 1) reads or makes: its replays move it and every later
  // one, while a source older than the iterations is the same value in
  // every replay.
  ValueId first_moved(std::size_t reference) const { return first_moved_[reference]; }
  // The alike replays, in order: the value of its first chain, the
  // iteration, the one it replays, and the distance between their values.
  struct Replay {
    ValueId first = 0;
    std::size_t phase = 0, reference = 0;
    ValueId shift = 0;
  };
  const std::vector<Replay>& replays() const { return replays_; }

  // f(value, sources) for the flows, without the alike replays.
  template <class Profile, class F>
  void for_each_flow(const Profile& profile, F&& f) const {
    if constexpr (requires { profile.flows.replay_threshold(); }) {
      if (any()) {
        profile.flows.for_each_unless(
            [&](ValueId first) {
              const auto it = std::lower_bound(replays_.begin(), replays_.end(), first,
                                               [](const Replay& r, ValueId v) { return r.first < v; });
              return it != replays_.end() && it->first == first;
            },
            f);
        return;
      }
    }
    profile.flows.for_each(f);
  }

 private:
  std::vector<std::uint32_t> weight_;  // by phase
  std::vector<ValueId> first_moved_;   // by phase
  std::vector<Replay> replays_;
};

// The value instances the alike replays use, told by a pass that reads
// their reference iterations: a replay uses the instances at the offsets
// its reference used, as often and by the same vertices, and the values
// from before the iterations again.
//
//   ReplayedUses replayed(alike, marks);
//   replayed.note(phase, s, by_other_vertex);  // each use the pass reads; returns the replays' uses of s now
//   replayed.for_each_use(f);                  // f(instance, uses (1 or 2 for more), by_other_vertex) after
class ReplayedUses {
 public:
  ReplayedUses(const AlikeReplays& alike, std::span<const ValueId> marks)
      : alike_(alike), moves_from_(marks.empty() ? 0 : marks.front()) {
    for (const AlikeReplays::Replay& r : alike.replays()) {
      auto& uses = uses_[r.reference];
      if (uses.empty()) uses.assign(phase_first(marks, r.reference + 1) - alike.first_moved(r.reference), 0);
    }
  }

  // A chain of `phase` uses s: the uses its replays make of s now (a
  // value from before the iterations, whose uses saturate at 2: one
  // standing for them all), else 0, the replays' instances being noted
  // for for_each_use.
  unsigned note(std::size_t phase, ValueId s, bool by_other_vertex) {
    if (alike_.weight(phase) == 1) return 0;
    if (s < moves_from_) return 1;
    std::uint8_t& u = uses_[phase][s - alike_.first_moved(phase)];
    u = static_cast<std::uint8_t>(((u & 3) < 2 ? u + 1 : u) | (by_other_vertex ? 4 : 0));
    return 0;
  }

  // f(instance, uses, by_other_vertex) for every instance an alike replay
  // uses from the iterations, its uses by that replay saturating at 2.
  template <class F>
  void for_each_use(F&& f) const {
    for (const AlikeReplays::Replay& r : alike_.replays()) {
      // (find, not at: the runtime links no exception helpers of Abseil's)
      const std::vector<std::uint8_t>& uses = uses_.find(r.reference)->second;
      const ValueId base = alike_.first_moved(r.reference) + r.shift;
      for (std::size_t i = 0; i < uses.size(); ++i) {
        if (uses[i] != 0) f(static_cast<ValueId>(base + i), unsigned{uses[i] & 3u}, (uses[i] & 4) != 0);
      }
    }
  }

 private:
  const AlikeReplays& alike_;
  ValueId moves_from_;  // the first value of the iterations
  // By reference iteration, per instance from its first moved one on:
  // its uses (saturating at 2), 4 if one is by another vertex.
  absl::flat_hash_map<std::size_t, std::vector<std::uint8_t>> uses_;
};

template <class Profile, class GraphVertex>
AlikeReplays AlikeReplays::of(const Profile& profile, const GraphVertex& graph_vertex) {
  AlikeReplays out;
  if constexpr (requires { profile.flows.replay_threshold(); }) {
    const auto& marks = profile.iteration_marks;
    const std::size_t phases = profile.phase_count();
    // Replays shift every source from the first iteration on, as the
    // iteration marks count them.
    if (phases < 3 || profile.flows.replay_threshold() != marks[0]) return out;
    std::vector<std::pair<ValueId, ValueId>> replays;  // (first value, shift), in order
    profile.flows.for_each_replay([&](ValueId v, ValueId shift) { replays.emplace_back(v, shift); });
    if (replays.empty()) return out;
    auto first_of = [&](std::size_t p) { return phase_first(marks, p); };
    auto length = [&](std::size_t p) { return profile.phase_end(p) - first_of(p); };
    // run_start[p]: the first iteration of the run up to p of iterations
    // as long as p whose values, offset by offset, are in the same graph
    // vertices.
    std::vector<std::size_t> run_start(phases);
    std::vector<VertexId> before, now;
    for (std::size_t p = 0; p < phases; ++p) {
      run_start[p] = p;
      if (p < 2 || length(p) != length(p - 1)) continue;
      bool same = true;
      constexpr ValueId kChunk = 4096;
      for (ValueId k = 0; same && k < length(p); k += kChunk) {
        const std::size_t n = std::min(kChunk, length(p) - k);
        before.resize(n);
        now.resize(n);
        if constexpr (requires { profile.values.vertices(ValueId{}, n, before.data()); }) {
          profile.values.vertices(first_of(p - 1) + k, n, before.data());
          profile.values.vertices(first_of(p) + k, n, now.data());
        } else {
          for (std::size_t i = 0; i < n; ++i) {
            before[i] = profile.values.vertex(static_cast<ValueId>(first_of(p - 1) + k + i));
            now[i] = profile.values.vertex(static_cast<ValueId>(first_of(p) + k + i));
          }
        }
        for (std::size_t i = 0; same && i < n; ++i) {
          same = before[i] == now[i] || graph_vertex(before[i]) == graph_vertex(now[i]);
        }
      }
      if (same) run_start[p] = run_start[p - 1];
    }
    // Per recorded iteration q in a run (the replays are not read: their
    // sources are their reference's, moved): the oldest value from the
    // iterations it reads, and whether each it reads from before the run
    // is in the vertex of the value it lands on when moved by whole
    // iterations of the run into the run. A replay of q from the same run
    // moves it by such iterations; where it lands in the run, every
    // iteration's value at that offset is in that vertex.
    constexpr ValueId kNone = std::numeric_limits<ValueId>::max();
    std::vector<ValueId> lowest(phases, kNone);
    std::vector<std::uint8_t> sources_kept(phases, 1);
    PhaseCursor phase_of(marks);
    profile.flows.for_each_unless([](ValueId) { return true; }, [&](ValueId v, std::span<const ValueId> sources) {
      const std::size_t q = phase_of(v);
      const ValueId run = first_of(run_start[q]), step = length(q);
      const auto moved = std::lower_bound(sources.begin(), sources.end(), marks[0]);
      lowest[q] = std::min(lowest[q], moved != sources.end() ? *moved : v);
      for (auto it = moved; it != sources.end() && *it < run && sources_kept[q]; ++it) {
        const ValueId there = *it + (run - *it + step - 1) / step * step;
        sources_kept[q] = graph_vertex(profile.values.vertex(*it)) == graph_vertex(profile.values.vertex(there));
      }
    });
    out.weight_.assign(phases, 1);
    for (const auto& [first, shift] : replays) {
      const std::size_t p = profile.phase_of(first);
      const std::size_t q = shift < first ? profile.phase_of(first - shift) : 0;
      if (q == 0 || q >= p || lowest[q] == kNone || !sources_kept[q]) continue;
      // p and q in one run, every value the replay moves landing in it.
      if (first_of(p) - first_of(q) != shift || run_start[p] > q ||
          (lowest[q] < first_of(run_start[q]) && lowest[q] + shift < first_of(run_start[q]))) {
        continue;
      }
      out.replays_.push_back({first, p, q, shift});
      ++out.weight_[q];
    }
    if (out.replays_.empty()) {
      out.weight_.clear();
    } else {
      out.first_moved_ = std::move(lowest);
    }
  }
  return out;
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_ESTIMATE_ALIKE_REPLAYS_H_

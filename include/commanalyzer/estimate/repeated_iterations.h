// Repeated iterations: the iterations of a region the cost model
// (cost_model.h) need not cost one by one, because each repeats the one
// before it.
//
//   IterationSignatures signatures = IterationSignatures::of(profile, graph, node_of, temporary);
//   RepeatedIterations r = signatures.repeats(owner);  // for one distribution
//   r.repeats(phase);          // not costed: it costs what r.costed_as(phase) does
//   r.weight(phase);           // a costed phase counts this many times
//   r.stand_in(s, phase);      // a repeating phase's value, as a costed phase holds it
//
// An owner-computes code's communication is decided per iteration, and
// every location has one owner for the region (DESIGN.md): an iteration
// whose value flows are those of the iteration before it, shifted by one
// iteration (the same number of values, each computed at the same site,
// stored at the same location, from sources at the same locations read at
// the same age in iterations or the same value from before the loop)
// sends what that iteration sent, once the iterations it reads from are
// alike too. A time-stepped stencil or a CG solver repeats every step after
// the first few: costing one and counting it for the rest gives the whole
// run's bytes, messages, collectives and work, and the cost model's state
// follows the iterations it costs rather than the whole run.
//
// The rule, with D the oldest iteration any value reads from (1 for a step
// that reads the step before it): in a run of alike iterations r..e, the
// first max(D, 1) + 1 are costed (by the last of them, the values each
// reads were received, recomputed or owned as in every later step: the
// values before the loop were first read in r), the others repeat the
// last costed one. The region's last iteration is always costed (what it
// leaves unreduced is published there), and so is the first that follows
// a run: it reads the run's last D iterations, which stand in for the
// same number of costed ones (stand_in). Nothing repeats where the
// signatures differ: LULESH's iterations vary in length as its shock
// front moves, and each is costed. Nor where the recomputation plan
// replaces receptions: a process carries what it recomputed from one step
// to the next, so alike steps need not send alike (cost_model.h costs
// that run step by step).
#ifndef COMMANALYZER_REPEATED_ITERATIONS_H_
#define COMMANALYZER_REPEATED_ITERATIONS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "commanalyzer/record/profile.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

class RepeatedIterations {
 public:
  RepeatedIterations() = default;

  bool any() const { return !costed_as_.empty(); }
  std::size_t repeating_phases() const {
    std::size_t n = 0;
    for (std::size_t p = 0; p < costed_as_.size(); ++p) n += costed_as_[p] != p;
    return n;
  }
  bool repeats(std::size_t phase) const { return phase < costed_as_.size() && costed_as_[phase] != phase; }
  std::size_t costed_as(std::size_t phase) const { return repeats(phase) ? costed_as_[phase] : phase; }
  std::uint64_t weight(std::size_t phase) const { return phase < weight_.size() ? weight_[phase] : 1; }
  // A value of a repeating phase as the costed phase standing in for that
  // phase holds it (the same offset in it); other values as they are.
  ValueId stand_in(ValueId s, std::size_t phase) const { return repeats(phase) ? s - shift_[phase] : s; }

  // These repeats, and the iterations beyond a recording window
  // (Profile::recorded_iterations) counted as its last costed one, as a
  // time loop repeats its exchanges once its data is in place (the
  // projection candidates are compared on, choice.h). The window's last
  // recorded iteration is a look-ahead: it shows which of the one
  // before's results later iterations use (a reduction the next step
  // reads is reduced; one nobody reads is not), and is counted as that
  // one, like the unrecorded ones (phases [recorded - 1, phases - 1)). The
  // last phase, after the last mark, is what follows the loop. Needs
  // recorded >= 3: the first phase holds what comes before the loop, the
  // second is the first to stand for later ones, the third looks ahead.
  RepeatedIterations counting_beyond_window(std::size_t phases, std::size_t recorded) const {
    if (recorded < 3 || recorded + 1 >= phases) return *this;
    RepeatedIterations out = *this;
    if (out.costed_as_.empty()) {
      out.costed_as_.resize(phases);
      for (std::size_t p = 0; p < phases; ++p) out.costed_as_[p] = static_cast<std::uint32_t>(p);
      out.weight_.assign(phases, 1);
      out.shift_.assign(phases, 0);
    }
    const std::size_t first = recorded - 1;  // the first phase counted, not costed
    // (The empty phases are alike among themselves: whatever the runs made of them goes.)
    const std::size_t last = out.costed_as(first - 1);
    for (std::size_t f = first; f + 1 < phases; ++f) {
      out.costed_as_[f] = static_cast<std::uint32_t>(last);
      out.weight_[f] = 0;
      out.shift_[f] = 0;
    }
    out.weight_[phases - 1] = 1;
    out.costed_as_[phases - 1] = static_cast<std::uint32_t>(phases - 1);
    std::uint64_t weight = 1;
    for (std::size_t f = 0; f < first; ++f) weight += out.costed_as_[f] == last && f != last;
    out.weight_[last] = weight + (phases - 1 - first);
    out.first_projected_ = first;
    return out;
  }
  // Only the iterations beyond the window (every one in it costed).
  RepeatedIterations beyond_window_only() const {
    if (first_projected_ == kNone) return RepeatedIterations{};
    return RepeatedIterations{}.counting_beyond_window(costed_as_.size(), first_projected_ + 1);
  }
  // Iterations in the window counted as one they repeat.
  std::size_t window_repeats() const {
    std::size_t n = 0;
    for (std::size_t p = 0; p < costed_as_.size() && p < first_projected_; ++p) n += costed_as_[p] != p;
    return n;
  }
  // Iterations beyond the window's costed ones, counted as its last.
  std::size_t projected() const { return first_projected_ == kNone ? 0 : costed_as_.size() - 1 - first_projected_; }

  // `first_of(p)`: the first value of phase p (p >= 1, p < phases).
  template <class FirstOf>
  static RepeatedIterations from_runs(const std::vector<std::uint64_t>& signature, std::size_t oldest_read,
                                      const FirstOf& first_of) {
    RepeatedIterations out;
    const std::size_t phases = signature.size();
    if (phases < 3) return out;
    const std::size_t costed_in_run = std::max<std::size_t>(oldest_read, 1) + 1;
    out.costed_as_.resize(phases);
    out.weight_.assign(phases, 1);
    out.shift_.assign(phases, 0);
    for (std::size_t p = 0; p < phases; ++p) out.costed_as_[p] = static_cast<std::uint32_t>(p);
    // Phase 0 (before the first mark) and the last one are never alike.
    for (std::size_t r = 1; r + 1 < phases;) {
      std::size_t e = r;
      while (e + 2 < phases && signature[e + 1] == signature[r]) ++e;
      const std::size_t t = r + costed_in_run - 1;  // the costed phase the rest repeat
      if (e > t) {
        for (std::size_t f = t + 1; f <= e; ++f) {
          out.costed_as_[f] = static_cast<std::uint32_t>(t);
          // The last repeating phases stand for the last costed ones, in order.
          const std::size_t held_as = t - std::min(e - f, costed_in_run - 1);
          out.shift_[f] = first_of(f) - first_of(held_as);
        }
        out.weight_[t] += e - t;
        for (std::size_t f = t + 1; f <= e; ++f) out.weight_[f] = 0;
      }
      r = e + 1;
    }
    if (out.repeating_phases() == 0) return RepeatedIterations{};
    return out;
  }

 private:
  std::vector<std::uint32_t> costed_as_;  // by phase
  std::vector<std::uint64_t> weight_;     // by phase
  std::vector<ValueId> shift_;            // by repeating phase: its values' distance to their stand-ins
  static constexpr std::size_t kNone = ~std::size_t{0};
  std::size_t first_projected_ = kNone;  // the first phase beyond a recording window's costed ones
};

// The phases of `profile` that repeat the one before, for owners fixed per
// location: `node_of(x)` is ValueGraph vertex x's location (any value the same
// for every replicated vertex), so the phases found hold for every
// distribution of those locations.
namespace repeated_iterations_internal {

// Folds x into a running signature (64-bit multiply-xorshift: a pass hashes
// every source of the run, so it must be cheap; equal runs give equal
// signatures, and unequal ones collide with odds of 2^-64).
inline std::uint64_t mix(std::uint64_t h, std::uint64_t x) {
  h = (h ^ x) * 0x9e3779b97f4a7c15ULL;
  return h ^ (h >> 29);
}

}  // namespace repeated_iterations_internal

// The phases' signatures, computed once for the locations of an estimate
// (LocationIndex::Census: no array copied, so they hold for every count):
// `node_of(x)` is ValueGraph vertex x's node, `temporary(n)` whether node
// n is a temporary (placed vertex by vertex, not a location with one
// owner). Array locations are named by their node, as every
// distribution of them gives a location one owner; a temporary's owner is
// checked per distribution (repeats()).
class IterationSignatures {
 public:
  template <class ProfileT, class Graph, class NodeOf, class IsTemporary>
  static IterationSignatures of(const ProfileT& profile, const Graph& graph, const NodeOf& node_of,
                                const IsTemporary& temporary);

  // Whether phase p repeats the one before it when graph vertex x is owned
  // by owner[x], by the rule of repeats() (false where either was not
  // hashed: iterations of different lengths).
  bool repeats_previous(std::size_t p, const std::vector<ProcId>& owner) const {
    if (p < 2 || p >= signature_.size()) return false;
    return owned_signature(p, owner) == owned_signature(p - 1, owner);
  }

  // The phases that repeat the one before when graph vertex x is owned by
  // owner[x].
  RepeatedIterations repeats(const std::vector<ProcId>& owner) const {
    if (signature_.empty()) return {};
    std::vector<std::uint64_t> signature(signature_.size());
    for (std::size_t p = 0; p < signature.size(); ++p) signature[p] = owned_signature(p, owner);
    return RepeatedIterations::from_runs(signature, oldest_read_, [&](std::size_t p) { return first_[p]; });
  }

 private:
  // Phase p's signature with the owners of the temporaries born in it.
  std::uint64_t owned_signature(std::size_t p, const std::vector<ProcId>& owner) const {
    std::uint64_t h = signature_[p];
    for (std::uint32_t x : temporaries_[p]) h = repeated_iterations_internal::mix(h, owner[x]);
    return h;
  }

  std::vector<std::uint64_t> signature_;  // by phase
  std::size_t oldest_read_ = 0;
  std::vector<ValueId> first_;  // by phase: its first value
  std::vector<std::vector<std::uint32_t>> temporaries_;  // by phase: graph vertices of the temporaries born there
};

template <class ProfileT, class Graph, class NodeOf, class IsTemporary>
IterationSignatures IterationSignatures::of(const ProfileT& profile, const Graph& graph, const NodeOf& node_of,
                                            const IsTemporary& temporary) {
  using repeated_iterations_internal::mix;
  IterationSignatures out;
  const auto& marks = profile.iteration_marks;
  const std::size_t phases = profile.phase_count();
  if (phases < 3) return out;
  auto first_of = [&](std::size_t phase) { return phase_first(marks, phase); };
  auto length = [&](std::size_t p) { return profile.phase_end(p) - first_of(p); };
  // Only an iteration as long as the one before or after it can be in a
  // run of alike ones (phase 0 and the last are never): the others are
  // not hashed, and none is where no two neighbours are as long (LULESH's
  // steps, whose length follows its shock front).
  std::vector<std::uint8_t> alike(phases, 0);
  bool any_alike = false;
  for (std::size_t p = 1; p + 1 < phases; ++p) {
    alike[p] = (p >= 2 && length(p) == length(p - 1)) || (p + 2 < phases && length(p + 1) == length(p));
    any_alike |= alike[p] != 0;
  }
  if (!any_alike) return out;
  // What the cost model reads of a vertex (its location, home, array,
  // whether it is a reduction) is hashed once.
  std::vector<std::uint64_t> held(profile.vertex_count());
  for (VertexId x = 0; x < held.size(); ++x) {
    const auto local = graph.local(x);
    std::uint64_t node = ~std::uint64_t{0};
    if (local != Graph::kAbsent) node = temporary(node_of(local)) ? ~std::uint64_t{1} : node_of(local);
    held[x] = mix(mix(mix(profile.vertex_home[x], profile.vertex_group[x]), node),
                  local != Graph::kAbsent ? graph.group(local) : 0);
  }

  // The chains' shape per phase: each value's offset in its iteration and
  // its sources' names (the same value from before the iterations, or the
  // same place in an iteration the same age). What the cost model reads of
  // a value itself is hashed per phase below, once per value rather than
  // once per use.
  std::vector<std::uint64_t> shape(phases, 0);
  std::vector<std::size_t> oldest(phases, 0);  // by phase: how many iterations back it reads
  PhaseCursor phase_of(marks);
  auto chain = [&](ValueId v, std::span<const ValueId> sources) {
    const std::size_t phase = phase_of(v);
    if (phase == 0) return true;
    const ValueId first = first_of(phase);
    std::uint64_t h = mix(v - first, sources.size());
    for (ValueId s : sources) {
      std::uint64_t name = s;
      if (s >= marks[0]) {
        const std::size_t from = s >= first ? phase : s >= first_of(phase - 1) ? phase - 1 : profile.phase_of(s);
        oldest[phase] = std::max(oldest[phase], phase - from);
        name = ((phase - from) << 40 | (s - first_of(from))) ^ (1ULL << 63);
      }
      if (alike[phase]) h = mix(h, name);
    }
    if (alike[phase]) shape[phase] = mix(shape[phase], h);
    return true;
  };
  if constexpr (requires { profile.flows.replay_threshold(); }) {
    // A replayed iteration (compressor.h) has the shape of the one it
    // replays where the iterations either reads from are as far apart as
    // they are: its chains are that one's, every id moved by the same
    // distance. Such a replay is not read.
    std::vector<std::pair<ValueId, ValueId>> replays;  // (first value, shift), in order
    if (profile.flows.replay_threshold() == marks[0]) {
      profile.flows.for_each_replay([&](ValueId v, ValueId shift) { replays.emplace_back(v, shift); });
    }
    std::size_t next = 0;
    auto shaped_as_before = [&](ValueId v) {
      while (next < replays.size() && replays[next].first < v) ++next;
      if (next == replays.size() || replays[next].first != v) return false;
      const ValueId shift = replays[next].second;
      const std::size_t p = profile.phase_of(v), q = shift < v ? profile.phase_of(v - shift) : 0;
      if (q == 0 || q >= p || oldest[q] >= q || (alike[p] && !alike[q])) return false;
      for (std::size_t a = 0; a <= oldest[q]; ++a) {
        if (first_of(p - a) - first_of(q - a) != shift) return false;
      }
      shape[p] = shape[q];
      oldest[p] = oldest[q];
      return true;
    };
    profile.flows.for_each_unless(shaped_as_before, chain);
  } else {
    profile.flows.for_each(chain);
  }
  out.oldest_read_ = *std::max_element(oldest.begin(), oldest.end());
  // Per phase that an alike one reads from: each value's offset, size,
  // site and vertex.
  std::vector<std::uint8_t> read(phases, 0);
  for (std::size_t p = 1; p < phases; ++p) {
    for (std::size_t a = 0; alike[p] && a <= oldest[p]; ++a) read[p - a] = 1;
  }
  // One pass over the values names the vertices as they are born and
  // hashes the values of the phases read. A vertex created in an
  // iteration is named by that iteration's age and its place among the
  // iteration's new vertices: the same element's vertex of the next step
  // has the same name there.
  constexpr std::uint32_t kUnseen = ~std::uint32_t{0};
  std::vector<std::uint32_t> born(profile.vertex_count(), kUnseen);
  std::vector<VertexId> first_born(phases, ~VertexId{0});
  out.temporaries_.resize(phases);
  auto vertex_code = [&](VertexId x, std::size_t phase) -> std::uint64_t {
    const std::uint32_t p = x < born.size() ? born[x] : 0;
    const std::uint64_t name = p == 0 || p == kUnseen ? x : ((phase - p) << 40 | (x - first_born[p])) ^ (1ULL << 63);
    return mix(name, x < held.size() ? held[x] : 0);
  };
  std::vector<std::uint64_t> held_values(phases, 0);
  std::size_t site_run = 0;
  PhaseCursor value_phase(marks);
  for (ValueId v = 1; v <= profile.values.count(); ++v) {
    const VertexId x = profile.values.vertex(v);
    const std::size_t f = value_phase(v);
    if (x < born.size() && born[x] == kUnseen) {
      born[x] = static_cast<std::uint32_t>(f);
      first_born[f] = std::min(first_born[f], x);
      const auto local = graph.local(x);
      if (f != 0 && local != Graph::kAbsent && temporary(node_of(local))) out.temporaries_[f].push_back(local);
    }
    if (!read[f]) continue;
    while (site_run + 1 < profile.value_sites.size() && profile.value_sites[site_run + 1].first <= v) ++site_run;
    const std::uint32_t site = site_run < profile.value_sites.size() && profile.value_sites[site_run].first <= v
                                   ? profile.value_sites[site_run].site
                                   : 0;
    const std::uint64_t size = profile.values.size_bytes(v) << 1 | profile.values.is_input(v);
    held_values[f] = mix(held_values[f], mix(mix(v - first_of(f), size), mix(site, vertex_code(x, f))));
  }
  std::vector<std::uint64_t>& signature = out.signature_;
  signature.assign(phases, 0);
  out.first_.resize(phases);
  for (std::size_t p = 0; p < phases; ++p) {
    out.first_[p] = first_of(p);
    if (p == 0) continue;
    if (!alike[p]) {  // an iteration not hashed is like no other
      signature[p] = mix(~std::uint64_t{0}, p);
      continue;
    }
    std::uint64_t h = mix(shape[p], length(p));
    for (std::size_t a = 0; a <= oldest[p]; ++a) h = mix(h, held_values[p - a]);
    signature[p] = h;
  }
  return out;
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_REPEATED_ITERATIONS_H_

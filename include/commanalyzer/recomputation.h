// Recomputation: which of the values a process receives it could compute
// itself more cheaply, given what it owns.
//
// Owner-computes sends every remote instance a process uses. A process can
// instead receive fewer, earlier values and recompute the rest: with the
// summed force of a shared node, a LULESH-style code derives the node's new
// velocity and position itself (3 doubles instead of 6). Per receiving
// process q this is a minimum vertex cut in the value-flow DAG: every path
// from a value q cannot compute (a remote input, or the search horizon) to
// a value q uses must pass a value that q receives; each cut value costs
// its size. Values q owns and replicated (singleton) values are free.
// Received values are a valid cut, so the plan never costs more bytes.
#ifndef COMMANALYZER_RECOMPUTATION_H_
#define COMMANALYZER_RECOMPUTATION_H_

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
// Boost 1.74's max-flow trips GCC's -Wmaybe-uninitialized on an iterator it
// assigns before use.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/graph/boykov_kolmogorov_max_flow.hpp>
#pragma GCC diagnostic pop

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "commanalyzer/types.h"

namespace commanalyzer {

// Keys are instance * procs + receiving process.
struct ReceptionPlan {
  absl::flat_hash_set<std::uint64_t> recomputed;  // received before, now computed by the receiver
  std::vector<std::uint64_t> extra;               // received now, not before (an earlier value instead)
};

struct RecomputationLimits {
  int depth = 1;                 // how far back from a used value to look for a cheaper cut
  std::size_t max_sources = 16;  // values with more sources are received, never recomputed
};

// `received`: the keys of owner-computes; `owner_of(v)`: owning process or
// kReplicated.
template <class ProfileT, class OwnerOf>
ReceptionPlan plan_receptions(const ProfileT& profile, int procs, const absl::flat_hash_set<std::uint64_t>& received,
                              OwnerOf owner_of, RecomputationLimits limits = {}) {
  ReceptionPlan plan;
  if (received.empty()) return plan;
  std::vector<std::vector<ValueId>> used(procs);
  for (std::uint64_t k : received) used[k % procs].push_back(static_cast<ValueId>(k / procs));
  for (auto& values : used) std::sort(values.begin(), values.end());  // hash order would pick among equal cuts

  // Sources of every value within `depth` steps of a received one (one
  // sequential pass over the flows per step back). Values without an entry
  // have no recorded flow (inputs, values from before the region).
  // Wanted values as a bitmap: the pass asks about every recorded value.
  absl::flat_hash_map<ValueId, std::vector<ValueId>> sources_of;
  std::vector<bool> wanted(profile.values.count() + 1, false);
  std::size_t wanted_count = 0;
  for (std::uint64_t k : received) {
    const auto v = static_cast<ValueId>(k / procs);
    wanted_count += !wanted[v];
    wanted[v] = true;
  }
  for (int level = 0; level <= limits.depth && wanted_count != 0; ++level) {
    std::vector<bool> next(wanted.size(), false);
    std::size_t next_count = 0;
    profile.flows.for_each([&](ValueId v, std::span<const ValueId> sources) {
      if (!wanted[v]) return;
      auto& out = sources_of[v];
      out.assign(sources.begin(), sources.end());
      if (out.size() <= limits.max_sources && level < limits.depth) {
        for (ValueId s : out) {
          if (!next[s] && !sources_of.contains(s)) {
            next[s] = true;
            ++next_count;
          }
        }
      }
    });
    wanted = std::move(next);
    wanted_count = next_count;
  }

  using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
  using FlowGraph = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::directedS,
      boost::property<boost::vertex_color_t, boost::default_color_type,
                      boost::property<boost::vertex_predecessor_t, Traits::edge_descriptor,
                                      boost::property<boost::vertex_distance_t, long>>>,
      boost::property<boost::edge_capacity_t, std::int64_t,
                      boost::property<boost::edge_residual_capacity_t, std::int64_t,
                                      boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
  constexpr std::int64_t kInfinite = std::numeric_limits<std::int64_t>::max() / 4;
  constexpr std::int64_t kTieScale = std::int64_t{1} << 24;  // > vertices of one cut problem

  for (ProcId q = 0; q < procs; ++q) {
    if (used[q].empty()) continue;
    FlowGraph g(2);  // 0: where uncomputable data comes from, 1: what q uses
    auto capacity = boost::get(boost::edge_capacity, g);
    auto reverse = boost::get(boost::edge_reverse, g);
    auto connect = [&](std::size_t from, std::size_t to, std::int64_t cap) {
      const auto forward = boost::add_edge(from, to, g).first;
      const auto back = boost::add_edge(to, from, g).first;
      capacity[forward] = cap;
      capacity[back] = 0;
      reverse[forward] = back;
      reverse[back] = forward;
    };
    // A value q neither owns nor gets replicated: an "in" vertex 2i+2 and an
    // "out" vertex 2i+3; cutting the edge between them = receiving it.
    absl::flat_hash_map<ValueId, std::size_t> index;
    std::vector<ValueId> values;
    std::deque<std::pair<ValueId, int>> queue;
    auto node = [&](ValueId v, int depth) {
      auto [it, fresh] = index.try_emplace(v, values.size());
      if (fresh) {
        values.push_back(v);
        boost::add_vertex(g);
        boost::add_vertex(g);
        // Bytes first; among cuts of equal bytes, the one receiving the used
        // values themselves (owner-computes), not earlier ones.
        connect(2 * it->second + 2, 2 * it->second + 3,
                static_cast<std::int64_t>(profile.values.size_bytes(v)) * kTieScale + (depth == 0 ? 0 : 1));
        queue.emplace_back(v, depth);
      }
      return it->second;
    };
    auto free_at_q = [&](ValueId v) {
      const ProcId p = owner_of(v);
      return p == q || p == kReplicated;
    };
    for (ValueId v : used[q]) connect(2 * node(v, 0) + 3, 1, kInfinite);
    while (!queue.empty()) {
      const auto [v, depth] = queue.front();
      queue.pop_front();
      const std::size_t i = index[v];
      const auto it = sources_of.find(v);
      if (it == sources_of.end() || depth >= limits.depth || it->second.size() > limits.max_sources) {
        connect(0, 2 * i + 2, kInfinite);  // q cannot compute it (here): receive it or what it feeds
        continue;
      }
      for (ValueId s : it->second) {
        if (!free_at_q(s)) connect(2 * node(s, depth + 1) + 3, 2 * i + 2, kInfinite);
      }
    }
    boost::boykov_kolmogorov_max_flow(g, 0, 1);
    // Source side of the minimum cut: black. A value is received when its
    // "in" vertex is on the source side and its "out" vertex is not.
    auto color = boost::get(boost::vertex_color, g);
    absl::flat_hash_set<ValueId> receive;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (color[2 * i + 2] == boost::black_color && color[2 * i + 3] != boost::black_color) receive.insert(values[i]);
    }
    for (ValueId v : used[q]) {
      if (!receive.contains(v)) plan.recomputed.insert(static_cast<std::uint64_t>(v) * procs + q);
    }
    for (ValueId v : receive) {
      const std::uint64_t k = static_cast<std::uint64_t>(v) * procs + q;
      if (!received.contains(k)) plan.extra.push_back(k);
    }
  }
  return plan;
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_RECOMPUTATION_H_

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
#include <memory>
#include <numeric>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/property_map/property_map.hpp>
// Boost 1.74's max-flow trips GCC's -Wmaybe-uninitialized on an iterator it
// assigns before use.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/graph/boykov_kolmogorov_max_flow.hpp>
#pragma GCC diagnostic pop

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "commanalyzer/record/ranked_bits.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

// The flows the plan reads: all of the profile's (plan_receptions'
// default), or those a cost model costs (InstanceOwners::for_each_flow).
struct AllFlows {};

namespace recomputation_internal {

template <class ProfileT, class Flows, class F>
void for_each_flow(const ProfileT& profile, const Flows& flows, F&& f) {
  if constexpr (std::is_same_v<Flows, AllFlows>) {
    profile.flows.for_each(f);
  } else {
    flows(f);
  }
}

// A flow network for Boost's Boykov-Kolmogorov max-flow in compressed
// sparse rows: arcs added with their reverse (capacity 0) and kept, per
// vertex, in the order added. (An adjacency_list allocates each edge's
// properties on the heap: millions of allocations for a stencil's halos.)
class FlowNetwork {
 public:
  explicit FlowNetwork(std::size_t vertices) : vertices_(vertices) {}

  void connect(std::uint32_t from, std::uint32_t to, std::int64_t capacity) {
    arcs_.emplace_back(from, to);
    capacity_.push_back(capacity);
    arcs_.emplace_back(to, from);
    capacity_.push_back(0);
  }

  // Colors after the max-flow from `source` to `sink`: black for the
  // source side of the minimum cut (what the source reaches in the
  // residual network).
  std::vector<boost::default_color_type> min_cut_colors(std::uint32_t source, std::uint32_t sink) const {
    using Graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                                     boost::no_property, std::uint32_t, std::uint64_t>;
    using Edge = boost::graph_traits<Graph>::edge_descriptor;
    // Arc k's place among the arcs sorted by tail, stably (a counting sort).
    std::vector<std::uint64_t> next(vertices_ + 1, 0);
    for (const auto& [from, to] : arcs_) ++next[from + 1];
    for (std::size_t v = 0; v < vertices_; ++v) next[v + 1] += next[v];
    std::vector<std::uint64_t> place(arcs_.size());
    std::vector<std::pair<std::uint32_t, std::uint32_t>> sorted(arcs_.size());
    for (std::size_t k = 0; k < arcs_.size(); ++k) {
      place[k] = next[arcs_[k].first]++;
      sorted[place[k]] = arcs_[k];
    }
    const Graph g(boost::edges_are_sorted, sorted.begin(), sorted.end(), vertices_);
    std::vector<std::int64_t> capacity(arcs_.size()), residual(arcs_.size());
    std::vector<Edge> reverse(arcs_.size());
    for (std::size_t k = 0; k < arcs_.size(); ++k) {
      capacity[place[k]] = capacity_[k];
      reverse[place[k]] = Edge(arcs_[k ^ 1].first, place[k ^ 1]);
    }
    std::vector<Edge> predecessor(vertices_);
    std::vector<boost::default_color_type> color(vertices_);
    std::vector<long> distance(vertices_);
    const auto edge_index = boost::get(boost::edge_index, g);
    const auto vertex_index = boost::get(boost::vertex_index, g);
    boost::boykov_kolmogorov_max_flow(g, boost::make_iterator_property_map(capacity.begin(), edge_index),
                                      boost::make_iterator_property_map(residual.begin(), edge_index),
                                      boost::make_iterator_property_map(reverse.begin(), edge_index),
                                      boost::make_iterator_property_map(predecessor.begin(), vertex_index),
                                      boost::make_iterator_property_map(color.begin(), vertex_index),
                                      boost::make_iterator_property_map(distance.begin(), vertex_index),
                                      vertex_index, source, sink);
    return color;
  }

 private:
  std::size_t vertices_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> arcs_;  // arc 2k + 1 reverses arc 2k
  std::vector<std::int64_t> capacity_;
};

// The recorded sources of chosen values, by ValueId. Looked up for every
// source of every used value, in near-ascending order, so by position, not
// by hash: a bit per recorded value says whether it has a list, and its
// rank is the list's number (RankedBits: 1.25 bits per value of the
// pages of 4096 values that hold a list, instead of a 4-byte slot per
// value: the index does not outweigh the lists it finds, nor grow with
// the iterations not costed). The lists (millions)
// are packed into blocks of a fixed size, allocated as they fill: one
// growing array would copy itself at every doubling and hold up to three
// times the lists at its peak. Lists are added in any order; seal()
// numbers them by value before the first lookup.
class RecordedSources {
 public:
  explicit RecordedSources(std::size_t values) : present_(values) {}

  void add(ValueId v, std::span<const ValueId> sources) {
    ValueId* const first = place(sources.size());
    std::copy(sources.begin(), sources.end(), first);
    lists_.push_back({first, static_cast<std::uint32_t>(sources.size())});
    added_.push_back(v);
    present_.insert(v);
  }
  bool contains(ValueId v) const { return present_.contains(v); }

  // Numbers the lists by value: afterwards operator[] finds them.
  void seal() {
    present_.seal();
    list_of_rank_.resize(added_.size());
    for (std::uint32_t list = 0; list < added_.size(); ++list) list_of_rank_[present_.rank(added_[list])] = list;
    added_ = {};
  }

  // Requires contains(v) and seal().
  std::span<const ValueId> operator[](ValueId v) const {
    const List& list = lists_[list_of_rank_[present_.rank(v)]];
    return {list.first, list.size};
  }

 private:
  static constexpr std::size_t kBlock = std::size_t{1} << 16;  // ids: 256 KiB
  struct List {
    const ValueId* first;
    std::uint32_t size;
  };

  // Room for a list of `size` ids: in the current block, a new one, or
  // (larger than a block) one of its own.
  ValueId* place(std::size_t size) {
    if (size > kBlock) return blocks_.emplace_back(std::make_unique_for_overwrite<ValueId[]>(size)).get();
    if (size > room_) {
      free_ = blocks_.emplace_back(std::make_unique_for_overwrite<ValueId[]>(kBlock)).get();
      room_ = kBlock;
    }
    ValueId* const first = free_;
    free_ += size;
    room_ -= size;
    return first;
  }

  RankedBits present_;                       // v has a list
  std::vector<std::uint32_t> list_of_rank_;  // the list of the k-th recorded value
  std::vector<ValueId> added_;              // the value of list i, until seal()
  std::vector<List> lists_;
  std::vector<std::unique_ptr<ValueId[]>> blocks_;
  ValueId* free_ = nullptr;  // the current block's unused part
  std::size_t room_ = 0;
};

// Two flags per value of the run, set for one receiver's used values and
// cleared after it: RankedBits pages, so only the pages of 4096 values
// that hold a mark are allocated (a receiver uses a few values of each
// iteration, its halo; a dense array for the whole run, 2 bits per
// instance, took 211 MB at Heat2D 2048^2 x 200 steps, one per thread).
class ValueMarks {
 public:
  explicit ValueMarks(std::size_t values) : flag_{RankedBits(values), RankedBits(values)} {}
  std::uint8_t operator[](ValueId v) const {
    return static_cast<std::uint8_t>((flag_[0].contains(v) ? 1 : 0) | (flag_[1].contains(v) ? 2 : 0));
  }
  void set(ValueId v, std::uint8_t flags) {
    if ((flags & 1) != 0) flag_[0].insert(v);
    if ((flags & 2) != 0) flag_[1].insert(v);
  }
  // Every mark cleared, every page given back (after a receiver).
  void clear_all() {
    flag_[0].clear();
    flag_[1].clear();
  }
  std::size_t memory_bytes() const { return flag_[0].memory_bytes() + flag_[1].memory_bytes(); }

 private:
  RankedBits flag_[2];
};

}  // namespace recomputation_internal

// Keys are instance * procs + receiving process.
struct ReceptionPlan {
  absl::flat_hash_set<std::uint64_t> recomputed;  // received before, now computed by the receiver
  std::vector<std::uint64_t> extra;               // received now, not before (an earlier value instead); ascending
};

struct RecomputationLimits {
  int depth = 1;                 // how far back from a used value to look for a cheaper cut
  std::size_t max_sources = 16;  // values with more sources are received, never recomputed
  bool per_location = true;      // a location's values computed by a process are not sent it again
};

// No process contributed to any remote sum (plan_receptions' default).
struct NoContributions {
  bool operator()(ValueId, ProcId) const { return false; }
};

// Every value is stored at a location with a fixed owner (plan_receptions'
// default, as when every location is an array element).
struct EveryHomeFixed {
  bool operator()(ValueId) const { return true; }
};

namespace recomputation_internal {

// A key of `received`: the entry itself, or the first of a (key, anything) pair.
template <class Entry>
std::uint64_t key_of(const Entry& entry) {
  if constexpr (std::is_integral_v<Entry>) {
    return entry;
  } else {
    return entry.first;
  }
}

// The values each process receives, ascending (hash order would pick among
// equal cuts).
template <class Received>
std::vector<std::vector<ValueId>> used_by_process(const Received& received, int procs) {
  std::vector<std::vector<ValueId>> used(procs);
  for (const auto& entry : received) {
    const std::uint64_t k = key_of(entry);
    used[k % procs].push_back(static_cast<ValueId>(k / procs));
  }
  for (auto& values : used) std::sort(values.begin(), values.end());
  return used;
}

// Sources of every value fewer than `depth` steps back from a received
// one (one sequential pass over the flows per step back; the values
// `depth` steps back are not computed here, their sources are not needed).
// Values without an entry have no recorded flow (inputs, values from
// before the region). Wanted values as a bitmap: the pass asks about every
// recorded value.
template <class ProfileT, class Received, class Flows>
RecordedSources sources_back_from(const ProfileT& profile, const Received& received, int procs,
                                  RecomputationLimits limits, const Flows& flows) {
  const std::size_t ids = profile.values.count() + 1;
  RecordedSources sources_of(ids);
  RankedBits wanted(ids);
  std::size_t wanted_count = 0;
  ValueId last = 0;  // the newest value wanted: the pass stops after it
  for (const auto& entry : received) {
    const auto v = static_cast<ValueId>(key_of(entry) / procs);
    wanted_count += !wanted.contains(v);
    wanted.insert(v);
    last = std::max(last, v);
  }
  for (int level = 0; level < limits.depth && wanted_count != 0; ++level) {
    RankedBits next(ids);
    std::size_t next_count = 0;
    ValueId next_last = 0;
    for_each_flow(profile, flows, [&](ValueId v, std::span<const ValueId> sources) {
      if (v > last) return false;
      if (!wanted.contains(v)) return true;
      sources_of.add(v, sources);
      if (sources.size() <= limits.max_sources && level + 1 < limits.depth) {
        for (ValueId s : sources) {
          if (!next.contains(s) && !sources_of.contains(s)) {
            next.insert(s);
            ++next_count;
            next_last = std::max(next_last, s);
          }
        }
      }
      return true;
    });
    wanted = std::move(next);
    wanted_count = next_count;
    last = next_last;
  }
  sources_of.seal();
  return sources_of;
}

// The cut problem of one receiving process q: the values q uses (depth 0)
// and, back from them within the limits, the values they are computed
// from that q neither owns nor gets replicated. Cutting a value (its "in"
// to its "out" vertex) = receiving it; `receive()` solves the problem.
template <class ProfileT, class OwnerOf, class ContributedTo>
class ReceptionCut {
 public:
  // Per value, for the receiver at hand: used by it, a ghost update. An
  // array shared by every receiver's problem (cleared after each), not
  // sets: the checks run for every source of every used value.
  enum : std::uint8_t { kUsedHere = 1, kGhost = 2 };

  ReceptionCut(const ProfileT& profile, const RecordedSources& sources_of, const OwnerOf& owner_of,
               const ContributedTo& contributed, RecomputationLimits limits, ProcId q, ValueMarks& mark)
      : profile_(profile),
        sources_of_(sources_of),
        owner_of_(owner_of),
        contributed_(contributed),
        limits_(limits),
        q_(q),
        mark_(mark) {}

  // The values q receives, of `used` (ascending) and earlier ones; the
  // used values in `as_they_are` are received, not recomputed.
  absl::flat_hash_set<ValueId> receive(const std::vector<ValueId>& used,
                                       const absl::flat_hash_set<ValueId>& as_they_are = {}) {
    as_they_are_ = &as_they_are;
    mark_ghost_updates(used);
    for (ValueId v : used) node(v, 0);
    expand();
    mark_round_trips();
    leave_out_components_without_cheaper_cut();
    absl::flat_hash_set<ValueId> received = solve();
    mark_.clear_all();
    return received;
  }

 private:
  static constexpr std::int64_t kInfinite = std::numeric_limits<std::int64_t>::max() / 4;
  static constexpr std::int64_t kTieScale = std::int64_t{1} << 24;  // > vertices of one cut problem

  bool free_at_q(ValueId v) const {
    const ProcId p = owner_of_(v);
    return p == q_ || p == kReplicated;
  }

  std::uint32_t node(ValueId v, int depth) {
    auto [it, fresh] = index_.try_emplace(v, static_cast<std::uint32_t>(values_.size()));
    if (fresh) {
      values_.push_back(v);
      depth_of_.push_back(depth);
      uncomputable_.push_back(0);
      queue_.push_back(it->second);
    }
    return it->second;
  }

  // A used value is a *ghost update* when every value it is computed
  // from that q neither owns nor gets replicated is itself a used value
  // that q receives as it is (one with no recorded flow, or a ghost
  // update): `in[i] += 1.0` on a halo. q receives ghost updates; keeping
  // a ghost copy current from ghost copies is what no SPMD code does.
  // Recomputation replaces used values by earlier values q does not use
  // itself (LULESH's summed force, from which a shared node's velocity
  // and then its position follow).
  void mark_ghost_updates(const std::vector<ValueId>& used) {
    for (ValueId v : used) mark_.set(v, kUsedHere);
    for (ValueId v : used) {  // ascending: sources before the values computed from them
      if (!sources_of_.contains(v)) continue;
      bool remote = false, from_ghosts = true;
      for (ValueId s : sources_of_[v]) {
        if (free_at_q(s)) continue;
        remote = true;
        from_ghosts &= (mark_[s] & kUsedHere) && (!sources_of_.contains(s) || (mark_[s] & kGhost));
      }
      if (remote && from_ghosts) mark_.set(v, kGhost);
    }
  }

  // Breadth first back from the used values: what q cannot compute here
  // (an edge from the source terminal), and which value feeds which.
  void expand() {
    while (!queue_.empty()) {
      const std::uint32_t i = queue_.front();
      queue_.pop_front();
      if (depth_of_[i] >= limits_.depth || !sources_of_.contains(values_[i]) ||
          sources_of_[values_[i]].size() > limits_.max_sources ||
          (depth_of_[i] == 0 && ((mark_[values_[i]] & kGhost) || as_they_are_->contains(values_[i])))) {
        uncomputable_[i] = 1;
        continue;
      }
      for (ValueId s : sources_of_[values_[i]]) {
        if (free_at_q(s)) continue;
        // A used value leads to the sink itself: every path on through it
        // is cut at or before it already, so its feeds change no cut (and
        // would tie a stencil's halo of every step into one component).
        const std::uint32_t j = node(s, depth_of_[i] + 1);
        if (depth_of_[j] != 0) feeds_.emplace_back(j, i);
      }
    }
  }

  // Round trips (plan_receptions): used values q must compute itself.
  void mark_round_trips() {
    round_trip_.assign(values_.size(), 0);
    for (std::uint32_t i = 0; i < values_.size(); ++i) {
      if (depth_of_[i] != 0 || uncomputable_[i]) continue;
      for (ValueId s : sources_of_[values_[i]]) {
        if (!free_at_q(s) && contributed_(s, q_)) round_trip_[i] = 1;
      }
    }
  }

  // Bytes first; among cuts of equal bytes, the one receiving the used
  // values themselves (owner-computes), not earlier ones. A round trip
  // cannot be cut: its sources are (finite: each is a node or free).
  std::int64_t cost(std::uint32_t i) const {
    if (round_trip_[i]) return kInfinite;
    return static_cast<std::int64_t>(profile_.values.size_bytes(values_[i])) * kTieScale + (depth_of_[i] == 0 ? 0 : 1);
  }

  // The flow network falls apart into components that share only the
  // terminals, and the cut solved below (the source side reachable in
  // the residual graph) is the union of theirs. With one step back, a
  // component where every used value v costs less than its share of the
  // earlier values it comes from, sum over such s of cost(s) / (used
  // values s feeds), has receiving its used values as the only minimum
  // cut: recomputing a set R of them needs all those earlier values
  // received (a used source is received, or recomputed itself), which
  // costs at least the shares of R's members, more than R. Such
  // components (a stencil's halos) are left out: they receive what
  // owner-computes does.
  void leave_out_components_without_cheaper_cut() {
    in_problem_.assign(values_.size(), 1);
    if (limits_.depth != 1) return;
    std::vector<std::uint32_t> feeds_count(values_.size(), 0), parent(values_.size());
    std::iota(parent.begin(), parent.end(), 0u);
    auto root = [&](std::uint32_t i) {
      while (parent[i] != i) i = parent[i] = parent[parent[i]];
      return i;
    };
    for (const auto& [s, v] : feeds_) {
      ++feeds_count[s];
      parent[root(s)] = root(v);
    }
    // Shares in fixed point with 32 fraction bits, each rounded down: a
    // lower bound that still sees the tie-breaking unit of cost() (two
    // sources of 8 bytes feeding two used values each are worth 8 bytes
    // and 1/2 + 1/2 tie units, not 8 bytes and 0 + 0).
    using Fixed = unsigned __int128;
    auto fixed = [&](std::uint32_t i) { return static_cast<Fixed>(cost(i)) << 32; };
    std::vector<Fixed> shares(values_.size(), 0);
    for (const auto& [s, v] : feeds_) shares[v] += fixed(s) / feeds_count[s];
    std::vector<std::uint8_t> component_needed(values_.size(), 0);
    for (std::uint32_t i = 0; i < values_.size(); ++i) {
      if (depth_of_[i] == 0 && !uncomputable_[i] && (round_trip_[i] || shares[i] <= fixed(i))) {
        component_needed[root(i)] = 1;
      }
    }
    for (std::uint32_t i = 0; i < values_.size(); ++i) in_problem_[i] = component_needed[root(i)];
  }

  // The minimum cut. Vertex 0: where uncomputable data comes from, 1:
  // what q uses; node i is vertices 2k+2 ("in") and 2k+3 ("out"), k its
  // index in the problem. Used values left out of the problem are
  // received as they are.
  absl::flat_hash_set<ValueId> solve() const {
    std::vector<std::uint32_t> problem_index(values_.size(), 0);
    std::uint32_t problem_nodes = 0;
    for (std::uint32_t i = 0; i < values_.size(); ++i) {
      if (in_problem_[i]) problem_index[i] = problem_nodes++;
    }
    absl::flat_hash_set<ValueId> receive;
    for (std::uint32_t i = 0; i < values_.size(); ++i) {
      if (!in_problem_[i] && depth_of_[i] == 0) receive.insert(values_[i]);
    }
    if (problem_nodes == 0) return receive;
    FlowNetwork network(2 + 2 * std::size_t{problem_nodes});
    auto in = [&](std::uint32_t i) { return 2 * problem_index[i] + 2; };
    for (std::uint32_t i = 0; i < values_.size(); ++i) {
      if (!in_problem_[i]) continue;
      network.connect(in(i), in(i) + 1, cost(i));
      if (depth_of_[i] == 0) network.connect(in(i) + 1, 1, kInfinite);
      if (uncomputable_[i]) network.connect(0, in(i), kInfinite);
    }
    for (const auto& [s, v] : feeds_) {
      if (in_problem_[s]) network.connect(in(s) + 1, in(v), kInfinite);
    }
    // A value is received when its "in" vertex is on the source side of
    // the minimum cut and its "out" vertex is not.
    const std::vector<boost::default_color_type> color = network.min_cut_colors(0, 1);
    for (std::uint32_t i = 0; i < values_.size(); ++i) {
      if (in_problem_[i] && color[in(i)] == boost::black_color && color[in(i) + 1] != boost::black_color) {
        receive.insert(values_[i]);
      }
    }
    return receive;
  }

  const ProfileT& profile_;
  const RecordedSources& sources_of_;
  const OwnerOf& owner_of_;
  const ContributedTo& contributed_;
  const RecomputationLimits limits_;
  const ProcId q_;
  ValueMarks& mark_;
  absl::flat_hash_map<ValueId, std::uint32_t> index_;  // node of a value
  std::vector<ValueId> values_;
  const absl::flat_hash_set<ValueId>* as_they_are_ = nullptr;
  std::vector<int> depth_of_;
  std::vector<std::uint8_t> uncomputable_;                  // q cannot compute it (here): an edge from 0
  std::vector<std::pair<std::uint32_t, std::uint32_t>> feeds_;  // (s, v): v computed from s
  std::deque<std::uint32_t> queue_;
  std::vector<std::uint8_t> round_trip_;
  std::vector<std::uint8_t> in_problem_;
};

// The values q receives (ReceptionCut::receive), decided per location: a
// process that computes a location's values itself keeps doing so (a
// shared node it updates from the summed force, once it has the node); an
// MPI code does not send it that location's values again. Where the
// cheapest cut has q receive a location's value after computing an
// earlier one itself (a random stream's next number, computed where the
// one before happened to be sent to q too, received where it was not), q
// receives every value of that location up to the last it is sent, and
// the cut is solved again. (A repair, not the cheapest plan that keeps the
// rule: recomputation_test.) Only locations with a fixed owner (array
// elements; `fixed_home(v)`) keep a copy to compute in: a temporary placed
// value by value is nobody's to keep.
template <class ProfileT, class OwnerOf, class ContributedTo, class FixedHome>
absl::flat_hash_set<ValueId> receive_per_location(const ProfileT& profile, const RecordedSources& sources_of,
                                                  const OwnerOf& owner_of, const ContributedTo& contributed,
                                                  const FixedHome& fixed_home, RecomputationLimits limits, ProcId q,
                                                  ValueMarks& mark, const std::vector<ValueId>& used) {
  auto home = [&](ValueId v) { return profile.vertex_home[profile.values.vertex(v)]; };
  absl::flat_hash_set<ValueId> as_they_are;
  for (;;) {
    ReceptionCut<ProfileT, OwnerOf, ContributedTo> cut(profile, sources_of, owner_of, contributed, limits, q, mark);
    absl::flat_hash_set<ValueId> receive = cut.receive(used, as_they_are);
    if (!limits.per_location) return receive;
    absl::flat_hash_map<Address, ValueId> last_received;  // per location
    for (ValueId v : used) {  // ascending: creation order
      if (receive.contains(v) && fixed_home(v)) last_received[home(v)] = v;
    }
    // Computed before a value of the same location is received: received too.
    bool again = false;
    for (ValueId v : used) {
      if (receive.contains(v) || !fixed_home(v)) continue;
      const auto last = last_received.find(home(v));
      if (last != last_received.end() && v < last->second) again = as_they_are.insert(v).second || again;
    }
    if (!again) return receive;
  }
}

}  // namespace recomputation_internal

// `received`: the keys of owner-computes; `owner_of(v)`: owning process or
// kReplicated; `contributed(s, q)`: q sent a partial to the remote sum s in
// s's iteration.
//
// A value q would receive that was computed from a sum q contributed to in
// the same iteration makes a round trip: q's partial goes to the sum's
// owner, which computes the value and sends it back, two dependent rounds
// of messages in one step. SPMD codes that duplicate shared entities
// (LULESH's boundary nodes, finite-element assembly) exchange the partials
// among the sharers instead and compute the value on every sharer: q is
// given the sum (the cost model turns that into the other sharers'
// partials) and recomputes the value, whatever the bytes.
// `received` holds keys or (key, anything) pairs. `fixed_home(v)`: v is
// stored at a location with a fixed owner (receive_per_location).
// `flows(f)` calls f(value, sources) for the flows to plan with (f may
// return false to stop).
template <class ProfileT, class Received, class OwnerOf, class ContributedTo = NoContributions,
          class FixedHome = EveryHomeFixed, class Flows = AllFlows>
ReceptionPlan plan_receptions(const ProfileT& profile, int procs, const Received& received,
                              OwnerOf owner_of, RecomputationLimits limits = {},
                              ContributedTo contributed = {}, FixedHome fixed_home = {}, Flows flows = {}) {
  ReceptionPlan plan;
  if (received.empty()) return plan;
  const std::vector<std::vector<ValueId>> used = recomputation_internal::used_by_process(received, procs);
  const recomputation_internal::RecordedSources sources_of =
      recomputation_internal::sources_back_from(profile, received, procs, limits, flows);
  recomputation_internal::ValueMarks mark(profile.values.count() + 1);
  for (ProcId q = 0; q < procs; ++q) {
    if (used[q].empty()) continue;
    const absl::flat_hash_set<ValueId> receive =
        recomputation_internal::receive_per_location(profile, sources_of, owner_of, contributed, fixed_home,
                                                     limits, q, mark, used[q]);
    for (ValueId v : used[q]) {
      if (!receive.contains(v)) plan.recomputed.insert(static_cast<std::uint64_t>(v) * procs + q);
    }
    for (ValueId v : receive) {
      const std::uint64_t k = static_cast<std::uint64_t>(v) * procs + q;
      if (!received.contains(k)) plan.extra.push_back(k);
    }
  }
  std::sort(plan.extra.begin(), plan.extra.end());  // (not hash order: the estimate sends them in this order)
  return plan;
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_RECOMPUTATION_H_

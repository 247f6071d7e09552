// The value communication graph (VCG): vertices are coalesced value
// instances, a directed edge source -> sink carries the number of times the
// sink's instances used the source's instances. Self-loops are dropped.
//
// The directed VCG is a Boost compressed-sparse-row graph, kept with its
// in-edges: together they give its symmetric (undirected) closure row by
// row, the weights of both directions summed (for_each_neighbour), which is
// what degree-based singleton scoring and graph partitioners read, without
// holding every edge twice more.
// Only vertices that take part in a value flow of the region are in the
// graph; `local()` maps a VertexId of the profile to its graph index.
#ifndef COMMANALYZER_VALUE_GRAPH_H_
#define COMMANALYZER_VALUE_GRAPH_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <ostream>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/graphviz.hpp>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "commanalyzer/estimate/alike_replays.h"
#include "commanalyzer/estimate/csr_rows.h"
#include "commanalyzer/estimate/graph_vertices.h"
#include "commanalyzer/estimate/phase_degrees.h"
#include "commanalyzer/estimate/source_uses.h"
#include "commanalyzer/record/profile.h"
#include "commanalyzer/record/ranked_bits.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

class ValueGraph {
 public:
  using Graph = CsrGraph;
  using Vertex = CsrVertex;
  static constexpr Vertex kAbsent = kNoCsrVertex;

  // Builds the graph from a recorded profile (see profile.h): its flows, the
  // vertex of every value, and per-vertex home address and weight. The
  // rows are collapsed on up to `threads` threads; the graph is the same
  // for any count. `by_location`: a vertex per array location
  // (location_vertices); else per site vertex.
  template <class Profile>
  static ValueGraph build(const Profile& profile, unsigned threads = 1, const LocationGrain* by_location = nullptr) {
    ValueGraph g;
    const auto& values = profile.values;
    const std::vector<VertexId> site_of = site_vertices(profile);
    const std::vector<VertexId> vertex_of =
        by_location != nullptr ? location_vertices(profile, site_of, *by_location) : site_of;
    auto vertex = [&](ValueId v) { return vertex_of[values.vertex(v)]; };
    auto site = [&](ValueId v) { return site_of[values.vertex(v)]; };
    g.local_.assign(profile.vertex_count(), kAbsent);
    RankedBits exported(values.count() + 1);  // instance used by another vertex
    g.source_uses_ = SourceUses(values.count() + 1);
    std::vector<std::uint32_t> exports(profile.vertex_count(), 0);
    std::vector<std::uint32_t> work(profile.vertex_count(), 0);
    auto export_instance = [&](ValueId s, VertexId source) {
      if (!exported.contains(s)) {
        exported.insert(s);
        ++exports[source];
      }
    };
    // The iterations that replay another in the same vertices (whatever
    // the site vertices merged) are not read (alike_replays.h): they add
    // the vertices, uses and work of the iteration they replay, and their
    // own value instances used as it used its instances.
    const AlikeReplays alike = AlikeReplays::of(profile, [&](VertexId x) { return site_of[x]; });
    ReplayedUses replayed(alike, profile.iteration_marks);
    // One pass over the flows finds the vertices and what is counted per
    // vertex; a second, once they are numbered, folds the uses into edges.
    PhaseCursor chain_phase(profile.iteration_marks);
    alike.for_each_flow(profile, [&](ValueId v, std::span<const ValueId> sources) {
      const VertexId sink = vertex(v);
      const std::size_t phase = chain_phase(v);
      g.local_[sink] = 0;  // mark present
      work[sink] += static_cast<std::uint32_t>(sources.size()) * alike.weight(phase);
      const VertexId sink_site = site(v);
      for (ValueId s : sources) {
        g.local_[vertex(s)] = 0;
        const VertexId source = site(s);
        for (unsigned k = 1 + replayed.note(phase, s, source != sink_site); k > 0; --k) g.source_uses_.add(s);
        if (source != sink_site) export_instance(s, source);
      }
    });
    replayed.for_each_use([&](ValueId s, unsigned uses, bool by_other_vertex) {
      for (unsigned k = 0; k < uses; ++k) g.source_uses_.add(s);
      if (by_other_vertex) export_instance(s, site(s));
    });
    g.source_uses_.seal();
    // Exports are counted per site vertex (what another site vertex reads),
    // as with a vertex per site, then carried by the vertex that holds it.
    std::vector<std::uint32_t> sites;  // by location: per vertex, the site vertices it holds
    if (by_location != nullptr) {
      g.site_.assign(site_of.size(), false);
      sites.assign(site_of.size(), 0);
      for (VertexId x = 0; x < site_of.size(); ++x) {
        if (site_of[x] != x) continue;
        g.site_[x] = true;
        ++sites[vertex_of[x]];
        if (vertex_of[x] != x) exports[vertex_of[x]] += std::exchange(exports[x], 0);
      }
    }
    // Dense numbering in VertexId order: deterministic for a given profile.
    for (VertexId x = 0; x < g.local_.size(); ++x) {
      if (g.local_[x] == kAbsent) continue;
      g.local_[x] = static_cast<Vertex>(g.global_.size());
      g.global_.push_back(x);
      g.home_.push_back(profile.vertex_home[x]);
      g.group_.push_back(profile.vertex_group[x]);
      g.weight_.push_back(0);
      g.exports_.push_back(exports[x]);
      g.work_.push_back(work[x]);
      if (by_location != nullptr) g.sites_.push_back(sites[x]);
    }
    std::vector<std::uint32_t>().swap(sites);
    for (VertexId x = 0; x < vertex_of.size(); ++x) {
      const Vertex at = g.local_[vertex_of[x]];
      if (at == kAbsent) continue;
      g.local_[x] = at;
      g.weight_[at] += profile.vertex_weight[x];
    }
    UseAccumulator uses(g.vertex_count(), threads);
    PhaseDegrees::VertexTouches touches(g.vertex_count());
    PhaseCursor phase_of(profile.iteration_marks);
    alike.for_each_flow(profile, [&](ValueId v, std::span<const ValueId> sources) {
      const Vertex sink = g.local_[values.vertex(v)];
      const std::size_t phase = phase_of(v);
      const std::uint32_t weight = alike.weight(phase);
      touches.enter(phase);
      touches.touch(sink);
      for (ValueId s : sources) {
        const Vertex source = g.local_[values.vertex(s)];
        touches.touch(source);
        if (source != sink) uses.add(source, sink, weight);
      }
    });
    g.directed_ = std::move(uses).finish();
    // The in-edges stand in for the symmetric closure (symmetric_row).
    // Peak phase degrees are counted beside the symmetric degrees, for the
    // vertices out + in degree could make candidates (it bounds the
    // symmetric degree); the others are dropped after.
    g.in_ = csr::in_edges(g.directed_, g.vertex_count());
    std::vector<std::function<void()>> steps{
        [&] {
          g.degree_.resize(g.vertex_count());
          for (Vertex v = 0; v < g.vertex_count(); ++v) g.degree_[v] = csr::symmetric_degree(g.directed_, g.in_, v);
        },
        [&] {
          g.phase_degrees_.count(
              profile, [&](ValueId v) { return g.local_[values.vertex(v)]; }, g.directed_, g.in_, touches,
              [&](auto&& f) { alike.for_each_flow(profile, f); });
        }};
    if (threads > 1) {
      csr::run_together(steps);
    } else {
      for (auto& step : steps) step();
    }
    g.phase_degrees_.drop_below_floor(g.vertex_count(), [&](Vertex v) { return g.degree(v); });
    g.reduction_.assign(g.vertex_count(), 0);
    if constexpr (requires { profile.reductions; }) g.mark_loop_reductions(profile);
    return g;
  }

  // Reductions: the loop results of the loops that reduce distributed data
  // (mark_loop_reductions), and the values computed only
  // from reductions and values every process has (`singleton`): a minimum
  // of regions' minima, a time step from a minimum. An MPI code computes
  // these from each process's partial results and reduces what it needs
  // (LogicalVolumeCostModel). Marks them and returns them as singletons.
  std::vector<std::uint8_t> close_reductions(std::vector<std::uint8_t> singleton) {
    for (Vertex x = 0; x < vertex_count(); ++x) singleton[x] |= reduction_[x];
    // A vertex's sources mostly precede it, but not along a chain updated
    // in place (a sink created before one of its sources): repeat until
    // nothing changes. Per pass, over the edges: whether some source is a
    // reduction (1), whether every source is a singleton (2), has a source (4).
    std::vector<std::uint8_t> seen(vertex_count());
    for (bool changed = true; changed;) {
      changed = false;
      std::fill(seen.begin(), seen.end(), std::uint8_t{2});
      for (Vertex u = 0; u < vertex_count(); ++u) {
        for (auto e : boost::make_iterator_range(boost::out_edges(u, directed_))) {
          std::uint8_t& t = seen[boost::target(e, directed_)];
          t = static_cast<std::uint8_t>((t | 4 | (reduction_[u] ? 1 : 0)) & (singleton[u] ? 7 : 5));
        }
      }
      for (Vertex x = 0; x < vertex_count(); ++x) {
        if (!reduction_[x] && seen[x] == 7) {
          reduction_[x] = kComputedFromReductions;
          singleton[x] = changed = true;
        }
      }
    }
    return singleton;
  }
  bool reduction(Vertex v) const { return reduction_[v] != 0; }
  // A reduction the analyzer recorded: a loop's result, whose loop may have
  // started from another reduction's result (its accumulator's first value).
  bool loop_reduction(Vertex v) const { return reduction_[v] == kLoopReduction; }
  // A loop reduction's result the program never reads or decides on
  // (Analyzer::use): a minimum's element index only tested for whether the
  // loop found one, a region's minimum that did not lower the running one.
  // Dead code to an MPI programmer, who reduces what the program uses; but
  // the newest result of a loop whose every earlier result was used (a
  // residual deciding each step but the last) is used.
  bool unused_loop_result(ValueId instance) const { return unused_loop_results_.contains(instance); }

  std::size_t vertex_count() const { return global_.size(); }
  std::size_t edge_count() const { return boost::num_edges(directed_); }
  const Graph& directed() const { return directed_; }
  // f(neighbour, uses) for v's neighbours in either direction, ascending,
  // the uses of both directions summed: a row of the symmetric closure,
  // which METIS and the location graph are given.
  template <class F>
  void for_each_neighbour(Vertex v, F&& f) const {
    csr::symmetric_row(directed_, in_, v, f);
  }
  // Entries of the symmetric closure (each undirected edge twice).
  std::uint64_t symmetric_entries() const {
    std::uint64_t total = 0;
    for (const std::uint32_t d : degree_) total += d;
    return total;
  }

  Vertex local(VertexId global) const { return global < local_.size() ? local_[global] : kAbsent; }
  VertexId global(Vertex v) const { return global_[v]; }
  Address home(Vertex v) const { return home_[v]; }
  // The heap allocation (array) v's home belongs to; 0 = untracked.
  std::uint32_t group(Vertex v) const { return group_[v]; }
  std::uint32_t weight(Vertex v) const { return weight_[v]; }
  // Distinct instances of v that other vertices use: what v may have to
  // send, once per receiving process (a volume partitioner's vertex size).
  std::uint32_t exports(Vertex v) const { return exports_[v]; }
  // Source uses of v's instances computed inside the region: the work its
  // owner does (owner computes; a register accumulation over n terms counts
  // n, not 1). Inputs and set-up values have none.
  std::uint32_t work(Vertex v) const { return work_[v]; }
  // The site vertices v holds (site_vertices): 1, or, by location, those
  // stored at v's location. A location graph weighs each one.
  std::uint32_t sites(Vertex v) const { return sites_.empty() ? 1 : sites_[v]; }
  // Whether profile vertex x is a site vertex (the others are merged into
  // one): each graph vertex is one, or, by location, holds several.
  bool own_site(VertexId x) const {
    if (!site_.empty()) return site_[x];
    return x < local_.size() && local_[x] != kAbsent && global_[local_[x]] == x;
  }
  // How many value-flow chains instance s is a source of: 0, 1, or 2 for
  // "more than one".
  std::uint8_t source_uses(ValueId s) const { return source_uses_[s]; }
  // Number of distinct neighbours, either direction (the paper's value degree).
  std::size_t degree(Vertex v) const { return degree_[v]; }
  // The most distinct neighbours v has within one iteration, the most
  // vertices one iteration touches, and the degree of a global value
  // (phase_degrees.h).
  std::size_t peak_phase_degree(Vertex v) const { return phase_degrees_.peak_degree(v).value_or(degree(v)); }
  std::size_t peak_phase_vertices() const { return phase_degrees_.peak_vertices(vertex_count()); }
  double global_degree() const { return phase_degrees_.global_degree(vertex_count()); }

  // GraphViz dot of the directed VCG; vertices named by their VertexId.
  void write_graphviz(std::ostream& out) const {
    boost::write_graphviz(
        out, directed_,
        [this](std::ostream& o, Vertex v) {
          o << "[label=\"" << global_[v] << " w" << weight_[v] << "\"]";
        },
        [this](std::ostream& o, Graph::edge_descriptor e) {
          o << "[label=\"" << directed_[e].uses << "\"]";
        });
  }

 private:
  Graph directed_;
  csr::InEdges in_;
  std::vector<std::uint32_t> degree_;  // distinct neighbours, either direction
  std::vector<Vertex> local_;
  std::vector<VertexId> global_;
  std::vector<Address> home_;
  std::vector<std::uint32_t> group_;
  std::vector<std::uint32_t> weight_;
  std::vector<std::uint32_t> exports_;
  std::vector<std::uint32_t> work_;
  std::vector<std::uint32_t> sites_;  // by location only (sites())
  std::vector<bool> site_;            // by profile vertex, by location only (own_site())
  SourceUses source_uses_;
  static constexpr std::uint8_t kLoopReduction = 1, kComputedFromReductions = 2;

  // The loop results the analyzer recorded (Profile::reductions: computed
  // from at least sqrt(D) values, D the words of the arrays they read) of
  // the loops that fold more values into one result than they make results
  // in an iteration: a reduction makes a few results from many values (a
  // dot product, a minimum over each region of a mesh), a local loop one
  // result per element from a few (an element's sum over its nodes, which
  // on a small mesh also reads sqrt(D) values). Every result of such a loop
  // is a reduction, however small the part one run reads (the smallest
  // region's minimum, or a minimum over the few elements a filter passes,
  // as -O0 compiles `if (ok) if (x < m) m = x;`): the kind is the loop's,
  // not the run's.
  template <class Profile>
  void mark_loop_reductions(const Profile& profile) {
    const auto& recorded = profile.reductions;
    if (recorded.empty()) return;
    absl::flat_hash_map<VertexId, std::uint32_t> site_of_result;  // (site 0, unknown, names no loop)
    std::vector<bool> result(profile.vertex_count(), false);      // looked up before the map, for every flow
    for (const auto& r : recorded) {
      if (r.site != 0 && local(r.vertex) != kAbsent) {
        site_of_result.emplace(r.vertex, r.site);
        result[r.vertex] = true;
      }
    }
    struct SiteCounts {
      std::size_t most_results = 0, results = 0, phase = 0;  // results per iteration
      std::size_t most_values = 0;                           // a result's values in one iteration
      std::vector<ValueId> unused;  // results never read or decided on
      ValueId last = kNoValue;
    };
    absl::flat_hash_map<std::uint32_t, SiteCounts> sites;
    PhaseCursor phase_of(profile.iteration_marks);
    profile.flows.for_each([&](ValueId v, std::span<const ValueId>) {
      const VertexId x = profile.values.vertex(v);
      if (!result[x]) return;
      const auto it = site_of_result.find(x);
      SiteCounts& c = sites[it->second];
      if (const std::size_t p = phase_of(v); p != c.phase) c.phase = p, c.results = 0;
      c.most_results = std::max(c.most_results, ++c.results);
      c.most_values = std::max(c.most_values, peak_phase_degree(local(it->first)));
      if (source_uses_[v] == 0) c.unused.push_back(v);
      c.last = v;
    });
    for (const auto& r : recorded) {
      const auto it = sites.find(r.site);
      if (it == sites.end() || it->second.most_values <= it->second.most_results) continue;
      if (const Vertex x = local(r.vertex); x != kAbsent) reduction_[x] = kLoopReduction;
    }
    for (auto& [site, c] : sites) {
      // The run ended before it could use the newest result of a loop
      // whose every earlier result it used (a residual deciding each step
      // but the last): presumed used.
      if (c.unused.size() == 1 && c.unused.back() == c.last) continue;
      if (c.most_values > c.most_results) unused_loop_results_.insert(c.unused.begin(), c.unused.end());
    }
  }
  absl::flat_hash_set<ValueId> unused_loop_results_;
  std::vector<std::uint8_t> reduction_;  // per vertex: 0, kLoopReduction or kComputedFromReductions
  PhaseDegrees phase_degrees_;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_VALUE_GRAPH_H_

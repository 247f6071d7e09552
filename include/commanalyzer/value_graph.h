// The value communication graph (VCG): vertices are coalesced value
// instances, a directed edge source -> sink carries the number of times the
// sink's instances used the source's instances. Self-loops are dropped.
//
// Two Boost compressed-sparse-row views are kept: the directed VCG, and its
// symmetric (undirected) closure with the weights of both directions summed,
// which is what degree-based singleton scoring and graph partitioners read.
// Only vertices that take part in a value flow of the region are in the
// graph; `local()` maps a VertexId of the profile to its graph index.
#ifndef COMMANALYZER_VALUE_GRAPH_H_
#define COMMANALYZER_VALUE_GRAPH_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/graphviz.hpp>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "commanalyzer/types.h"

namespace commanalyzer {

struct EdgeWeight {
  std::uint64_t uses = 0;
};

class ValueGraph {
 public:
  using Graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, EdgeWeight,
                                                   boost::no_property, std::uint32_t, std::uint64_t>;
  using Vertex = std::uint32_t;
  static constexpr Vertex kAbsent = std::numeric_limits<Vertex>::max();

  // Builds the graph from a recorded profile (see profile.h): its flows, the
  // vertex of every value, and per-vertex home address and weight.
  template <class Profile>
  static ValueGraph build(const Profile& profile) {
    ValueGraph g;
    const auto& values = profile.values;
    std::vector<std::pair<VertexId, VertexId>> pairs;
    pairs.reserve(profile.flows.source_count());
    g.local_.assign(profile.vertex_count(), kAbsent);
    std::vector<bool> exported(values.count() + 1, false);  // instance used by another vertex
    g.source_uses_.assign(values.count() + 1, 0);
    std::vector<std::uint32_t> exports(profile.vertex_count(), 0);
    std::vector<std::uint32_t> work(profile.vertex_count(), 0);
    profile.flows.for_each([&](ValueId v, std::span<const ValueId> sources) {
      const VertexId sink = values.vertex(v);
      g.local_[sink] = 0;  // mark present
      work[sink] += static_cast<std::uint32_t>(sources.size());
      for (ValueId s : sources) {
        g.source_uses_[s] += g.source_uses_[s] < 2;
        const VertexId source = values.vertex(s);
        g.local_[source] = 0;
        if (source == sink) continue;
        pairs.emplace_back(source, sink);
        if (!exported[s]) {
          exported[s] = true;
          ++exports[source];
        }
      }
    });
    // Dense numbering in VertexId order: deterministic for a given profile.
    for (VertexId x = 0; x < g.local_.size(); ++x) {
      if (g.local_[x] == kAbsent) continue;
      g.local_[x] = static_cast<Vertex>(g.global_.size());
      g.global_.push_back(x);
      g.home_.push_back(profile.vertex_home[x]);
      g.group_.push_back(profile.vertex_group[x]);
      g.weight_.push_back(profile.vertex_weight[x]);
      g.exports_.push_back(exports[x]);
      g.work_.push_back(work[x]);
    }
    for (auto& [s, t] : pairs) {
      s = g.local_[s];
      t = g.local_[t];
    }
    g.directed_ = collapse(std::move(pairs), g.global_.size());
    g.symmetric_ = collapse_symmetric(g.directed_, g.global_.size());
    g.count_peak_phase_degrees(profile);
    return g;
  }

  std::size_t vertex_count() const { return global_.size(); }
  std::size_t edge_count() const { return boost::num_edges(directed_); }
  const Graph& directed() const { return directed_; }
  const Graph& symmetric() const { return symmetric_; }

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
  // How many value-flow chains instance s is a source of: 0, 1, or 2 for
  // "more than one".
  std::uint8_t source_uses(ValueId s) const { return source_uses_[s]; }
  // Number of distinct neighbours, either direction (the paper's value degree).
  std::size_t degree(Vertex v) const { return boost::out_degree(v, symmetric_); }
  // The most distinct neighbours v has within one iteration. A location
  // updated in place every iteration (one coalesced vertex) gains new
  // neighbours every iteration; a global value is used by almost everything
  // within one. Counted for vertices of degree >= sqrt(|V|) (the candidates
  // for singletons); the degree for the others and for unmarked runs.
  std::size_t peak_phase_degree(Vertex v) const {
    const auto it = peak_phase_degree_.find(v);
    return it == peak_phase_degree_.end() ? degree(v) : it->second;
  }

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
  // Merges duplicate (source, sink) pairs into weighted edges, sorted by
  // (source, sink): a counting sort by source (linear), then a sort of each
  // source's short row, instead of one comparison sort of all pairs.
  static Graph collapse(std::vector<std::pair<Vertex, Vertex>> pairs, std::size_t n) {
    std::vector<std::uint64_t> start(n + 1, 0);
    for (const auto& [s, t] : pairs) ++start[s + 1];
    for (std::size_t v = 0; v < n; ++v) start[v + 1] += start[v];
    std::vector<Vertex> targets(pairs.size());
    {
      std::vector<std::uint64_t> next(start.begin(), start.end() - 1);
      for (const auto& [s, t] : pairs) targets[next[s]++] = t;
    }
    pairs = {};  // release
    std::vector<std::pair<Vertex, Vertex>> edges;
    std::vector<EdgeWeight> weights;
    for (std::size_t v = 0; v < n; ++v) {
      const auto first = targets.begin() + static_cast<std::ptrdiff_t>(start[v]);
      const auto last = targets.begin() + static_cast<std::ptrdiff_t>(start[v + 1]);
      std::sort(first, last);
      for (auto i = first; i != last;) {
        auto j = i;
        while (j != last && *j == *i) ++j;
        edges.emplace_back(static_cast<Vertex>(v), *i);
        weights.push_back({static_cast<std::uint64_t>(j - i)});
        i = j;
      }
    }
    return Graph(boost::edges_are_sorted, edges.begin(), edges.end(), weights.begin(), n);
  }

  // Symmetric closure: row v = v's out-edges merged with its in-edges, the
  // weights of both directions summed. The in-edges come out grouped by
  // target and sorted by source from one counting-sort pass over the CSR
  // (which lists edges by source, each row sorted by target).
  static Graph collapse_symmetric(const Graph& directed, std::size_t n) {
    std::vector<std::uint64_t> in_start(n + 1, 0);
    for (auto e : boost::make_iterator_range(boost::edges(directed))) ++in_start[boost::target(e, directed) + 1];
    for (std::size_t v = 0; v < n; ++v) in_start[v + 1] += in_start[v];
    std::vector<Vertex> in_source(boost::num_edges(directed));
    std::vector<std::uint64_t> in_uses(in_source.size());
    {
      std::vector<std::uint64_t> next(in_start.begin(), in_start.end() - 1);
      for (auto e : boost::make_iterator_range(boost::edges(directed))) {
        const std::uint64_t slot = next[boost::target(e, directed)]++;
        in_source[slot] = boost::source(e, directed);
        in_uses[slot] = directed[e].uses;
      }
    }
    std::vector<std::pair<Vertex, Vertex>> edges;
    std::vector<EdgeWeight> weights;
    edges.reserve(2 * in_source.size());
    weights.reserve(2 * in_source.size());
    for (std::size_t v = 0; v < n; ++v) {
      const auto row = static_cast<Vertex>(v);
      auto [out, out_end] = boost::out_edges(row, directed);
      std::uint64_t in = in_start[v];
      const std::uint64_t in_end = in_start[v + 1];
      while (out != out_end || in != in_end) {
        const Vertex t = out != out_end ? boost::target(*out, directed) : kAbsent;
        const Vertex s = in != in_end ? in_source[in] : kAbsent;
        if (t <= s) {
          edges.emplace_back(row, t);
          weights.push_back({directed[*out].uses});
          ++out;
          if (t == s) weights.back().uses += in_uses[in++];
        } else {
          edges.emplace_back(row, s);
          weights.push_back({in_uses[in++]});
        }
      }
    }
    return Graph(boost::edges_are_sorted, edges.begin(), edges.end(), weights.begin(), n);
  }

  Graph directed_;
  Graph symmetric_;
  std::vector<Vertex> local_;
  std::vector<VertexId> global_;
  std::vector<Address> home_;
  std::vector<std::uint32_t> group_;
  std::vector<std::uint32_t> weight_;
  std::vector<std::uint32_t> exports_;
  std::vector<std::uint32_t> work_;
  std::vector<std::uint8_t> source_uses_;  // per instance, saturating at 2
  absl::flat_hash_map<Vertex, std::size_t> peak_phase_degree_;

  template <class Profile>
  void count_peak_phase_degrees(const Profile& profile) {
    if (profile.phase_count() < 2 || vertex_count() == 0) return;
    const auto floor = static_cast<std::size_t>(std::sqrt(static_cast<double>(vertex_count())));
    absl::flat_hash_map<Vertex, absl::flat_hash_set<Vertex>> seen;  // candidate -> neighbours this phase
    std::vector<std::uint8_t> candidate(vertex_count(), 0);
    for (Vertex v = 0; v < vertex_count(); ++v) {
      if (degree(v) >= floor) {
        seen[v];
        candidate[v] = 1;
      }
    }
    if (seen.empty()) return;
    for (const auto& [v, unused] : seen) peak_phase_degree_[v] = 0;
    auto close_phase = [&] {
      for (auto& [v, neighbours] : seen) {
        peak_phase_degree_[v] = std::max(peak_phase_degree_[v], neighbours.size());
        neighbours.clear();
      }
    };
    std::size_t phase = 0;
    profile.flows.for_each([&](ValueId value, std::span<const ValueId> sources) {
      if (const std::size_t p = profile.phase_of(value); p != phase) {
        close_phase();
        phase = p;
      }
      const Vertex sink = local_[profile.values.vertex(value)];
      absl::flat_hash_set<Vertex>* sink_seen = candidate[sink] ? &seen[sink] : nullptr;
      for (ValueId s : sources) {
        const Vertex source = local_[profile.values.vertex(s)];
        if (source == sink) continue;
        if (sink_seen) sink_seen->insert(source);
        if (candidate[source]) seen[source].insert(sink);
      }
    });
    close_phase();
  }
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_VALUE_GRAPH_H_

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
#include <cstddef>
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
    g.local_.assign(profile.vertex_count(), kAbsent);
    std::vector<bool> exported(values.count() + 1, false);  // instance used by another vertex
    g.source_uses_.assign(values.count() + 1, 0);
    std::vector<std::uint32_t> exports(profile.vertex_count(), 0);
    std::vector<std::uint32_t> work(profile.vertex_count(), 0);
    // Two passes over the flows, not one list of (source, sink) pairs: the
    // first counts each source's uses, the second writes only the sinks,
    // grouped by source (a counting sort: 4 bytes a use instead of 8, in
    // the order the rows need).
    std::vector<std::uint64_t> uses_by(profile.vertex_count() + 1, 0);  // by source VertexId, then row starts
    profile.flows.for_each([&](ValueId v, std::span<const ValueId> sources) {
      const VertexId sink = values.vertex(v);
      g.local_[sink] = 0;  // mark present
      work[sink] += static_cast<std::uint32_t>(sources.size());
      for (ValueId s : sources) {
        g.source_uses_[s] += g.source_uses_[s] < 2;
        const VertexId source = values.vertex(s);
        g.local_[source] = 0;
        if (source == sink) continue;
        ++uses_by[source];
        if (!exported[s]) {
          exported[s] = true;
          ++exports[source];
        }
      }
    });
    // Dense numbering in VertexId order: deterministic for a given profile.
    std::vector<std::uint64_t> row_start{0};
    for (VertexId x = 0; x < g.local_.size(); ++x) {
      if (g.local_[x] == kAbsent) continue;
      g.local_[x] = static_cast<Vertex>(g.global_.size());
      g.global_.push_back(x);
      g.home_.push_back(profile.vertex_home[x]);
      g.group_.push_back(profile.vertex_group[x]);
      g.weight_.push_back(profile.vertex_weight[x]);
      g.exports_.push_back(exports[x]);
      g.work_.push_back(work[x]);
      row_start.push_back(row_start.back() + uses_by[x]);
    }
    uses_by = {};
    std::vector<Vertex> sinks(row_start.back());
    {
      std::vector<std::uint64_t> next(row_start.begin(), row_start.end() - 1);
      profile.flows.for_each([&](ValueId v, std::span<const ValueId> sources) {
        const Vertex sink = g.local_[values.vertex(v)];
        for (ValueId s : sources) {
          const Vertex source = g.local_[values.vertex(s)];
          if (source != sink) sinks[next[source]++] = sink;
        }
      });
    }
    g.directed_ = collapse(std::move(sinks), std::move(row_start));
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
  // for singletons), and only up to ceil(sqrt(|V|)), the singleton floor
  // (a residual's million sources per step need not be told apart); the
  // degree for the others and for unmarked runs.
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
  // The graph of rows [row_start[v], row_start[v + 1]) of `column` and
  // `weights`, moved into Boost's CSR storage (public members, for want of
  // portable friend templates): its constructors copy edge by edge, and
  // for 10^8 edges the copy's fresh pages cost more than building the rows.
  static Graph adopt_rows(std::vector<std::uint64_t> row_start, std::vector<Vertex> column,
                          std::vector<EdgeWeight> weights) {
    Graph g(static_cast<Vertex>(row_start.size() - 1));
    g.m_forward.m_rowstart = std::move(row_start);
    g.m_forward.m_column = std::move(column);
    g.m_forward.m_edge_properties = std::move(weights);
    return g;
  }

  // Merges duplicate targets of each row (a source's sinks, one per use)
  // into weighted edges sorted by target, in place.
  static Graph collapse(std::vector<Vertex> column, std::vector<std::uint64_t> row_start) {
    std::vector<EdgeWeight> weights;
    std::uint64_t kept = 0;
    for (std::size_t v = 0; v + 1 < row_start.size(); ++v) {
      const auto first = column.begin() + static_cast<std::ptrdiff_t>(row_start[v]);
      const auto last = column.begin() + static_cast<std::ptrdiff_t>(row_start[v + 1]);
      std::sort(first, last);
      row_start[v] = kept;
      for (auto i = first; i != last;) {
        auto j = i;
        while (j != last && *j == *i) ++j;
        column[kept++] = *i;
        weights.push_back({static_cast<std::uint64_t>(j - i)});
        i = j;
      }
    }
    row_start.back() = kept;
    column.resize(kept);
    column.shrink_to_fit();  // from one entry per use to one per edge
    return adopt_rows(std::move(row_start), std::move(column), std::move(weights));
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
    // merge(v, f): f(neighbour, uses) for v's neighbours in ascending order.
    auto merge = [&](Vertex v, auto&& f) {
      auto [out, out_end] = boost::out_edges(v, directed);
      std::uint64_t in = in_start[v];
      const std::uint64_t in_end = in_start[v + 1];
      while (out != out_end || in != in_end) {
        const Vertex t = out != out_end ? boost::target(*out, directed) : kAbsent;
        const Vertex s = in != in_end ? in_source[in] : kAbsent;
        if (t <= s) {
          f(t, directed[*out].uses + (t == s ? in_uses[in++] : 0));
          ++out;
        } else {
          f(s, in_uses[in++]);
        }
      }
    };
    std::vector<std::uint64_t> row_start{0};
    for (Vertex v = 0; v < n; ++v) {
      std::uint64_t degree = 0;
      merge(v, [&](Vertex, std::uint64_t) { ++degree; });
      row_start.push_back(row_start.back() + degree);
    }
    std::vector<Vertex> column;
    std::vector<EdgeWeight> weights;
    column.reserve(row_start.back());
    weights.reserve(row_start.back());
    for (Vertex v = 0; v < n; ++v) {
      merge(v, [&](Vertex t, std::uint64_t uses) {
        column.push_back(t);
        weights.push_back({uses});
      });
    }
    return adopt_rows(std::move(row_start), std::move(column), std::move(weights));
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
    const auto cap = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(vertex_count()))));
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
        if (sink_seen && sink_seen->size() < cap) sink_seen->insert(source);
        if (candidate[source]) {
          absl::flat_hash_set<Vertex>& source_seen = seen[source];
          if (source_seen.size() < cap) source_seen.insert(sink);
        }
      }
    });
    close_phase();
  }
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_VALUE_GRAPH_H_

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
#include <exception>
#include <functional>
#include <limits>
#include <ostream>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/graphviz.hpp>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

// Uses along an edge, saturating at 2^32 - 1 (the partitioners clamp edge
// weights far below that; 4 bytes, not 8, on 10^8 edges).
struct EdgeWeight {
  static constexpr std::uint64_t kMax = std::numeric_limits<std::uint32_t>::max();
  static std::uint32_t saturated(std::uint64_t uses) { return static_cast<std::uint32_t>(std::min(uses, kMax)); }
  std::uint32_t uses = 0;
};

class ValueGraph {
 public:
  using Graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, EdgeWeight,
                                                   boost::no_property, std::uint32_t, std::uint64_t>;
  using Vertex = std::uint32_t;
  static constexpr Vertex kAbsent = std::numeric_limits<Vertex>::max();

  // Builds the graph from a recorded profile (see profile.h): its flows, the
  // vertex of every value, and per-vertex home address and weight. The
  // rows are collapsed on up to `threads` threads; the graph is the same
  // for any count.
  template <class Profile>
  static ValueGraph build(const Profile& profile, unsigned threads = 1) {
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
      // Each thread reads every flow and writes the rows of its own range
      // of sources: the scattered writes, not the reading, are the cost.
      std::vector<std::uint64_t> next(row_start.begin(), row_start.end() - 1);
      for_row_ranges(row_start, threads, [&](std::size_t first, std::size_t last) {
        profile.flows.for_each([&](ValueId v, std::span<const ValueId> sources) {
          const Vertex sink = g.local_[values.vertex(v)];
          for (ValueId s : sources) {
            const Vertex source = g.local_[values.vertex(s)];
            if (source != sink && source >= first && source < last) sinks[next[source]++] = sink;
          }
        });
      });
    }
    g.directed_ = collapse(std::move(sinks), std::move(row_start), threads);
    // Peak phase degrees are counted beside the symmetric closure, for the
    // vertices its degrees could make candidates (out + in degree bounds
    // the symmetric degree); the others are dropped after.
    std::vector<std::uint64_t> in_start = in_row_starts(g.directed_, g.vertex_count());
    std::vector<std::function<void()>> steps{
        [&] { g.symmetric_ = collapse_symmetric(g.directed_, in_start, threads); },
        [&] { g.count_peak_phase_degrees(profile, in_start); }};
    if (threads > 1) {
      run_together(steps);
    } else {
      for (auto& step : steps) step();
    }
    g.drop_peak_non_candidates();
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
  // within one. Counted for vertices of degree >= sqrt(n), n the vertices
  // of the largest iteration (peak_phase_vertices; the candidates for
  // singletons), and only up to ceil(sqrt(n)), the singleton floor (a
  // residual's million sources per step need not be told apart); the
  // degree for the others and for unmarked runs.
  std::size_t peak_phase_degree(Vertex v) const {
    const auto it = peak_phase_degree_.find(v);
    return it == peak_phase_degree_.end() ? degree(v) : it->second;
  }

  // The most vertices one iteration's flows touch (all vertices for
  // unmarked runs): the size of the problem a global value is used by, or
  // computed from, nearly all of, whatever the number of iterations.
  std::size_t peak_phase_vertices() const {
    return peak_phase_vertices_ == 0 ? vertex_count() : peak_phase_vertices_;
  }

  // The degree of a global value, sqrt(peak_phase_vertices()): the
  // geometric middle between a stencil's or mesh's constant degree and the
  // ~n of a value used by, or computed from, nearly all of one iteration
  // (the singleton scorer's floor).
  double global_degree() const { return std::sqrt(static_cast<double>(peak_phase_vertices())); }

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

  // Runs the tasks at once, the first on this thread; when they are all
  // done, rethrows the first exception any of them threw (bad_alloc on a
  // large graph is an error to report, not a reason to terminate).
  static void run_together(const std::vector<std::function<void()>>& tasks) {
    std::vector<std::exception_ptr> failures(tasks.size());
    auto guarded = [&](std::size_t i) {
      try {
        tasks[i]();
      } catch (...) {
        failures[i] = std::current_exception();
      }
    };
    {
      std::vector<std::jthread> helpers;  // joined on leaving, also if starting one throws
      for (std::size_t i = 1; i < tasks.size(); ++i) helpers.emplace_back(guarded, i);
      if (!tasks.empty()) guarded(0);
    }
    for (const std::exception_ptr& failure : failures) {
      if (failure) std::rethrow_exception(failure);
    }
  }

  // f(first, last) on up to `threads` threads, for contiguous ranges of
  // the rows [0, row_start.size() - 1) holding about equal entries.
  template <class F>
  static void for_row_ranges(const std::vector<std::uint64_t>& row_start, unsigned threads, F f) {
    const std::size_t rows = row_start.size() - 1;
    threads = std::max(1u, threads);
    std::vector<std::size_t> bounds{0};
    for (unsigned t = 1; t < threads; ++t) {
      const std::uint64_t goal = row_start.back() / threads * t;
      bounds.push_back(static_cast<std::size_t>(std::lower_bound(row_start.begin(), row_start.end() - 1, goal) -
                                                row_start.begin()));
    }
    bounds.push_back(rows);
    std::vector<std::function<void()>> ranges;
    for (unsigned t = 0; t < threads; ++t) {
      ranges.emplace_back([&f, first = bounds[t], last = bounds[t + 1]] { f(first, last); });
    }
    run_together(ranges);
  }

  // A graph of `rows` rows in two passes over the same ranges of rows
  // (balanced by `balance`, row starts of the input): count(v) gives row
  // v's edge count, then write(v, targets, weights) its edges; storage is
  // allocated once, at the final size.
  template <class Count, class Write>
  static Graph build_rows(const std::vector<std::uint64_t>& balance, unsigned threads, Count count, Write write) {
    const std::size_t rows = balance.size() - 1;
    std::vector<std::uint64_t> start(rows + 1, 0);
    for_row_ranges(balance, threads, [&](std::size_t first, std::size_t last) {
      for (std::size_t v = first; v < last; ++v) start[v + 1] = count(v);
    });
    for (std::size_t v = 0; v < rows; ++v) start[v + 1] += start[v];
    std::vector<Vertex> targets(start.back());
    std::vector<EdgeWeight> weights(start.back());
    for_row_ranges(balance, threads, [&](std::size_t first, std::size_t last) {
      for (std::size_t v = first; v < last; ++v) write(v, targets.data() + start[v], weights.data() + start[v]);
    });
    return adopt_rows(std::move(start), std::move(targets), std::move(weights));
  }

  // Merges duplicate targets of each row (a source's sinks, one per use)
  // into weighted edges sorted by target: each row sorted in place and its
  // distinct targets counted, then written (one entry per edge, not per use).
  static Graph collapse(std::vector<Vertex> column, const std::vector<std::uint64_t>& row_start, unsigned threads) {
    return build_rows(
        row_start, threads,
        [&](std::size_t v) {
          const auto begin = column.begin() + static_cast<std::ptrdiff_t>(row_start[v]);
          const auto end = column.begin() + static_cast<std::ptrdiff_t>(row_start[v + 1]);
          std::sort(begin, end);
          std::uint64_t distinct = 0;
          for (auto i = begin; i != end; ++i) distinct += i == begin || *i != i[-1];
          return distinct;
        },
        [&](std::size_t v, Vertex* targets, EdgeWeight* weights) {
          for (std::uint64_t i = row_start[v], end = row_start[v + 1]; i != end;) {
            std::uint64_t j = i + 1;
            while (j != end && column[j] == column[i]) ++j;
            *targets++ = column[i];
            (weights++)->uses = EdgeWeight::saturated(j - i);
            i = j;
          }
        });
  }

  // Row starts of the in-edges (by target) of a directed CSR graph.
  static std::vector<std::uint64_t> in_row_starts(const Graph& directed, std::size_t n) {
    std::vector<std::uint64_t> in_start(n + 1, 0);
    for (Vertex t : directed.m_forward.m_column) ++in_start[t + 1];
    for (std::size_t v = 0; v < n; ++v) in_start[v + 1] += in_start[v];
    return in_start;
  }

  // Symmetric closure: row v = v's out-edges merged with its in-edges, the
  // weights of both directions summed. The in-edges come out grouped by
  // target and sorted by source from one counting-sort pass over the CSR
  // (which lists edges by source, each row sorted by target).
  static Graph collapse_symmetric(const Graph& directed, const std::vector<std::uint64_t>& in_start,
                                  unsigned threads) {
    const std::size_t n = in_start.size() - 1;
    const auto& out_start = directed.m_forward.m_rowstart;
    const auto& out_target = directed.m_forward.m_column;
    const auto& out_weight = directed.m_forward.m_edge_properties;
    std::vector<Vertex> in_source(out_target.size());
    std::vector<std::uint32_t> in_uses(out_target.size());
    {
      std::vector<std::uint64_t> next(in_start.begin(), in_start.end() - 1);
      for (Vertex v = 0; v < n; ++v) {
        for (std::uint64_t e = out_start[v]; e < out_start[v + 1]; ++e) {
          const std::uint64_t slot = next[out_target[e]]++;
          in_source[slot] = v;
          in_uses[slot] = out_weight[e].uses;
        }
      }
    }
    // merge(v, f): f(neighbour, uses) for v's neighbours in ascending order.
    auto merge = [&](Vertex v, auto&& f) {
      std::uint64_t out = out_start[v], in = in_start[v];
      const std::uint64_t out_end = out_start[v + 1], in_end = in_start[v + 1];
      while (out != out_end || in != in_end) {
        const Vertex t = out != out_end ? out_target[out] : kAbsent;
        const Vertex s = in != in_end ? in_source[in] : kAbsent;
        if (t <= s) {
          f(t, std::uint64_t{out_weight[out++].uses} + (t == s ? in_uses[in++] : 0));
        } else {
          f(s, in_uses[in++]);
        }
      }
    };
    std::vector<std::uint64_t> entries(n + 1);  // out + in entries before each row: balances the threads
    for (std::size_t v = 0; v <= n; ++v) entries[v] = out_start[v] + in_start[v];
    return build_rows(
        entries, threads,
        [&](std::size_t v) {
          std::uint64_t degree = 0;
          merge(static_cast<Vertex>(v), [&](Vertex, std::uint64_t) { ++degree; });
          return degree;
        },
        [&](std::size_t v, Vertex* targets, EdgeWeight* weights) {
          merge(static_cast<Vertex>(v), [&](Vertex t, std::uint64_t uses) {
            *targets++ = t;
            (weights++)->uses = EdgeWeight::saturated(uses);
          });
        });
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
    for (const auto& r : recorded) {
      if (r.site != 0 && local(r.vertex) != kAbsent) site_of_result.emplace(r.vertex, r.site);
    }
    struct SiteCounts {
      std::size_t most_results = 0, results = 0, phase = 0;  // results per iteration
      std::size_t most_values = 0;                           // a result's values in one iteration
      std::vector<ValueId> unused;  // results never read or decided on
      ValueId last = kNoValue;
    };
    absl::flat_hash_map<std::uint32_t, SiteCounts> sites;
    profile.flows.for_each([&](ValueId v, std::span<const ValueId>) {
      const auto it = site_of_result.find(profile.values.vertex(v));
      if (it == site_of_result.end()) return;
      SiteCounts& c = sites[it->second];
      if (const std::size_t p = profile.phase_of(v); p != c.phase) c.phase = p, c.results = 0;
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
  absl::flat_hash_map<Vertex, std::size_t> peak_phase_degree_;
  std::size_t peak_phase_vertices_ = 0;  // 0: not counted (unmarked runs)

  template <class Profile>
  void count_peak_phase_vertices(const Profile& profile) {
    constexpr std::size_t kNever = ~std::size_t{0};
    std::vector<std::size_t> seen_in(vertex_count(), kNever);
    std::size_t phase = 0, touched = 0;
    auto touch = [&](Vertex x) {
      if (x != kAbsent && seen_in[x] != phase) seen_in[x] = phase, ++touched;
    };
    profile.flows.for_each([&](ValueId value, std::span<const ValueId> sources) {
      if (const std::size_t p = profile.phase_of(value); p != phase) {
        peak_phase_vertices_ = std::max(peak_phase_vertices_, touched);
        phase = p;
        touched = 0;
      }
      touch(local_[profile.values.vertex(value)]);
      for (ValueId s : sources) touch(local_[profile.values.vertex(s)]);
    });
    peak_phase_vertices_ = std::max(peak_phase_vertices_, touched);
  }

  // Counts for every vertex whose out + in degree (`in_start`: the
  // directed graph's in-edge row starts) reaches the floor: a superset of
  // the candidates, before the symmetric degrees are known.
  template <class Profile>
  void count_peak_phase_degrees(const Profile& profile, const std::vector<std::uint64_t>& in_start) {
    if (profile.phase_count() < 2 || vertex_count() == 0) return;
    count_peak_phase_vertices(profile);
    const std::size_t floor = peak_floor();
    const auto cap = static_cast<std::size_t>(std::ceil(global_degree()));
    absl::flat_hash_map<Vertex, absl::flat_hash_set<Vertex>> seen;  // candidate -> neighbours this phase
    std::vector<std::uint8_t> candidate(vertex_count(), 0);
    for (Vertex v = 0; v < vertex_count(); ++v) {
      if (boost::out_degree(v, directed_) + (in_start[v + 1] - in_start[v]) >= floor) {
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

  std::size_t peak_floor() const {
    return static_cast<std::size_t>(global_degree());
  }

  void drop_peak_non_candidates() {
    const std::size_t floor = peak_floor();
    for (auto it = peak_phase_degree_.begin(); it != peak_phase_degree_.end();) {
      if (degree(it->first) < floor) {
        peak_phase_degree_.erase(it++);
      } else {
        ++it;
      }
    }
  }
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_VALUE_GRAPH_H_

// Compressed-sparse-row graphs built row by row, for the value graph
// (value_graph.h): Boost's CSR storage filled in place, rows written on
// several threads, and the edges of a stream of uses folded as they come.
//
//   UseAccumulator uses(vertices, threads);
//   uses.add(source, sink);              // once per use, in any order (or add(source, sink, n))
//   CsrGraph directed = uses.finish();   // one edge per pair, its use count
//   InEdges in = in_edges(directed, vertices);
//   symmetric_row(directed, in, v, f);  // f(neighbour, uses), either direction
//
// UseAccumulator holds the distinct edges and a buffer of uses no larger
// than them: the memory of a graph, not of the run that used its edges
// again every iteration.
#ifndef COMMANALYZER_ESTIMATE_CSR_ROWS_H_
#define COMMANALYZER_ESTIMATE_CSR_ROWS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <thread>
#include <utility>
#include <vector>

#include <boost/graph/compressed_sparse_row_graph.hpp>

namespace commanalyzer {

// Uses along an edge, saturating at 2^32 - 1 (the partitioners clamp edge
// weights far below that; 4 bytes, not 8, on 10^8 edges).
struct EdgeWeight {
  static constexpr std::uint64_t kMax = std::numeric_limits<std::uint32_t>::max();
  static std::uint32_t saturated(std::uint64_t uses) { return static_cast<std::uint32_t>(std::min(uses, kMax)); }
  std::uint32_t uses = 0;
};

using CsrGraph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, EdgeWeight,
                                                    boost::no_property, std::uint32_t, std::uint64_t>;
using CsrVertex = std::uint32_t;
inline constexpr CsrVertex kNoCsrVertex = std::numeric_limits<CsrVertex>::max();

namespace csr {

// The graph of rows [row_start[v], row_start[v + 1]) of `column` and
// `weights`, moved into Boost's CSR storage (public members, for want of
// portable friend templates): its constructors copy edge by edge, and for
// 10^8 edges the copy's fresh pages cost more than building the rows.
inline CsrGraph adopt_rows(std::vector<std::uint64_t> row_start, std::vector<CsrVertex> column,
                           std::vector<EdgeWeight> weights) {
  CsrGraph g(static_cast<CsrVertex>(row_start.size() - 1));
  g.m_forward.m_rowstart = std::move(row_start);
  g.m_forward.m_column = std::move(column);
  g.m_forward.m_edge_properties = std::move(weights);
  return g;
}

// Runs the tasks at once, the first on this thread; when they are all
// done, rethrows the first exception any of them threw (bad_alloc on a
// large graph is an error to report, not a reason to terminate).
inline void run_together(const std::vector<std::function<void()>>& tasks) {
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

// f(first, last) on up to `threads` threads, for contiguous ranges of the
// rows [0, row_start.size() - 1) holding about equal entries.
template <class F>
void for_row_ranges(const std::vector<std::uint64_t>& row_start, unsigned threads, F f) {
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
// (balanced by `balance`, row starts of the input): count(v) gives row v's
// edge count, then write(v, targets, weights) its edges; storage is
// allocated once, at the final size.
template <class Count, class Write>
CsrGraph build_rows(const std::vector<std::uint64_t>& balance, unsigned threads, Count count, Write write) {
  const std::size_t rows = balance.size() - 1;
  std::vector<std::uint64_t> start(rows + 1, 0);
  for_row_ranges(balance, threads, [&](std::size_t first, std::size_t last) {
    for (std::size_t v = first; v < last; ++v) start[v + 1] = count(v);
  });
  for (std::size_t v = 0; v < rows; ++v) start[v + 1] += start[v];
  std::vector<CsrVertex> targets(start.back());
  std::vector<EdgeWeight> weights(start.back());
  for_row_ranges(balance, threads, [&](std::size_t first, std::size_t last) {
    for (std::size_t v = first; v < last; ++v) write(v, targets.data() + start[v], weights.data() + start[v]);
  });
  return adopt_rows(std::move(start), std::move(targets), std::move(weights));
}

// A directed CSR graph's in-edges, row by target: the sources of v's
// in-edges in [start[v], start[v + 1]), ascending. With the out-edges,
// every neighbour of either direction (symmetric_row): the symmetric
// closure without building it, which would hold every edge twice more.
// An in-edge's uses are on its out-edge, found in the source's row
// (sorted by target, a handful of entries): not copied here.
struct InEdges {
  std::vector<std::uint64_t> start;
  std::vector<CsrVertex> source;

  std::size_t count(CsrVertex v) const { return start[v + 1] - start[v]; }
};

// One counting-sort pass over the CSR (which lists edges by source, each
// row sorted by target): each row of in-edges comes out sorted by source.
inline InEdges in_edges(const CsrGraph& directed, std::size_t n) {
  const auto& out_start = directed.m_forward.m_rowstart;
  const auto& out_target = directed.m_forward.m_column;
  InEdges in;
  in.start.assign(n + 1, 0);
  for (CsrVertex t : out_target) ++in.start[t + 1];
  for (std::size_t v = 0; v < n; ++v) in.start[v + 1] += in.start[v];
  in.source.resize(out_target.size());
  std::vector<std::uint64_t> next(in.start.begin(), in.start.end() - 1);
  for (CsrVertex v = 0; v < n; ++v) {
    for (std::uint64_t e = out_start[v]; e < out_start[v + 1]; ++e) in.source[next[out_target[e]]++] = v;
  }
  return in;
}

// The uses of the edge source -> target, which the graph has.
inline std::uint32_t edge_uses(const CsrGraph& directed, CsrVertex source, CsrVertex target) {
  const auto& start = directed.m_forward.m_rowstart;
  const auto& column = directed.m_forward.m_column;
  const auto at = std::lower_bound(column.begin() + static_cast<std::ptrdiff_t>(start[source]),
                                   column.begin() + static_cast<std::ptrdiff_t>(start[source + 1]), target);
  return directed.m_forward.m_edge_properties[static_cast<std::size_t>(at - column.begin())].uses;
}

// f(neighbour, uses) for v's neighbours in either direction, ascending:
// v's out-edges merged with its in-edges, the uses of both directions
// summed (saturated, EdgeWeight).
template <class F>
void symmetric_row(const CsrGraph& directed, const InEdges& in, CsrVertex v, F&& f) {
  const auto& out_start = directed.m_forward.m_rowstart;
  const auto& out_target = directed.m_forward.m_column;
  const auto& out_weight = directed.m_forward.m_edge_properties;
  std::uint64_t out = out_start[v], at = in.start[v];
  const std::uint64_t out_end = out_start[v + 1], in_end = in.start[v + 1];
  while (out != out_end || at != in_end) {
    const CsrVertex t = out != out_end ? out_target[out] : kNoCsrVertex;
    const CsrVertex s = at != in_end ? in.source[at] : kNoCsrVertex;
    if (t < s) {
      f(t, out_weight[out++].uses);
    } else if (t == s) {
      f(t, EdgeWeight::saturated(std::uint64_t{out_weight[out++].uses} + edge_uses(directed, s, v)));
      ++at;
    } else {
      f(s, edge_uses(directed, s, v));
      ++at;
    }
  }
}

// v's neighbours in either direction (its symmetric degree).
inline std::uint32_t symmetric_degree(const CsrGraph& directed, const InEdges& in, CsrVertex v) {
  const auto& out_start = directed.m_forward.m_rowstart;
  const auto& out_target = directed.m_forward.m_column;
  std::uint64_t out = out_start[v], at = in.start[v];
  const std::uint64_t out_end = out_start[v + 1], in_end = in.start[v + 1];
  std::uint32_t degree = 0;
  while (out != out_end && at != in_end) {
    const CsrVertex t = out_target[out], s = in.source[at];
    out += t <= s;
    at += s <= t;
    ++degree;
  }
  return degree + static_cast<std::uint32_t>((out_end - out) + (in_end - at));
}

}  // namespace csr

// The directed graph of a stream of uses (source, sink): one edge per
// distinct pair, weighted by its uses, each row sorted by target. A use of
// an edge the graph has is counted on it in place (an iteration uses again
// the edges of the one before); the others are buffered and folded into
// the edges when the buffer holds as many as the graph has edges (or
// kMinimumBuffer, so a small graph is not folded use by use): the buffer
// never needs more memory than the graph, and each fold's pass over the
// graph is paid for by as many new uses.
class UseAccumulator {
 public:
  static constexpr std::size_t kMinimumBuffer = std::size_t{1} << 20;

  UseAccumulator(std::size_t vertices, unsigned threads, std::size_t minimum_buffer = kMinimumBuffer)
      : threads_(threads),
        minimum_buffer_(minimum_buffer),
        graph_(csr::adopt_rows(std::vector<std::uint64_t>(vertices + 1, 0), {}, {})) {}

  // `uses` uses of the edge source -> sink (more than one: an iteration's
  // use counted again for the iterations that repeat it).
  void add(CsrVertex source, CsrVertex sink, std::uint32_t uses = 1) {
    if (EdgeWeight* edge = find(source, sink); edge != nullptr) {
      edge->uses = EdgeWeight::saturated(std::uint64_t{edge->uses} + uses);
      return;
    }
    buffer_.push_back({source, sink});
    // The buffer counts one use; the rest wait for the edge the fold makes.
    if (uses > 1) more_uses_.push_back({{source, sink}, uses - 1});
    if (buffer_.size() >= std::max(minimum_buffer_, graph_.m_forward.m_column.size())) fold();
  }

  CsrGraph finish() && {
    fold();
    buffer_ = {};
    return std::move(graph_);
  }

 private:
  struct Use {
    CsrVertex source, sink;
  };
  struct MoreUses {
    Use edge;
    std::uint32_t uses;
  };

  // The edge source -> sink if the graph has it (rows are sorted by target).
  EdgeWeight* find(CsrVertex source, CsrVertex sink) {
    const auto& start = graph_.m_forward.m_rowstart;
    const auto& target = graph_.m_forward.m_column;
    const auto first = target.begin() + static_cast<std::ptrdiff_t>(start[source]);
    const auto last = target.begin() + static_cast<std::ptrdiff_t>(start[source + 1]);
    const auto at = std::lower_bound(first, last, sink);
    if (at == last || *at != sink) return nullptr;
    return &graph_.m_forward.m_edge_properties[static_cast<std::size_t>(at - target.begin())];
  }

  // The buffered uses, grouped by source (a counting sort) and each row
  // sorted, merged row by row into the graph's.
  void fold() {
    if (buffer_.empty()) return;
    const auto& old_start = graph_.m_forward.m_rowstart;
    const auto& old_target = graph_.m_forward.m_column;
    const auto& old_weight = graph_.m_forward.m_edge_properties;
    const std::size_t rows = old_start.size() - 1;
    std::vector<std::uint64_t> start(rows + 1, 0);
    for (const Use& u : buffer_) ++start[u.source + 1];
    for (std::size_t v = 0; v < rows; ++v) start[v + 1] += start[v];
    std::vector<CsrVertex> sinks(buffer_.size());
    {
      std::vector<std::uint64_t> next(start.begin(), start.end() - 1);
      for (const Use& u : buffer_) sinks[next[u.source]++] = u.sink;
    }
    // Given back, not cleared: the buffer grows to as many uses as the
    // graph has edges, and the new rows are built beside the old ones.
    std::vector<Use>().swap(buffer_);
    // merge(v, f): f(target, uses) for row v's targets in ascending order,
    // the graph's row and the sorted new one together.
    auto merge = [&](std::size_t v, auto&& f) {
      std::uint64_t e = old_start[v], i = start[v];
      const std::uint64_t e_end = old_start[v + 1], i_end = start[v + 1];
      while (e != e_end || i != i_end) {
        const CsrVertex old = e != e_end ? old_target[e] : kNoCsrVertex;
        const CsrVertex next = i != i_end ? sinks[i] : kNoCsrVertex;
        const CsrVertex t = std::min(old, next);
        std::uint64_t uses = 0;
        if (old == t) uses += old_weight[e++].uses;
        while (i != i_end && sinks[i] == t) ++i, ++uses;
        f(t, uses);
      }
    };
    std::vector<std::uint64_t> entries(rows + 1);  // balances the threads
    for (std::size_t v = 0; v <= rows; ++v) entries[v] = old_start[v] + start[v];
    graph_ = csr::build_rows(
        entries, threads_,
        [&](std::size_t v) {
          std::sort(sinks.begin() + static_cast<std::ptrdiff_t>(start[v]),
                    sinks.begin() + static_cast<std::ptrdiff_t>(start[v + 1]));
          std::uint64_t distinct = 0;
          merge(v, [&](CsrVertex, std::uint64_t) { ++distinct; });
          return distinct;
        },
        [&](std::size_t v, CsrVertex* targets, EdgeWeight* weights) {
          merge(v, [&](CsrVertex t, std::uint64_t uses) {
            *targets++ = t;
            (weights++)->uses = EdgeWeight::saturated(uses);
          });
        });
    for (const MoreUses& more : more_uses_) {
      EdgeWeight* edge = find(more.edge.source, more.edge.sink);
      edge->uses = EdgeWeight::saturated(std::uint64_t{edge->uses} + more.uses);
    }
    std::vector<MoreUses>().swap(more_uses_);
  }

  unsigned threads_;
  std::size_t minimum_buffer_;
  CsrGraph graph_;
  std::vector<Use> buffer_;
  std::vector<MoreUses> more_uses_;  // for edges of the buffer
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_ESTIMATE_CSR_ROWS_H_

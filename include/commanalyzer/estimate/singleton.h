// Singleton scoring (the paper's Algorithm 3): values used by, or computed
// from, almost everything (coefficients, time steps, global sums) are not
// owned by one process; every process keeps a copy and collectives keep the
// copies consistent.
#ifndef COMMANALYZER_SINGLETON_H_
#define COMMANALYZER_SINGLETON_H_

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "commanalyzer/estimate/value_graph.h"

namespace commanalyzer {

template <class S>
concept SingletonScorer = requires(const S& scorer, const ValueGraph& graph) {
  // One flag per graph vertex: 1 = singleton.
  { scorer.detect(graph) } -> std::same_as<std::vector<std::uint8_t>>;
};

// Algorithm 3. score(v) = max(density(v), distance(v)), singleton when
// score >= threshold, where
//   degree(v)   = number of distinct neighbours (either direction),
//   density(v)  = degree(v) / (|V| - 1): its row and column of the value
//                 adjacency matrix,
//   centroid    = min(mean degree, median degree),
//   distance(v) = 1 - centroid / degree(v) if degree(v) > centroid, else 0.
// Outliers need a population: graphs with fewer than min_vertices vertices
// have no singletons (in a 3-vertex graph every vertex is "dense").
// And a singleton is used by (or computed from) "almost all" computations:
// besides the relative score, its degree within one iteration must grow
// with the problem, not stay a constant of the stencil or mesh. With n the
// values of one iteration (ValueGraph::peak_phase_vertices), sqrt(n) is the
// geometric middle of the two: a node accumulator's degree (a constant,
// ~10x the median on an unstructured mesh) stays below it and a time-step
// minimum over every element (~n) above it, for any n past a few dozen.
// Counting within one iteration (ValueGraph::peak_phase_degree) keeps a
// value updated in place every step, which gains neighbours every step,
// long-lived rather than global, and makes the floor independent of the
// number of steps.
struct DensityDistanceScorer {
  double threshold = 0.9;
  std::size_t min_vertices = 16;
  bool degree_floor = true;

  double centroid(const ValueGraph& graph) const {
    const std::size_t n = graph.vertex_count();
    if (n == 0) return 0;
    std::vector<std::size_t> degrees(n);
    double sum = 0;
    for (std::size_t v = 0; v < n; ++v) sum += static_cast<double>(degrees[v] = graph.degree(v));
    auto mid = degrees.begin() + static_cast<std::ptrdiff_t>(n / 2);
    std::nth_element(degrees.begin(), mid, degrees.end());
    double median = static_cast<double>(*mid);
    if (n % 2 == 0) median = (median + static_cast<double>(*std::max_element(degrees.begin(), mid))) / 2;
    return std::min(sum / static_cast<double>(n), median);
  }

  double score(const ValueGraph& graph, ValueGraph::Vertex v, double centroid_degree) const {
    const auto degree = static_cast<double>(graph.degree(v));
    const double density = degree / static_cast<double>(graph.vertex_count() - 1);
    const double distance = degree > centroid_degree ? 1.0 - centroid_degree / degree : 0.0;
    return std::max(density, distance);
  }

  std::vector<std::uint8_t> detect(const ValueGraph& graph) const {
    std::vector<std::uint8_t> singleton(graph.vertex_count(), 0);
    if (graph.vertex_count() < std::max<std::size_t>(min_vertices, 2)) return singleton;
    const double c = centroid(graph);
    const double floor = degree_floor ? graph.global_degree() : 0.0;
    for (ValueGraph::Vertex v = 0; v < graph.vertex_count(); ++v) {
      singleton[v] = score(graph, v, c) >= threshold && static_cast<double>(graph.peak_phase_degree(v)) >= floor;
    }
    return singleton;
  }
};

// No singleton detection: every value is owned by one process.
struct NoSingletons {
  std::vector<std::uint8_t> detect(const ValueGraph& graph) const {
    return std::vector<std::uint8_t>(graph.vertex_count(), 0);
  }
};

static_assert(SingletonScorer<DensityDistanceScorer>);
static_assert(SingletonScorer<NoSingletons>);

}  // namespace commanalyzer

#endif  // COMMANALYZER_SINGLETON_H_

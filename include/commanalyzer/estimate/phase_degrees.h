// Degrees within one iteration, for the singleton scorer (singleton.h) and
// the loop-reduction rule (ValueGraph::mark_loop_reductions): the value
// graph's degrees sum every iteration, and a location updated in place
// every iteration (one coalesced vertex) gains new neighbours every
// iteration, while a global value is used by almost everything within one.
//
//   PhaseDegrees d;
//   PhaseDegrees::VertexTouches touches(n);               // fed by a pass over the flows
//   d.count(profile, local_of, directed, in_edges, touches, for_each_flow);  // one more pass
//   d.drop_below_floor(vertices, symmetric_degree);
//   d.peak_degree(v).value_or(symmetric degree);
#ifndef COMMANALYZER_ESTIMATE_PHASE_DEGREES_H_
#define COMMANALYZER_ESTIMATE_PHASE_DEGREES_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "commanalyzer/estimate/csr_rows.h"
#include "commanalyzer/record/profile.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

class PhaseDegrees {
 public:
  // The most vertices one iteration's flows touch (all vertices, `n`, for
  // unmarked runs): the size of the problem a global value is used by, or
  // computed from, nearly all of, whatever the number of iterations.
  std::size_t peak_vertices(std::size_t n) const { return peak_vertices_ == 0 ? n : peak_vertices_; }

  // The degree of a global value, sqrt(peak_vertices(n)): the geometric
  // middle between a stencil's or mesh's constant degree and the ~n of a
  // value used by, or computed from, nearly all of one iteration (the
  // singleton scorer's floor).
  double global_degree(std::size_t n) const { return std::sqrt(static_cast<double>(peak_vertices(n))); }

  // The most distinct neighbours v has within one iteration, counted for
  // vertices of degree >= the floor (the candidates for singletons) and
  // only up to ceil(global_degree) (a residual's million sources per step
  // need not be told apart); none for the others and for unmarked runs.
  std::optional<std::size_t> peak_degree(CsrVertex v) const {
    const auto it = peak_degree_.find(v);
    if (it == peak_degree_.end()) return std::nullopt;
    return it->second;
  }

  // The vertices each phase's flows touch, told flow by flow by a pass
  // over the flows made anyway (ValueGraph::build's, which folds the uses
  // into edges): the most of them is peak_vertices.
  class VertexTouches {
   public:
    explicit VertexTouches(std::size_t n) : seen_in_(n, kNever) {}
    void enter(std::size_t phase) {
      if (phase == phase_) return;
      peak_ = std::max(peak_, touched_);
      phase_ = phase;
      touched_ = 0;
    }
    void touch(CsrVertex x) {
      if (x != kNoCsrVertex && seen_in_[x] != phase_) seen_in_[x] = phase_, ++touched_;
    }
    std::size_t peak() const { return std::max(peak_, touched_); }

   private:
    static constexpr std::size_t kNever = ~std::size_t{0};
    std::vector<std::size_t> seen_in_;
    std::size_t phase_ = 0, touched_ = 0, peak_ = 0;
  };

  // Counts for every vertex whose out + in degree (`in`: the directed
  // graph's in-edges) reaches the floor: a superset of
  // the candidates, before the symmetric degrees are known. local_of(v):
  // value v's graph vertex; `touches`: every flow's vertices, by phase;
  // for_each_flow(f): f(value, sources) for the flows of every phase that
  // may differ (an iteration alike to one read adds no new peak:
  // alike_replays.h).
  template <class Profile, class LocalOf, class ForEachFlow>
  void count(const Profile& profile, const LocalOf& local_of, const CsrGraph& directed,
             const csr::InEdges& in, const VertexTouches& touches, const ForEachFlow& for_each_flow) {
    const std::size_t n = boost::num_vertices(directed);
    if (profile.phase_count() < 2 || n == 0) return;
    peak_vertices_ = touches.peak();
    const std::size_t floor = floor_of(n);
    const auto cap = static_cast<std::size_t>(std::ceil(global_degree(n)));
    absl::flat_hash_map<CsrVertex, absl::flat_hash_set<CsrVertex>> seen;  // candidate -> neighbours this phase
    std::vector<std::uint8_t> candidate(n, 0);
    for (CsrVertex v = 0; v < n; ++v) {
      if (boost::out_degree(v, directed) + in.count(v) >= floor) {
        seen[v];
        candidate[v] = 1;
      }
    }
    if (seen.empty()) return;
    for (const auto& [v, unused] : seen) peak_degree_[v] = 0;
    auto close_phase = [&] {
      for (auto& [v, neighbours] : seen) {
        peak_degree_[v] = std::max(peak_degree_[v], neighbours.size());
        neighbours.clear();
      }
    };
    std::size_t phase = 0;
    PhaseCursor phase_of(profile.iteration_marks);
    for_each_flow([&](ValueId value, std::span<const ValueId> sources) {
      if (const std::size_t p = phase_of(value); p != phase) {
        close_phase();
        phase = p;
      }
      const CsrVertex sink = local_of(value);
      absl::flat_hash_set<CsrVertex>* sink_seen = candidate[sink] ? &seen[sink] : nullptr;
      for (ValueId s : sources) {
        const CsrVertex source = local_of(s);
        if (source == sink) continue;
        if (sink_seen && sink_seen->size() < cap) sink_seen->insert(source);
        if (candidate[source]) {
          absl::flat_hash_set<CsrVertex>& source_seen = seen[source];
          if (source_seen.size() < cap) source_seen.insert(sink);
        }
      }
    });
    close_phase();
  }

  // Forgets the vertices whose symmetric degree is below the floor: never
  // candidates.
  template <class Degree>
  void drop_below_floor(std::size_t n, Degree degree) {
    const std::size_t floor = floor_of(n);
    for (auto it = peak_degree_.begin(); it != peak_degree_.end();) {
      if (degree(it->first) < floor) {
        peak_degree_.erase(it++);
      } else {
        ++it;
      }
    }
  }

 private:
  std::size_t floor_of(std::size_t n) const { return static_cast<std::size_t>(global_degree(n)); }

  absl::flat_hash_map<CsrVertex, std::size_t> peak_degree_;
  std::size_t peak_vertices_ = 0;  // 0: not counted (unmarked runs)
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_ESTIMATE_PHASE_DEGREES_H_

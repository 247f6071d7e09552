// Cost model (the paper's Algorithm 4) under DESIGN.md's logical-volume
// convention.
//
// For each value-flow chain (new value v, sources) in creation order:
//  - v owned by process q, source s owned by p != q: s travels p -> q, once
//    per (instance, receiving process) — redundant pruning is per value
//    *instance*, so a halo value of every time step is counted again;
//  - s a singleton (replicated everywhere): no point-to-point traffic; s is
//    *published* by a collective the first time another vertex uses it;
//  - v a singleton: the processes that own v's distributed sources are its
//    contributors (accumulated along its chain of exclusive updates).
// A published singleton instance costs:
//  - contributors on several processes, or a reduction (a loop's, or
//    computed from them) wherever its contributors lie: Allreduce, 2(N-1)m;
//  - contributors on one process, or an input read once: Bcast, (N-1)m;
//  - no contributors and not an input (computed from replicated data or
//    constants): nothing, every process computes it.
// A loop's reduction that starts from another's unreduced instance folds it
// in: their contributors merge and only the newer one is reduced
// (continues_reduction).
// Refinements of owner-computes that careful MPI codes make, each a switch
// (all on by default):
//  - combine_partial_updates: an exclusive update of a location (`f[n] +=
//    g(...)`) whose other sources one remote process p holds (owns or has
//    received: a shared node's coordinates) is computed on p when one
//    partial costs fewer bytes than the sources the owner lacks;
//    p's contributions to that location in one iteration are combined and
//    sent as one partial value (a reduction), not as their sources;
//  - recompute_when_cheaper: a process receives the cheapest set of values
//    from which it can compute everything it uses (a minimum vertex cut,
//    recomputation.h), e.g. a shared node's summed force instead of its new
//    velocity and position, as LULESH-style codes with duplicated boundary
//    nodes do. Never more bytes than owner-computes.
//  - exchange_partials: where a process recomputes from a location's sum
//    (above) and contributed to that sum itself, the sharers exchange
//    their partials in one round, every sharer to every other, and each
//    sums them itself (LULESH's duplicated boundary nodes: k(k-1) partials
//    for k sharers) instead of partials to the owner and the sum back
//    (2(k-1)). More bytes, one round of messages fewer. A value computed
//    from a sum its receiver contributed to in the same iteration (a round
//    trip through the sum's owner) is always recomputed from the sum this
//    way (recomputation.h), whatever the bytes.
//  - A process that recomputes the updates of a location keeps its own copy
//    of it; the values from before the region those updates read (the
//    location's first instance, a node's mass) are set up before the
//    region, as SPMD codes initialise duplicated entities, and not sent.
//  - ghost_memory: a process keeps received values for later iterations
//    only while they take less of an array than its own part of it (times
//    the factor); beyond, it receives them again in each iteration.
// Contributions still pending at the end of an iteration are reduced in
// that iteration (SPMD codes keep replicated values consistent every step:
// `gsum += local_sum` each step is an Allreduce each step, not one at the
// end), and so are those pending at the end of the region, except the
// results of a loop the program never uses (ValueGraph::unused_loop_result).
// Messages: per (sender, receiver, iteration), one per loop (or pipelined
// stage) that needs values no earlier message could carry (send_points.h,
// messages.h), plus one call per (collective kind, iteration); each is a
// record of the trace
// (messages.h), which the time model (time_model.h) prices. Work: the
// value instances the busiest process computes in each iteration
// (phase_work), what a benchmark's compute delays stand for.// The run's parts, a header each: who owns each instance
// (instance_owners.h), the bytes and messages booked (message_ledger.h),
// the collectives of singletons (singleton_publisher.h), the owner-computes
// receptions and ghost memory (receptions.h), combined partials and their
// sharers (combined_partials.h) and the work per iteration
// (iteration_work.h); the result is a CommEstimate (comm_estimate.h).
#ifndef COMMANALYZER_COST_MODEL_H_
#define COMMANALYZER_COST_MODEL_H_

#include <concepts>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "commanalyzer/estimate/combined_partials.h"
#include "commanalyzer/estimate/comm_estimate.h"
#include "commanalyzer/estimate/instance_owners.h"
#include "commanalyzer/estimate/iteration_work.h"
#include "commanalyzer/estimate/message_ledger.h"
#include "commanalyzer/estimate/receptions.h"
#include "commanalyzer/estimate/recomputation.h"
#include "commanalyzer/estimate/repeated_iterations.h"
#include "commanalyzer/estimate/send_points.h"
#include "commanalyzer/estimate/singleton_publisher.h"
#include "commanalyzer/estimate/time_model.h"
#include "commanalyzer/estimate/value_graph.h"
#include "commanalyzer/record/profile.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

template <class C, class ProfileT>
concept CostModel = requires(const C& model, const ProfileT& profile, const ValueGraph& graph,
                             const std::vector<ProcId>& owner, int procs) {
  { model.estimate(profile, graph, owner, procs) } -> std::same_as<CommEstimate>;
};

struct LogicalVolumeCostModel {
  static constexpr std::size_t kWholeRun = ~std::size_t{0};
  HockneyModel network;
  // Computation per value instance, for the predicted time that chooses
  // between distributions (choice.h): a value instance is one computed
  // result stored to memory, and in the memory-bound loops these codes
  // spend their time in a core of a typical cluster node stores about one
  // a nanosecond (8 bytes stored and 8-16 loaded at 10-20 GB/s).
  double seconds_per_value = 1e-9;
  bool combine_partial_updates = true;
  bool recompute_when_cheaper = true;
  bool exchange_partials = true;
  // A process keeps the values it received for later iterations (a
  // read-only array's ghosts) while they take fewer locations of an array
  // than ghost_memory times its own part of it; beyond, it receives them
  // again in each iteration that uses them. Ghosts are a surface of the
  // part a process owns; remote data as large as its own part is another
  // process's block, which MPI codes stream (SUMMA receives A's and B's
  // panels every multiplication) rather than copy. Halos are new values
  // every iteration: the rule does not touch them. Infinity: keep all.
  double ghost_memory = 1.0;
  RecomputationLimits recomputation;

  // `iterations`: cost the region's first iterations only (and what comes
  // before them); the rest of the run is not looked at. `fixed_home`, by
  // graph vertex: 1 where the vertex is stored at a location with a fixed
  // owner, an array element (empty: none is; every value placed on its own).
  // `repeats`: iterations costed as the ones they repeat
  // (repeated_iterations.h), for owners fixed per location.
  template <class ProfileT>
  CommEstimate estimate(const ProfileT& profile, const ValueGraph& graph, const std::vector<ProcId>& owner,
                        int procs, std::size_t iterations = kWholeRun,
                        const std::vector<std::uint8_t>& fixed_home = {},
                        const RepeatedIterations& repeats = InstanceOwners<ProfileT>::kNoRepeats) const {
    if (procs < 1) throw std::invalid_argument("commanalyzer: process count must be >= 1");
    Run<ProfileT> run(profile, graph, owner, procs, combine_partial_updates, recompute_when_cheaper, iterations,
                      repeats);
    run.run_all();
    // Received values kept for later iterations within the ghost memory;
    // `plan`: what recomputation replaced (not received at all).
    auto finish = [&](const ReceptionPlan* plan) {
      const bool again = run.receptions.receive_again_beyond_ghost_memory(
          ghost_memory, [&](std::uint64_t k) { return plan == nullptr || !plan->recomputed.contains(k); });
      CommEstimate e = run.finish(network, seconds_per_value);
      e.carries_across_iterations = plan != nullptr || again;
      return e;
    };
    if (!recompute_when_cheaper) return finish(nullptr);
    // Which receptions recomputation can replace is known only once every
    // reception is known. Receiving fewer values changes no other decision
    // of the run (what a process has received is the same set), so the
    // plan is applied to its result: the replaced sends are withdrawn, the
    // earlier values sent.
    // Without the exchange, a sum still comes from its owner: no round is saved.
    auto contributed = [&](ValueId s, ProcId q) { return exchange_partials && run.partials.contributed_partial(s, q); };
    auto fixed = [&](ValueId v) {
      return !fixed_home.empty() && fixed_home[graph.local(profile.values.vertex(v))] != 0;
    };
    ReceptionPlan plan = plan_receptions(
        profile, procs, run.receptions.delivered(), [&](ValueId v) { return run.owners.owner_of(v); }, recomputation,
        contributed, fixed, [&](const auto& f) { run.owners.for_each_flow(f); });
    if (plan.recomputed.empty()) return finish(nullptr);
    // A process that recomputes what it would receive can carry that
    // across iterations (the values it computed last step are its own this
    // step), so alike iterations need not send alike: cost each.
    if (repeats.window_repeats() > 0) {
      return estimate(profile, graph, owner, procs, iterations, fixed_home, repeats.beyond_window_only());
    }
    run.receptions.withdraw(plan.recomputed);
    // A process that recomputes the updates of a location keeps its own
    // copy of it (a shared node). SPMD codes set such copies up before the
    // region, with what the updates read from before it (the node's mass):
    // those values are not sent in the region.
    const absl::flat_hash_set<std::uint64_t> set_up = run.receptions.set_up_before_region(plan);
    run.receptions.withdraw(set_up);
    std::erase_if(plan.extra, [&](std::uint64_t k) { return set_up.contains(k); });
    if (exchange_partials && !plan.extra.empty()) {
      // Only the sums some process receives early have sharers to find:
      // tracking every location's would take a map entry per location and
      // iteration (gigabytes for a long stencil run).
      for (std::uint64_t k : plan.extra) run.partials.track_sharers_of(static_cast<ValueId>(k / procs));
      run.partials.replay_sharers();
    }
    for (std::uint64_t k : plan.extra) {
      const auto v = static_cast<ValueId>(k / procs);
      const auto q = static_cast<ProcId>(k % procs);
      if (!(exchange_partials && run.partials.receive_partials(v, q))) run.receptions.receive_early(v, q);
    }
    return finish(&plan);
  }

 private:
  // One estimate: the flows in creation order, each handed to the part
  // that prices it.
  template <class ProfileT>
  struct Run {
    Run(const ProfileT& profile, const ValueGraph& graph, const std::vector<ProcId>& owner, int procs,
        bool combine_partials, bool log_sends, std::size_t iterations, const RepeatedIterations& repeats)
        : owners{profile, graph, owner, procs,
                 iterations < profile.iterations() ? profile.iteration_marks[iterations]
                                                   : InstanceOwners<ProfileT>::kNoEnd,
                 repeats},
          points(profile, procs),
          work(procs),
          receptions(owners, ledger, points, log_sends),
          partials(owners, ledger, points, receptions, publisher, combine_partials) {
      result.procs = procs;
      result.matrix.assign(static_cast<std::size_t>(procs) * procs, 0);
      result.messages_matrix.assign(static_cast<std::size_t>(procs) * procs, 0);
      result.phase_bytes.assign(profile.phase_count(), 0);
      result.phase_work.assign(profile.phase_count(), 0);
      result.process_work.assign(procs, 0);
      result.iterations = std::min(profile.iterations(), iterations);
      result.counted_iterations = repeats.window_repeats();
      result.projected_iterations = repeats.projected();
      for (ProcId p : owner) result.singleton_vertices += p == kReplicated;
    }

    void run_all() {
      const ValueGraph& graph = owners.graph;
      const std::vector<ProcId>& owner = owners.owner;
      // A value whose sources all live with it sends, combines and
      // publishes nothing: its flow is not looked at (most of a stencil's).
      among_own.assign(graph.vertex_count(), 1);
      const auto& directed = graph.directed();
      for (auto e : boost::make_iterator_range(boost::edges(directed))) {
        const ValueGraph::Vertex sink = boost::target(e, directed);
        if (owner[boost::source(e, directed)] != owner[sink]) among_own[sink] = 0;
      }
      for (std::size_t x = 0; x < owner.size(); ++x) among_own[x] &= owner[x] != kReplicated;
      owners.for_each_flow([&](ValueId v, std::span<const ValueId> sources) { flow(v, sources); });
      publisher.publish_pending(current_phase);  // what the last iteration left unreduced
      close_iteration(current_phase, current_phase + 1);
    }

    // Ends `phase`; the next costed one is `next`.
    void close_iteration(std::size_t phase, std::size_t next) {
      const ProfileT& profile = owners.profile;
      work.close(phase, profile.phase_end(next - 1), result, owners.repeats.weight(phase));
    }

    void flow(ValueId v, std::span<const ValueId> sources) {
      const ProfileT& profile = owners.profile;
      ledger.serve(v);
      const std::size_t phase = phase_of(v);
      if (phase != current_phase) {
        publisher.publish_pending(current_phase);
        close_iteration(current_phase, phase);
        current_phase = phase;
        points.new_iteration();
      }
      const VertexId chain = profile.values.vertex(v);
      const ValueGraph::Vertex x = owners.graph.local(chain);
      const ProcId q = owners.owner[x];
      // A branch decision on one value (a loop's reduction: Analyzer::use)
      // computes nothing: it is recorded as the reduction's reader.
      if (!decides_on_one_value(chain, sources)) work.computed_by(q);
      work.compute(
          v, q, sources, [&](ValueId s) { return profile.values.is_input(s); },
          [&](ValueId s) { return profile.values.vertex(s) == chain; });
      points.follow(v, q);
      if (among_own[x]) return;  // (sharers are tracked after the run: replay_sharers)
      if (q == kReplicated) {
        publisher.accumulate(v, sources, phase);
        return;
      }
      if (partials.combine_or_note_sharer(v, sources, q, phase)) return;
      for (ValueId s : sources) {
        const ProcId p = owners.owner_of(s);
        if (p == q) continue;
        if (p == kReplicated) {
          publisher.publish(s, phase);
          continue;
        }
        receptions.receive(s, p, q, v, phase);
      }
    }

    bool decides_on_one_value(VertexId chain, std::span<const ValueId> sources) const {
      const Address home = owners.profile.vertex_home[chain];
      return sources.size() == 1 && home >= kUseSiteBase && home < kLoopResultBase;
    }

    // The trace, its predicted time and the computation's into the result.
    template <TimeModel Net>
    CommEstimate finish(const Net& net, double seconds_per_value) {
      ledger.finish();
      for (std::size_t p = 0; p < result.phase_work.size(); ++p) {
        if (!owners.repeats.repeats(p)) continue;
        result.phase_work[p] = result.phase_work[owners.repeats.costed_as(p)];
        result.phase_bytes[p] = result.phase_bytes[owners.repeats.costed_as(p)];
      }
      CommTime time = net.predict(result.trace);
      result.phase_seconds = std::move(time.phase_seconds);
      result.seconds = time.total_seconds;
      result.critical_path = work.critical_path();
      result.seconds_per_value = seconds_per_value;
      result.compute_seconds = static_cast<double>(result.busiest_work + result.waiting) * seconds_per_value;
      result.exchange_seconds = net.exchange_seconds(result.trace);
      return std::move(result);
    }

    const InstanceOwners<ProfileT> owners;
    CommEstimate result;
    MessageLedger<ProfileT> ledger{owners.profile, owners.n, result, owners.repeats};
    SendPoints<ProfileT> points;  // where messages are sent
    IterationWork work;
    SingletonPublisher<ProfileT> publisher{owners, ledger};
    Receptions<ProfileT> receptions;
    CombinedPartials<ProfileT> partials;
    std::vector<std::uint8_t> among_own;  // by graph vertex: owned, and every source vertex has the same owner
    std::size_t current_phase = 0;
    PhaseCursor phase_of{owners.profile.iteration_marks};
  };
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_COST_MODEL_H_

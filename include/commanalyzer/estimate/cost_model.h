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
// (phase_work), what a benchmark's compute delays stand for.
#ifndef COMMANALYZER_COST_MODEL_H_
#define COMMANALYZER_COST_MODEL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <stdexcept>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "commanalyzer/estimate/locations.h"
#include "commanalyzer/estimate/messages.h"
#include "commanalyzer/estimate/partial_sharers.h"
#include "commanalyzer/estimate/partitioner.h"
#include "commanalyzer/estimate/recomputation.h"
#include "commanalyzer/estimate/schedule.h"
#include "commanalyzer/estimate/send_points.h"
#include "commanalyzer/estimate/site_attribution.h"
#include "commanalyzer/estimate/time_model.h"
#include "commanalyzer/record/types.h"
#include "commanalyzer/estimate/value_graph.h"

namespace commanalyzer {

// A distribution the estimate costed: its total bytes and predicted time
// (CommEstimate::predicted_seconds: computation and exchanges).
struct CandidateCost {
  std::string name;
  std::uint64_t bytes = 0;
  double compute_seconds = 0;
  double exchange_seconds = 0;
  double seconds() const { return compute_seconds + exchange_seconds; }
};

struct CommEstimate {
  int procs = 0;
  std::vector<std::uint64_t> matrix;           // procs x procs, p2p bytes row -> column
  std::vector<std::uint64_t> messages_matrix;  // procs x procs, p2p messages
  std::uint64_t p2p_bytes = 0;
  std::uint64_t p2p_messages = 0;
  std::uint64_t broadcast_bytes = 0;
  std::uint64_t allreduce_bytes = 0;
  std::uint64_t broadcasts = 0;        // published instances costed as Bcast
  std::uint64_t allreduces = 0;        // ... as Allreduce
  std::uint64_t collective_calls = 0;  // distinct (kind, iteration)
  std::vector<std::uint64_t> phase_bytes;  // per iteration (last: after the last mark)
  std::vector<std::uint64_t> phase_work;   // per iteration: value instances the busiest process computes
  std::vector<std::uint64_t> process_work;  // per process: value instances it computes in the region
  std::vector<std::uint64_t> process_memory;  // per process: bytes of array locations it owns (by location)
  std::size_t iterations = 0;
  std::size_t singleton_vertices = 0;
  // Every message and collective call (messages.h), and their predicted
  // time (time_model.h): per iteration and in all.
  MessageTrace trace;
  std::vector<double> phase_seconds;
  double seconds = 0;
  // The predicted run time of the region, what the distribution kept
  // minimises (estimate.h): the computation, at the cost model's seconds
  // per value, and the exchanges (HockneyModel::exchange_seconds). The
  // computation is a process's share of the work (mean_work values) and the
  // time processes wait for values of the same iteration from others
  // (waiting: the owner-computes schedule's critical path beyond its
  // busiest process's work; a sweep cut across its direction waits, a
  // pipelined one barely). The busiest process's excess over the mean is
  // left out: at the analysis size it is where integer blocks fall on
  // padding and shared entities (ghost layers, a mesh's shared nodes),
  // which MPI codes balance or duplicate.
  std::uint64_t critical_path = 0;
  std::uint64_t mean_work = 0;
  std::uint64_t waiting = 0;
  double compute_seconds = 0;
  double exchange_seconds = 0;
  // Ownership by location (distribution.h): the distribution kept, every
  // candidate's cost, and the kept owner map as runs of elements.
  std::string distribution;
  std::vector<CandidateCost> candidates;
  std::size_t learned_iterations = 0;  // candidates costed over the first ones only (0: the whole run)
  std::vector<OwnerRun> owner_map;
  // Grid shapes of arrays (array id, dimensions) where the distribution
  // knows one: the owner map can be drawn.
  std::vector<std::pair<std::uint32_t, std::vector<std::uint64_t>>> array_shapes;
  // Where the traffic is consumed in the source (site_attribution.h),
  // largest first.
  std::vector<SiteTraffic> sites;

  std::uint64_t collective_bytes() const { return broadcast_bytes + allreduce_bytes; }
  std::uint64_t total_bytes() const { return p2p_bytes + collective_bytes(); }
  std::uint64_t messages() const { return p2p_messages + collective_calls; }
  double predicted_seconds() const { return compute_seconds + exchange_seconds; }
  double per_iteration_bytes() const {
    return iterations == 0 ? static_cast<double>(total_bytes())
                           : static_cast<double>(total_bytes()) / static_cast<double>(iterations);
  }
  std::uint64_t at(int from, int to) const { return matrix[static_cast<std::size_t>(from) * procs + to]; }
  // Processes q that p sends point-to-point data to.
  int partners(int p) const {
    int count = 0;
    for (int q = 0; q < procs; ++q) count += at(p, q) > 0;
    return count;
  }
};

template <class C, class ProfileT>
concept CostModel = requires(const C& model, const ProfileT& profile, const ValueGraph& graph,
                             const std::vector<ProcId>& owner, int procs) {
  { model.estimate(profile, graph, owner, procs) } -> std::same_as<CommEstimate>;
};

// Every byte the cost model prices, booked once: the pair and message
// matrices and bytes per phase of the result, the message log (messages,
// phases and the time model's trace) and the sites the sends serve.
template <class ProfileT>
class MessageLedger {
 public:
  MessageLedger(const ProfileT& profile, int procs, CommEstimate& result)
      : profile_(profile), n_(procs), result_(result), log_(procs, profile.phase_count()),
        where_(procs, profile.phase_count()) {}

  // `what`: the value sent (its array names the exchange), consumed at
  // the site of `consumer`; it exists from position `created` on, and
  // opens a message sent at `opens_at` if none sent later carries it
  // (MessageLog::send). Returns the message it joined.
  std::uint32_t send(ProcId p, ProcId q, std::uint64_t bytes, std::size_t phase, ValueId what, ValueId created,
                     ValueId opens_at, ValueId consumer) {
    const MessageLog::Sent sent = log_.send(p, q, bytes, phase, created, opens_at, profile_.site_of(consumer));
    where_.send(profile_.site_of(consumer), p, q, phase, sent.message, bytes, array_of(what));
    const std::size_t cell = static_cast<std::size_t>(p) * n_ + q;
    result_.matrix[cell] += bytes;
    result_.p2p_bytes += bytes;
    result_.phase_bytes[phase] += bytes;
    if (sent.opened) {
      ++result_.messages_matrix[cell];
      ++result_.p2p_messages;
    }
    return sent.message;
  }

  void unsend(ProcId p, ProcId q, std::uint64_t bytes, std::size_t phase, ValueId what, std::uint32_t message,
              ValueId consumer) {
    where_.unsend(profile_.site_of(consumer), p, q, phase, message, bytes, array_of(what));
    const std::size_t cell = static_cast<std::size_t>(p) * n_ + q;
    result_.matrix[cell] -= bytes;
    result_.p2p_bytes -= bytes;
    result_.phase_bytes[phase] -= bytes;
    if (log_.unsend(p, q, bytes, phase, message, profile_.site_of(consumer))) {
      --result_.messages_matrix[cell];
      --result_.p2p_messages;
    }
  }

  // Instance s reduced (Allreduce) or broadcast from `root`.
  void collective(CollectiveKind kind, ProcId root, ValueId s, std::size_t phase, ValueId consumer) {
    if (n_ == 1) return;
    const std::uint64_t m = profile_.values.size_bytes(s);
    const bool allreduce = kind == CollectiveKind::kAllreduce;
    const std::uint64_t bytes = (allreduce ? 2 : 1) * static_cast<std::uint64_t>(n_ - 1) * m;
    (allreduce ? result_.allreduce_bytes : result_.broadcast_bytes) += bytes;
    // A reduction is where its value is computed; an input's broadcast where it is used.
    where_.collective(profile_.site_of(profile_.values.is_input(s) ? consumer : s), allreduce, bytes);
    ++(allreduce ? result_.allreduces : result_.broadcasts);
    result_.phase_bytes[phase] += bytes;
    if (log_.collective(kind, root, m, phase)) ++result_.collective_calls;
  }

  // The trace (with its sites' names) and the sites into the result.
  void finish() {
    result_.trace = std::move(log_).finish();
    for (const auto& site : profile_.sites) {
      result_.trace.site_names.emplace_back(site.id, site.file + ":" + std::to_string(site.line));
    }
    result_.sites = where_.finish(profile_);
  }

 private:
  std::uint32_t array_of(ValueId v) const {
    return v == kNoValue ? 0 : profile_.vertex_group[profile_.values.vertex(v)];
  }

  const ProfileT& profile_;
  const int n_;
  CommEstimate& result_;
  MessageLog log_;
  SiteAttribution where_;
};

struct LogicalVolumeCostModel {
  static constexpr std::size_t kWholeRun = ~std::size_t{0};
  HockneyModel network;
  // Computation per value instance, for the predicted time that chooses
  // between distributions (estimate.h): a value instance is one computed
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
  // before them); the rest of the run is not looked at.
  template <class ProfileT>
  CommEstimate estimate(const ProfileT& profile, const ValueGraph& graph, const std::vector<ProcId>& owner,
                        int procs, std::size_t iterations = kWholeRun) const {
    if (procs < 1) throw std::invalid_argument("commanalyzer: process count must be >= 1");
    Run<ProfileT> run(profile, graph, owner, procs, combine_partial_updates, iterations);
    run.log_sends = recompute_when_cheaper;
    run.run_all();
    // Received values kept for later iterations within the ghost memory;
    // `plan`: what recomputation replaced (not received at all).
    auto finish = [&](const ReceptionPlan* plan) {
      run.receive_again_beyond_ghost_memory(
          ghost_memory, [&](std::uint64_t k) { return plan == nullptr || !plan->recomputed.contains(k); });
      return run.finish(network, seconds_per_value);
    };
    if (!recompute_when_cheaper) return finish(nullptr);
    // Which receptions recomputation can replace is known only once every
    // reception is known. Receiving fewer values changes no other decision
    // of the run (what a process has received is the same set), so the
    // plan is applied to its result: the replaced sends are withdrawn, the
    // earlier values sent.
    // Without the exchange, a sum still comes from its owner: no round is saved.
    auto contributed = [&](ValueId s, ProcId q) { return exchange_partials && run.contributed_partial(s, q); };
    ReceptionPlan plan = plan_receptions(
        profile, procs, run.delivered, [&](ValueId v) { return run.owner_of(v); }, recomputation, contributed);
    if (plan.recomputed.empty()) return finish(nullptr);
    run.withdraw(plan.recomputed);
    // A process that recomputes the updates of a location keeps its own
    // copy of it (a shared node). SPMD codes set such copies up before the
    // region, with what the updates read from before it (the node's mass):
    // those values are not sent in the region.
    const absl::flat_hash_set<std::uint64_t> set_up = run.set_up_before_region(plan);
    run.withdraw(set_up);
    std::erase_if(plan.extra, [&](std::uint64_t k) { return set_up.contains(k); });
    if (exchange_partials && !plan.extra.empty()) {
      // Only the sums some process receives early have sharers to find:
      // tracking every location's would take a map entry per location and
      // iteration (gigabytes for a long stencil run).
      for (std::uint64_t k : plan.extra) run.track_sharers_of(static_cast<ValueId>(k / procs));
      run.replay_sharers();
    }
    for (std::uint64_t k : plan.extra) {
      const auto v = static_cast<ValueId>(k / procs);
      const auto q = static_cast<ProcId>(k % procs);
      if (!(exchange_partials && run.receive_partials(v, q))) run.receive_early(v, q);
    }
    return finish(&plan);
  }

 private:
  // Contributors of a singleton instance: none, exactly one process, many.
  static constexpr ProcId kNone = -1;
  static constexpr ProcId kMany = -2;

  static ProcId merge(ProcId a, ProcId b) {
    if (a == kNone) return b;
    if (b == kNone || a == b) return a;
    return kMany;
  }

  template <class ProfileT>
  struct Run {
    Run(const ProfileT& profile_in, const ValueGraph& graph_in, const std::vector<ProcId>& owner_in, int procs,
        bool combine_partials, std::size_t iterations)
        : profile(profile_in),
          graph(graph_in),
          owner(owner_in),
          n(procs),
          end(iterations < profile_in.iterations() ? profile_in.iteration_marks[iterations] : kNoEnd),
          combine_partial_updates(combine_partials),
          points(profile_in, procs) {
      result.procs = procs;
      result.matrix.assign(static_cast<std::size_t>(n) * n, 0);
      result.messages_matrix.assign(static_cast<std::size_t>(n) * n, 0);
      result.phase_bytes.assign(profile.phase_count(), 0);
      result.phase_work.assign(profile.phase_count(), 0);
      result.process_work.assign(n, 0);
      work.assign(n, 0);
      result.iterations = std::min(profile.iterations(), iterations);
      for (ProcId p : owner) result.singleton_vertices += p == kReplicated;
    }

    ProcId owner_of(ValueId v) const { return owner[graph.local(profile.values.vertex(v))]; }
    std::uint64_t key(ValueId s, ProcId q) const { return static_cast<std::uint64_t>(s) * n + q; }

    void run_all() {
      // A value whose sources all live with it sends, combines and
      // publishes nothing: its flow is not looked at (most of a stencil's).
      among_own.assign(graph.vertex_count(), 1);
      const auto& directed = graph.directed();
      for (auto e : boost::make_iterator_range(boost::edges(directed))) {
        const ValueGraph::Vertex sink = boost::target(e, directed);
        if (owner[boost::source(e, directed)] != owner[sink]) among_own[sink] = 0;
      }
      for (std::size_t x = 0; x < owner.size(); ++x) among_own[x] &= owner[x] != kReplicated;
      for_each_flow([&](ValueId v, std::span<const ValueId> sources) { flow(v, sources); });
      publish_pending(current_phase);  // what the last iteration left unreduced
      close_work(current_phase);
    }

    // f(value, sources) for the flows of the iterations costed.
    template <class F>
    void for_each_flow(F f) const {
      profile.flows.for_each([&](ValueId v, std::span<const ValueId> sources) {
        if (v >= end) return false;
        f(v, sources);
        return true;
      });
    }

    // Values read from before the region exist from its start, whenever
    // they were first read.
    ValueId created_at(ValueId s) const { return profile.values.is_input(s) ? 0 : s; }

    // The values the busiest process computes in `phase` (every process
    // computes the replicated ones).
    void close_work(std::size_t phase) {
      const std::uint64_t busiest = *std::max_element(work.begin(), work.end());
      result.phase_work[phase] = replicated_work + busiest;
      for (int p = 0; p < n; ++p) result.process_work[p] += replicated_work + work[p];
      // The iteration's exchanges wait for every process (ComputeSchedule); what
      // its critical path adds to its busiest process's work is waiting.
      const std::uint64_t span = schedule.next_iteration(phase < profile.iteration_marks.size()
                                                             ? profile.iteration_marks[phase]
                                                             : profile.values.count() + 1);
      std::uint64_t total = 0;
      for (std::uint64_t w : work) total += w;
      result.waiting += span > busiest ? span - busiest : 0;
      result.mean_work += (total + static_cast<std::uint64_t>(n) - 1) / static_cast<std::uint64_t>(n);
      std::fill(work.begin(), work.end(), 0);
      replicated_work = 0;
    }

    void flow(ValueId v, std::span<const ValueId> sources) {
      consumer = v;
      const std::size_t phase = profile.phase_of(v);
      if (phase != current_phase) {
        publish_pending(current_phase);
        close_work(current_phase);
        current_phase = phase;
        points.new_iteration();
      }
      const VertexId chain = profile.values.vertex(v);
      const ValueGraph::Vertex x = graph.local(chain);
      if (decides_on_one_value(chain, sources)) {
        // computes nothing: recorded as the reduction's reader (Analyzer::use)
      } else if (owner[x] == kReplicated) {
        ++replicated_work;
      } else {
        ++work[owner[x]];
      }
      schedule.compute(
          v, owner[x], sources, [&](ValueId s) { return profile.values.is_input(s); },
          [&](ValueId s) { return profile.values.vertex(s) == chain; });
      points.follow(v, owner[x]);
      if (among_own[x]) return;  // (sharers are tracked after the run: replay_sharers)
      const ProcId q = owner[x];
      if (q == kReplicated) {
        ProcId c = kNone;
        for (ValueId s : sources) {
          const ProcId p = owner_of(s);
          if (p != kReplicated) {
            c = merge(c, p);
          } else if (profile.values.vertex(s) == chain) {
            if (!published.contains(s)) {
              auto it = contributors.find(s);
              if (it != contributors.end()) c = merge(c, it->second);
            }
          } else if (continues_reduction(chain, s)) {
            c = merge(c, contributors.find(s)->second);
          } else {
            publish(s, phase);
          }
        }
        if (c != kNone) {
          contributors[v] = c;
          pending[chain] = v;  // the newest unreduced instance of this chain
        }
        return;
      }
      if (combine_or_note_sharer(v, sources, q, phase)) return;
      for (ValueId s : sources) {
        const ProcId p = owner_of(s);
        if (p == q) continue;
        if (p == kReplicated) {
          publish(s, phase);
          continue;
        }
        const auto [seen, fresh] = delivered.try_emplace(key(s, q), static_cast<std::uint32_t>(phase));
        if (!fresh) {
          if (seen->second != phase) {  // kept from an earlier iteration
            seen->second = static_cast<std::uint32_t>(phase);
            kept_uses.push_back({key(s, q), v, static_cast<std::uint32_t>(phase), points.opens_at(q, created_at(s))});
          }
          continue;
        }
        const std::uint32_t message =
            send(p, q, profile.values.size_bytes(s), phase, s, created_at(s), points.opens_at(q, created_at(s)));
        if (log_sends) send_log.push_back({key(s, q), v, message});
      }
    }

    // The part of flow() the sharers of a location depend on: v, owned by
    // q, is a combined partial (true), or q's own update of the location.
    bool combine_or_note_sharer(ValueId v, std::span<const ValueId> sources, ProcId q, std::size_t phase) {
      if (combine_partial_updates && partial_update(v, sources, q, phase)) return true;
      if (tracks_sharers(v)) {
        const VertexId chain = profile.values.vertex(v);
        for (ValueId s : sources) {
          if (profile.values.vertex(s) == chain) {
            add_sharer(chain, phase, v, q);
            break;
          }
        }
      }
      return false;
    }

    // Receptions of values from before the region (no recorded flow) that
    // feed an update of a location the receiver recomputes (v = f(v', ...),
    // v' the location's previous instance): it keeps its own copy of that
    // location, set up before the region with what the update reads.
    absl::flat_hash_set<std::uint64_t> set_up_before_region(const ReceptionPlan& plan) const {
      absl::flat_hash_set<std::uint64_t> set_up;
      if (plan.recomputed.empty()) return set_up;
      absl::flat_hash_map<ValueId, std::vector<ProcId>> recomputed_by;
      for (std::uint64_t k : plan.recomputed) recomputed_by[static_cast<ValueId>(k / n)].push_back(k % n);
      const absl::flat_hash_set<std::uint64_t> extra(plan.extra.begin(), plan.extra.end());
      // Flows come in creation order, so a source's own flow, if any, has
      // been seen by the time it is read.
      std::vector<bool> has_flow(profile.values.count() + 1, false);
      for_each_flow([&](ValueId v, std::span<const ValueId> sources) {
        has_flow[v] = true;
        const auto it = recomputed_by.find(v);
        if (it == recomputed_by.end()) return;
        const VertexId location = profile.values.vertex(v);
        const bool update = std::any_of(sources.begin(), sources.end(),
                                        [&](ValueId s) { return profile.values.vertex(s) == location; });
        if (!update) return;
        for (ValueId s : sources) {
          if (has_flow[s]) continue;
          for (ProcId q : it->second) {
            if (delivered.contains(key(s, q)) || extra.contains(key(s, q))) set_up.insert(key(s, q));
          }
        }
      });
      return set_up;
    }

    // Takes back the sends of `keys` (their receivers compute the values).
    void withdraw(const absl::flat_hash_set<std::uint64_t>& keys) {
      for (const auto& [k, first_use, message] : send_log) {
        if (!keys.contains(k)) continue;
        const auto s = static_cast<ValueId>(k / n);
        consumer = first_use;
        unsend(owner_of(s), static_cast<ProcId>(k % n), profile.values.size_bytes(s), profile.phase_of(first_use), s,
               message);
      }
    }

    // Finds the sharers of the tracked locations (track_sharers_of) after
    // the run: their flows again, deciding each combination as the run did
    // (with what had been delivered by then), sending nothing.
    void replay_sharers() {
      for (auto it = partial_sent.begin(); it != partial_sent.end();) {
        const auto chain = static_cast<VertexId>(it->first / n);
        if (sharers.tracks(chain)) {
          partial_sent.erase(it++);
        } else {
          ++it;
        }
      }
      replaying = true;
      std::size_t logged = 0;
      for_each_flow([&](ValueId v, std::span<const ValueId> sources) {
        if (!tracks_sharers(v)) return;
        const ProcId q = owner_of(v);
        if (q == kReplicated) return;
        for (; logged < send_log.size() && send_log[logged].first_use < v; ++logged) {
          delivered_before.insert(send_log[logged].key);
        }
        combine_or_note_sharer(v, sources, q, profile.phase_of(v));
      });
      replaying = false;
      delivered_before = {};
    }

    // v = v' (+) g(others), v' the previous instance of v's location: when
    // one process p holds every source of g (owns it or has received it),
    // p may compute g and send one combined partial per (location, p,
    // iteration) instead of the inputs q lacks. It does when that costs
    // fewer bytes than those inputs (nothing once the partial is under
    // way); on a tie only when the inputs serve no other value, since an
    // input sent once serves every later use at q.
    bool partial_update(ValueId v, std::span<const ValueId> sources, ProcId q, std::size_t phase) {
      const VertexId chain = profile.values.vertex(v);
      // (value, process) pairs received so far
      auto received = [&](std::uint64_t k) { return replaying ? delivered_before.contains(k) : delivered.contains(k); };
      bool updates_chain = false;
      bool inputs_single_use = true;
      std::uint64_t input_bytes = 0;
      // Processes owning one of g's inputs that q lacks: the candidates to compute g.
      absl::InlinedVector<ProcId, 8> candidates;
      for (ValueId s : sources) {
        if (profile.values.vertex(s) == chain) {
          updates_chain = true;
          continue;
        }
        const ProcId p = owner_of(s);
        if (p == q || p == kReplicated || received(key(s, q))) continue;
        input_bytes += profile.values.size_bytes(s);
        inputs_single_use = inputs_single_use && graph.source_uses(s) <= 1;
        if (std::find(candidates.begin(), candidates.end(), p) == candidates.end()) candidates.push_back(p);
      }
      if (!updates_chain || candidates.empty()) return false;
      // The contributor computes g from all of its inputs, so it must hold
      // every one: own it or have received it (a shared node's coordinates,
      // which the owner of the neighbouring element uses anyway). Else g
      // is split across processes and is not combined.
      ProcId contributor = kNone;
      for (const ProcId p : candidates) {
        const bool holds_all = std::all_of(sources.begin(), sources.end(), [&](ValueId s) {
          const ProcId o = owner_of(s);
          return profile.values.vertex(s) == chain || o == p || o == kReplicated || received(key(s, p));
        });
        if (holds_all) {
          contributor = p;
          break;
        }
      }
      if (contributor == kNone) return false;
      const std::pair<std::uint64_t, std::size_t> partial{static_cast<std::uint64_t>(chain) * n + contributor, phase};
      const bool under_way = partial_sent.contains(partial);
      const std::uint64_t partial_bytes = profile.values.size_bytes(v);
      if (!under_way && !(partial_bytes < input_bytes || (partial_bytes == input_bytes && inputs_single_use))) {
        return false;
      }
      if (!under_way) partial_sent.insert(partial);
      if (!replaying) {
        ValueId created = 0;  // the partial, once its contributor's inputs exist
        for (ValueId s : sources) {
          if (profile.values.vertex(s) == chain) continue;
          if (owner_of(s) == kReplicated) publish(s, phase);
          created = std::max(created, created_at(s));
        }
        if (!under_way) send(contributor, q, partial_bytes, phase, v, created, points.opens_at(q, created));
      }
      if (tracks_sharers(v)) add_sharer(chain, phase, v, contributor);
      return true;
    }

    // q sent a combined partial to s's location in s's iteration.
    bool contributed_partial(ValueId s, ProcId q) const {
      return partial_sent.contains({static_cast<std::uint64_t>(profile.values.vertex(s)) * n + q, profile.phase_of(s)});
    }

    // Track the sharers of v's location in v's phase (receive_partials(v, ...)).
    void track_sharers_of(ValueId v) {
      sharers.track(profile.values.vertex(v), profile.phase_of(v), profile.vertex_count());
    }
    bool tracks_sharers(ValueId v) const { return sharers.tracks(profile.values.vertex(v)); }
    void add_sharer(VertexId chain, std::size_t phase, ValueId v, ProcId p) { sharers.add(chain, phase, v, p); }

    // q needs the sum v and contributed to it: it receives every other
    // sharer's partial instead of v (exchange_partials). False when v is
    // not such a sum.
    bool receive_partials(ValueId v, ProcId q) {
      const std::size_t phase = profile.phase_of(v);
      const std::vector<ProcId>* sharing = sharers.of_newest(profile.values.vertex(v), phase, v);
      if (sharing == nullptr) return false;
      const std::vector<ProcId>& procs = *sharing;
      if (std::find(procs.begin(), procs.end(), q) == procs.end()) return false;
      if (!delivered.try_emplace(key(v, q), static_cast<std::uint32_t>(phase)).second) return true;
      consumer = v;
      for (ProcId p : procs) {
        if (p != q) send(p, q, profile.values.size_bytes(v), phase, v, v, points.after_sweep_of(v));
      }
      return true;
    }

    // MessageLedger::send and unsend for the value whose computation the
    // sends serve (consumer).
    std::uint32_t send(ProcId p, ProcId q, std::uint64_t bytes, std::size_t phase, ValueId what, ValueId created,
                       ValueId opens_at) {
      return ledger.send(p, q, bytes, phase, what, created, opens_at, consumer);
    }
    void unsend(ProcId p, ProcId q, std::uint64_t bytes, std::size_t phase, ValueId what, std::uint32_t message) {
      ledger.unsend(p, q, bytes, phase, what, message, consumer);
    }

    // The ghost memory rule (LogicalVolumeCostModel::ghost_memory): where q
    // would keep more of an array's received values for later iterations
    // than `ghost_memory` times its own part of that array, it receives
    // them again in every iteration that uses them. `received(k)`: q still
    // receives the value (recomputation has not replaced it).
    template <class Received>
    void receive_again_beyond_ghost_memory(double ghost_memory, Received received) {
      if (kept_uses.empty()) return;
      absl::flat_hash_map<std::uint64_t, std::uint64_t> own, kept;  // by group * n + process: locations
      auto cell = [&](std::uint32_t group, ProcId q) { return static_cast<std::uint64_t>(group) * n + q; };
      for (ValueGraph::Vertex x = 0; x < owner.size(); ++x) {
        if (owner[x] >= 0) ++own[cell(graph.group(x), owner[x])];
      }
      absl::flat_hash_set<std::uint64_t> counted;  // (location, process)
      for (const KeptUse& u : kept_uses) {
        const auto s = static_cast<ValueId>(u.key / n);
        const auto q = static_cast<ProcId>(u.key % n);
        const VertexId location = profile.values.vertex(s);
        if (received(u.key) && counted.insert(static_cast<std::uint64_t>(location) * n + q).second) {
          ++kept[cell(profile.vertex_group[location], q)];
        }
      }
      for (const KeptUse& u : kept_uses) {
        const auto s = static_cast<ValueId>(u.key / n);
        const auto q = static_cast<ProcId>(u.key % n);
        const std::uint64_t c = cell(profile.vertex_group[profile.values.vertex(s)], q);
        if (!received(u.key) || static_cast<double>(kept[c]) < ghost_memory * static_cast<double>(own[c])) continue;
        consumer = u.use;
        send(owner_of(s), q, profile.values.size_bytes(s), u.phase, s, created_at(s), u.opens_at);
      }
    }

    // s reaches q although owner-computes would not send it: the receiver
    // recomputes later values from it (see recomputation.h).
    void receive_early(ValueId s, ProcId q) {
      if (!delivered.try_emplace(key(s, q), static_cast<std::uint32_t>(profile.phase_of(s))).second) return;
      consumer = s;
      send(owner_of(s), q, profile.values.size_bytes(s), profile.phase_of(s), s, created_at(s), points.after_sweep_of(s));
    }

    void publish(ValueId s, std::size_t phase) {
      if (!published.insert(s).second) return;
      no_longer_pending(s);
      auto it = contributors.find(s);
      const ProcId c = it == contributors.end() ? kNone : it->second;
      // A reduction is an Allreduce whichever processes hold its
      // contributions this time: every process of an MPI code calls it,
      // with its part or the operation's identity.
      if (c == kMany || (c != kNone && is_reduction(s))) {
        collective(CollectiveKind::kAllreduce, 0, s, phase);
      } else if (c != kNone || profile.values.is_input(s)) {
        collective(CollectiveKind::kBcast, c == kNone ? 0 : c, s, phase);  // an input: read by process 0
      }
    }

    // A loop's reduction whose accumulator starts from another reduction's
    // unreduced result (the minimum over one region after another) continues
    // it: each process folds its part of s into its part of the new one, and
    // s is reduced on its own only if something else reads it, as an MPI
    // code reduces the minimum over all regions once. A value computed from
    // a reduction (beta = rho / rho_old) is not a continuation: s is
    // reduced first.
    bool continues_reduction(VertexId chain, ValueId s) {
      if (published.contains(s) || !contributors.contains(s)) return false;
      if (!graph.loop_reduction(graph.local(chain)) || !is_reduction(s)) return false;
      no_longer_pending(s);
      return true;
    }

    bool is_reduction(ValueId s) const { return graph.reduction(graph.local(profile.values.vertex(s))); }

    // A branch decision on one value (a loop's reduction: Analyzer::use).
    bool decides_on_one_value(VertexId chain, std::span<const ValueId> sources) const {
      const Address home = profile.vertex_home[chain];
      return sources.size() == 1 && home >= kUseSiteBase && home < kLoopResultBase;
    }

    // s is reduced (or folded into another reduction): its chain's end of
    // iteration has nothing of s left to reduce.
    void no_longer_pending(ValueId s) {
      if (auto p = pending.find(profile.values.vertex(s)); p != pending.end() && p->second == s) pending.erase(p);
    }

    // Reduces every chain's newest instance that still carries unreduced
    // contributions (in vertex order: deterministic).
    void publish_pending(std::size_t phase) {
      std::vector<ValueId> due;
      due.reserve(pending.size());
      for (const auto& [vertex, instance] : pending) {
        if (!graph.unused_loop_result(instance)) due.push_back(instance);
      }
      std::sort(due.begin(), due.end());
      for (ValueId s : due) publish(s, phase);
      pending.clear();
    }

    void collective(CollectiveKind kind, ProcId root, ValueId s, std::size_t phase) {
      ledger.collective(kind, root, s, phase, consumer);
    }

    template <TimeModel Net>
    CommEstimate finish(const Net& net, double seconds_per_value) {
      ledger.finish();
      CommTime time = net.predict(result.trace);
      result.phase_seconds = std::move(time.phase_seconds);
      result.seconds = time.total_seconds;
      result.critical_path = schedule.critical_path();
      result.compute_seconds = static_cast<double>(result.mean_work + result.waiting) * seconds_per_value;
      result.exchange_seconds = net.exchange_seconds(result.trace);
      return std::move(result);
    }

    const ProfileT& profile;
    const ValueGraph& graph;
    const std::vector<ProcId>& owner;
    const int n;
    static constexpr ValueId kNoEnd = ~ValueId{0};
    const ValueId end;  // the first value not costed (kNoEnd: the whole run)
    const bool combine_partial_updates;
    CommEstimate result;
    absl::flat_hash_map<std::uint64_t, std::uint32_t> delivered;  // key(instance, receiving process) -> last phase used
    // Uses of a received value in a later iteration than it came in (the
    // first in each iteration): kept, or received again (ghost memory).
    struct KeptUse {
      std::uint64_t key;
      ValueId use;
      std::uint32_t phase;
      ValueId opens_at;
    };
    std::vector<KeptUse> kept_uses;
    std::vector<std::uint8_t> among_own;  // by graph vertex: owned, and every source vertex has the same owner
    bool log_sends = false;
    struct LoggedSend {
      std::uint64_t key;  // key(value, receiver)
      ValueId first_use;
      std::uint32_t message;  // MessageLog::Sent
    };
    std::vector<LoggedSend> send_log;  // flow()'s sends in order
    bool replaying = false;                                   // replay_sharers(): sends nothing
    absl::flat_hash_set<std::uint64_t> delivered_before;      // ... and sees these as delivered
    absl::flat_hash_set<std::pair<std::uint64_t, std::size_t>> partial_sent;  // (location, contributor), phase
    absl::flat_hash_set<ValueId> published;
    absl::flat_hash_map<ValueId, ProcId> contributors;
    absl::flat_hash_map<VertexId, ValueId> pending;  // singleton chain -> newest unreduced instance
    PartialSharers sharers;  // the tracked (location, phase)s' contributors
    std::size_t current_phase = 0;
    std::vector<std::uint64_t> work;  // values each process computed in the current phase
    ComputeSchedule schedule{n};  // when each value is computed
    std::uint64_t replicated_work = 0;
    MessageLedger<ProfileT> ledger{profile, n, result};
    SendPoints<ProfileT> points;  // where messages are sent
    ValueId consumer = 0;  // the value whose computation the current sends serve
  };
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_COST_MODEL_H_

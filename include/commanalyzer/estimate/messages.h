// Message records: the predicted communication as an MPI code would perform
// it, one record per message, for any process count.
//
//   CommEstimate e = estimator.estimate(8);
//   for (const Message& m : e.trace.messages)        // (iteration, from, to, bytes, site, round)
//     ...;
//   for (const CollectiveCall& c : e.trace.collectives)  // (kind, iteration, root, bytes per rank)
//     ...;
//   e.trace.byte_matrix() == e.matrix;                // exactly
//
// A point-to-point message is what one process sends another at one point
// of an iteration: an MPI code packs a halo into one buffer per neighbour
// and step, it does not send value by value, but a message can only carry
// values that exist when it is sent. So the values a receiver uses in one
// loop come in one message sent before the loop, with any used later that
// exist by then; values created in the loop itself (a sweep pipelined
// across processes) come with the receiver's stretch of the loop that uses
// them (a row of its block): red-black SOR exchanges after each colour, a
// pipelined sweep once per stage (send_points.h says where each message is
// sent; MessageLog::send groups the values). A collective call is every
// instance of one kind published in one iteration (one MPI_Allreduce of a
// small array, not one call per scalar); its bytes are one rank's block m,
// and its logical volume follows DESIGN.md (Bcast (N-1)m, Allreduce
// 2(N-1)m).
//
// MessageLog is what the cost model writes while it counts: sends can be
// taken back (recomputation withdraws them), so it keeps a per-message
// tally until finish().
#ifndef COMMANALYZER_MESSAGES_H_
#define COMMANALYZER_MESSAGES_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "commanalyzer/estimate/repeated_iterations.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

enum class CollectiveKind : std::uint8_t { kBcast, kAllreduce };

inline std::string_view collective_name(CollectiveKind kind) {
  return kind == CollectiveKind::kBcast ? "bcast" : "allreduce";
}

struct Message {
  std::uint32_t iteration = 0;  // phase: the last one is after the last iteration mark
  ProcId from = 0, to = 0;
  std::uint64_t bytes = 0;
  std::uint32_t site = 0;  // the source site consuming most of its bytes (Profile::Site; 0: unknown)
  std::uint32_t round = 0;  // its order among the iteration's messages from `from` to `to`
  friend bool operator==(const Message&, const Message&) = default;
};

struct CollectiveCall {
  CollectiveKind kind = CollectiveKind::kBcast;
  std::uint32_t iteration = 0;
  ProcId root = 0;          // Bcast: the process holding the call's first value; Allreduce: 0
  std::uint64_t bytes = 0;  // m, one rank's block
  std::uint64_t logical_bytes(int procs) const {
    const std::uint64_t others = procs > 1 ? static_cast<std::uint64_t>(procs - 1) : 0;
    return (kind == CollectiveKind::kAllreduce ? 2 : 1) * others * bytes;
  }
  friend bool operator==(const CollectiveCall&, const CollectiveCall&) = default;
};

// Records in order of (iteration, from, to, round) and (iteration, kind).
struct MessageTrace {
  int procs = 0;
  std::size_t phases = 0;  // iterations + 1
  std::vector<Message> messages;
  std::vector<CollectiveCall> collectives;
  std::vector<std::pair<std::uint32_t, std::string>> site_names;  // site -> "file:line", as the cost model knows them

  std::vector<std::uint64_t> byte_matrix() const { return tally([](const Message& m) { return m.bytes; }); }
  std::vector<std::uint64_t> message_matrix() const { return tally([](const Message&) { return std::uint64_t{1}; }); }
  std::uint64_t collective_bytes() const {
    std::uint64_t sum = 0;
    for (const CollectiveCall& c : collectives) sum += c.logical_bytes(procs);
    return sum;
  }

 private:
  template <class F>
  std::vector<std::uint64_t> tally(F value) const {
    std::vector<std::uint64_t> m(static_cast<std::size_t>(procs) * procs, 0);
    for (const Message& x : messages) m[static_cast<std::size_t>(x.from) * procs + x.to] += value(x);
    return m;
  }
};

class MessageLog {
 public:
  // The message a send joined (its id), and whether the send opened it.
  struct Sent {
    std::uint32_t message = 0;
    bool opened = false;
  };

  MessageLog(int procs, std::size_t phases) : n_(procs), phases_(phases) {}

  // Positions are places in the sequential order (value ids): a message
  // is sent at one, and carries values created before it. A value created
  // at `created` travels from `from` to `to` in `phase` with the first
  // message sent after it exists; without one, it opens a message sent at
  // `opens_at` (where its receiver starts the work that uses it; the cost
  // model says where that is).
  Sent send(ProcId from, ProcId to, std::uint64_t bytes, std::size_t phase, std::uint32_t created,
            std::uint32_t opens_at, std::uint32_t site = 0) {
    auto& pair = p2p_[key(from, to, phase)];
    Tally* joined = nullptr;
    for (Tally& t : pair) {
      if (t.sent_at > created && (joined == nullptr || t.sent_at < joined->sent_at)) joined = &t;
    }
    const bool opened = joined == nullptr;
    if (opened) {
      joined = &pair.emplace_back();
      joined->id = next_id_++;
      joined->sent_at = opens_at;
    }
    joined->bytes += bytes;
    joined->add(site, bytes);
    ++joined->sends;
    return {joined->id, opened};
  }
  // Takes back one send from message `message`; returns true when that
  // message is now empty.
  bool unsend(ProcId from, ProcId to, std::uint64_t bytes, std::size_t phase, std::uint32_t message,
              std::uint32_t site = 0) {
    const auto found = p2p_.find(key(from, to, phase));
    auto& pair = found->second;
    const auto it = std::find_if(pair.begin(), pair.end(), [&](const Tally& t) { return t.id == message; });
    it->bytes -= bytes;
    it->add(site, -bytes);
    if (--it->sends > 0) return false;
    pair.erase(it);
    if (pair.empty()) p2p_.erase(found);
    return true;
  }
  // One published instance of m bytes; instances of one kind in one phase
  // travel in one call. Returns true when this opens a new call.
  bool collective(CollectiveKind kind, ProcId root, std::uint64_t m, std::size_t phase) {
    for (auto it = collectives_.rbegin(); it != collectives_.rend() && it->iteration == phase; ++it) {
      if (it->kind == kind) {
        it->bytes += m;
        return false;
      }
    }
    collectives_.push_back({kind, static_cast<std::uint32_t>(phase), root, m});
    return true;
  }

  // `repeats`: each iteration that repeats a costed one gets a copy of
  // that one's records (repeated_iterations.h).
  MessageTrace finish(const RepeatedIterations& repeats = {}) && {
    if (repeats.any()) repeat_records(repeats);
    MessageTrace trace{n_, phases_, {}, std::move(collectives_)};
    trace.messages.reserve(p2p_.size());
    const std::uint64_t cells = static_cast<std::uint64_t>(n_) * n_;
    for (auto& [k, pair] : p2p_) {
      const std::uint64_t cell = k % cells;
      std::sort(pair.begin(), pair.end(),
                [](const Tally& a, const Tally& b) { return std::tie(a.sent_at, a.id) < std::tie(b.sent_at, b.id); });
      for (std::size_t r = 0; r < pair.size(); ++r) {
        trace.messages.push_back({static_cast<std::uint32_t>(k / cells), static_cast<ProcId>(cell / n_),
                                  static_cast<ProcId>(cell % n_), pair[r].bytes, pair[r].main_site(),
                                  static_cast<std::uint32_t>(r)});
      }
    }
    std::sort(trace.messages.begin(), trace.messages.end(), [](const Message& a, const Message& b) {
      return std::tie(a.iteration, a.from, a.to, a.round) < std::tie(b.iteration, b.from, b.to, b.round);
    });
    std::stable_sort(trace.collectives.begin(), trace.collectives.end(), [](const auto& a, const auto& b) {
      return std::tie(a.iteration, a.kind) < std::tie(b.iteration, b.kind);
    });
    return trace;
  }

 private:
  void repeat_records(const RepeatedIterations& repeats) {
    const std::uint64_t cells = static_cast<std::uint64_t>(n_) * n_;
    std::vector<std::pair<std::uint64_t, absl::InlinedVector<Tally, 1>>> copies;
    const std::size_t calls = collectives_.size();
    for (std::size_t phase = 0; phase < phases_; ++phase) {
      if (!repeats.repeats(phase)) continue;
      const std::uint64_t from = repeats.costed_as(phase);
      for (const auto& [k, pair] : p2p_) {
        if (k / cells == from) copies.emplace_back(phase * cells + k % cells, pair);
      }
      for (std::size_t c = 0; c < calls; ++c) {
        if (collectives_[c].iteration != from) continue;
        collectives_.push_back(collectives_[c]);
        collectives_.back().iteration = static_cast<std::uint32_t>(phase);
      }
    }
    for (auto& [k, pair] : copies) p2p_[k] = std::move(pair);
  }

  struct Tally {
    std::uint32_t id = 0;
    std::uint32_t sent_at = 0;  // position in the sequential order
    std::uint32_t sends = 0;
    std::uint64_t bytes = 0;
    absl::InlinedVector<std::pair<std::uint32_t, std::uint64_t>, 2> by_site;  // (site, bytes), modulo 2^64
    void add(std::uint32_t site, std::uint64_t delta) {
      for (auto& [s, b] : by_site) {
        if (s == site) {
          b += delta;
          return;
        }
      }
      by_site.emplace_back(site, delta);
    }
    std::uint32_t main_site() const {
      std::uint32_t best = 0;
      std::uint64_t most = 0;
      for (const auto& [s, b] : by_site) {
        if (b > most) best = s, most = b;
      }
      return best;
    }
  };
  std::uint64_t key(ProcId from, ProcId to, std::size_t phase) const {
    return (static_cast<std::uint64_t>(phase) * n_ + from) * n_ + to;
  }

  int n_;
  std::size_t phases_;
  absl::flat_hash_map<std::uint64_t, absl::InlinedVector<Tally, 1>> p2p_;  // by (phase, from, to); as opened
  std::uint32_t next_id_ = 0;
  std::vector<CollectiveCall> collectives_;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_MESSAGES_H_

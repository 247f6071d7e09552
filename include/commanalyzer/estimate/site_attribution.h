// Site attribution: which source statement consumes the values the cost
// model sends, and how the sends group into messages there (Hascoet: a
// communication goes just before the loop that needs the data).
//
//   SiteAttribution where(procs, phases);
//   where.send(site, from, to, phase, message, bytes, array);  // as the cost model sends
//   where.collective(site, /*allreduce=*/true, bytes);
//   std::vector<SiteTraffic> t = where.finish(profile);   // largest first, with file:line
//
// The site of a point-to-point value is the site that created the value
// which consumes it (the store of `unew[i][j] = f(u...)`); of a reduction,
// the site that computes the reduced value.
#ifndef COMMANALYZER_SITE_ATTRIBUTION_H_
#define COMMANALYZER_SITE_ATTRIBUTION_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace commanalyzer {

struct SiteTraffic {
  std::uint32_t site = 0;  // the profile's site id; 0: unknown (no debug info, old profile)
  std::string file;  // the statement's
  std::uint32_t line = 0;
  std::string loop_file;        // the loop sweeping the statement, in a file of its own
  std::uint32_t loop_line = 0;  // 0: none
  std::uint64_t p2p_bytes = 0;
  std::uint64_t p2p_messages = 0;  // messages.h's: per (sender, receiver, iteration, stretch)
  int partners = 0;                // the most processes one process receives from here
  std::uint64_t allreduce_bytes = 0, allreduces = 0;
  std::uint64_t broadcast_bytes = 0, broadcasts = 0;
  std::vector<std::uint32_t> arrays;  // arrays (numbered from 1) whose values travel

  std::uint64_t total_bytes() const { return p2p_bytes + allreduce_bytes + broadcast_bytes; }
};

class SiteAttribution {
 public:
  SiteAttribution(int procs, std::size_t phases) : n_(procs), phases_(phases) {}

  // `message`: the one the send joined (MessageLog::Sent).
  // `times`: the iterations the send stands for (repeated_iterations.h).
  void send(std::uint32_t site, int from, int to, std::size_t phase, std::uint32_t message, std::uint64_t bytes,
            std::uint32_t array, std::uint64_t times = 1) {
    Site& s = sites_[site];
    const std::uint64_t cell = static_cast<std::uint64_t>(from) * n_ + to;
    s.cell_bytes[cell] += times * bytes;
    s.traffic.p2p_bytes += times * bytes;
    if (++s.sends_in_message[{cell * phases_ + phase, message}] == 1) s.traffic.p2p_messages += times;
    if (array != 0) ++s.array_sends[array];
  }

  void unsend(std::uint32_t site, int from, int to, std::size_t phase, std::uint32_t message, std::uint64_t bytes,
              std::uint32_t array, std::uint64_t times = 1) {
    Site& s = sites_[site];
    const std::uint64_t cell = static_cast<std::uint64_t>(from) * n_ + to;
    s.cell_bytes[cell] -= times * bytes;
    s.traffic.p2p_bytes -= times * bytes;
    if (auto it = s.sends_in_message.find({cell * phases_ + phase, message});
        it != s.sends_in_message.end() && --it->second == 0) {
      s.sends_in_message.erase(it);
      s.traffic.p2p_messages -= times;
    }
    if (auto it = s.array_sends.find(array); it != s.array_sends.end() && --it->second == 0) s.array_sends.erase(it);
  }

  void collective(std::uint32_t site, bool allreduce, std::uint64_t bytes, std::uint64_t times = 1) {
    SiteTraffic& t = sites_[site].traffic;
    (allreduce ? t.allreduce_bytes : t.broadcast_bytes) += times * bytes;
    (allreduce ? t.allreduces : t.broadcasts) += times;
  }

  // The sites with traffic, largest first; locations from the profile's
  // site table.
  template <class ProfileT>
  std::vector<SiteTraffic> finish(const ProfileT& profile) const {
    std::vector<SiteTraffic> out;
    for (const auto& [id, s] : sites_) {
      if (s.traffic.total_bytes() == 0) continue;
      SiteTraffic t = s.traffic;
      t.site = id;
      if (const auto* where = profile.find_site(id)) {
        t.file = where->file;
        t.line = where->line;
        t.loop_file = where->loop_file;
        t.loop_line = where->loop_line;
      }
      std::vector<int> senders(static_cast<std::size_t>(n_), 0);
      for (const auto& [cell, bytes] : s.cell_bytes) senders[cell % n_] += bytes > 0;
      t.partners = senders.empty() ? 0 : *std::max_element(senders.begin(), senders.end());
      for (const auto& [array, count] : s.array_sends) t.arrays.push_back(array);
      std::sort(t.arrays.begin(), t.arrays.end());
      out.push_back(std::move(t));
    }
    std::sort(out.begin(), out.end(), [](const SiteTraffic& a, const SiteTraffic& b) {
      return std::make_tuple(b.total_bytes(), a.file, a.line, a.site) < std::make_tuple(a.total_bytes(), b.file, b.line, b.site);
    });
    return out;
  }

 private:
  struct Site {
    SiteTraffic traffic;
    absl::flat_hash_map<std::uint64_t, std::uint64_t> cell_bytes;         // from * n + to
    absl::flat_hash_map<std::pair<std::uint64_t, std::uint32_t>, std::uint32_t> sends_in_message;  // (cell * phases + phase, message)
    absl::flat_hash_map<std::uint32_t, std::uint64_t> array_sends;
  };
  int n_;
  std::size_t phases_;
  absl::flat_hash_map<std::uint32_t, Site> sites_;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_SITE_ATTRIBUTION_H_

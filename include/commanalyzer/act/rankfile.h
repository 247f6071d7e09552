// Open MPI rankfiles: a placement as `mpirun --rankfile FILE` reads it,
// one line per rank, and back.
//
//   write_rankfile(out, placement, {"node0", "node1"});  // rank 0=node0 slot=0
//   std::vector<RankfileEntry> e = parse_rankfile(in);    // throws RankfileError
#ifndef COMMANALYZER_RANKFILE_H_
#define COMMANALYZER_RANKFILE_H_

#include <istream>
#include <ostream>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "commanalyzer/act/placement.h"

namespace commanalyzer {

class RankfileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RankfileEntry {
  int rank = 0;
  std::string host;
  int slot = 0;
  bool operator==(const RankfileEntry&) const = default;
};

// `hosts` names the nodes (hosts[k] for node k); node0, node1, ... if empty.
inline void write_rankfile(std::ostream& out, const Placement& p, const std::vector<std::string>& hosts = {}) {
  if (!hosts.empty() && hosts.size() != static_cast<std::size_t>(p.shape.nodes)) {
    throw std::invalid_argument("rankfile: " + std::to_string(hosts.size()) + " host names for " +
                                std::to_string(p.shape.nodes) + " nodes");
  }
  for (int r = 0; r < static_cast<int>(p.slot.size()); ++r) {
    const int k = p.node_of(r);
    out << "rank " << r << "=" << (hosts.empty() ? "node" + std::to_string(k) : hosts[static_cast<std::size_t>(k)])
        << " slot=" << p.core_of(r) << "\n";
  }
}

// Reads `rank N=HOST slot=S` lines (blank lines and # comments skipped).
inline std::vector<RankfileEntry> parse_rankfile(std::istream& in) {
  static const std::regex kLine(R"(\s*rank\s+(\d+)\s*=\s*([^\s=]+)\s+slot\s*=\s*(\d+)\s*)");
  std::vector<RankfileEntry> entries;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::smatch m;
    if (!std::regex_match(line, m, kLine)) {
      throw RankfileError("rankfile line " + std::to_string(number) + ": '" + line +
                          "' is not 'rank N=HOST slot=S'");
    }
    try {
      entries.push_back({std::stoi(m[1].str()), m[2].str(), std::stoi(m[3].str())});
    } catch (const std::out_of_range&) {
      throw RankfileError("rankfile line " + std::to_string(number) + ": number out of range");
    }
  }
  return entries;
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_RANKFILE_H_

// A user's data distribution (--distribution FILE; docs/DISTRIBUTION.md):
// the owner of array elements by ranges or by a process grid.
#ifndef COMMANALYZER_DISTRIBUTION_MAP_H_
#define COMMANALYZER_DISTRIBUTION_MAP_H_

#include <algorithm>
#include <cstdint>
#include <istream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "commanalyzer/estimate/cartesian.h"
#include "commanalyzer/estimate/locations.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

class DistributionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A user's distribution, from a text file (docs/DISTRIBUTION.md):
//   # comment
//   array ID FIRST LAST RANK        elements FIRST..LAST of array ID on RANK
//   grid ID D0xD1[xD2] P0xP1[xP2]   array ID as a row-major D0 x D1 (x D2)
//                                   grid in blocks of a P0 x P1 (x P2) process grid
// ID is an array's number, 1, 2, ... in allocation order among the
// program's arrays (Profile::array_numbers; `commanalyzer estimate` lists
// them), or the variable it was allocated into (`u`), if one array has that
// name. Arrays aligned with a named one follow it; others, and elements
// no line covers, are distributed BLOCK. number_arrays(profile) turns IDs
// into the profile's arrays before anything else is asked.
class DistributionMap {
 public:
  static DistributionMap parse(std::istream& in, const std::string& name = "distribution") {
    DistributionMap map;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
      std::istringstream words(line);
      std::string kind;
      if (!(words >> kind)) continue;
      auto fail = [&](const std::string& why) {
        throw DistributionError(name + ":" + std::to_string(number) + ": " + why);
      };
      Rule rule;
      if (kind == "array") {
        long long first, last, rank;
        if (!(words >> rule.named >> first >> last >> rank) || first < 0 || last < first || rank < 0) {
          fail("expected 'array ID FIRST LAST RANK' with 0 <= FIRST <= LAST and RANK >= 0");
        }
        rule.first = static_cast<std::uint64_t>(first);
        rule.last = static_cast<std::uint64_t>(last);
        rule.rank = static_cast<ProcId>(rank);
      } else if (kind == "grid") {
        std::string dims, grid;
        if (!(words >> rule.named >> dims >> grid)) fail("expected 'grid ID D0xD1[xD2] P0xP1[xP2]'");
        rule.dims = parse_extents(dims);
        rule.grid = parse_extents(grid);
        if (rule.dims.empty() || rule.grid.size() != rule.dims.size()) {
          fail("'" + dims + "' and '" + grid + "' must be 1 to 3 positive extents of one rank, as 64x64 2x2");
        }
        std::uint64_t ranks = 1;
        for (std::size_t k = 0; k < rule.dims.size(); ++k) {
          if (rule.grid[k] > rule.dims[k]) fail("process grid " + grid + " is finer than the array " + dims);
          ranks *= rule.grid[k];
        }
        rule.rank = static_cast<ProcId>(ranks - 1);
      } else {
        fail("unknown directive '" + kind + "' (expected 'array' or 'grid')");
      }
      if (rule.named.find_first_not_of("0123456789") == std::string::npos) {
        if (rule.named.size() > 9 || std::stoul(rule.named) == 0) fail("array numbers start at 1");
        rule.array = static_cast<std::uint32_t>(std::stoul(rule.named));
      }
      std::string extra;
      if (words >> extra) fail("unexpected '" + extra + "'");
      map.rules_.push_back(std::move(rule));
    }
    if (map.rules_.empty()) throw DistributionError(name + ": no 'array' or 'grid' line");
    return map;
  }

  // The highest rank the map names (a grid's last process).
  ProcId max_rank() const {
    ProcId r = 0;
    for (const Rule& rule : rules_) r = std::max(r, rule.rank);
    return r;
  }

  // Turns each rule's ID (an array's number or variable) into the id of
  // the profile's array (Profile::arrays[id - 1]).
  template <class ProfileT>
  void number_arrays(const ProfileT& profile) {
    const std::vector<std::uint32_t> number = profile.array_numbers();
    std::vector<std::uint32_t> id_of;  // number - 1 -> id
    for (std::size_t k = 0; k < number.size(); ++k) {
      if (number[k] != 0) id_of.push_back(static_cast<std::uint32_t>(k + 1));
    }
    for (Rule& rule : rules_) {
      if (rule.numbered) continue;
      rule.numbered = true;
      if (rule.array != 0) {
        if (rule.array > id_of.size()) {
          throw DistributionError("distribution names array " + rule.named + ", but the profile has " +
                                  std::to_string(id_of.size()) + " array" + (id_of.size() == 1 ? "" : "s"));
        }
        rule.array = id_of[rule.array - 1];
        continue;
      }
      // The arrays holding data allocated into that variable.
      std::vector<std::uint32_t> named;
      for (std::uint32_t id : id_of) {
        const auto& a = profile.arrays[id - 1];
        const auto* site = profile.find_array_site(a.site);
        if (site != nullptr && site->name == rule.named && a.bytes != 0 && !a.row_table) named.push_back(id);
      }
      if (named.size() != 1) {
        throw DistributionError("distribution names array '" + rule.named + "', but " +
                                (named.empty() ? std::string("no array") : std::to_string(named.size()) + " arrays") +
                                " of the program " + (named.empty() ? "was" : "were") +
                                " allocated into a variable of that name; give its number (`commanalyzer estimate` "
                                "lists the arrays)");
      }
      rule.array = named.front();
      rule.named = "'" + rule.named + "' (" + std::to_string(number[rule.array - 1]) + ")";
    }
  }

  // Checks the map against the profile's arrays and `procs` before any work.
  void check(std::size_t array_count, int procs) const {
    for (const Rule& rule : rules_) {
      if (rule.array > array_count) {
        throw DistributionError("distribution names array " + std::to_string(rule.array) + ", but the profile has " +
                                std::to_string(array_count) + " array" + (array_count == 1 ? "" : "s"));
      }
    }
    if (max_rank() >= procs) {
      throw DistributionError("distribution uses rank " + std::to_string(max_rank()) + ", but only " +
                              std::to_string(procs) + " processes are estimated");
    }
  }

  // The shape of each array class a grid rule names (empty where none).
  std::vector<std::vector<std::uint64_t>> class_shapes(const LocationIndex& index) const {
    std::vector<std::vector<std::uint64_t>> shape(index.classes().size());
    for (std::uint32_t c = 0; c < index.classes().size(); ++c) {
      for (const Rule& rule : rules_) {
        const auto& arrays = index.classes()[c].arrays;
        if (!rule.dims.empty() && std::find(arrays.begin(), arrays.end(), rule.array) != arrays.end()) {
          shape[c] = rule.dims;
        }
      }
    }
    return shape;
  }

  // Owners of the locations; counts the elements no rule covered.
  std::vector<ProcId> owners(const LocationIndex& index, int procs, std::uint64_t* uncovered = nullptr) const {
    std::vector<ProcId> owner = block_distribution(index, procs);
    std::vector<std::uint8_t> covered(index.location_count(), 0);
    std::vector<std::uint32_t> class_of_array;
    for (std::uint32_t c = 0; c < index.classes().size(); ++c) {
      for (std::uint32_t a : index.classes()[c].arrays) {
        if (class_of_array.size() <= a) class_of_array.resize(a + 1, LocationIndex::kNoClass);
        class_of_array[a] = c;
      }
    }
    // A rule must name an array the region uses (else it changes nothing)
    // and fit it as the profile saw it: a grid of all its elements, a
    // range within them (else its bytes would be wrong).
    for (const Rule& rule : rules_) {
      if (rule.array >= class_of_array.size() || class_of_array[rule.array] == LocationIndex::kNoClass ||
          index.classes()[class_of_array[rule.array]].locations == 0) {
        throw DistributionError("distribution names array " + rule.named +
                                ", which holds no data the region uses (a row of a table of rows is part of the "
                                "array of the table's first row; `commanalyzer estimate` lists the arrays)");
      }
      const LocationIndex::ArrayClass& cls = index.classes()[class_of_array[rule.array]];
      // The element size is the common stride of the offsets used: unknown
      // where the region used one element or none.
      if (cls.locations < 2) continue;
      const std::uint64_t elements = cls.elements();
      const std::string has = "array " + rule.named + " has " + std::to_string(elements) +
                              " elements of " + std::to_string(cls.element_bytes) + " B";
      if (!rule.dims.empty()) {
        std::uint64_t size = 1;
        std::string dims;
        for (std::uint64_t d : rule.dims) size *= d, dims += (dims.empty() ? "" : "x") + std::to_string(d);
        if (size != elements) throw DistributionError("grid " + dims + " does not fit: " + has);
      } else if (rule.last >= elements) {
        throw DistributionError("range " + std::to_string(rule.first) + ".." + std::to_string(rule.last) +
                                " goes past the end: " + has);
      }
    }
    for (LocationIndex::Node n = 0; n < index.location_count(); ++n) {
      for (const Rule& rule : rules_) {
        if (rule.array >= class_of_array.size() || class_of_array[rule.array] != index.class_of(n)) continue;
        const std::uint64_t i = index.element(n);
        if (!rule.dims.empty()) {
          std::uint64_t size = 1;
          for (std::uint64_t d : rule.dims) size *= d;
          if (i >= size) continue;
          owner[n] = distribution_internal::grid_owner(i, rule.dims, rule.grid);
          covered[n] = 1;
        } else if (i >= rule.first && i <= rule.last) {
          owner[n] = rule.rank;
          covered[n] = 1;
        }
      }
    }
    if (uncovered) *uncovered = static_cast<std::uint64_t>(std::count(covered.begin(), covered.end(), 0));
    // Temporaries follow the user's locations, not the block fallback's.
    for (std::size_t n = index.location_count(); n < index.node_count(); ++n) {
      owner[n] = distribution_internal::kUnassigned;
    }
    distribution_internal::assign_free_nodes(index, procs, owner);
    return owner;
  }

 private:
  struct Rule {
    std::string named;  // as the map names it: a number, or a variable
    bool numbered = false;  // array is the profile's id (number_arrays)
    std::uint32_t array = 0;
    std::uint64_t first = 0, last = 0;
    ProcId rank = 0;
    std::vector<std::uint64_t> dims, grid;  // a grid rule
  };

  static std::vector<std::uint64_t> parse_extents(const std::string& text) {
    std::vector<std::uint64_t> out;
    std::istringstream in(text);
    std::string part;
    while (std::getline(in, part, 'x')) {
      if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 12) return {};
      const std::uint64_t v = std::stoull(part);
      if (v == 0) return {};
      out.push_back(v);
    }
    return out.size() <= 3 ? out : std::vector<std::uint64_t>{};
  }

  std::vector<Rule> rules_;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_DISTRIBUTION_MAP_H_

// Row tables: a 2-D array kept as rows allocated one by one, and a table of
// pointers to them (`double **u` with u[i] = malloc(...), a
// std::vector<std::vector<double>>). Each row is a heap block of its own,
// so by allocation the rows would be separate arrays of one extent, aligned
// element by element (locations.h) as the fields of a structure of arrays
// are, and a distribution could only cut the columns. An MPI programmer
// sees one array of rows: the rows of a table, in the order of their
// pointers in it, are fused into one array (the first row's id), each
// row's locations placed after the previous row's, as a 2-D array in one
// block is laid out.
#ifndef COMMANALYZER_ROW_TABLES_H_
#define COMMANALYZER_ROW_TABLES_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

class RowTables {
 public:
  // A pointer was stored `offset` bytes into tracked block `table`: to the
  // start of tracked block `row`, or (row 0) to anything else, which the
  // slot then no longer holds a row. A row is in the table its newest
  // store put it in, at the lowest slot there that still holds it (a
  // std::vector's end pointer starts as its begin: rows swapped, a table
  // grown and moved, a vector copied).
  void note(std::uint32_t table, std::uint64_t offset, std::uint32_t row) {
    if (row == 0) {
      row_at_.erase({table, offset});
      return;
    }
    row_at_[{table, offset}] = row;
    table_of_[row] = table;
  }
  bool empty() const { return row_at_.empty(); }

  // Fuses the rows of every table of rows into one array: the profile's
  // arrays, vertex homes and groups, and moves. A table of rows is a block
  // made of row pointers alone, one every `stride` bytes from its start to
  // its end (8 for double **, 24 for a std::vector's begin, end and
  // capacity), to two or more rows of one extent (none allocated and freed
  // in one iteration: a chunk's scratch). A structure that holds arrays
  // among other members (a mesh's coordinate vectors beside its sizes) is
  // not one: its arrays are fields, aligned element by element.
  template <class ProfileT>
  void fuse(ProfileT& profile) const {
    struct Place {
      std::uint32_t array = 0;   // the fused array
      std::uint64_t offset = 0;  // of the row's first byte in it
    };
    std::vector<Place> place(profile.arrays.size() + 1);
    for (const auto& [table, slots] : current_rows()) {
      if (!fills_table(slots, profile.arrays[table - 1].bytes)) continue;
      const std::uint64_t bytes = profile.arrays[slots.front().second - 1].bytes;
      const bool one_extent = std::all_of(slots.begin(), slots.end(), [&](const auto& slot) {
        return profile.arrays[slot.second - 1].bytes == bytes && !profile.arrays[slot.second - 1].scratch;
      });
      if (!one_extent) continue;
      const std::uint32_t fused = slots.front().second;
      auto& array = profile.arrays[fused - 1];
      for (std::size_t k = 1; k < slots.size(); ++k) {
        const std::uint32_t r = slots[k].second;
        place[r] = {fused, k * bytes};
        auto& row = profile.arrays[r - 1];
        array.indexed_indirectly |= row.indexed_indirectly;
        array.copied_into |= row.copied_into;
        array.freed &= row.freed;
        row.bytes = 0;  // its locations are the fused array's now
      }
      array.bytes = slots.size() * bytes;
      // The 2-D array is the table's, as the program names it (`u`, not
      // the `u[i]` of its rows).
      auto& table_array = profile.arrays[table - 1];
      table_array.row_table = true;
      if (table_array.site != 0) array.site = table_array.site;
    }
    // A location in row g, or a move's end in it, is now in the fused array.
    auto fused_row = [&](std::uint32_t g) { return g != 0 && g < place.size() && place[g].array != 0; };
    for (VertexId x = 0; x < profile.vertex_count(); ++x) {
      const std::uint32_t g = profile.vertex_group[x];
      if (!fused_row(g)) continue;
      const Place& p = place[g];
      profile.vertex_home[x] =
          profile.arrays[p.array - 1].base + p.offset + (profile.vertex_home[x] - profile.arrays[g - 1].base);
      profile.vertex_group[x] = p.array;
    }
    for (auto& m : profile.moves) {
      if (fused_row(m.from)) std::tie(m.from, m.from_offset) = std::pair{place[m.from].array, place[m.from].offset + m.from_offset};
      if (fused_row(m.to)) std::tie(m.to, m.to_offset) = std::pair{place[m.to].array, place[m.to].offset + m.to_offset};
    }
  }

 private:
  using Slots = std::vector<std::pair<std::uint64_t, std::uint32_t>>;  // (offset, row), ascending

  // Per table, each row it holds at the lowest slot holding it.
  std::map<std::uint32_t, Slots> current_rows() const {
    std::map<std::uint32_t, Slots> by_table;
    absl::flat_hash_map<std::uint32_t, std::uint32_t> placed;  // row -> table it was listed in
    for (const auto& [slot, row] : row_at_) {  // by table, then offset
      const auto& [table, offset] = slot;
      if (table_of_.find(row)->second != table || !placed.try_emplace(row, table).second) continue;
      by_table[table].emplace_back(offset, row);
    }
    return by_table;
  }

  // Two or more row pointers, one every `stride` bytes from the table's
  // start to its end.
  static bool fills_table(const Slots& slots, std::uint64_t table_bytes) {
    if (slots.size() < 2 || slots.front().first != 0) return false;
    const std::uint64_t stride = slots[1].first;
    for (std::size_t k = 0; k < slots.size(); ++k) {
      if (slots[k].first != k * stride) return false;
    }
    return slots.size() * stride == table_bytes;
  }

  std::map<std::pair<std::uint32_t, std::uint64_t>, std::uint32_t> row_at_;  // (table, offset) -> row held there
  absl::flat_hash_map<std::uint32_t, std::uint32_t> table_of_;             // row -> table of its newest store
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_ROW_TABLES_H_

// Rank lists: a set of process ranks as start + nested (count, stride)
// dimensions, the participant encoding of ScalaTrace's RSDs (Deshpande et
// al.), so that "every rank of a 2-D process grid but the last column" is
// one fixed-size list whatever the process count.
//
//   std::vector<ProcId> senders = {0, 1, 3, 4, 6, 7};      // sorted, distinct
//   std::vector<RankList> lists = compress_ranks(senders);
//   lists[0].start == 0, lists[0].dims == {{3, 3}, {2, 1}}  // 3 rows 3 apart, 2 ranks 1 apart
//   lists[0].expand() == senders;
//
// A set that is no regular grid of up to kMaxRankDims dimensions is split
// greedily into arithmetic runs (one list each).
#ifndef COMMANALYZER_RANKLIST_H_
#define COMMANALYZER_RANKLIST_H_

#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "commanalyzer/record/types.h"

namespace commanalyzer {

inline constexpr int kMaxRankDims = 3;

struct RankList {
  ProcId start = 0;
  std::vector<std::pair<int, int>> dims;  // (count, stride), outermost first

  std::vector<ProcId> expand() const {
    std::vector<ProcId> out{start};
    for (const auto& [count, stride] : dims) {
      std::vector<ProcId> next;
      next.reserve(out.size() * count);
      for (ProcId base : out) {
        for (int k = 0; k < count; ++k) next.push_back(base + k * stride);
      }
      out = std::move(next);
    }
    return out;
  }
  std::size_t size() const {
    std::size_t n = 1;
    for (const auto& d : dims) n *= static_cast<std::size_t>(d.first);
    return n;
  }
};

namespace ranklist_internal {

// ranks = start + grid, or nothing: the innermost dimension is the first
// arithmetic run; the set must be translates of that run, whose offsets
// form a grid themselves.
inline std::optional<RankList> as_grid(std::span<const ProcId> ranks, int max_dims) {
  if (ranks.empty()) return std::nullopt;
  if (ranks.size() == 1) return RankList{ranks[0], {}};
  if (max_dims == 0) return std::nullopt;
  const int stride = ranks[1] - ranks[0];
  std::size_t run = 2;
  while (run < ranks.size() && ranks[run] - ranks[run - 1] == stride) ++run;
  if (ranks.size() % run != 0) return std::nullopt;
  std::vector<ProcId> offsets;
  for (std::size_t k = 0; k < ranks.size(); k += run) {
    for (std::size_t i = 0; i < run; ++i) {
      if (ranks[k + i] != ranks[k] + static_cast<ProcId>(i) * stride) return std::nullopt;
    }
    offsets.push_back(ranks[k] - ranks[0]);
  }
  std::optional<RankList> outer = as_grid(offsets, max_dims - 1);
  if (!outer) return std::nullopt;
  outer->start = ranks[0];
  outer->dims.emplace_back(static_cast<int>(run), stride);
  return outer;
}

}  // namespace ranklist_internal

// `ranks` sorted ascending, no duplicates.
inline std::vector<RankList> compress_ranks(std::span<const ProcId> ranks) {
  if (auto grid = ranklist_internal::as_grid(ranks, kMaxRankDims)) return {std::move(*grid)};
  std::vector<RankList> runs;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t end = i + 1;
    if (end < ranks.size()) {
      const int stride = ranks[end] - ranks[i];
      while (end < ranks.size() && ranks[end] - ranks[end - 1] == stride) ++end;
      runs.push_back({ranks[i], {{static_cast<int>(end - i), stride}}});
    } else {
      runs.push_back({ranks[i], {}});
    }
    i = end;
  }
  return runs;
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_RANKLIST_H_

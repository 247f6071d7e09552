// Vocabulary shared by every CommAnalyzer component.
#ifndef COMMANALYZER_TYPES_H_
#define COMMANALYZER_TYPES_H_

#include <algorithm>
#include <cstdint>
#include <limits>

namespace commanalyzer {

// An application address (any 64-bit user address).
using Address = std::uint64_t;

// A value instance: unique data observed in memory (DESIGN.md). Ids start at
// 1 and grow in creation order, so an id also says *when* a value was born.
using ValueId = std::uint32_t;
inline constexpr ValueId kNoValue = 0;

// Virtual locations of branch decisions (Analyzer::use): site k is the word
// at kUseSiteBase + 8k, in the top of the address space, where no user
// program has memory (user space ends far below on every 64-bit target).
inline constexpr Address kUseSiteBase = 0xfff0'0000'0000'0000;
// Virtual locations of loop results (Analyzer::loop_result), above them.
inline constexpr Address kLoopResultBase = kUseSiteBase + (Address{1} << 36);

// A vertex of the value communication graph: one or more value instances
// coalesced together (successive exclusive updates of one location).
using VertexId = std::uint32_t;
inline constexpr VertexId kNoVertex = std::numeric_limits<VertexId>::max();

// A process (partition) number, 0..N-1.
using ProcId = std::int32_t;
// Owner of a vertex that every process replicates (a singleton).
inline constexpr ProcId kReplicated = -1;

// The shadow label of a register value: which value instances reached it
// through data dependences. 0 = none; the top bit marks "computed" (at least
// one computation step). The remaining bits are the slicer's business.
using Label = std::uint64_t;
inline constexpr Label kNoLabel = 0;
inline constexpr Label kComputedBit = Label{1} << 63;

inline constexpr bool is_computed(Label label) { return (label & kComputedBit) != 0; }

// A vertex or edge weight for a graph partitioner that sums weights in
// `Index` (METIS's idx_t, ParMETIS's): clamped far below Index's limit.
template <class Index>
constexpr Index partitioner_weight(std::uint64_t w) {
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<Index>::max() / 64);
  return static_cast<Index>(std::min(w, kMax));
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_TYPES_H_

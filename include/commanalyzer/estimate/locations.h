// Locations: the memory a data distribution assigns to processes, and the
// graph of value flow between them (DESIGN.md, "Ownership").
//
// Every value vertex is stored at one location (its home). A location in a
// tracked heap array is named by (array, byte offset); arrays of one extent
// are *aligned* (element i of each is one location cluster, as an SPMD code
// distributes u and v of a stencil alike). The alignment rule is a policy.
// Vertices homed anywhere else (stack and register spills, globals, small
// blocks, branch decisions, and scratch blocks: heap arrays allocated and
// freed within one iteration, a chunk's work arrays) are *free*:
// temporaries that go with the process that computes from them. Singleton
// vertices outside arrays, and the settled locations of small arrays every
// process copies (private_arrays.h), are in neither.
//
// The location graph has one node per location cluster and one per free
// vertex; its edge weights are the value uses between them summed over the
// whole region, so its size does not grow with the number of time steps
// (only the free vertices do).
#ifndef COMMANALYZER_LOCATIONS_H_
#define COMMANALYZER_LOCATIONS_H_

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "commanalyzer/estimate/array_moves.h"
#include "commanalyzer/estimate/location_table.h"
#include "commanalyzer/estimate/value_graph.h"
#include "commanalyzer/record/big_array.h"
#include "commanalyzer/record/types.h"

namespace commanalyzer {

// Alignment policy: arrays with equal keys are distributed alike.
template <class A>
concept AlignmentPolicy = requires(const A& a, const ArrayExtent& array, std::uint32_t id) {
  { a.key(array, id) } -> std::convertible_to<std::uint64_t>;
};

// Default: arrays of the same extent in bytes are aligned.
struct AlignByExtent {
  std::uint64_t key(const ArrayExtent& array, std::uint32_t) const { return array.bytes; }
};
// Every array distributed on its own.
struct AlignNone {
  std::uint64_t key(const ArrayExtent&, std::uint32_t id) const { return id; }
};

// Elements first..last of array `array` (1-based, allocation order) are
// owned by `rank`.
struct OwnerRun {
  std::uint32_t array = 0;
  std::uint64_t first = 0, last = 0;
  ProcId rank = 0;
  bool operator==(const OwnerRun&) const = default;
};

class LocationIndex {
 public:
  using Node = std::uint32_t;
  static constexpr Node kNone = ~Node{0};  // singletons

  // A set of aligned arrays: one extent, one element size.
  struct ArrayClass {
    std::uint64_t bytes = 0;
    std::uint64_t element_bytes = 0;  // gcd of the offsets used and the extent
    std::vector<std::uint32_t> arrays;  // array ids (1-based, as vertex groups)
    std::size_t locations = 0;          // of them in the graph (0: arrays the region never used)
    bool indexed_indirectly = false;    // one of them is (ArrayExtent)
    bool written = false;               // the region stores to one of them (else: read only, inputs)
    std::uint64_t elements() const { return element_bytes == 0 ? 0 : bytes / element_bytes; }
  };

  template <AlignmentPolicy Alignment = AlignByExtent>
  static LocationIndex build(const ValueGraph& graph, const std::vector<std::uint8_t>& singleton,
                             const std::vector<ArrayExtent>& arrays, const std::vector<ArrayMove>& moves = {},
                             Alignment alignment = {}) {
    LocationIndex index = nodes_of(graph, singleton, arrays, moves, alignment);
    index.build_graph(graph);
    return index;
  }

  // How many locations and temporaries there are to distribute, and in how
  // many aligned classes (those the region used), and each graph vertex's
  // node: the nodes alone, without the location graph a count's index
  // builds.
  struct Census {
    std::size_t locations = 0, temporaries = 0, classes = 0;
    std::vector<Node> node_of_vertex;  // kNone: a singleton's, or a private copy's
    bool is_temporary(Node n) const { return n != kNone && n >= locations; }
  };
  template <AlignmentPolicy Alignment = AlignByExtent>
  static Census census(const ValueGraph& graph, const std::vector<std::uint8_t>& singleton,
                       const std::vector<ArrayExtent>& arrays, const std::vector<ArrayMove>& moves = {},
                       Alignment alignment = {}) {
    LocationIndex index = nodes_of(graph, singleton, arrays, moves, alignment);
    Census c{index.location_count(), index.node_count() - index.location_count(), 0,
             std::move(index.node_of_vertex_)};
    for (const ArrayClass& cls : index.classes_) c.classes += cls.locations != 0;
    return c;
  }

 private:
  // An index's nodes: the array classes, a node per array location (one
  // element of every array of a class) and per temporary; no graph yet.
  template <AlignmentPolicy Alignment>
  static LocationIndex nodes_of(const ValueGraph& graph, const std::vector<std::uint8_t>& singleton,
                                const std::vector<ArrayExtent>& arrays, const std::vector<ArrayMove>& moves,
                                Alignment alignment) {
    LocationIndex index;
    const LastMoves last_moves(moves, arrays.size());
    // Array classes.
    std::map<std::uint64_t, std::uint32_t> class_of_key;
    std::vector<std::uint32_t> class_of_array(arrays.size() + 1, kNoClass);
    for (std::uint32_t id = 1; id <= arrays.size(); ++id) {
      auto [it, fresh] = class_of_key.try_emplace(alignment.key(arrays[id - 1], id),
                                                  static_cast<std::uint32_t>(index.classes_.size()));
      if (fresh) index.classes_.push_back({arrays[id - 1].bytes, 0, {}});
      class_of_array[id] = it->second;
      index.classes_[it->second].arrays.push_back(id);
      index.classes_[it->second].indexed_indirectly |= arrays[id - 1].indexed_indirectly;
    }
    // Locations of the array-homed vertices; free nodes after them.
    index.node_of_vertex_.assign(graph.vertex_count(), kNone);
    std::vector<ValueGraph::Vertex> free;
    const auto copied = settled_locations(graph, singleton, arrays, alignment);
    // Where v is stored: its class and offset there, or a free node's
    // (kFree) or none (kNoClass: a singleton, or a private copy's).
    constexpr std::uint32_t kFree = kNoClass - 1;
    auto home = [&](ValueGraph::Vertex v) -> std::pair<std::uint32_t, std::uint64_t> {
      const std::uint32_t g = graph.group(v);
      if (copied(v)) return {kNoClass, 0};
      // A scratch block's elements are temporaries: each process keeps its
      // own work memory and computes into it what it consumes.
      const bool in_array = g != 0 && g <= arrays.size() && !arrays[g - 1].scratch &&
                            graph.home(v) >= arrays[g - 1].base &&
                            graph.home(v) < arrays[g - 1].base + arrays[g - 1].bytes;
      // Array elements are distributed, never replicated: only scalars,
      // temporaries and decisions can be singletons (a coefficient, a
      // global sum, a residual). A node's force accumulator, used by many,
      // is still one process's element.
      if (singleton[v] && !in_array) return {kNoClass, 0};
      if (!in_array) return {kFree, 0};
      const auto [live, offset] = live_home(g, graph.home(v) - arrays[g - 1].base, arrays, last_moves);
      return {class_of_array[live], offset};
    };
    LocationTable table(index.classes_, [&](auto&& f) {
      for (ValueGraph::Vertex v = 0; v < graph.vertex_count(); ++v) {
        if (const auto [c, offset] = home(v); c < kFree) f(c, offset);
      }
    });
    absl::flat_hash_map<std::pair<std::uint32_t, std::uint64_t>, Node> location_of;  // where no table is
    for (ValueGraph::Vertex v = 0; v < graph.vertex_count(); ++v) {
      const auto [c, offset] = home(v);
      if (c == kNoClass) continue;
      if (c == kFree) {
        free.push_back(v);
        continue;
      }
      const auto fresh_node = static_cast<Node>(index.class_.size());
      Node* slot = table.slot(c, offset);
      if (slot == nullptr) slot = &location_of.try_emplace(std::pair{c, offset}, kNone).first->second;
      if (*slot == kNone) {
        *slot = fresh_node;
        index.class_.push_back(c);
        index.offset_.push_back(offset);
        ArrayClass& cls = index.classes_[c];
        cls.element_bytes = std::gcd(cls.element_bytes, offset);
        ++cls.locations;
      }
      index.node_of_vertex_[v] = *slot;
    }
    for (ArrayClass& cls : index.classes_) {
      cls.element_bytes = std::gcd(cls.element_bytes, cls.bytes);
    }
    index.locations_ = index.class_.size();
    for (ValueGraph::Vertex v : free) {
      index.node_of_vertex_[v] = static_cast<Node>(index.class_.size());
      index.class_.push_back(kNoClass);
      index.offset_.push_back(0);
    }
    return index;
  }

 public:
  static constexpr std::uint32_t kNoClass = ~std::uint32_t{0};

  // Whether v is a value every process has in its own copy of a small
  // array (private_arrays.h): one at a location of a private_copy array
  // that no single process computes into (the region only reads it, or
  // stores there only singletons). A location is the aligned cluster
  // (element i of every array of one extent); an array the region copies
  // values into (y[i] = x[i] keeps x's vertex, homed elsewhere) has none
  // that is settled.
  template <AlignmentPolicy Alignment>
  static auto settled_locations(const ValueGraph& graph, const std::vector<std::uint8_t>& singleton,
                                const std::vector<ArrayExtent>& arrays, Alignment alignment) {
    absl::flat_hash_set<std::uint64_t> copied_classes;  // alignment keys
    for (std::uint32_t g = 1; g <= arrays.size(); ++g) {
      if (arrays[g - 1].private_copy) copied_classes.insert(alignment.key(arrays[g - 1], g));
    }
    // (class, offset) of v's home in a copied class.
    auto location = [&graph, &arrays, alignment, copied_classes](
                        ValueGraph::Vertex v) -> std::optional<std::pair<std::uint64_t, Address>> {
      const std::uint32_t g = graph.group(v);
      if (g == 0 || g > arrays.size()) return std::nullopt;
      const ArrayExtent& a = arrays[g - 1];
      const auto key = static_cast<std::uint64_t>(alignment.key(a, g));
      if (!copied_classes.contains(key) || graph.home(v) < a.base || graph.home(v) >= a.base + a.bytes) {
        return std::nullopt;
      }
      return std::pair{key, graph.home(v) - a.base};
    };
    absl::flat_hash_set<std::pair<std::uint64_t, Address>> computed;
    for (ValueGraph::Vertex v = 0; !copied_classes.empty() && v < graph.vertex_count(); ++v) {
      if (graph.work(v) == 0 || singleton[v]) continue;
      if (const auto at = location(v)) computed.insert(*at);
    }
    return [&graph, &singleton, &arrays, location, computed = std::move(computed)](ValueGraph::Vertex v) {
      if (graph.work(v) != 0 && !singleton[v]) return false;
      const std::uint32_t g = graph.group(v);
      if (g == 0 || g > arrays.size() || !arrays[g - 1].private_copy || arrays[g - 1].copied_into) return false;
      const auto at = location(v);
      return at.has_value() && !computed.contains(*at);
    };
  }

  std::size_t node_count() const { return class_.size(); }
  std::size_t location_count() const { return locations_; }  // nodes [0, locations) are array locations
  bool is_free(Node n) const { return n >= locations_; }
  Node node_of(ValueGraph::Vertex v) const { return node_of_vertex_[v]; }
  std::uint32_t class_of(Node n) const { return class_[n]; }
  std::uint64_t offset(Node n) const { return offset_[n]; }
  const std::vector<ArrayClass>& classes() const { return classes_; }
  // Element index of an array location in its class.
  std::uint64_t element(Node n) const { return offset_[n] / classes_[class_[n]].element_bytes; }

  // The symmetric location graph in compressed rows: neighbours and summed uses.
  const std::vector<std::uint64_t>& row_start() const { return row_start_; }
  const BigArray<Node>& neighbour() const { return neighbour_; }
  const BigArray<std::uint32_t>& uses() const { return uses_; }  // saturating, as the value graph's edges
  // The nodes that read a node's values (its consumers), in compressed
  // rows, for free nodes and nodes of read-only classes (empty for others).
  const std::vector<std::uint64_t>& consumer_start() const { return consumer_start_; }
  const BigArray<Node>& consumer() const { return consumer_; }
  // Work per node: 1 + source uses computed there per site vertex (owner computes).
  const std::vector<std::uint64_t>& work() const { return work_; }
  // Distinct instances a node's vertices export (what it may have to send).
  const std::vector<std::uint64_t>& exports() const { return exports_; }

  // Owner of every graph vertex from an owner per node (kReplicated for singletons).
  std::vector<ProcId> vertex_owners(const std::vector<ProcId>& node_owner) const {
    std::vector<ProcId> owner(node_of_vertex_.size(), kReplicated);
    for (std::size_t v = 0; v < owner.size(); ++v) {
      if (node_of_vertex_[v] != kNone) owner[v] = node_owner[node_of_vertex_[v]];
    }
    return owner;
  }

  // 1 for every graph vertex stored at an array location (a fixed owner),
  // 0 for temporaries, singletons and private copies.
  std::vector<std::uint8_t> fixed_homes() const {
    std::vector<std::uint8_t> fixed(node_of_vertex_.size(), 0);
    for (std::size_t v = 0; v < fixed.size(); ++v) {
      fixed[v] = node_of_vertex_[v] != kNone && !is_free(node_of_vertex_[v]);
    }
    return fixed;
  }

  // The owner map of every array as runs of consecutive elements (of the
  // elements the region touched) with one owner. Per class, its nodes in
  // element order: placed by element where the class's elements are at
  // most kDenseSlotsPerItem per node, else sorted (a location is one
  // (class, element), so no two tie).
  std::vector<OwnerRun> owner_runs(const std::vector<ProcId>& node_owner) const {
    std::vector<std::size_t> first(classes_.size() + 1, 0);
    for (Node n = 0; n < locations_; ++n) ++first[class_[n] + 1];
    for (std::size_t c = 0; c < classes_.size(); ++c) first[c + 1] += first[c];
    std::vector<std::pair<std::uint64_t, Node>> cells(locations_);  // (element, node), by class
    {
      std::vector<std::size_t> next(first.begin(), first.end() - 1);
      for (Node n = 0; n < locations_; ++n) cells[next[class_[n]]++] = {element(n), n};
    }
    std::vector<OwnerRun> runs;
    std::vector<Node> by_element;
    for (std::uint32_t c = 0; c < classes_.size(); ++c) {
      const auto begin = cells.begin() + static_cast<std::ptrdiff_t>(first[c]);
      const auto end = cells.begin() + static_cast<std::ptrdiff_t>(first[c + 1]);
      const std::uint64_t elements = classes_[c].elements() + 1;
      if (elements <= kDenseSlotsPerItem * static_cast<std::uint64_t>(end - begin)) {
        by_element.assign(elements, kNone);
        for (auto i = begin; i != end; ++i) by_element[i->first] = i->second;
        auto out = begin;
        for (std::uint64_t e = 0; e < elements; ++e) {
          if (by_element[e] != kNone) *out++ = {e, by_element[e]};
        }
      } else {
        std::sort(begin, end);
      }
      for (auto i = begin; i != end;) {
        const ProcId rank = node_owner[i->second];
        auto j = i + 1;
        while (j != end && node_owner[j->second] == rank) ++j;
        for (std::uint32_t array : classes_[c].arrays) runs.push_back({array, i->first, (j - 1)->first, rank});
        i = j;
      }
    }
    std::sort(runs.begin(), runs.end(), [](const OwnerRun& a, const OwnerRun& b) {
      return std::tie(a.array, a.first) < std::tie(b.array, b.first);
    });
    return runs;
  }

  // Bytes of array locations each of `procs` processes owns: a node is one
  // element of every array of its class.
  std::vector<std::uint64_t> owned_bytes(const std::vector<ProcId>& node_owner, int procs) const {
    std::vector<std::uint64_t> bytes(static_cast<std::size_t>(procs), 0);
    for (Node n = 0; n < locations_; ++n) {
      const ArrayClass& c = classes_[class_[n]];
      if (node_owner[n] >= 0) bytes[static_cast<std::size_t>(node_owner[n])] += c.element_bytes * c.arrays.size();
    }
    return bytes;
  }

  // Sum of the uses along edges whose ends have different owners.
  std::uint64_t cut(const std::vector<ProcId>& node_owner) const {
    std::uint64_t total = 0;
    for (Node a = 0; a < node_count(); ++a) {
      for (std::uint64_t e = row_start_[a]; e < row_start_[a + 1]; ++e) {
        if (node_owner[a] != node_owner[neighbour_[e]]) total += uses_[e];
      }
    }
    return total / 2;
  }

 private:
  // The location graph's rows, node by node: the symmetric value-graph
  // rows of its vertices mapped to nodes and summed in a dense accumulator
  // (no hashing: one pass over the value graph's edges).
  void build_graph(const ValueGraph& graph) {
    const std::size_t n = node_count();
    work_.assign(n, 0);
    exports_.assign(n, 0);
    std::vector<std::uint64_t> first(n + 1, 0);  // vertices by node
    for (Node a : node_of_vertex_) {
      if (a != kNone) ++first[a + 1];
    }
    for (std::size_t a = 0; a < n; ++a) first[a + 1] += first[a];
    std::vector<ValueGraph::Vertex> members(first[n]);
    {
      std::vector<std::uint64_t> next(first.begin(), first.end() - 1);
      for (ValueGraph::Vertex v = 0; v < node_of_vertex_.size(); ++v) {
        if (node_of_vertex_[v] != kNone) members[next[node_of_vertex_[v]]++] = v;
      }
    }
    for (ValueGraph::Vertex v = 0; v < node_of_vertex_.size(); ++v) {
      const Node a = node_of_vertex_[v];
      if (a != kNone && a < locations_ && graph.work(v) > 0) classes_[class_[a]].written = true;
    }
    constexpr std::uint32_t kUnseen = ~std::uint32_t{0};
    std::vector<std::uint32_t> slot(n, kUnseen);
    std::vector<std::pair<Node, std::uint64_t>> row;
    row_start_.assign(1, 0);
    for (Node a = 0; a < n; ++a) {
      row.clear();
      for (std::uint64_t k = first[a]; k < first[a + 1]; ++k) {
        const ValueGraph::Vertex v = members[k];
        work_[a] += graph.sites(v) + graph.work(v);
        exports_[a] += graph.exports(v);
        graph.for_each_neighbour(v, [&](ValueGraph::Vertex target, std::uint32_t uses) {
          const Node b = node_of_vertex_[target];
          if (b == kNone || b == a) return;
          if (slot[b] == kUnseen) {
            slot[b] = static_cast<std::uint32_t>(row.size());
            row.emplace_back(b, 0);
          }
          row[slot[b]].second += uses;
        });
      }
      for (const auto& [b, uses] : row) slot[b] = kUnseen;
      // Sorted by neighbour: the graph, and what METIS makes of it, do not
      // depend on the order the vertices were met in.
      std::sort(row.begin(), row.end());
      for (const auto& [b, uses] : row) {
        neighbour_.push_back(b);
        uses_.push_back(EdgeWeight::saturated(uses));
      }
      row_start_.push_back(neighbour_.size());
      if (a >= locations_ || !classes_[class_[a]].written) {
        const std::size_t from = consumer_.size();
        for (std::uint64_t k = first[a]; k < first[a + 1]; ++k) {
          for (auto e : boost::make_iterator_range(boost::out_edges(members[k], graph.directed()))) {
            const Node b = node_of_vertex_[boost::target(e, graph.directed())];
            if (b != kNone && b != a) consumer_.push_back(b);
          }
        }
        std::sort(consumer_.begin() + from, consumer_.end());
        consumer_.truncate(static_cast<std::size_t>(std::unique(consumer_.begin() + from, consumer_.end()) - consumer_.begin()));
      }
      consumer_start_.push_back(consumer_.size());
    }
  }

  std::vector<ArrayClass> classes_;
  std::vector<Node> node_of_vertex_;
  std::vector<std::uint32_t> class_;  // per node; kNoClass for free nodes
  std::vector<std::uint64_t> offset_;
  std::size_t locations_ = 0;
  std::vector<std::uint64_t> row_start_;
  // The rows grow node by node, as large as the graph of every location:
  // BigArrays, which double without a copy or untouched pages resident.
  BigArray<Node> neighbour_;
  BigArray<std::uint32_t> uses_;
  std::vector<std::uint64_t> consumer_start_{0};
  BigArray<Node> consumer_;
  std::vector<std::uint64_t> work_;
  std::vector<std::uint64_t> exports_;
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_LOCATIONS_H_

// A starting partition for SPMD data decompositions, from two habits of
// owner-computes MPI codes:
//  - arrays of one shape are distributed alike: entry i of every array of
//    that length lives on one process (HPF's ALIGN; LULESH's element arrays
//    follow the element, its node arrays the node);
//  - the temporaries one loop-body instance computes (an element's shape
//    derivatives, its force contributions) are computed in one place, where
//    their data is.
// The general searches see neither: an element is a thousand vertices (its
// arrays over all steps and its workspace values), and single-vertex moves
// or METIS's coarsening do not keep them together, so on LULESH-style
// meshes they end 10-20 % above the cube blocks of the MPI code
// (docs/FINDINGS.md).
//
// Method (on the connectivity partitioner's hypergraph: one net per
// exporting value over it and its consumers):
//  1. Anchors: every vertex in a heap array of at least min_array_length
//     entries. Vertices at the same (array length, index) form one cluster,
//     across arrays and time steps; index = (home - lowest home) / stride.
//  2. Temporaries (the other vertices) join the cluster they share the most
//     net weight with, in waves outward from the anchors; the nets, mapped
//     onto clusters and expanded into cliques, make the cluster graph.
//  3. Recursive spectral multisection of the cluster graph: k parts are cut
//     into p slabs (p the smallest prime factor of k) along a direction in
//     the space of the 3 lowest non-trivial eigenvectors of the normalised
//     Laplacian: of `directions` sampled, the one of least cut, then turned
//     in shrinking steps while the cut shrinks. Each slab face goes where
//     the cut across it is least among the positions that keep the slabs
//     within imbalance / sqrt(levels) of their share of the weight (clusters
//     weigh their anchors and attached temporaries). On a grid or structured
//     mesh these eigenvectors are cos(pi x / L) and its kin, so the slabs
//     are axis-aligned, with faces on mesh planes: the process grids of SPMD
//     codes (LULESH's s=24 mesh in 8, 27 or 64 parts: its cube blocks).
//     Limit: where one plane of a shape is too heavy for that window (small
//     meshes whose node arrays weigh as much as the element arrays), the
//     face runs through a plane and comes out ragged.
//  4. Anchors take their cluster's part. Temporaries are placed by connected
//     group (one loop-body instance: the group of LULESH's element-step
//     workspace has 30-130 values), each group on the part it has the most
//     flow with among the anchors; a group too heavy for one process is
//     placed vertex by vertex.
// Returns an empty owner map when there are fewer clusters than parts, more
// than max_clusters, or temporaries hold less than min_temporary_share of the
// weight.
// The only dense linear algebra is a 6 x 6 symmetric eigenproblem (Jacobi).
#ifndef COMMANALYZER_ALIGNED_START_H_
#define COMMANALYZER_ALIGNED_START_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "commanalyzer/partitioner.h"
#include "commanalyzer/value_graph.h"

namespace commanalyzer {

// Nets over graph vertices (CSR both ways), as the connectivity
// partitioner keeps them.
struct HypergraphView {
  const std::vector<std::uint64_t>& net_offsets;
  const std::vector<std::uint32_t>& net_pins;
  const std::vector<std::uint64_t>& net_weight;
  const std::vector<std::uint64_t>& vertex_offsets;
  const std::vector<std::uint32_t>& vertex_nets;
};

struct AlignedStart {
  std::uint64_t min_array_length = 64;  // shorter heap arrays are not distributed
  int directions = 200;                 // cut directions sampled per multisection
  int max_iterations = 3000;            // operator applications per embedding (at most)
  double imbalance = 0.03;              // slab weights within about (1 +- this) x their share
  double group_share = 0.5;             // a temporary group above this share of a part's weight is split
  std::size_t max_clusters = 100'000;   // more array entries: no start (the embedding would take minutes)
  // Temporaries holding less of the weight: no start. Its point is keeping
  // each loop body's temporaries with their data; on grids of arrays alone
  // (Heat2D, MiniGhost) bisection cuts the same blocks, faster.
  double min_temporary_share = 0.25;

  std::vector<ProcId> partition(const ValueGraph& graph, const std::vector<std::uint8_t>& excluded,
                                const HypergraphView& nets, int nparts) const {
    if (nparts < 1) throw std::invalid_argument("commanalyzer: process count must be >= 1");
    Clusters clusters = anchor_clusters(graph, excluded);
    if (clusters.count() < static_cast<std::size_t>(nparts) || clusters.count() > max_clusters) return {};
    double anchored = 0, total = 0;
    for (std::size_t v = 0; v < graph.vertex_count(); ++v) {
      if (excluded[v]) continue;
      total += vertex_weight(graph, v);
      if (clusters.of_vertex[v] != kNone) anchored += vertex_weight(graph, v);
    }
    if (total - anchored < min_temporary_share * total) return {};
    const std::vector<std::uint32_t> attached = attach(graph, excluded, nets, clusters);
    const ClusterGraph cg = cluster_graph(nets, attached, clusters.count());

    std::vector<ProcId> cluster_part(clusters.count(), 0);
    std::vector<std::uint32_t> all(clusters.count());
    std::iota(all.begin(), all.end(), 0u);
    // Deviations compound down the levels (rarely all in one direction):
    // each level gets imbalance / sqrt(levels).
    int levels = 0;
    for (int k = nparts; k > 1; k /= smallest_prime_factor(k)) ++levels;
    multisect(cg, clusters, std::move(all), nparts, 0, cluster_part, imbalance / std::sqrt(std::max(levels, 1)));

    std::vector<ProcId> owner(graph.vertex_count(), kReplicated);
    for (std::size_t v = 0; v < owner.size(); ++v) {
      if (clusters.of_vertex[v] != kNone) owner[v] = cluster_part[clusters.of_vertex[v]];
    }
    place_temporaries(graph, temporary_groups(graph, excluded, clusters, nparts), nparts, owner);
    return owner;
  }

 private:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  static constexpr int kDimensions = 3;

  static double vertex_weight(const ValueGraph& graph, std::size_t v) { return 1.0 + static_cast<double>(graph.work(v)); }

  struct Clusters {
    std::vector<std::uint32_t> of_vertex;  // anchor cluster, or kNone
    std::vector<double> weight;            // per cluster: its anchors' and attached temporaries' weight
    std::size_t count() const { return weight.size(); }
  };

  Clusters anchor_clusters(const ValueGraph& graph, const std::vector<std::uint8_t>& excluded) const {
    const std::size_t n = graph.vertex_count();
    absl::flat_hash_map<std::uint32_t, std::vector<Address>> homes;
    for (std::size_t v = 0; v < n; ++v) {
      if (!excluded[v] && graph.group(v) != 0) homes[graph.group(v)].push_back(graph.home(v));
    }
    struct Shape {
      Address base = 0, stride = 1;
      std::uint64_t length = 0;
    };
    absl::flat_hash_map<std::uint32_t, Shape> shape;
    for (auto& [group, h] : homes) {
      std::sort(h.begin(), h.end());
      h.erase(std::unique(h.begin(), h.end()), h.end());
      Address stride = 0;
      for (std::size_t i = 1; i < h.size(); ++i) stride = std::gcd(stride, h[i] - h[i - 1]);
      stride = std::max<Address>(stride, 1);
      shape[group] = {h.front(), stride, (h.back() - h.front()) / stride + 1};
    }
    Clusters c;
    c.of_vertex.assign(n, kNone);
    absl::flat_hash_map<std::pair<std::uint64_t, std::uint64_t>, std::uint32_t> cluster_of_key;
    for (std::size_t v = 0; v < n; ++v) {
      if (excluded[v] || graph.group(v) == 0) continue;
      const Shape& s = shape[graph.group(v)];
      if (s.length < min_array_length) continue;
      const auto [it, fresh] = cluster_of_key.try_emplace(std::pair(s.length, (graph.home(v) - s.base) / s.stride),
                                                          static_cast<std::uint32_t>(c.count()));
      if (fresh) c.weight.push_back(0);
      c.of_vertex[v] = it->second;
      c.weight[it->second] += vertex_weight(graph, v);
    }
    return c;
  }

  // Temporaries grouped (vertices listed group by group).
  struct Groups {
    std::vector<std::uint64_t> offsets{0};
    std::vector<std::uint32_t> vertices;
    std::size_t count() const { return offsets.size() - 1; }
  };

  Groups temporary_groups(const ValueGraph& graph, const std::vector<std::uint8_t>& excluded, const Clusters& clusters,
                          int nparts) const {
    const std::size_t n = graph.vertex_count();
    auto temporary = [&](std::size_t v) { return !excluded[v] && clusters.of_vertex[v] == kNone; };
    std::vector<std::uint32_t> parent(n);
    std::iota(parent.begin(), parent.end(), 0u);
    auto find = [&](std::uint32_t x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    const auto& g = graph.symmetric();
    double total = 0;
    for (std::uint32_t v = 0; v < n; ++v) {
      if (excluded[v]) continue;
      total += vertex_weight(graph, v);
      if (!temporary(v)) continue;
      for (auto e : boost::make_iterator_range(boost::out_edges(v, g))) {
        const auto t = static_cast<std::uint32_t>(boost::target(e, g));
        if (temporary(t)) parent[find(v)] = find(t);
      }
    }
    std::vector<double> group_weight(n, 0);
    for (std::uint32_t v = 0; v < n; ++v) {
      if (temporary(v)) group_weight[find(v)] += vertex_weight(graph, v);
    }
    // Roots of groups too heavy for one process lose their members.
    const double limit = group_share * total / nparts;
    std::vector<std::uint32_t> root(n, kNone);
    for (std::uint32_t v = 0; v < n; ++v) {
      if (temporary(v)) root[v] = group_weight[find(v)] > limit ? v : find(v);
    }
    std::vector<std::uint32_t> index(n, kNone);
    Groups groups;
    std::vector<std::uint64_t> size;
    for (std::uint32_t v = 0; v < n; ++v) {
      if (root[v] == kNone) continue;
      if (index[root[v]] == kNone) {
        index[root[v]] = static_cast<std::uint32_t>(size.size());
        size.push_back(0);
      }
      ++size[index[root[v]]];
    }
    for (std::uint64_t s : size) groups.offsets.push_back(groups.offsets.back() + s);
    groups.vertices.resize(groups.offsets.back());
    std::vector<std::uint64_t> fill(groups.offsets.begin(), groups.offsets.end() - 1);
    for (std::uint32_t v = 0; v < n; ++v) {
      if (root[v] != kNone) groups.vertices[fill[index[root[v]]]++] = v;
    }
    return groups;
  }

  // Temporaries join the cluster they share the most net weight with (nets
  // of up to 64 pins), in waves outward from the anchors. Their weight
  // joins the cluster's, for the slabs' balance.
  static std::vector<std::uint32_t> attach(const ValueGraph& graph, const std::vector<std::uint8_t>& excluded,
                                           const HypergraphView& nets, Clusters& clusters) {
    constexpr std::uint64_t kRatedNet = 64;
    std::vector<std::uint32_t> attached = clusters.of_vertex, next;
    absl::flat_hash_map<std::uint32_t, double> rating;
    for (bool joined = true; joined;) {
      joined = false;
      next = attached;
      for (std::uint32_t v = 0; v < attached.size(); ++v) {
        if (excluded[v] || attached[v] != kNone) continue;
        rating.clear();
        for (std::uint64_t i = nets.vertex_offsets[v]; i < nets.vertex_offsets[v + 1]; ++i) {
          const std::uint32_t net = nets.vertex_nets[i];
          const std::uint64_t pins = nets.net_offsets[net + 1] - nets.net_offsets[net];
          if (pins > kRatedNet) continue;
          const double r = static_cast<double>(nets.net_weight[net]) / static_cast<double>(pins - 1);
          for (std::uint64_t p = nets.net_offsets[net]; p < nets.net_offsets[net + 1]; ++p) {
            const std::uint32_t c = attached[nets.net_pins[p]];
            if (c != kNone) rating[c] += r;
          }
        }
        std::uint32_t best = kNone;
        double best_rating = 0;
        for (const auto& [c, r] : rating) {
          if (r > best_rating || (r == best_rating && c < best)) best = c, best_rating = r;
        }
        if (best != kNone) {
          next[v] = best;
          clusters.weight[best] += vertex_weight(graph, v);
          joined = true;
        }
      }
      attached.swap(next);
    }
    return attached;
  }

  struct ClusterGraph {
    std::vector<std::uint64_t> offsets;
    std::vector<std::uint32_t> adjacent;
    std::vector<double> weight;
  };

  // Each net of up to kCliqueNet clusters (after mapping its pins) becomes a
  // clique of weight w / (clusters - 1) per pair: co-consumers of a node's
  // position are the elements around it.
  static ClusterGraph cluster_graph(const HypergraphView& nets, const std::vector<std::uint32_t>& attached,
                                    std::size_t count) {
    constexpr std::size_t kCliqueNet = 16;
    // Two passes over the nets (count, then fill the rows), then each row's
    // duplicates summed.
    std::vector<std::uint32_t> clusters;
    auto each_clique = [&](auto&& pair) {
      for (std::size_t net = 0; net + 1 < nets.net_offsets.size(); ++net) {
        clusters.clear();
        for (std::uint64_t p = nets.net_offsets[net]; p < nets.net_offsets[net + 1]; ++p) {
          if (attached[nets.net_pins[p]] != kNone) clusters.push_back(attached[nets.net_pins[p]]);
        }
        std::sort(clusters.begin(), clusters.end());
        clusters.erase(std::unique(clusters.begin(), clusters.end()), clusters.end());
        if (clusters.size() < 2 || clusters.size() > kCliqueNet) continue;
        const double w = static_cast<double>(nets.net_weight[net]) / static_cast<double>(clusters.size() - 1);
        for (std::uint32_t a : clusters) {
          for (std::uint32_t b : clusters) {
            if (a != b) pair(a, b, w);
          }
        }
      }
    };
    std::vector<std::uint64_t> start(count + 1, 0);
    each_clique([&](std::uint32_t a, std::uint32_t, double) { ++start[a + 1]; });
    for (std::size_t c = 0; c < count; ++c) start[c + 1] += start[c];
    std::vector<std::uint32_t> row_adjacent(start[count]);
    std::vector<double> row_weight(start[count]);
    {
      std::vector<std::uint64_t> fill(start.begin(), start.end() - 1);
      each_clique([&](std::uint32_t a, std::uint32_t b, double w) {
        row_adjacent[fill[a]] = b;
        row_weight[fill[a]++] = w;
      });
    }
    ClusterGraph cg;
    cg.offsets.assign(count + 1, 0);
    std::vector<double> sum(count, 0);
    std::vector<std::uint32_t> touched;
    for (std::size_t a = 0; a < count; ++a) {
      touched.clear();
      for (std::uint64_t i = start[a]; i < start[a + 1]; ++i) {
        if (sum[row_adjacent[i]] == 0) touched.push_back(row_adjacent[i]);
        sum[row_adjacent[i]] += row_weight[i];
      }
      std::sort(touched.begin(), touched.end());
      for (std::uint32_t b : touched) {
        cg.adjacent.push_back(b);
        cg.weight.push_back(sum[b]);
        sum[b] = 0;
      }
      cg.offsets[a + 1] = cg.adjacent.size();
    }
    return cg;
  }

  // The kDimensions lowest non-trivial eigenvectors of the normalised
  // Laplacian of the subgraph induced by `verts` (local[] = their index),
  // scaled back by D^-1/2: subspace iteration on N = D^-1/2 W D^-1/2
  // with the trivial vector projected out, then Rayleigh-Ritz. Row-major,
  // kDimensions per vertex.
  std::vector<double> embed(const ClusterGraph& cg, const std::vector<std::uint32_t>& verts,
                            const std::vector<std::int64_t>& local) const {
    const std::size_t m = verts.size();
    constexpr int d = kDimensions + 3;  // spare vectors speed convergence
    std::vector<double> degree(m, 0);
    for (std::size_t i = 0; i < m; ++i) {
      for (std::uint64_t e = cg.offsets[verts[i]]; e < cg.offsets[verts[i] + 1]; ++e) {
        if (local[cg.adjacent[e]] >= 0) degree[i] += cg.weight[e];
      }
    }
    std::vector<double> root(m), inverse_root(m);
    double norm = 0;
    for (std::size_t i = 0; i < m; ++i) {
      root[i] = std::sqrt(std::max(degree[i], 1e-12));
      inverse_root[i] = 1 / root[i];
      norm += root[i] * root[i];
    }
    norm = std::sqrt(norm);
    std::mt19937_64 rng(1);
    std::normal_distribution<double> normal;
    std::vector<double> x(m * d), y(m * d);
    for (double& value : x) value = normal(rng);
    auto orthonormalise = [&](std::vector<double>& a) {
      for (int j = 0; j < d; ++j) {
        double dot = 0;
        for (std::size_t i = 0; i < m; ++i) dot += a[i * d + j] * root[i] / norm;
        for (std::size_t i = 0; i < m; ++i) a[i * d + j] -= dot * root[i] / norm;
        for (int k = 0; k < j; ++k) {
          double p = 0;
          for (std::size_t i = 0; i < m; ++i) p += a[i * d + j] * a[i * d + k];
          for (std::size_t i = 0; i < m; ++i) a[i * d + j] -= p * a[i * d + k];
        }
        double length = 0;
        for (std::size_t i = 0; i < m; ++i) length += a[i * d + j] * a[i * d + j];
        length = std::sqrt(std::max(length, 1e-300));
        for (std::size_t i = 0; i < m; ++i) a[i * d + j] /= length;
      }
    };
    auto apply = [&](const std::vector<double>& in, std::vector<double>& out) {
      for (std::size_t i = 0; i < m; ++i) {
        for (int j = 0; j < d; ++j) out[i * d + j] = 0;
        for (std::uint64_t e = cg.offsets[verts[i]]; e < cg.offsets[verts[i] + 1]; ++e) {
          const std::int64_t l = local[cg.adjacent[e]];
          if (l < 0) continue;
          const double w = cg.weight[e] * inverse_root[i] * inverse_root[l];
          for (int j = 0; j < d; ++j) out[i * d + j] += w * in[l * d + j];
        }
      }
    };
    // Rayleigh-Ritz: the projected operator, its eigenvectors (columns of
    // `basis`) by decreasing eigenvalue.
    std::vector<double> ritz(d), previous(d, 0), basis;
    auto rayleigh_ritz = [&] {
      apply(x, y);
      std::vector<double> h(d * d, 0);
      for (int a = 0; a < d; ++a) {
        for (int b = 0; b < d; ++b) {
          for (std::size_t i = 0; i < m; ++i) h[a * d + b] += x[i * d + a] * y[i * d + b];
        }
      }
      symmetric_eigen(h, d, basis, ritz);
    };
    // Chebyshev-filtered subspace iteration: each round applies the degree-
    // kDegree Chebyshev polynomial that is small on [-1, the block's lowest
    // Ritz value] (the unwanted spectrum of N) and grows above it; about the
    // square root of the plain power iterations.
    constexpr int kDegree = 16;
    std::vector<double> older(m * d), newer(m * d);
    orthonormalise(x);
    rayleigh_ritz();
    for (int applied = 0; applied < max_iterations; applied += kDegree) {
      const double half_width = (ritz[d - 1] + 1) / 2, centre = (ritz[d - 1] - 1) / 2;
      older = x;
      apply(x, y);
      for (std::size_t i = 0; i < m * d; ++i) y[i] = (y[i] - centre * x[i]) / half_width;
      for (int k = 2; k <= kDegree; ++k) {
        apply(y, newer);
        for (std::size_t i = 0; i < m * d; ++i) newer[i] = 2 * (newer[i] - centre * y[i]) / half_width - older[i];
        older.swap(y);
        y.swap(newer);
      }
      x.swap(y);
      orthonormalise(x);
      previous = ritz;
      rayleigh_ritz();
      bool settled = true;
      for (int k = 0; k <= kDimensions; ++k) settled = settled && std::abs(ritz[k] - previous[k]) < 1e-7;
      if (settled) break;
    }
    std::vector<double> coordinates(m * kDimensions);
    for (std::size_t i = 0; i < m; ++i) {
      for (int k = 0; k < kDimensions; ++k) {
        double s = 0;
        for (int j = 0; j < d; ++j) s += x[i * d + j] * basis[j * d + k];
        coordinates[i * kDimensions + k] = s * inverse_root[i];
      }
    }
    return coordinates;
  }

  // Cyclic Jacobi on a small symmetric matrix (d x d, row-major): columns of
  // `vectors` and `values` sorted by decreasing eigenvalue.
  static void symmetric_eigen(std::vector<double> a, int d, std::vector<double>& vectors, std::vector<double>& values) {
    std::vector<double> v(d * d, 0);
    for (int i = 0; i < d; ++i) v[i * d + i] = 1;
    for (int sweep = 0; sweep < 100; ++sweep) {
      double off = 0;
      for (int i = 0; i < d; ++i) {
        for (int j = i + 1; j < d; ++j) off += a[i * d + j] * a[i * d + j];
      }
      if (off < 1e-24) break;
      for (int p = 0; p < d; ++p) {
        for (int q = p + 1; q < d; ++q) {
          if (a[p * d + q] == 0) continue;
          const double theta = (a[q * d + q] - a[p * d + p]) / (2 * a[p * d + q]);
          const double t = (theta >= 0 ? 1 : -1) / (std::abs(theta) + std::sqrt(theta * theta + 1));
          const double c = 1 / std::sqrt(t * t + 1), s = t * c;
          for (int k = 0; k < d; ++k) {
            const double kp = a[k * d + p], kq = a[k * d + q];
            a[k * d + p] = c * kp - s * kq;
            a[k * d + q] = s * kp + c * kq;
          }
          for (int k = 0; k < d; ++k) {
            const double pk = a[p * d + k], qk = a[q * d + k];
            a[p * d + k] = c * pk - s * qk;
            a[q * d + k] = s * pk + c * qk;
          }
          for (int k = 0; k < d; ++k) {
            const double kp = v[k * d + p], kq = v[k * d + q];
            v[k * d + p] = c * kp - s * kq;
            v[k * d + q] = s * kp + c * kq;
          }
        }
      }
    }
    std::vector<int> order(d);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int x, int y) { return a[x * d + x] > a[y * d + y]; });
    vectors.assign(d * d, 0);
    values.assign(d, 0);
    for (int k = 0; k < d; ++k) {
      values[k] = a[order[k] * d + order[k]];
      for (int i = 0; i < d; ++i) vectors[i * d + k] = v[i * d + order[k]];
    }
  }

  static int smallest_prime_factor(int k) {
    for (int p = 2; p * p <= k; ++p) {
      if (k % p == 0) return p;
    }
    return k;
  }

  // Parts [first, first + k) for the clusters `verts`.
  void multisect(const ClusterGraph& cg, const Clusters& clusters, std::vector<std::uint32_t> verts, int k,
                 ProcId first, std::vector<ProcId>& part, double level_imbalance) const {
    if (k == 1 || verts.size() <= 1) {
      for (std::uint32_t c : verts) part[c] = first;
      return;
    }
    const int p = smallest_prime_factor(k);
    const std::size_t m = verts.size();
    std::vector<std::int64_t> local(clusters.count(), -1);
    for (std::size_t i = 0; i < m; ++i) local[verts[i]] = static_cast<std::int64_t>(i);
    const std::vector<double> coordinates = embed(cg, verts, local);

    std::vector<double> projection(m);
    std::vector<std::uint32_t> order(m);
    std::vector<int> slab(m), best_slab;
    std::vector<std::size_t> rank(m);
    double total = 0;
    for (std::uint32_t c : verts) total += clusters.weight[c];
    double best_cut = std::numeric_limits<double>::infinity();
    std::array<double, kDimensions> best_direction{0, 0, 1};
    // Slabs along u: clusters in order of projection, cut into p runs.
    auto try_direction = [&](const std::array<double, kDimensions>& u) {
      for (std::size_t i = 0; i < m; ++i) {
        projection[i] = 0;
        for (int j = 0; j < kDimensions; ++j) projection[i] += u[j] * coordinates[i * kDimensions + j];
      }
      std::iota(order.begin(), order.end(), 0u);
      std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return projection[a] < projection[b] || (projection[a] == projection[b] && a < b);
      });
      // Slab boundaries: each where the cut across it is least, among the
      // positions that keep the slabs within `imbalance` of their share
      // (a face on a plane of the mesh, not through it).
      for (std::size_t r = 0; r < m; ++r) rank[order[r]] = r;
      std::size_t from = 0;  // first position of the current slab
      double before = 0;     // weight of the slabs before it
      for (int j = 0; j + 1 < p; ++j) {
        const double target = total * (j + 1) / p, slack = level_imbalance * total / p;
        std::size_t pos = from;
        double w = before;
        while (pos < m && w + clusters.weight[verts[order[pos]]] <= target - slack) w += clusters.weight[verts[order[pos++]]];
        // cut between positions [.., pos) and [pos, ..)
        double cut = 0;
        for (std::size_t r = from; r < m; ++r) {
          const std::uint32_t i = order[r];
          for (std::uint64_t e = cg.offsets[verts[i]]; e < cg.offsets[verts[i] + 1]; ++e) {
            const std::int64_t l = local[cg.adjacent[e]];
            if (l >= 0 && rank[l] < pos && rank[l] >= from) cut += cg.weight[e];
          }
        }
        std::size_t best_pos = pos;
        double least = cut, best_off = std::abs(w - target), best_w = w;
        while (pos < m && w + clusters.weight[verts[order[pos]]] <= target + slack) {
          const std::uint32_t i = order[pos];
          for (std::uint64_t e = cg.offsets[verts[i]]; e < cg.offsets[verts[i] + 1]; ++e) {
            const std::int64_t l = local[cg.adjacent[e]];
            if (l < 0 || l == i || rank[l] < from) continue;
            cut += rank[l] > pos ? cg.weight[e] : -cg.weight[e];
          }
          w += clusters.weight[verts[i]];
          ++pos;
          const double off = std::abs(w - target);
          if (cut < least - 1e-9 * least || (cut <= least + 1e-9 * least && off < best_off)) {
            least = cut, best_pos = pos, best_off = off, best_w = w;
          }
        }
        for (std::size_t r = from; r < best_pos; ++r) slab[order[r]] = j;
        before = best_w;
        from = best_pos;
      }
      for (std::size_t r = from; r < m; ++r) slab[order[r]] = p - 1;
      double cut = 0;
      for (std::size_t i = 0; i < m; ++i) {
        for (std::uint64_t e = cg.offsets[verts[i]]; e < cg.offsets[verts[i] + 1]; ++e) {
          const std::int64_t l = local[cg.adjacent[e]];
          if (l >= 0 && slab[l] != slab[i]) cut += cg.weight[e];
        }
      }
      if (cut >= best_cut) return false;
      best_cut = cut;
      best_slab = slab;
      best_direction = u;
      return true;
    };
    // Directions spread evenly over the half sphere (a Fibonacci lattice)...
    for (int t = 0; t < directions; ++t) {
      const double z = 1 - (t + 0.5) / directions, r = std::sqrt(1 - z * z), phi = t * 2.399963229728653;
      try_direction({r * std::cos(phi), r * std::sin(phi), z});
    }
    // ... then the best one turned in shrinking steps while the cut shrinks:
    // a slab face a few degrees off an axis is a staircase.
    for (double step = 0.1; step > 0.005; step /= 2) {
      for (bool improved = true; improved;) {
        improved = false;
        const auto& u = best_direction;
        std::array<double, kDimensions> a{1, 0, 0};
        if (std::abs(u[0]) > 0.9) a = {0, 1, 0};
        const double along = a[0] * u[0] + a[1] * u[1] + a[2] * u[2];
        std::array<double, kDimensions> t1, t2;
        for (int j = 0; j < kDimensions; ++j) t1[j] = a[j] - along * u[j];
        const double length = std::sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
        for (double& x : t1) x /= length;
        t2 = {u[1] * t1[2] - u[2] * t1[1], u[2] * t1[0] - u[0] * t1[2], u[0] * t1[1] - u[1] * t1[0]};
        const std::array<double, kDimensions> base = u;
        for (int move = 0; move < 4 && !improved; ++move) {
          const double s1 = move == 0 ? step : move == 1 ? -step : 0, s2 = move == 2 ? step : move == 3 ? -step : 0;
          std::array<double, kDimensions> turned;
          for (int j = 0; j < kDimensions; ++j) turned[j] = base[j] + s1 * t1[j] + s2 * t2[j];
          const double size = std::sqrt(turned[0] * turned[0] + turned[1] * turned[1] + turned[2] * turned[2]);
          for (double& x : turned) x /= size;
          improved = try_direction(turned);
        }
      }
    }
    std::vector<std::vector<std::uint32_t>> slabs(p);
    for (std::size_t i = 0; i < m; ++i) slabs[best_slab[i]].push_back(verts[i]);
    verts.clear();
    verts.shrink_to_fit();
    for (int s = 0; s < p; ++s) multisect(cg, clusters, std::move(slabs[s]), k / p, first + s * (k / p), part, level_imbalance);
  }

  // Each group goes to the part it has the most flow (edge uses) with among
  // placed vertices: first anchors only; groups with no tie to an anchor
  // then by their ties to placed groups; the rest to the lightest part.
  static void place_temporaries(const ValueGraph& graph, const Groups& groups, int nparts, std::vector<ProcId>& owner) {
    const auto& g = graph.symmetric();
    std::vector<double> score(nparts), load(nparts, 0);
    for (std::size_t v = 0; v < graph.vertex_count(); ++v) {
      if (owner[v] >= 0) load[owner[v]] += vertex_weight(graph, v);
    }
    std::vector<std::uint8_t> placed(groups.count(), 0);
    auto place = [&](std::size_t k, const std::vector<ProcId>& from) {
      std::fill(score.begin(), score.end(), 0.0);
      bool any = false;
      for (std::uint64_t i = groups.offsets[k]; i < groups.offsets[k + 1]; ++i) {
        for (auto e : boost::make_iterator_range(boost::out_edges(groups.vertices[i], g))) {
          const ProcId q = from[boost::target(e, g)];
          if (q < 0) continue;
          score[q] += static_cast<double>(g[e].uses);
          any = true;
        }
      }
      if (!any) return;
      const auto best = static_cast<ProcId>(std::max_element(score.begin(), score.end()) - score.begin());
      for (std::uint64_t i = groups.offsets[k]; i < groups.offsets[k + 1]; ++i) {
        owner[groups.vertices[i]] = best;
        load[best] += vertex_weight(graph, groups.vertices[i]);
      }
      placed[k] = 1;
    };
    // Anchor ties are read from a copy, so the order of groups does not matter.
    std::vector<ProcId> anchors = owner;
    for (std::size_t k = 0; k < groups.count(); ++k) place(k, anchors);
    for (std::size_t k = 0; k < groups.count(); ++k) {
      if (!placed[k]) place(k, owner);
    }
    for (std::size_t k = 0; k < groups.count(); ++k) {
      if (placed[k]) continue;
      const auto lightest = static_cast<ProcId>(std::min_element(load.begin(), load.end()) - load.begin());
      for (std::uint64_t i = groups.offsets[k]; i < groups.offsets[k + 1]; ++i) {
        owner[groups.vertices[i]] = lightest;
        load[lightest] += vertex_weight(graph, groups.vertices[i]);
      }
    }
  }
};

}  // namespace commanalyzer

#endif  // COMMANALYZER_ALIGNED_START_H_

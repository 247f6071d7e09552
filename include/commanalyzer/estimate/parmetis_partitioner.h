// A distributed partitioner of the location graph: ParMETIS's k-way API
// (ParMETIS_V3_PartKway) over the ranks of an MPI communicator, as Debian
// provides it, by PT-Scotch (libscotchparmetis-dev). Each rank holds only
// its share of the graph (distributed_graph.h) while partitioning.
//
//   // every rank, after MPI_Init_thread(..., MPI_THREAD_SERIALIZED, ...):
//   ParmetisPartitioner parmetis{MPI_COMM_WORLD};
//   if (rank != 0) { serve_partition_requests(MPI_COMM_WORLD); return; }
//   std::vector<ProcId> owner = parmetis.partition(index, 16);  // per node, rank 0
//   ...
//   parmetis.stop();  // the other ranks return from serve_partition_requests
//
// Rank 0 (the coordinator) holds the whole location graph, because it
// built it from the profile; it sends every other rank its node range,
// all of them partition together, and the owners are gathered back on
// rank 0. partition() may be called from several threads (estimates for
// several process counts): calls are serialized.
//
// It satisfies LocationPartitioner (distribution.h), so it plugs into the
// DistributionPortfolio as the "parmetis" candidate.
#ifndef COMMANALYZER_PARMETIS_PARTITIONER_H_
#define COMMANALYZER_PARMETIS_PARTITIONER_H_

#include <mpi.h>

// metis.h (through partitioner.h) defines METIS_OK and its enum; PT-Scotch's
// parmetis.h defines them again unless told they exist.
#include "commanalyzer/estimate/partitioner.h"
#define SCOTCH_METIS_RETURN
#include <parmetis/parmetis.h>

#include <cstdint>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "commanalyzer/estimate/distributed_graph.h"
#include "commanalyzer/estimate/distribution.h"
#include "commanalyzer/estimate/locations.h"
#include "commanalyzer/record/types.h"

// PT-Scotch's (ptscotch.h, whose SCOTCH_Num would clash with parmetis.h's):
// seed and restart its process-wide pseudo-random generator.
extern "C" void SCOTCH_randomSeed(SCOTCH_Num seed);
extern "C" void SCOTCH_randomReset(void);

namespace commanalyzer {

namespace parmetis_internal {

static_assert(sizeof(SCOTCH_Num) == sizeof(GraphIndex), "parmetis.h must be the 32-bit index build");

enum Request : std::int32_t { kStop = 0, kPartition = 1 };
enum Tag : int { kSizesTag = 1, kXadjTag, kAdjncyTag, kVwgtTag, kAdjwgtTag };

inline void check(int status, const char* what) {
  if (status != MPI_SUCCESS) throw std::runtime_error(std::string("parmetis: ") + what + " failed");
}

// The call every rank makes on its slice: its nodes' parts in `part`;
// false when ParMETIS reported an error.
inline bool partition_slice(MPI_Comm comm, std::vector<GraphIndex>& vtxdist, GraphSlice& slice, GraphIndex nparts,
                            int imbalance_permille, std::vector<GraphIndex>& part) {
  GraphIndex wgtflag = 3 /* vertex and edge weights */, numflag = 0, ncon = 1, edgecut = 0;
  GraphIndex options[3] = {0, 0, 0};  // defaults
  std::vector<float> tpwgts(static_cast<std::size_t>(nparts), 1.0f / static_cast<float>(nparts));
  float ubvec = 1.0f + static_cast<float>(imbalance_permille) / 1000.0f;
  part.assign(std::max<std::size_t>(1, slice.node_count()), 0);  // ParMETIS writes to part[0] when empty
  // Debian's Scotch seeds from the clock, and its random state lives on
  // from call to call (rank 0 estimates several counts on several threads,
  // in whatever order they reach the lock): a fixed seed, restarted for
  // every call, makes the partition a function of the graph.
  SCOTCH_randomSeed(1);
  SCOTCH_randomReset();
  const int status =
      ParMETIS_V3_PartKway(vtxdist.data(), slice.xadj.data(), slice.adjncy.data(), slice.vwgt.data(),
                           slice.adjwgt.data(), &wgtflag, &numflag, &ncon, &nparts, tpwgts.data(), &ubvec, options,
                           &edgecut, part.data(), &comm);
  part.resize(slice.node_count());
  return status == METIS_OK;
}

// Partitions together, then gathers every node's part on rank 0 (empty
// elsewhere). All ranks learn whether any rank's ParMETIS call failed.
inline std::vector<GraphIndex> partition_and_gather(MPI_Comm comm, std::vector<GraphIndex>& vtxdist,
                                                    GraphSlice& slice, GraphIndex nparts, int imbalance_permille) {
  std::vector<GraphIndex> mine;
  int ok = partition_slice(comm, vtxdist, slice, nparts, imbalance_permille, mine), all_ok = 0;
  check(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (!all_ok) throw std::runtime_error("ParMETIS_V3_PartKway (PT-Scotch) failed on some rank");
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  std::vector<int> counts(static_cast<std::size_t>(ranks)), displs(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    displs[static_cast<std::size_t>(r)] = vtxdist[static_cast<std::size_t>(r)];
    counts[static_cast<std::size_t>(r)] = vtxdist[static_cast<std::size_t>(r) + 1] - vtxdist[static_cast<std::size_t>(r)];
  }
  std::vector<GraphIndex> all(rank == 0 ? static_cast<std::size_t>(vtxdist.back()) : 0);
  check(MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_INT32_T, all.data(), counts.data(),
                    displs.data(), MPI_INT32_T, 0, comm),
        "MPI_Gatherv");
  return all;
}

template <class T>
void send_vector(const std::vector<T>& v, int to, int tag, MPI_Comm comm) {
  check(MPI_Send(v.data(), static_cast<int>(v.size()), MPI_INT32_T, to, tag, comm), "MPI_Send");
}

template <class T>
void receive_vector(std::vector<T>& v, std::size_t count, int tag, MPI_Comm comm) {
  v.resize(count);
  check(MPI_Recv(v.data(), static_cast<int>(count), MPI_INT32_T, 0, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
}

inline std::mutex& coordinator_mutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace parmetis_internal

// Every rank but 0: answers the coordinator's partition requests until it
// calls stop(). Holds one slice at a time.
inline void serve_partition_requests(MPI_Comm comm) {
  using namespace parmetis_internal;
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  for (;;) {
    std::int32_t request[3] = {kStop, 0, 0};  // what, parts, imbalance (permille)
    check(MPI_Bcast(request, 3, MPI_INT32_T, 0, comm), "MPI_Bcast");
    if (request[0] == kStop) return;
    std::vector<GraphIndex> vtxdist(static_cast<std::size_t>(ranks) + 1);
    check(MPI_Bcast(vtxdist.data(), ranks + 1, MPI_INT32_T, 0, comm), "MPI_Bcast");
    std::int64_t sizes[2] = {0, 0};  // nodes, edges
    check(MPI_Recv(sizes, 2, MPI_INT64_T, 0, kSizesTag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
    GraphSlice slice;
    receive_vector(slice.xadj, static_cast<std::size_t>(sizes[0]) + 1, kXadjTag, comm);
    receive_vector(slice.adjncy, static_cast<std::size_t>(sizes[1]), kAdjncyTag, comm);
    receive_vector(slice.vwgt, static_cast<std::size_t>(sizes[0]), kVwgtTag, comm);
    receive_vector(slice.adjwgt, static_cast<std::size_t>(sizes[1]), kAdjwgtTag, comm);
    try {
      partition_and_gather(comm, vtxdist, slice, request[1], request[2]);
    } catch (const std::runtime_error&) {
      // The coordinator reports it; wait for its next request.
    }
  }
}

struct ParmetisPartitioner {
  MPI_Comm comm = MPI_COMM_WORLD;
  int imbalance_permille = kMetisImbalancePermille;  // as metis_distribution

  // Rank 0 only: an owner in [0, procs) for every node of the location graph.
  std::vector<ProcId> partition(const LocationIndex& index, int procs) const {
    using namespace parmetis_internal;
    if (procs < 1) throw std::invalid_argument("parmetis: process count must be >= 1");
    std::vector<ProcId> owner(index.node_count(), 0);
    if (procs == 1 || index.node_count() == 0) return owner;
    int ranks = 1;
    MPI_Comm_size(comm, &ranks);
    // Whatever can fail is checked before the first request: once the other
    // ranks wait for their slices, a throw would leave them waiting.
    std::vector<GraphIndex> vtxdist = node_ranges(index.node_count(), ranks);
    for (int r = 0; r < ranks; ++r) {
      const std::uint64_t edges = index.row_start()[static_cast<std::size_t>(vtxdist[static_cast<std::size_t>(r) + 1])] -
                                  index.row_start()[static_cast<std::size_t>(vtxdist[static_cast<std::size_t>(r)])];
      if (edges > static_cast<std::uint64_t>(std::numeric_limits<GraphIndex>::max())) {
        throw std::length_error("parmetis: rank " + std::to_string(r) + "'s share of the location graph has " +
                                std::to_string(edges) + " edges, past 32-bit ParMETIS indices; use more ranks");
      }
    }
    std::lock_guard<std::mutex> lock(coordinator_mutex());
    std::int32_t request[3] = {kPartition, procs, imbalance_permille};
    check(MPI_Bcast(request, 3, MPI_INT32_T, 0, comm), "MPI_Bcast");
    check(MPI_Bcast(vtxdist.data(), ranks + 1, MPI_INT32_T, 0, comm), "MPI_Bcast");
    for (int r = 1; r < ranks; ++r) {  // one slice alive at a time
      const GraphSlice s = graph_slice(index, vtxdist[static_cast<std::size_t>(r)], vtxdist[static_cast<std::size_t>(r) + 1]);
      const std::int64_t sizes[2] = {static_cast<std::int64_t>(s.node_count()), static_cast<std::int64_t>(s.adjncy.size())};
      check(MPI_Send(sizes, 2, MPI_INT64_T, r, kSizesTag, comm), "MPI_Send");
      send_vector(s.xadj, r, kXadjTag, comm);
      send_vector(s.adjncy, r, kAdjncyTag, comm);
      send_vector(s.vwgt, r, kVwgtTag, comm);
      send_vector(s.adjwgt, r, kAdjwgtTag, comm);
    }
    GraphSlice mine = graph_slice(index, vtxdist[0], vtxdist[1]);
    const std::vector<GraphIndex> part = partition_and_gather(comm, vtxdist, mine, procs, imbalance_permille);
    for (std::size_t a = 0; a < owner.size(); ++a) {
      if (part[a] < 0 || part[a] >= procs) {
        throw std::runtime_error("parmetis: node " + std::to_string(a) + " got part " + std::to_string(part[a]) +
                                 ", not one of the " + std::to_string(procs) + " processes");
      }
      owner[a] = static_cast<ProcId>(part[a]);
    }
    return owner;
  }

  // Rank 0 only: the other ranks return from serve_partition_requests.
  void stop() const {
    using namespace parmetis_internal;
    std::lock_guard<std::mutex> lock(coordinator_mutex());
    std::int32_t request[3] = {kStop, 0, 0};
    check(MPI_Bcast(request, 3, MPI_INT32_T, 0, comm), "MPI_Bcast");
  }
};

static_assert(LocationPartitioner<ParmetisPartitioner>);

}  // namespace commanalyzer

#endif  // COMMANALYZER_PARMETIS_PARTITIONER_H_

// Benchmark generation (Deshpande et al.): a compact, readable C + MPI
// program that performs the predicted communication of the whole region.
//
//   GeneratedBenchmark b = generate_benchmark(estimate.trace, {.title = "heat2d 64 20"});
//   write DIR/bench.c = b.source, DIR/bench.h = b.header;
//   // mpicc DIR/*.c -IDIR -o bench && mpirun -np P ./bench
//
// The program replays the trace (messages.h) iteration by iteration.
// Iterations with the same communication share one function, and runs of
// equal iterations are one loop, so a time-stepping code's benchmark does
// not grow with its step count. Within an iteration, the messages with one
// size and one rank offset (every rank sends to rank + d) form one call
// whose senders are rank lists (ranklist.h): a stencil's benchmark does not
// grow with the process count either. Every message is an MPI_Isend matched
// by an MPI_Irecv of exactly its bytes, completed by one MPI_Waitall per
// round (an iteration's k-th messages between each pair; equal rounds one
// loop, so a pipelined sweep's benchmark does not grow with its stages);
// then the iteration's collective calls (MPI_Bcast, and
// MPI_Allreduce as a bitwise OR of bytes, the cheapest reduction valid on
// MPI_BYTE). MPI_Pcontrol(2) marks each iteration's end, as the PMPI
// counter (examples/measure) expects, so measured per-iteration figures
// compare with the estimate's. The program times itself: at the end rank 0
// prints the bytes (logical volume, as the estimate counts them) and
// messages (point-to-point + collective calls) per iteration and the
// seconds per iteration of the slowest rank, from its own counts; its
// start barrier and final reductions run with profiling off
// (MPI_Pcontrol(0)), so a PMPI tool measures only the communication.
#ifndef COMMANALYZER_BENCHGEN_H_
#define COMMANALYZER_BENCHGEN_H_

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "commanalyzer/estimate/messages.h"
#include "commanalyzer/act/ranklist.h"

namespace commanalyzer {

struct BenchmarkOptions {
  std::string title;             // what the benchmark reproduces, e.g. the profile (a comment)
  // Busy time before each iteration's communication, standing for its
  // computation (CommEstimate::phase_work times a time per value); empty:
  // none.
  std::vector<double> compute_seconds;
};

struct GeneratedBenchmark {
  std::string source;  // bench.c
  std::string header;  // bench.h
};

namespace benchgen_internal {

// One iteration's communication, without its iteration number.
struct Pattern {
  std::vector<std::tuple<std::uint32_t, ProcId, ProcId, std::uint64_t>> messages;  // (round, from, to, bytes), sorted
  std::vector<std::tuple<CollectiveKind, ProcId, std::uint64_t>> collectives;  // in call order
  bool empty() const { return messages.empty() && collectives.empty(); }
  friend auto operator<=>(const Pattern&, const Pattern&) = default;
};

inline std::vector<Pattern> patterns_by_phase(const MessageTrace& trace) {
  std::vector<Pattern> phases(trace.phases);
  for (const Message& m : trace.messages) {
    if (m.bytes > static_cast<std::uint64_t>(INT_MAX)) {
      throw std::invalid_argument(absl::StrCat("a message of ", m.bytes, " bytes (iteration ", m.iteration,
                                               ") exceeds MPI's int count"));
    }
    phases[m.iteration].messages.emplace_back(m.round, m.from, m.to, m.bytes);
  }
  for (Pattern& p : phases) std::sort(p.messages.begin(), p.messages.end());
  for (const CollectiveCall& c : trace.collectives) {
    if (c.bytes > static_cast<std::uint64_t>(INT_MAX)) {
      throw std::invalid_argument(absl::StrCat("a collective of ", c.bytes, " bytes per rank (iteration ", c.iteration,
                                               ") exceeds MPI's int count"));
    }
    phases[c.iteration].collectives.emplace_back(c.kind, c.root, c.bytes);
  }
  return phases;
}

inline std::string ranks_call(const RankList& list) {
  std::string out = absl::StrCat("RANKS(", list.start);
  for (const auto& [count, stride] : list.dims) absl::StrAppend(&out, ", ", count, ", ", stride);
  return out + ")";
}

// One round's exchanges and their wait, indented by `indent`.
inline std::string round_body(const std::map<std::pair<std::uint64_t, int>, std::vector<ProcId>>& groups,
                              const std::string& indent) {
  std::string out;
  for (const auto& [key, senders] : groups) {
    const auto [bytes, offset] = key;
    for (const RankList& list : compress_ranks(senders)) {
      absl::StrAppendFormat(&out, "%sbench_exchange(b, %s, %+d, %d);\n", indent, ranks_call(list), offset, bytes);
    }
  }
  return out + indent + "bench_wait(b);\n";
}

// The body of one pattern's function: its rounds of messages, each
// completed before the next (the receiver needs the first round's values
// before the second's are done), runs of equal rounds as one loop; then
// its collectives.
inline std::string pattern_body(const Pattern& p) {
  using Round = std::map<std::pair<std::uint64_t, int>, std::vector<ProcId>>;  // (bytes, offset) -> senders
  std::vector<Round> rounds;
  for (const auto& [round, from, to, bytes] : p.messages) {
    if (round >= rounds.size()) rounds.resize(round + 1);
    rounds[round][{bytes, to - from}].push_back(from);  // senders ascending: messages are sorted
  }
  std::string out;
  for (std::size_t r = 0; r < rounds.size();) {
    std::size_t end = r + 1;
    while (end < rounds.size() && rounds[end] == rounds[r]) ++end;
    if (end - r == 1) {
      out += round_body(rounds[r], "  ");
    } else {
      absl::StrAppendFormat(&out, "  for (int r = 0; r < %d; ++r) {\n%s  }\n", end - r, round_body(rounds[r], "    "));
    }
    r = end;
  }
  for (const auto& [kind, root, bytes] : p.collectives) {
    if (kind == CollectiveKind::kBcast) {
      absl::StrAppendFormat(&out, "  bench_bcast(b, %d, %d);\n", root, bytes);
    } else {
      absl::StrAppendFormat(&out, "  bench_allreduce(b, %d);\n", bytes);
    }
  }
  return out;
}

inline std::string count_of(std::size_t n, const char* what) {
  return absl::StrCat(n, " ", what, n == 1 ? "" : "s");
}

inline std::string iteration_range(std::size_t first, std::size_t count) {
  return count == 1 ? absl::StrCat("iteration ", first) : absl::StrCat("iterations ", first, "-", first + count - 1);
}

}  // namespace benchgen_internal

// The runtime every generated benchmark shares (bench.h).
inline std::string benchmark_header(int procs);

inline GeneratedBenchmark generate_benchmark(const MessageTrace& trace, const BenchmarkOptions& options = {}) {
  using namespace benchgen_internal;
  const std::vector<Pattern> phases = patterns_by_phase(trace);
  // Iterations without communication call no pattern (id -1).
  std::map<Pattern, int> ids;
  std::vector<const Pattern*> distinct;
  std::vector<int> id_of(phases.size(), -1);
  for (std::size_t k = 0; k < phases.size(); ++k) {
    if (phases[k].empty()) continue;
    auto [it, added] = ids.try_emplace(phases[k], static_cast<int>(distinct.size()));
    if (added) distinct.push_back(&it->first);
    id_of[k] = it->second;
  }
  std::uint64_t messages = trace.messages.size();
  std::string source = absl::StrFormat(
      "/* Communication benchmark generated by `commanalyzer benchgen`%s%s.\n"
      " * Reproduces the predicted communication of %d processes: %d iterations,\n"
      " * %d point-to-point messages, %d collective calls.\n"
      " * Build and run: mpicc bench.c -I. -o bench && mpirun -np %d ./bench */\n"
      "#include \"bench.h\"\n",
      options.title.empty() ? "" : " for ", absl::StrReplaceAll(options.title, {{"*/", "* /"}}), trace.procs,
      trace.phases - 1, messages, trace.collectives.size(), trace.procs);
  for (std::size_t id = 0; id < distinct.size(); ++id) {
    const Pattern& p = *distinct[id];
    absl::StrAppendFormat(&source, "\n/* %s, %s */\nstatic void pattern_%d(Bench *b) {\n%s}\n",
                          count_of(p.messages.size(), "message"), count_of(p.collectives.size(), "collective call"),
                          id, pattern_body(p));
  }
  absl::StrAppend(&source,
                  "\nint main(int argc, char **argv) {\n"
                  "  Bench bench;\n"
                  "  bench_init(&bench, &argc, &argv);\n");
  // The last phase follows the last iteration mark: it is not an iteration.
  const std::size_t iterations = trace.phases - 1;
  for (std::size_t k = 0; k < phases.size();) {
    std::size_t end = k + 1;
    auto delay = [&](std::size_t phase) {
      return phase < options.compute_seconds.size() ? options.compute_seconds[phase] : 0.0;
    };
    while (end < phases.size() && id_of[end] == id_of[k] && (end < iterations) == (k < iterations) &&
           delay(end) == delay(k)) {
      ++end;
    }
    const bool marked = k < iterations;
    std::string body;
    if (delay(k) > 0) absl::StrAppendFormat(&body, "bench_compute(%.9g); ", delay(k));
    if (!phases[k].empty()) absl::StrAppendFormat(&body, "pattern_%d(&bench); ", id_of[k]);
    if (marked) body += "bench_end_iteration(&bench); ";
    const std::string what = marked ? iteration_range(k, end - k) : "after the last iteration";
    if (!body.empty()) {
      body.pop_back();
      if (end - k == 1) {
        absl::StrAppendFormat(&source, "  %s /* %s */\n", body, what);
      } else {
        absl::StrAppendFormat(&source, "  for (long i = 0; i < %d; ++i) { %s } /* %s */\n", end - k, body, what);
      }
    }
    k = end;
  }
  absl::StrAppend(&source, "  return bench_finish(&bench);\n}\n");
  return {std::move(source), benchmark_header(trace.procs)};
}

// bench.h in three parts: the rank lists, the calls that send (the
// state, point-to-point messages, collectives), and the iterations'
// computation, marks and totals. @PROCS@ stands for the process count.
namespace benchgen_internal {

inline constexpr char kBenchRankLists[] = R"(/* Runtime of a `commanalyzer benchgen` benchmark: rank lists and the
 * calls bench.c makes. */
#ifndef BENCH_H_
#define BENCH_H_

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_PROCS @PROCS@

/* Ranks start + i0 * stride0 + i1 * stride1 + ..., i_k < count_k:
 * RANKS(start, count0, stride0, count1, stride1, ...), outermost first. */
typedef struct {
  int start, dims, count[3], stride[3];
} RankList;
#define RANKS(...) bench_ranks((const int[]){__VA_ARGS__}, sizeof((int[]){__VA_ARGS__}) / sizeof(int))

static inline RankList bench_ranks(const int *v, size_t n) {
  RankList r = {v[0], (int)(n - 1) / 2, {1, 1, 1}, {0, 0, 0}};
  for (int d = 0; d < r.dims; ++d) {
    r.count[d] = v[1 + 2 * d];
    r.stride[d] = v[2 + 2 * d];
  }
  return r;
}

static inline int bench_in(const RankList *r, int rank) {
  int i[3] = {0, 0, 0};
  for (;;) {
    int x = r->start;
    for (int d = 0; d < r->dims; ++d) x += i[d] * r->stride[d];
    if (x == rank) return 1;
    int d = r->dims - 1;
    while (d >= 0 && ++i[d] == r->count[d]) i[d--] = 0;
    if (d < 0) return 0;
  }
}

)";

inline constexpr char kBenchCommunication[] = R"(typedef struct {
  int rank, size;
  int pending, capacity; /* requests of this iteration */
  MPI_Request *requests;
  char **buffers;
  /* What this rank sent; collectives as their logical volume (Bcast
   * (N-1)m, Allreduce 2(N-1)m), the same on every rank. */
  double p2p_bytes, p2p_messages, collective_bytes, collective_calls;
  long iterations;
  double start;
} Bench;

static inline void bench_init(Bench *b, int *argc, char ***argv) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &b->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &b->size);
  if (b->size != BENCH_PROCS) {
    if (b->rank == 0) fprintf(stderr, "bench: generated for %d processes, run with mpirun -np %d (got %d)\n",
                              BENCH_PROCS, BENCH_PROCS, b->size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  b->pending = b->capacity = 0;
  b->requests = NULL;
  b->buffers = NULL;
  b->p2p_bytes = b->p2p_messages = b->collective_bytes = b->collective_calls = 0;
  b->iterations = 0;
  MPI_Pcontrol(0); /* the clock starts together, unmeasured */
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Pcontrol(1);
  b->start = MPI_Wtime();
}

static inline void bench_post(Bench *b, int send, int peer, int bytes) {
  if (b->pending == b->capacity) {
    b->capacity = b->capacity ? 2 * b->capacity : 16;
    b->requests = realloc(b->requests, b->capacity * sizeof(MPI_Request));
    b->buffers = realloc(b->buffers, b->capacity * sizeof(char *));
  }
  char *buffer = calloc(bytes > 0 ? bytes : 1, 1);
  b->buffers[b->pending] = buffer;
  MPI_Request *request = &b->requests[b->pending++];
  if (send) {
    b->p2p_bytes += bytes;
    b->p2p_messages += 1;
    MPI_Isend(buffer, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, request);
  } else {
    MPI_Irecv(buffer, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, request);
  }
}

/* Every rank s in `senders` sends `bytes` to rank s + offset. */
static inline void bench_exchange(Bench *b, RankList senders, int offset, int bytes) {
  if (bench_in(&senders, b->rank)) bench_post(b, 1, b->rank + offset, bytes);
  if (bench_in(&senders, b->rank - offset)) bench_post(b, 0, b->rank - offset, bytes);
}

static inline void bench_wait(Bench *b) {
  MPI_Waitall(b->pending, b->requests, MPI_STATUSES_IGNORE);
  for (int k = 0; k < b->pending; ++k) free(b->buffers[k]);
  b->pending = 0;
}

static inline void bench_bcast(Bench *b, int root, int bytes) {
  char *buffer = calloc(bytes, 1);
  MPI_Bcast(buffer, bytes, MPI_BYTE, root, MPI_COMM_WORLD);
  free(buffer);
  b->collective_bytes += (double)(b->size - 1) * bytes;
  b->collective_calls += 1;
}

static inline void bench_allreduce(Bench *b, int bytes) {
  char *in = calloc(bytes, 1), *out = calloc(bytes, 1);
  MPI_Allreduce(in, out, bytes, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
  free(in);
  free(out);
  b->collective_bytes += 2.0 * (b->size - 1) * bytes;
  b->collective_calls += 1;
}

)";

inline constexpr char kBenchIterations[] = R"(/* Stands for an iteration's computation. */
static inline void bench_compute(double seconds) {
  const double until = MPI_Wtime() + seconds;
  while (MPI_Wtime() < until) {
  }
}

static inline void bench_end_iteration(Bench *b) {
  MPI_Pcontrol(2);
  b->iterations += 1;
}

/* Rank 0 prints bytes, messages and seconds per iteration (all of them
 * when no iteration is marked): every rank's sends, the collectives once,
 * the slowest rank's time. */
static inline int bench_finish(Bench *b) {
  const double seconds = MPI_Wtime() - b->start;
  double mine[2] = {b->p2p_bytes, b->p2p_messages}, sums[2], slowest;
  MPI_Pcontrol(0);
  MPI_Reduce(mine, sums, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (b->rank == 0) {
    const double n = b->iterations > 0 ? (double)b->iterations : 1.0;
    const double bytes = sums[0] + b->collective_bytes, messages = sums[1] + b->collective_calls;
    printf("bench: %d processes, %ld iterations; per iteration %.10g bytes, %.10g messages, %.6g seconds "
           "(in all %.0f bytes, %.0f messages, %.6g seconds)\n",
           b->size, b->iterations, bytes / n, messages / n, slowest / n, bytes, messages, slowest);
  }
  free(b->requests);
  free(b->buffers);
  MPI_Finalize();
  return 0;
}

#endif /* BENCH_H_ */
)";

}  // namespace benchgen_internal

inline std::string benchmark_header(int procs) {
  using namespace benchgen_internal;
  return absl::StrReplaceAll(absl::StrCat(kBenchRankLists, kBenchCommunication, kBenchIterations),
                             {{"@PROCS@", absl::StrCat(procs)}});
}

}  // namespace commanalyzer

#endif  // COMMANALYZER_BENCHGEN_H_

// The CommAnalyzer runtime: the C-ABI hooks of runtime_abi.h, forwarded to
// one commanalyzer::Analyzer with the default policies. Linked statically
// into the instrumented program by `commanalyzer analyze`.
//
// At exit it writes the profile to $COMMANALYZER_PROFILE (default
// ./commanalyzer.profile). It never writes to stdout and leaves the exit
// status alone: the instrumented program behaves as the original.
// The program under analysis is sequential; the hooks are not thread-safe,
// so the first pthread_create stops the run with a clear message (exit 2).
//
// Messages for `commanalyzer analyze` (a refusal, a limit reached, a
// warning) go, one a line, to $COMMANALYZER_STATUS when it is set, else to
// stderr.
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstddef>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <span>
#include <string>

#include "commanalyzer/record/analyzer.h"
#include "commanalyzer/record/profile_io.h"
#include "instrument/runtime_abi.h"
#include "instrument/runtime_internal.h"

static_assert(CA_COMPUTED_BIT == commanalyzer::kComputedBit, "label encoding shared with the pass");

using commanalyzer::runtime::ShadowCacheEntry;

extern "C" {
__thread ca_label __ca_arg_labels[CA_MAX_ARG_LABELS];
__thread const void* __ca_arg_callee;
__thread ca_label __ca_ret_label;
__thread uint32_t __ca_ret_valid;
__thread ca_label __ca_store_labels[CA_MAX_STORE_LEAVES];
// The page cache of the analyzer's shadow memory, read by the inline load
// path (runtime_abi.h).
constinit ShadowCacheEntry __ca_shadow_cache[CA_SHADOW_CACHE_ENTRIES] = {};
// The slicer's run of free node slots, used by the inline union path.
constinit commanalyzer::UnionDagSlicer::NodeRun __ca_node_run = {};
constinit uintptr_t __ca_indirect_first = 0, __ca_indirect_end = 0;
constinit uint32_t __ca_user_site = 0;
}

static_assert(CA_SHADOW_WORD_BYTES == commanalyzer::PagedShadowMemory<>::kWordBytes &&
                  (UINT64_C(1) << CA_SHADOW_PAGE_BITS) == commanalyzer::PagedShadowMemory<>::kPageWords &&
                  CA_SHADOW_CACHE_ENTRIES == (1 << commanalyzer::PagedShadowMemory<>::kCacheBits) &&
                  CA_SHADOW_CACHE_MULTIPLIER == commanalyzer::PagedShadowMemory<>::kCacheMultiplier,
              "shadow layout shared with the pass");
static_assert(sizeof(commanalyzer::UnionDagSlicer::Node) == 16 && sizeof(commanalyzer::UnionDagSlicer::NodeRun) == 24 &&
                  commanalyzer::kNodeBit == CA_NODE_BIT && commanalyzer::kPairBit == CA_PAIR_BIT &&
                  commanalyzer::kPairShift == CA_PAIR_SHIFT,
              "node layout shared with the pass");
static_assert(sizeof(ShadowCacheEntry) == 16 && offsetof(ShadowCacheEntry, page) == 8, "cache entry layout shared with the pass");

namespace {

using commanalyzer::runtime::RuntimeAnalyzer;
RuntimeAnalyzer* g_analyzer = nullptr;

// The analyzer allocates too: its own blocks are not the program's arrays,
// and must not be tracked (nor cleared when freed, nor replayed when
// realloc moves them). Set while an allocation hook or any analysis hook
// runs (InRuntime).
thread_local bool t_in_runtime = false;

struct InRuntime {
  const bool outer = t_in_runtime;
  InRuntime() { t_in_runtime = true; }
  ~InRuntime() { t_in_runtime = outer; }
};

// A forked child runs on a copy of the analyzer; the profile is the
// parent's alone (the child must not overwrite it).
bool g_forked_child = false;

// "KIND MESSAGE" to the status file, or "commanalyzer runtime: KIND: MESSAGE"
// to stderr. Plain write(2): it may run in a failing program.
void report_status(const char* kind, const std::string& message) {
  const char* path = std::getenv("COMMANALYZER_STATUS");
  std::string line;
  int fd = -1;
  if (path != nullptr && *path != '\0') fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd >= 0) {
    line = std::string(kind) + " " + message + "\n";
  } else {
    fd = STDERR_FILENO;
    line = std::string("commanalyzer runtime: ") + kind + ": " + message + "\n";
  }
  for (std::size_t done = 0; done < line.size();) {
    const ssize_t n = write(fd, line.data() + done, line.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  if (fd != STDERR_FILENO) close(fd);
}

void write_profile_at_exit() {
  if (g_forked_child) return;
  InRuntime guard;
  RuntimeAnalyzer& a = *g_analyzer;
  const auto memory = a.memory_parts();  // the run's, before finish() drops the unread set-up
  const bool region_never_begun = a.in_set_up();  // said in the profile, not on the program's stderr
  a.finish();
  const char* env = std::getenv("COMMANALYZER_PROFILE");
  const std::string path = env && *env ? env : "commanalyzer.profile";
  const auto& s = a.stats();
  commanalyzer::ProfileInfo info;
  info.word_bytes = RuntimeAnalyzer::kWordBytes;
  info.metadata = "runtime_loads=" + std::to_string(s.loads) + " stores=" + std::to_string(s.stores) +
                  " replications=" + std::to_string(s.replications) + " creations=" + std::to_string(s.creations) +
                  " inputs=" + std::to_string(s.inputs) + " uses=" + std::to_string(s.uses) + " analysis_memory_bytes=" + std::to_string(memory.total()) +
                  " shadow_bytes=" + std::to_string(memory.shadow) + " label_bytes=" + std::to_string(memory.labels) +
                  " value_bytes=" + std::to_string(memory.values) + " flow_bytes=" + std::to_string(memory.flows) +
                  " vertex_table_bytes=" + std::to_string(memory.vertex_tables) +
                  " label_nodes=" + std::to_string(a.slicer().node_count()) +
                  " label_collections=" + std::to_string(a.slicer().collections()) +
                  (region_never_begun ? " region=never-begun" : "");
  try {
    commanalyzer::save_profile(path, a.profile(), info);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "commanalyzer runtime: %s\n", e.what());
  }
}

// ------------------------------------------------ reclaiming slice labels
//
// The label DAG would otherwise keep 16 bytes per computation for the whole
// run. The pass keeps labels only in SSA values (registers and their stack
// spill slots) and in the __ca_arg_labels / __ca_ret_label slots; never in
// the heap or in globals. So every label still in use is in a callee-saved
// register, on the stack between the hook and the bottom of the main
// thread's stack, or in those slots: the roots of a collection
// (UnionDagSlicer::enable_collection). The scan is conservative (any word
// that looks like a live node's label keeps it), so stale stack words only
// keep a few nodes longer. It runs only on the main thread's stack; called
// anywhere else (a signal handler's alternate stack, a user-level context)
// it reclaims nothing.
// COMMANALYZER_LABEL_GC=0 turns it off; COMMANALYZER_LABEL_GC_NODES sets the
// arena size below which nothing is collected (default 2^16 nodes, 1 MiB: a
// small arena stays in cache; it grows to 1.5 times what is live, and so that a
// collection's stack scan is paid for by as many new nodes).
}  // namespace

extern "C" void* __libc_stack_end;  // glibc: the initial stack pointer of the main thread

namespace {
std::uintptr_t g_stack_top = 0;     // highest address of the main stack that can hold frames
std::uintptr_t g_stack_bottom = 0;  // lowest address it may grow to

// ------------------------------------------------------ stack temporaries
//
// Small locals the optimizer could keep in registers are registers at every
// -O level (DESIGN.md, "Optimizer independence": stack temporaries are
// private to their process). The pass announces each local still in memory
// (__ca_stack_temp for small ones, __ca_stack_mem for the others); a store
// into a temporary keeps the stored *label* there, as a register would, and
// a load gives it back: no value instance is created, and a gather array
// that -O2 unrolls into registers gives the same profile as the array in
// memory at -O0/-O1, even when its address is passed to a callee. Only the
// main thread's stack is covered; elsewhere locals are memory.
// Per 4-byte word of the stack, counted down from its top: a label and a
// flag (1: a temporary's word).
struct StackTemps {
  std::uintptr_t bottom = 0, top_word = 0;  // addresses [bottom, top) ; top_word = (top - 1) / 4
  std::uintptr_t span = 0;
  ca_label* labels = nullptr;
  std::uint8_t* temp = nullptr;
  std::size_t deepest = 0;  // highest index marked temporary so far, + 1

  bool on_stack(const void* p) const { return reinterpret_cast<std::uintptr_t>(p) - bottom < span; }
  std::size_t index(std::uintptr_t a) const { return top_word - a / CA_SHADOW_WORD_BYTES; }
  // Is p (on the stack or not) in a temporary?
  bool holds(const void* p) const { return labels != nullptr && on_stack(p) && temp[index(reinterpret_cast<std::uintptr_t>(p))]; }
  // Calls fn(slot index) for the words of [p, p + size): indices decrease.
  template <class Fn>
  void for_words(const void* p, std::uint64_t size, Fn fn) const {
    if (size == 0) return;
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    const std::size_t first = index(a), last = index(a + size - 1);
    for (std::size_t k = first + 1; k-- > last;) fn(k);
  }
};
StackTemps g_stack_temps;

// Instrumented frames are larger than the program's own: every value has a
// label beside it, and at -O0 the code generator gives each its own stack
// slot (a 48-byte frame becomes 176). So that a program recursing as deep
// as its native build allows runs instrumented too, the main stack may grow
// 8 times as far (at most to 96 MiB, well inside the 128 MiB the kernel
// keeps free below the stack; never past the hard limit). The kernel
// reads the limit as the stack grows.
void widen_main_stack() {
  struct rlimit limit {};
  if (getrlimit(RLIMIT_STACK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
  constexpr rlim_t kMost = rlim_t{96} << 20;
  rlim_t wanted = std::max(limit.rlim_cur, std::min(limit.rlim_cur * 8, kMost));
  if (limit.rlim_max != RLIM_INFINITY) wanted = std::min(wanted, limit.rlim_max);
  if (wanted == limit.rlim_cur) return;
  limit.rlim_cur = wanted;
  setrlimit(RLIMIT_STACK, &limit);
}

void start_stack_temps() {
  widen_main_stack();
  struct rlimit limit {};
  std::uintptr_t depth = std::uintptr_t{1} << 30;  // an unlimited stack: assume at most 1 GiB
  if (getrlimit(RLIMIT_STACK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) depth = limit.rlim_cur;
  g_stack_top = (reinterpret_cast<std::uintptr_t>(__libc_stack_end) + 7) & ~std::uintptr_t{7};
  g_stack_bottom = g_stack_top > depth ? g_stack_top - depth : 0;
  if (const char* off = std::getenv("COMMANALYZER_STACK_TEMPS"); off != nullptr && std::string(off) == "0") return;
  StackTemps& t = g_stack_temps;
  t.bottom = g_stack_bottom;
  t.span = g_stack_top - g_stack_bottom;
  t.top_word = (g_stack_top - 1) / CA_SHADOW_WORD_BYTES;
  const std::size_t words = t.span / CA_SHADOW_WORD_BYTES + 2;
  void* labels = mmap(nullptr, words * sizeof(ca_label), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  void* temp = mmap(nullptr, words, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (labels == MAP_FAILED || temp == MAP_FAILED) return;  // locals stay memory
  t.labels = static_cast<ca_label*>(labels);
  t.temp = static_cast<std::uint8_t*>(temp);
}

// Zeroes the stack the analysis used below the calling hook's frame. The
// scan below is conservative: a later frame made in the same place, with a
// word it has not written, would show a stale label there as a root and
// keep every node below it alive. Stale small labels cost little; a big
// one (a sweep's residual, flattened when the sweep's loop is left) keeps
// the whole sweep, so after a hook that flattened one, the analyzer's dead
// frames (the walks' arrays, a few KiB) are cleared: 16 KiB covers them
// with room to spare. One memset, kept by the empty asm that says the
// array is read: a loop of volatile stores wrote a word a cycle, and a
// dot product's every result pays for it (11 % of MatMul's run).
[[gnu::noinline]] void forget_dead_frames() {
  ca_label words[2048];
  std::memset(words, 0, sizeof words);
  asm volatile("" : : "r"(words) : "memory");
}
inline void forget_big_walk() {
  if (g_analyzer != nullptr && __builtin_expect(g_analyzer->slicer().walked_big_label(), 0)) forget_dead_frames();
}

[[gnu::noinline]] bool scan_stack_from_here(commanalyzer::UnionDagSlicer& slicer) {
  volatile std::uint64_t here = 0;  // below the frames (and spilled registers) of every caller
  const auto from = reinterpret_cast<std::uintptr_t>(&here) & ~std::uintptr_t{7};
  if (from < g_stack_bottom || from >= g_stack_top) return false;  // not on the main stack
  slicer.mark_roots(reinterpret_cast<const std::uint64_t*>(from), reinterpret_cast<const std::uint64_t*>(g_stack_top));
  return true;
}

[[gnu::noinline]] bool scan_label_roots(void*, commanalyzer::UnionDagSlicer& slicer) {
  __builtin_unwind_init();  // every callee-saved register now sits in this frame
  if (!scan_stack_from_here(slicer)) return false;
  slicer.mark_roots(__ca_arg_labels, __ca_arg_labels + CA_MAX_ARG_LABELS);
  slicer.mark_root(__ca_ret_label);
  if (g_stack_temps.labels != nullptr) {  // labels kept in stack temporaries
    slicer.mark_roots(g_stack_temps.labels, g_stack_temps.labels + g_stack_temps.deepest);
  }
  return true;
}

void enable_label_collection(RuntimeAnalyzer& a) {
  const char* off = std::getenv("COMMANALYZER_LABEL_GC");
  if (off != nullptr && std::string(off) == "0") return;
  std::size_t min_nodes = std::size_t{1} << 16;
  if (const char* n = std::getenv("COMMANALYZER_LABEL_GC_NODES"); n != nullptr && *n != '\0') {
    min_nodes = std::strtoull(n, nullptr, 10);
  }
  a.slicer().enable_collection(scan_label_roots, nullptr, min_nodes);
}

// ------------------------------------------------------------ fork
void note_fork_in_child() { g_forked_child = true; }

void note_fork_in_parent() {
  static bool warned = false;
  if (warned) return;
  warned = true;
  report_status("warning",
                "the program forked; only the parent process is analysed: what a child computes, and what it "
                "sends back to the parent, is not in the estimate");
}

// ------------------------------------------------------- recording window
//
// $COMMANALYZER_RECORD_ITERATIONS=K (analyze sets it to one more than
// --record-iterations: the last looks ahead): the region's first K
// iterations are recorded. At the K-th iteration mark the
// analysis stops (Analyzer::stop_recording): from then on every hook
// returns at once, and the program runs on with the hooks' calls only.
// The marks it still makes in the region are counted into the profile.
std::size_t g_record_iterations = 0;  // 0: every iteration
bool g_stopped = false;               // the recording window has ended
bool g_region_open = false;           // ... and the region goes on: its marks are counted

void start_recording_window() {
  const char* text = std::getenv("COMMANALYZER_RECORD_ITERATIONS");
  if (text != nullptr && *text != '\0') g_record_iterations = std::strtoull(text, nullptr, 10);
}

void stop_recording(RuntimeAnalyzer& a) {
  a.stop_recording();
  g_stopped = g_region_open = true;
  // The inline paths call the hooks from now on (as PausedRecording has them do).
  std::fill(__ca_shadow_cache, __ca_shadow_cache + CA_SHADOW_CACHE_ENTRIES, ShadowCacheEntry{});
  __ca_node_run = {};
}

// ------------------------------------------------------------ memory limit
//
// $COMMANALYZER_MAX_MEMORY (bytes, set from --max-memory): the process's
// resident memory is checked every kMemoryCheckEvery stores (a read of /proc/self/statm, a few microseconds) and every
// kMemoryCheckBytes allocated; past it the run stops, naming the largest
// part of the analysis.
constexpr std::uint32_t kMemoryCheckEvery = 1u << 18;
constexpr std::size_t kMemoryCheckBytes = std::size_t{64} << 20;
std::uint64_t g_max_memory = 0;       // 0: no limit
std::uint32_t g_stores_to_check = 0;  // counts down
std::size_t g_allocated_to_check = 0;

void start_memory_limit() {
  const char* text = std::getenv("COMMANALYZER_MAX_MEMORY");
  if (text != nullptr && *text != '\0') g_max_memory = std::strtoull(text, nullptr, 10);
  g_stores_to_check = kMemoryCheckEvery;
  g_allocated_to_check = kMemoryCheckBytes;
}

std::uint64_t resident_bytes() {
  const int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[128] = {};
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return 0;
  char* rest = nullptr;
  std::strtoull(text, &rest, 10);
  return std::strtoull(rest, nullptr, 10) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

std::string mib(std::uint64_t bytes) { return std::to_string((bytes + (1u << 19)) >> 20) + " MiB"; }

[[gnu::noinline, gnu::cold]] void check_memory() {
  g_stores_to_check = kMemoryCheckEvery;
  g_allocated_to_check = kMemoryCheckBytes;
  if (g_max_memory == 0 || g_analyzer == nullptr) return;
  const std::uint64_t resident = resident_bytes();
  if (resident <= g_max_memory) return;
  RuntimeAnalyzer& a = *g_analyzer;
  const auto memory = a.memory_parts();
  struct Part {
    const char* name;
    std::uint64_t bytes;
  } parts[] = {{"slice labels (label DAG)", memory.labels},
               {"shadow memory", memory.shadow},
               {"value instances", memory.values},
               {"vertices (home, instances, array)", memory.vertex_tables},
               {"value-flow chains", memory.flows}};
  const std::uint64_t analysis = memory.total();
  const Part* largest = &parts[0];
  std::string list;
  for (const Part& p : parts) {
    if (p.bytes > largest->bytes) largest = &p;
    list += std::string(list.empty() ? "" : ", ") + p.name + " " + mib(p.bytes);
  }
  const std::uint64_t program = resident > analysis ? resident - analysis : 0;
  const std::string grew = program > largest->bytes ? std::string("the program's own memory") : largest->name;
  // A time loop that got through some iterations can be analysed from its first ones.
  const std::size_t marks = a.profile().iterations();
  const std::string window =
      marks >= 4 ? ", or analyse fewer iterations: the region had completed " + std::to_string(marks) +
                       ", and --record-iterations K (K < " + std::to_string(marks - 1) +
                       ") costs its first K, looks one further, and counts each later one as the K-th"
                 : "";
  report_status("limit", "the instrumented program's memory (" + mib(resident) + ") passed --max-memory (" +
                             mib(g_max_memory) + "); the largest part is " + grew + " [" + list + ", the program " +
                             mib(program) + "]; stopped, no estimate: give more memory or a smaller problem" +
                             window);
  _exit(3);
}

[[gnu::noinline, gnu::cold]] RuntimeAnalyzer& start() {
  InRuntime guard;
  g_analyzer = new RuntimeAnalyzer();  // never freed: hooks may run during exit
  g_analyzer->shadow().share_cache(__ca_shadow_cache);
  g_analyzer->slicer().share_run(&__ca_node_run);
  start_stack_temps();
  enable_label_collection(*g_analyzer);
  start_memory_limit();
  start_recording_window();
  pthread_atfork(nullptr, note_fork_in_parent, note_fork_in_child);
  std::atexit(write_profile_at_exit);
  return *g_analyzer;
}

inline RuntimeAnalyzer& analyzer() {
  if (__builtin_expect(g_analyzer == nullptr, 0)) return start();
  return *g_analyzer;
}

// Start before any instrumented static constructor can run.
[[gnu::constructor(101)]] void start_early() { analyzer(); }

inline commanalyzer::Address address(const void* p) { return reinterpret_cast<commanalyzer::Address>(p); }

}  // namespace

// ------------------------------------------------------ heap allocations
//
// malloc & co. are interposed (the runtime is linked into the program) so
// the analyzer knows which array a location belongs to. glibc's __libc_*
// entry points do the real work.

extern "C" {
void* __libc_malloc(size_t);
void* __libc_memalign(size_t, size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void __libc_free(void*);
}

namespace {

// The site the pass announced for the program's next allocation
// (__ca_allocation_site); none pending: the allocation is a library's.
bool g_site_pending = false;
uint32_t g_pending_site = 0;

void note_allocation(void* p, size_t n) {
  if (g_stopped) {  // the arrays the program allocates after the window are not its data
    g_site_pending = false;
    return;
  }
  if (n >= g_allocated_to_check) {
    check_memory();
  } else {
    g_allocated_to_check -= n;
  }
  if (t_in_runtime) return;  // the analyzer's own: the program's site stays pending
  const bool by_program = g_site_pending;
  const uint32_t site = g_pending_site;
  g_site_pending = false;
  g_pending_site = 0;
  if (p == nullptr || n < RuntimeAnalyzer::kMinTrackedAllocation || g_analyzer == nullptr) return;
  InRuntime guard;
  g_analyzer->allocation(address(p), n, site, by_program);
}

// Freed memory holds no values: without clearing, a later allocation at the
// same address would see the old block's values (no inputs where the program
// reads fresh memory), and the profile would depend on the heap's layout.
void note_release(void* p, size_t size) {
  if (p == nullptr || g_analyzer == nullptr || t_in_runtime) return;
  InRuntime guard;
  g_analyzer->clear(address(p), size);
  g_analyzer->release(address(p));
  if (address(p) == __ca_indirect_first) __ca_indirect_first = __ca_indirect_end = 0;  // a new array may come here
}

// realloc's own copy is not instrumented: the moved values are replicated
// as memcpy would.
void note_move(void* to, const void* from, size_t size) {
  if (g_analyzer == nullptr || t_in_runtime || size == 0 || g_stopped) return;
  InRuntime guard;
  g_analyzer->copy(address(to), address(from), size);
}
}  // namespace

extern "C" {

void* malloc(size_t n) {
  void* p = __libc_malloc(n);
  note_allocation(p, n);
  return p;
}

// Aligned allocations (posix_memalign, aligned_alloc, memalign: what
// numerical codes use for SIMD-friendly arrays) are arrays too.
int posix_memalign(void** out, size_t alignment, size_t n) {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* p = __libc_memalign(alignment, n);
  if (p == nullptr) return ENOMEM;
  note_allocation(p, n);
  *out = p;
  return 0;
}

void* aligned_alloc(size_t alignment, size_t n) {
  void* p = __libc_memalign(alignment, n);
  note_allocation(p, n);
  return p;
}

void* memalign(size_t alignment, size_t n) {
  void* p = __libc_memalign(alignment, n);
  note_allocation(p, n);
  return p;
}

void* calloc(size_t count, size_t n) {
  void* p = __libc_calloc(count, n);
  note_allocation(p, count * n);
  return p;
}

void* realloc(void* old, size_t n) {
  const size_t old_size = old != nullptr ? malloc_usable_size(old) : 0;
  void* p = __libc_realloc(old, n);
  if (p != nullptr && p != old && old != nullptr) {
    note_move(p, old, old_size < n ? old_size : n);
    note_release(old, old_size);
  }
  note_allocation(p, n);
  return p;
}

void free(void* p) {
  note_release(p, p != nullptr ? malloc_usable_size(p) : 0);
  __libc_free(p);
}

ca_label __ca_load(const void* addr, uint32_t size) {
  if (g_stopped) return 0;
  InRuntime guard;
  RuntimeAnalyzer& a = analyzer();
  if (g_stack_temps.holds(addr)) {  // a temporary: the label stored there
    ca_label label = 0;
    bool first = true;
    g_stack_temps.for_words(addr, size, [&](std::size_t k) {
      const ca_label l = g_stack_temps.labels[k];
      label = first || l == label ? l : a.join(label, l);
      first = false;
    });
    return label;
  }
  return a.load(address(addr), size);
}

ca_label __ca_store(void* addr, uint32_t size, ca_label label, uint32_t site) {
  if (g_stopped) return 0;
  ca_label stored;
  {
    InRuntime guard;
    RuntimeAnalyzer& a = analyzer();
    if (__builtin_expect(--g_stores_to_check == 0, 0)) check_memory();
    if (g_stack_temps.holds(addr)) {
      g_stack_temps.for_words(addr, size, [&](std::size_t k) { g_stack_temps.labels[k] = label; });
      return label;
    }
    stored = a.store(address(addr), size, label, site);
  }
  forget_big_walk();
  return stored;
}

ca_label __ca_store_union(void* addr, uint32_t size, uint32_t count, uint32_t site) {
  if (g_stopped) return 0;
  InRuntime guard;
  RuntimeAnalyzer& a = analyzer();
  if (g_stack_temps.holds(addr)) return CA_STORE_NEEDS_LABEL;  // it keeps the label itself
  ca_label stored;
  if (!a.store_union(address(addr), size, std::span<const ca_label>(__ca_store_labels, count), site, stored)) {
    return CA_STORE_NEEDS_LABEL;
  }
  if (__builtin_expect(--g_stores_to_check == 0, 0)) check_memory();
  return stored;
}

void __ca_sites(const ca_site* sites, uint32_t count) {
  InRuntime guard;
  RuntimeAnalyzer& a = analyzer();
  for (uint32_t k = 0; k < count; ++k) {
    const ca_site& s = sites[k];
    a.site(s.id, s.file ? s.file : "", s.line, s.loop_file ? s.loop_file : "", s.loop_line);
  }
}

void __ca_allocation_site(uint32_t site) {
  g_site_pending = true;
  g_pending_site = site != 0 ? site : __ca_user_site;
}

void __ca_array_sites(const ca_array_site* sites, uint32_t count) {
  InRuntime guard;
  RuntimeAnalyzer& a = analyzer();
  for (uint32_t k = 0; k < count; ++k) {
    const ca_array_site& s = sites[k];
    a.array_site(s.id, s.file ? s.file : "", s.line, s.name ? s.name : "");
  }
}

void __ca_clear(void* addr, uint64_t size) {
  if (g_stopped) return;
  InRuntime guard;
  RuntimeAnalyzer& a = analyzer();
  if (g_stack_temps.holds(addr)) {
    g_stack_temps.for_words(addr, size, [&](std::size_t k) { g_stack_temps.labels[k] = 0; });
    return;
  }
  a.clear(address(addr), size);
}

void __ca_store_pointer(void* addr, const void* value) {
  if (g_stopped) return;
  __ca_clear(addr, sizeof(void*));
  if (g_stack_temps.holds(addr)) return;
  InRuntime guard;
  analyzer().pointer_stored(address(addr), address(value));
}

void __ca_memcpy(void* dst, const void* src, uint64_t size) {
  if (g_stopped) return;
  InRuntime guard;
  RuntimeAnalyzer& a = analyzer();
  StackTemps& t = g_stack_temps;
  const bool to_temp = t.holds(dst), from_temp = t.holds(src);
  if (!to_temp && !from_temp) {
    a.copy(address(dst), address(src), size);
    return;
  }
  const std::uint64_t words = (size + CA_SHADOW_WORD_BYTES - 1) / CA_SHADOW_WORD_BYTES;
  static thread_local std::vector<ca_label> buffer;  // the source's labels, word by word
  buffer.assign(words, 0);
  for (std::uint64_t k = 0; k < words; ++k) {
    const auto at = address(src) + k * CA_SHADOW_WORD_BYTES;
    if (from_temp) {
      buffer[k] = t.labels[t.index(at)];
    } else if (const commanalyzer::ValueId v = a.value_at(at); v != commanalyzer::kNoValue) {
      buffer[k] = a.slicer().leaf(v);
    }
  }
  if (to_temp) {
    for (std::uint64_t k = 0; k < words; ++k) t.labels[t.index(address(dst) + k * CA_SHADOW_WORD_BYTES)] = buffer[k];
    return;
  }
  // Out of a temporary into memory: one store per run of words with one
  // label (at most 8 bytes: a double), as the temporary's fields would be
  // stored one by one.
  for (std::uint64_t k = 0; k < words;) {
    std::uint64_t n = 1;
    while (k + n < words && n * CA_SHADOW_WORD_BYTES < 8 && buffer[k + n] == buffer[k]) ++n;
    const std::uint64_t bytes = std::min<std::uint64_t>(n * CA_SHADOW_WORD_BYTES, size - k * CA_SHADOW_WORD_BYTES);
    a.store(address(dst) + k * CA_SHADOW_WORD_BYTES, static_cast<std::uint32_t>(bytes), buffer[k]);
    k += n;
  }
}

// The analysis follows one thread: a second one would race on the shadow
// memory and label DAG and give a different wrong answer every run.
int pthread_create(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*) __THROWNL {
  report_status("refused",
                "the program starts a thread (pthread_create); the analysis follows one thread only, so it "
                "cannot estimate a threaded program: analyse its sequential version");
  _exit(2);
}

void __ca_array(const void* addr, uint64_t size) { note_allocation(const_cast<void*>(addr), size); }

void __ca_indexed_indirectly(const void* addr) {
  if (g_analyzer == nullptr || t_in_runtime || g_stopped) return;
  InRuntime guard;
  const auto [first, end] = g_analyzer->indexed_indirectly(address(addr));
  if (first != end) __ca_indirect_first = first, __ca_indirect_end = end;
}

void __ca_memset(void* dst, uint64_t size) {
  if (g_stopped) return;
  InRuntime guard;
  RuntimeAnalyzer& a = analyzer();
  if (g_stack_temps.holds(dst)) {
    g_stack_temps.for_words(dst, size, [&](std::size_t k) { g_stack_temps.labels[k] = CA_COMPUTED_BIT; });
    return;
  }
  a.fill(address(dst), size);
}

void __ca_stack_temp(void* addr, uint64_t size) {
  if (g_stopped) return;
  InRuntime guard;
  RuntimeAnalyzer& a = analyzer();
  StackTemps& t = g_stack_temps;
  if (t.labels == nullptr || size == 0 || !t.on_stack(addr) || !t.on_stack(static_cast<char*>(addr) + size - 1)) return;
  a.clear(address(addr), size);  // values an earlier frame left there
  t.for_words(addr, size, [&](std::size_t k) {
    t.temp[k] = 1;
    t.labels[k] = 0;
  });
  t.deepest = std::max(t.deepest, t.index(address(addr)) + 1);
}

void __ca_stack_mem(void* addr, uint64_t size) {
  if (g_stopped) return;
  InRuntime guard;
  StackTemps& t = g_stack_temps;
  if (t.labels == nullptr || size == 0 || !t.on_stack(addr)) return;
  if (!t.on_stack(static_cast<char*>(addr) + size - 1)) size = g_stack_top - address(addr);
  t.for_words(addr, size, [&](std::size_t k) { t.temp[k] = 0; });
}

ca_label __ca_union(ca_label a, ca_label b) {
  if (g_stopped) return 0;
  InRuntime guard;
  return analyzer().join(a, b);
}

void __ca_use(ca_label label, uint32_t site) {
  if (g_stopped) return;
  {
    InRuntime guard;
    analyzer().use(label, site);
  }
  forget_big_walk();
}

ca_label __ca_value(ca_label label, uint32_t site) {
  if (g_stopped) return 0;
  ca_label result;
  {
    InRuntime guard;
    result = analyzer().loop_result(label, site);
  }
  forget_big_walk();
  return result;
}

void __ca_expect_region(void) {
  InRuntime guard;
  analyzer().expect_region();
}

void __commanalyzer_region_begin(void) {
  if (g_stopped) return;
  InRuntime guard;
  analyzer().region_begin();
  __ca_indirect_first = __ca_indirect_end = 0;  // marks restart with the region
}
void __commanalyzer_region_end(void) {
  g_region_open = false;
  if (g_stopped) return;
  InRuntime guard;
  analyzer().region_end();
}
void __commanalyzer_iteration(void) {
  InRuntime guard;
  RuntimeAnalyzer& a = analyzer();
  if (g_stopped) {
    if (g_region_open) a.unrecorded_iteration();
    return;
  }
  a.iteration();
  if (g_record_iterations != 0 && a.profile().iterations() == g_record_iterations) stop_recording(a);
}

}  // extern "C"

// ------------------------------------------------- for the test queries
// (runtime_debug.cpp: an archive of its own, linked before this one, that a
// program takes only if it calls them, so no other carries the estimator)

namespace commanalyzer::runtime {

RuntimeAnalyzer& recording_analyzer() { return analyzer(); }

PausedRecording::PausedRecording() : recorded_(analyzer()), saved_run_(__ca_node_run) {
  g_analyzer = &scratch_;
  std::copy(__ca_shadow_cache, __ca_shadow_cache + CA_SHADOW_CACHE_ENTRIES, saved_cache_);
  std::fill(__ca_shadow_cache, __ca_shadow_cache + CA_SHADOW_CACHE_ENTRIES, ShadowCacheEntry{});
  __ca_node_run = {};  // inline unions call the scratch analyzer meanwhile
}

PausedRecording::~PausedRecording() {
  g_analyzer = &recorded_;
  std::copy(saved_cache_, saved_cache_ + CA_SHADOW_CACHE_ENTRIES, __ca_shadow_cache);
  __ca_node_run = saved_run_;
}

}  // namespace commanalyzer::runtime

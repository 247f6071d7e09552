// The C ABI between the LLVM pass (instrument/pass.cpp) and the runtime
// (instrument/runtime.cpp). The pass emits calls to these hooks; the runtime
// forwards them to commanalyzer::Analyzer with the default policies.
//
// Labels. Every SSA value of a data type carries a shadow *label* (ca_label):
//   0                  no data dependence (constants, addresses, loop control)
//   a leaf label       exactly one value instance, straight from a load
//   a computed label   the result of at least one computation step; a store of
//                      it creates a new value instance whose sources are the
//                      leaves reachable from it (the thin slice)
// Labels are opaque to the pass except for the two rules below, which let it
// inline the common cases without calling the runtime:
//   - a label is "none" iff it equals 0;
//   - ca_label_compute(a) == a | CA_COMPUTED_BIT (including a == 0: a
//     computation from constants only is still a computation);
//     correspondingly __ca_union(0, b) == b | CA_COMPUTED_BIT (and
//     __ca_union(a, 0) == a | CA_COMPUTED_BIT).
#ifndef COMMANALYZER_INSTRUMENT_RUNTIME_ABI_H_
#define COMMANALYZER_INSTRUMENT_RUNTIME_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t ca_label;

#define CA_COMPUTED_BIT (UINT64_C(1) << 63)
#define CA_MAX_ARG_LABELS 64

// Memory. size is the access size in bytes (1..64).
// A leaf label is the value id itself (bits 32..63 clear), and the pass may
// serve a load inline from the runtime's shadow memory, as __ca_load would:
// word w = addr / CA_SHADOW_WORD_BYTES lies in page p = w >> CA_SHADOW_PAGE_BITS;
// the entry __ca_shadow_cache[(p * CA_SHADOW_CACHE_MULTIPLIER) >> (64 - 6)]
// is {p, page} if page p is cached, and page[w & (2^CA_SHADOW_PAGE_BITS - 1)]
// is the uint32_t value id word w holds (0: none). When every word of the
// access is in one cached page and holds the same non-zero id v, the load's
// label is v, without a call to __ca_load, and without counting the load
// (a counter in memory cost 0-9 %, about 3 %, of a stencil's run). Anything
// else: the call.
// (Declared here for the pass's benefit; runtime.cpp defines them with the
// shadow memory's own entry type.)
#define CA_SHADOW_WORD_BYTES 4
#define CA_SHADOW_PAGE_BITS 10  // a shadow page per 4 KiB of the program's (shadow_memory.h)
#define CA_SHADOW_CACHE_ENTRIES 64
#define CA_SHADOW_CACHE_MULTIPLIER UINT64_C(0x9E3779B97F4A7C15)
ca_label __ca_load(const void* addr, uint32_t size);
// A store returns the label of what the location now holds: a leaf, the
// replicated value (label itself, if it is a leaf) or the new value instance.
// A register whose computed value has been stored stands, from then on, for
// the stored instance (DESIGN.md, "Optimizer independence"): the pass gives
// the uses of that register the store's result, what a reload at -O0 gives.
// `site`: the source site of the store (__ca_sites), 0 if unknown.
ca_label __ca_store(void* addr, uint32_t size, ca_label label, uint32_t site);
// The same store, of a value computed in the storing block from `count`
// labels (at most CA_MAX_STORE_LEAVES, in __ca_store_labels[0, count)) and
// used by nothing else: its label is their union, which the pass does not
// make. A stencil's point update is such a tree of sums over loaded
// values; making its union nodes only for the store to flatten them again
// cost a node write and read per operand. When the labels are leaves and
// pairs naming at least three values, the union would be a node made for
// the store and nothing else: the store records their set and returns as
// __ca_store. Otherwise (a node among them, fewer values, a stack
// temporary at addr) it records nothing and returns CA_STORE_NEEDS_LABEL:
// the caller makes the union and calls __ca_store.
#define CA_MAX_STORE_LEAVES 16
#define CA_STORE_NEEDS_LABEL (~UINT64_C(0))
ca_label __ca_store_union(void* addr, uint32_t size, uint32_t count, uint32_t site);
// A store of pointer-typed data: structure, not a value; kills what was there.
void __ca_clear(void* addr, uint64_t size);
// A store of one pointer (`value`) to `addr`: as __ca_clear of a pointer's
// size, and, when `value` starts a tracked heap block and `addr` lies in
// another, that block is a row of a table of rows (u[i] = malloc(...), a
// std::vector<std::vector<double>>): Analyzer::pointer_stored.
void __ca_store_pointer(void* addr, const void* value);
// Locals still in memory (allocas): __ca_stack_temp announces a small one,
// a temporary the optimizer could keep in registers (at most
// CA_MAX_STACK_TEMPORARY bytes); __ca_stack_mem any other. Called where the
// local is allocated, every time. A temporary holds labels, as a register
// does: a store into it keeps the stored label (and returns it), a load gives
// it back, no value instance is created or read (DESIGN.md, "Optimizer
// independence": stack temporaries are private to their process). Its
// words hold label 0 until stored.
#define CA_MAX_STACK_TEMPORARY 512
void __ca_stack_temp(void* addr, uint64_t size);
void __ca_stack_mem(void* addr, uint64_t size);
// memcpy/memmove: values are replicated, not created.
void __ca_memcpy(void* dst, const void* src, uint64_t size);
// memset: new constant values.
void __ca_memset(void* dst, uint64_t size);
// A global or static array of the program (the pass registers those of 1 KiB
// or more from a constructor): an array as a heap allocation is, so a data
// distribution can name and align it.
void __ca_array(const void* addr, uint64_t size);
// An access at an index read from an array (x[col[k]], the pass decides):
// the array holding addr is addressed irregularly, which an MPI code
// distributes by a graph partition rather than in blocks. Once marked, the
// array's extent is [__ca_indirect_first, __ca_indirect_end): the pass
// calls only for addresses outside it.
void __ca_indexed_indirectly(const void* addr);
extern uintptr_t __ca_indirect_first, __ca_indirect_end;

// Computation: the label of an instruction with two data operands.
// Callers may skip the call when a == 0 && b == 0 (result: CA_COMPUTED_BIT)
// or a == b (result: a | CA_COMPUTED_BIT), and more generally when a and b
// are equal once their CA_COMPUTED_BIT is cleared (result: that | the bit).
// When a' and b' (below) are both non-zero, distinct and below 2^30 (plain
// leaves), they may make the *pair* label themselves, without memory:
// CA_PAIR_BIT | min(a', b') << 30 | max(a', b') | CA_COMPUTED_BIT.
// They may also make the union node themselves, from the runtime's run of
// free node slots (commanalyzer::UnionDagSlicer::NodeRun):
//   struct { struct { uint64_t a, b; } *base; uint64_t next, end; } __ca_node_run;
// When a' = a & ~CA_COMPUTED_BIT and b' = b & ~CA_COMPUTED_BIT are both
// non-zero and distinct and next != end: base[next] = {a', b'}; the label is
// next | CA_NODE_BIT | CA_COMPUTED_BIT; next += 1. Only the runtime refills
// the run (inside __ca_union), so base is read after next and end.
#define CA_NODE_BIT (UINT64_C(1) << 62)
#define CA_PAIR_BIT (UINT64_C(1) << 61)
#define CA_PAIR_SHIFT 30
ca_label __ca_union(ca_label a, ca_label b);

// Control flow: the data `label` decides a conditional branch or switch at
// static site `site` (an id unique within the module, e.g. a hash of the
// function name and the instruction's position; collisions are harmless).
// In SPMD every process takes the same branch, so the data is consumed
// there even if it never reaches memory (a global residual tested in a loop
// condition). Callers may skip the call when the label is 0 or can only be
// 0 or CA_COMPUTED_BIT (derived from constants and loop counters only).
void __ca_use(ca_label label, uint32_t site);
// A loop's result leaving the loop at static `site` (a reduction, a minimum,
// a carried value used after the loop): a compound label becomes one value
// instance (at the site's virtual location); the label of that instance is
// returned, as a reload of a local holding the result would give. Other
// labels come back unchanged.
ca_label __ca_value(ca_label label, uint32_t site);

// Calls between instrumented functions. Before a call the caller writes the
// argument labels and sets __ca_arg_callee to the callee's address; an
// instrumented callee reads the labels only if __ca_arg_callee is its own
// address (so callbacks from uninstrumented code see no stale labels), then
// resets it to 0. Before returning, an instrumented callee writes
// __ca_ret_label and sets __ca_ret_valid = 1; the caller sets
// __ca_ret_valid = 0 before the call and, if it is still 0 afterwards, treats
// the result as data from an uninstrumented source (CA_COMPUTED_BIT).
extern __thread ca_label __ca_arg_labels[CA_MAX_ARG_LABELS];
extern __thread const void* __ca_arg_callee;
extern __thread ca_label __ca_ret_label;
extern __thread uint32_t __ca_ret_valid;
// __ca_store_union's labels, written right before the call.
extern __thread ca_label __ca_store_labels[CA_MAX_STORE_LEAVES];

// Source sites: where the statements that store computed values, decide
// branches (__ca_use) and take loop results (__ca_value) are. Each module
// registers its table from a constructor; ids are the ones passed to
// those hooks (a hash of the location: the same line has one id in every
// module). file, line: the statement's; loop_file, loop_line: the loop
// the statement is swept by (line 0 if none), which may be in another file
// (a header's function inlined into a loop).
typedef struct {
  uint32_t id, line, loop_line;
  const char* file;
  const char* loop_file;
} ca_site;
void __ca_sites(const ca_site* sites, uint32_t count);

// Allocation sites: which statement of the program allocated an array,
// and the variable it went into, so reports name arrays `u (heat.c:31)`
// and leave out a library's own buffers (stdout's, allocated inside
// printf). Right before each call of the program that allocates (malloc,
// calloc, realloc, aligned_alloc, posix_memalign, memalign, operator new)
// and each global array's __ca_array, the pass calls
// __ca_allocation_site(site): the runtime's next allocation is the
// program's, at that site. site 0: the call is in a library header's code
// (a std::vector's operator new at -O0): its site is the program's call
// into the library, __ca_user_site. Before a call from the program's code
// into a function defined in a system header, the pass saves
// __ca_user_site, sets it to the call's site, and restores it after, so
// the allocation is named where the user wrote it, at every -O level.
// An allocation with no __ca_allocation_site before it is a library's.
void __ca_allocation_site(uint32_t site);
extern uint32_t __ca_user_site;
// The sites' table, one per module from a constructor, as __ca_sites
// (ids: a hash of file, line and name). name: the variable ("" if none).
typedef struct {
  uint32_t id, line;
  const char* file;
  const char* name;
} ca_array_site;
void __ca_array_sites(const ca_array_site* sites, uint32_t count);

// A module that calls __commanalyzer_region_begin (CA_REGION_BEGIN) calls
// this from a constructor: the program marks a region, and what comes
// before it is set-up whose flows the region discards (Analyzer::
// expect_region).
void __ca_expect_region(void);

// Region of interest and iteration marks (include/commanalyzer/annotate.h).
void __commanalyzer_region_begin(void);
void __commanalyzer_region_end(void);
void __commanalyzer_iteration(void);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // COMMANALYZER_INSTRUMENT_RUNTIME_ABI_H_

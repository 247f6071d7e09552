// A tiny tracing runtime for testing the pass (instrument/pass.cpp) without
// the analysis library. It implements every hook of runtime_abi.h with a toy
// shadow memory and prints one line per event to $CA_TRACE (default stderr):
//
//   INPUT <id>                 first load (or memcpy) of a location creates
//                              an input value
//   VALUE <id> SOURCES <ids>   a store of computed data creates a new value;
//                              <ids> is its source set, sorted (thin slice)
//   COPY <id>                  a store of a plain loaded value, or a memcpy,
//                              replicates value <id> into new locations
//   REGION_BEGIN, REGION_END, ITERATION   annotation marks
//
// Ids count from 1 in creation order, so a deterministic program prints a
// deterministic trace. Not thread-safe; not fast; test use only. Compile it
// WITHOUT the plugin.
//
// Labels (opaque to the pass, apart from the two ABI rules):
//   0                     none
//   id                    leaf: exactly value <id>             (bit 62 clear)
//   CA_NODE_BIT | n       union node n: the union of two labels
//   CA_PAIR_BIT | a << CA_PAIR_SHIFT | b   the pair of leaves a and b (made
//                         by the pass's inline union, never here)
//   ... | CA_COMPUTED_BIT the data went through a computation
// Shadow memory: a hash map from 4-byte word address to value id.
#include "runtime_abi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__thread ca_label __ca_arg_labels[CA_MAX_ARG_LABELS];
__thread const void* __ca_arg_callee;
__thread ca_label __ca_ret_label;
__thread uint32_t __ca_ret_valid;
// The inline load path of the pass (runtime_abi.h) never finds a page here:
// every load calls __ca_load.
struct { uint64_t number; void* page; } __ca_shadow_cache[CA_SHADOW_CACHE_ENTRIES] = {
    [0 ... CA_SHADOW_CACHE_ENTRIES - 1] = {UINT64_MAX, 0}};
// Nor a free node slot: every union of distinct labels calls __ca_union.
struct { void* base; uint64_t next, end; } __ca_node_run;

#define WORD 4u
#define PAYLOAD(l) ((l) & ~(CA_COMPUTED_BIT | CA_NODE_BIT))

static FILE* out;
static uint64_t next_id = 1;

static FILE* trace(void) {
  if (!out) {
    const char* path = getenv("CA_TRACE");
    out = path ? fopen(path, "w") : stderr;
    if (!out) {
      perror("CA_TRACE");
      abort();
    }
  }
  return out;
}

// ---- word maps: open addressing, word address -> 64 bits (0 = none).
// The shadow memory maps a word to its value id; the stack temporaries
// (__ca_stack_temp) map a word to TEMP | the label stored there.
typedef struct {
  uintptr_t* keys;
  uint64_t* vals;
  size_t cap, used;
} WordMap;
static WordMap shadow, temps;
#define TEMP (UINT64_C(1) << 60)  // no label has bit 60 (runtime_abi.h)

static size_t slot(const WordMap* m, uintptr_t k) {
  size_t h = (size_t)(k * UINT64_C(0x9E3779B97F4A7C15)) & (m->cap - 1);
  while (m->keys[h] && m->keys[h] != k) h = (h + 1) & (m->cap - 1);
  return h;
}

static void grow(WordMap* m) {
  uintptr_t* ok = m->keys;
  uint64_t* ov = m->vals;
  size_t oc = m->cap;
  m->cap = m->cap ? m->cap * 2 : 1024;
  m->keys = calloc(m->cap, sizeof *m->keys);
  m->vals = calloc(m->cap, sizeof *m->vals);
  for (size_t i = 0; i < oc; i++)
    if (ok[i]) {
      size_t h = slot(m, ok[i]);
      m->keys[h] = ok[i];
      m->vals[h] = ov[i];
    }
  free(ok);
  free(ov);
}

// Keys are word index + 1 so that 0 marks an empty slot.
static uint64_t map_get(const WordMap* m, uintptr_t w) {
  if (!m->cap) return 0;
  size_t h = slot(m, w + 1);
  return m->keys[h] ? m->vals[h] : 0;
}

static void map_set(WordMap* m, uintptr_t w, uint64_t v) {
  if ((m->used + 1) * 2 > m->cap) grow(m);
  size_t h = slot(m, w + 1);
  if (!m->keys[h]) {
    m->keys[h] = w + 1;
    m->used++;
  }
  m->vals[h] = v;
}

static uint64_t get_word(uintptr_t w) { return map_get(&shadow, w); }
static void set_word(uintptr_t w, uint64_t id) { map_set(&shadow, w, id); }

static uintptr_t first_word(const void* a) { return (uintptr_t)a / WORD; }
static uintptr_t end_word(const void* a, uint64_t n) {
  return ((uintptr_t)a + n + WORD - 1) / WORD;
}

// ---- union nodes: binary nodes (a, b), like DFSan's union table, so a
// reduction over N values costs N nodes, not N^2 ids. A node's source set is
// flattened only when a store needs it. Memoized per label pair.
typedef struct {
  ca_label a, b;
  uint64_t mark;  // flatten generation that last visited this node
} Node;
static Node* nodes;
static size_t nnodes = 1, capnodes;  // node 0 unused: CA_NODE_BIT|0 != a label
static uint64_t generation;

typedef struct {
  ca_label a, b, r;
} Memo;
static Memo* memo;
static size_t capmemo, usedmemo;

typedef struct {
  uint64_t* v;
  size_t n, cap;
} Vec;

static void push(Vec* s, uint64_t x) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    s->v = realloc(s->v, s->cap * sizeof *s->v);
  }
  s->v[s->n++] = x;
}

static int cmp_u64(const void* x, const void* y) {
  uint64_t a = *(const uint64_t*)x, b = *(const uint64_t*)y;
  return (a > b) - (a < b);
}

// The sorted, distinct value ids reachable from label l, into *out.
static void sources(ca_label l, Vec* out) {
  static Vec stack;
  out->n = 0;
  generation++;
  push(&stack, l);
  while (stack.n) {
    ca_label x = stack.v[--stack.n];
    uint64_t p = PAYLOAD(x);
    if (x & CA_PAIR_BIT) {
      push(out, (x >> CA_PAIR_SHIFT) & ((UINT64_C(1) << CA_PAIR_SHIFT) - 1));
      push(out, x & ((UINT64_C(1) << CA_PAIR_SHIFT) - 1));
    } else if (!(x & CA_NODE_BIT)) {
      if (p) push(out, p);
    } else if (nodes[p].mark != generation) {
      nodes[p].mark = generation;
      push(&stack, nodes[p].a);
      push(&stack, nodes[p].b);
    }
  }
  qsort(out->v, out->n, sizeof *out->v, cmp_u64);
  size_t k = 0;
  for (size_t i = 0; i < out->n; i++)
    if (k == 0 || out->v[k - 1] != out->v[i]) out->v[k++] = out->v[i];
  out->n = k;
}

// A node for {a} u {b}, without the computed mark.
static ca_label node(ca_label a, ca_label b) {
  a &= ~CA_COMPUTED_BIT;
  b &= ~CA_COMPUTED_BIT;
  if (!a || a == b) return b;
  if (!b) return a;
  if (nnodes >= capnodes) {
    capnodes = capnodes ? capnodes * 2 : 1024;
    nodes = realloc(nodes, capnodes * sizeof *nodes);
  }
  nodes[nnodes].a = a;
  nodes[nnodes].b = b;
  nodes[nnodes].mark = 0;
  return CA_NODE_BIT | nnodes++;
}

static size_t memo_slot(ca_label a, ca_label b) {
  size_t h = (size_t)((a * 31 + b) * UINT64_C(0x9E3779B97F4A7C15)) >> 20;
  h &= capmemo - 1;
  while (memo[h].r && !(memo[h].a == a && memo[h].b == b))
    h = (h + 1) & (capmemo - 1);
  return h;
}

ca_label __ca_union(ca_label a, ca_label b) {
  if (a > b) {  // union is commutative: one memo entry per pair
    ca_label t = a;
    a = b;
    b = t;
  }
  if ((usedmemo + 1) * 2 > capmemo) {
    Memo* old = memo;
    size_t oc = capmemo;
    capmemo = capmemo ? capmemo * 2 : 1024;
    memo = calloc(capmemo, sizeof *memo);
    for (size_t i = 0; i < oc; i++)
      if (old[i].r) memo[memo_slot(old[i].a, old[i].b)] = old[i];
    free(old);
  }
  size_t h = memo_slot(a, b);
  if (!memo[h].r) {
    memo[h].a = a;
    memo[h].b = b;
    memo[h].r = node(a, b) | CA_COMPUTED_BIT;  // never 0: bit 63 set
    usedmemo++;
  }
  return memo[h].r;
}

// Branch decisions are not part of the trace format (INPUT/VALUE/COPY).
// Loop results are not traced: the label passes through.
ca_label __ca_value(ca_label label, uint32_t site) {
  (void)site;
  return label;
}

void __ca_use(ca_label label, uint32_t site) {
  (void)label;
  (void)site;
}

// ---- stack temporaries: a word of one holds a label, as a register would
static int is_temp(const void* addr) { return (map_get(&temps, first_word(addr)) & TEMP) != 0; }

static void set_temp_labels(const void* addr, uint64_t size, ca_label l) {
  for (uintptr_t w = first_word(addr); w < end_word(addr, size); w++) map_set(&temps, w, TEMP | l);
}

void __ca_stack_temp(void* addr, uint64_t size) {
  for (uintptr_t w = first_word(addr); w < end_word(addr, size); w++) {
    set_word(w, 0);
    map_set(&temps, w, TEMP);
  }
}

void __ca_stack_mem(void* addr, uint64_t size) {
  for (uintptr_t w = first_word(addr); w < end_word(addr, size); w++)
    if (map_get(&temps, w)) map_set(&temps, w, 0);
}

// ---- memory hooks
ca_label __ca_load(const void* addr, uint32_t size) {
  if (!size) return 0;
  if (is_temp(addr)) {
    ca_label l = map_get(&temps, first_word(addr)) & ~TEMP;
    for (uintptr_t w = first_word(addr) + 1; w < end_word(addr, size); w++) {
      ca_label m = map_get(&temps, w) & ~TEMP;
      if (m != l) l = __ca_union(l, m);
    }
    return l;
  }
  uintptr_t w0 = first_word(addr), w1 = end_word(addr, size), w;
  uint64_t input = 0;
  for (w = w0; w < w1; w++)
    if (!get_word(w)) {
      if (!input) {
        input = next_id++;
        fprintf(trace(), "INPUT %llu\n", (unsigned long long)input);
      }
      set_word(w, input);
    }
  // One value (the usual case) -> leaf. A load spanning several values is
  // their union without the computed mark.
  ca_label l = get_word(w0);
  for (w = w0 + 1; w < w1; w++)
    if (get_word(w) != get_word(w - 1)) l = node(l, get_word(w));
  return l;
}

static void fill(void* addr, uint64_t size, uint64_t id) {
  for (uintptr_t w = first_word(addr); w < end_word(addr, size); w++)
    set_word(w, id);
}

// Sites are not part of the trace format.
void __ca_sites(const ca_site* sites, uint32_t count) {
  (void)sites;
  (void)count;
}

// Nor are allocation sites.
uint32_t __ca_user_site;
void __ca_allocation_site(uint32_t site) { (void)site; }
void __ca_array_sites(const ca_array_site* sites, uint32_t count) {
  (void)sites;
  (void)count;
}

ca_label __ca_store(void* addr, uint32_t size, ca_label label, uint32_t site) {
  (void)site;
  if (!size) return label;
  if (is_temp(addr)) {
    set_temp_labels(addr, size, label);
    return label;
  }
  if (label && !(label & (CA_COMPUTED_BIT | CA_NODE_BIT | CA_PAIR_BIT))) {
    fprintf(trace(), "COPY %llu\n", (unsigned long long)label);
    fill(addr, size, label);
    return label;
  }
  static Vec s;
  uint64_t id = next_id++;
  sources(label, &s);
  fprintf(trace(), "VALUE %llu SOURCES", (unsigned long long)id);
  for (size_t i = 0; i < s.n; i++)
    fprintf(trace(), " %llu", (unsigned long long)s.v[i]);
  fputc('\n', trace());
  fill(addr, size, id);
  return id;
}

void __ca_clear(void* addr, uint64_t size) {
  if (size && is_temp(addr)) set_temp_labels(addr, size, 0);
  else if (size) fill(addr, size, 0);
}

void __ca_store_pointer(void* addr, const void* value) {
  (void)value;  // row tables are the analysis runtime's business
  __ca_clear(addr, sizeof(void*));
}

void __ca_memcpy(void* dst, const void* src, uint64_t size) {
  uintptr_t s0 = first_word(src), s1 = end_word(src, size), d0 = first_word(dst);
  if (!size || s0 == d0) return;
  if (is_temp(dst) || is_temp(src)) {  // labels, word by word
    int from_temp = is_temp(src), to_temp = is_temp(dst);
    for (uintptr_t w = s0; w < s1;) {
      uint64_t l = from_temp ? map_get(&temps, w) & ~TEMP : get_word(w);
      uintptr_t n = 1;  // into memory: one store per run of one label, <= 8 bytes
      while (!to_temp && w + n < s1 && n * WORD < 8 && (map_get(&temps, w + n) & ~TEMP) == l) n++;
      if (to_temp) map_set(&temps, d0 + (w - s0), TEMP | l);
      else __ca_store((void*)((d0 + (w - s0)) * WORD), (uint32_t)(n * WORD), l, 0);
      w += n;
    }
    return;
  }
  // A copy reads its source: a word holding no value gets an input value,
  // like a first load. The element size is unknown here; the toy assumes
  // 8-byte elements (one input value per aligned 8-byte chunk).
  uint64_t input = 0;
  uintptr_t chunk = 0;
  for (uintptr_t w = s0; w < s1; w++)
    if (!get_word(w)) {
      if (!input || w * WORD / 8 != chunk) {
        input = next_id++;
        chunk = w * WORD / 8;
        fprintf(trace(), "INPUT %llu\n", (unsigned long long)input);
      }
      set_word(w, input);
    }
  uint64_t* tmp = malloc((s1 - s0 + 1) * sizeof *tmp);
  uint64_t prev = 0;
  for (uintptr_t w = s0; w < s1; w++) {
    tmp[w - s0] = get_word(w);
    // One COPY line per run of words holding the same value.
    if (tmp[w - s0] && tmp[w - s0] != prev)
      fprintf(trace(), "COPY %llu\n", (unsigned long long)tmp[w - s0]);
    prev = tmp[w - s0];
  }
  for (uintptr_t w = s0; w < s1; w++) set_word(d0 + (w - s0), tmp[w - s0]);
  free(tmp);
}

void __ca_memset(void* dst, uint64_t size) {
  // The whole range gets one new constant value.
  if (!size) return;
  if (is_temp(dst)) {
    set_temp_labels(dst, size, CA_COMPUTED_BIT);
    return;
  }
  uint64_t id = next_id++;
  fprintf(trace(), "VALUE %llu SOURCES\n", (unsigned long long)id);
  fill(dst, size, id);
}

void __ca_expect_region(void) { fputs("EXPECT_REGION\n", trace()); }
void __commanalyzer_region_begin(void) { fputs("REGION_BEGIN\n", trace()); }
void __commanalyzer_region_end(void) { fputs("REGION_END\n", trace()); }
void __commanalyzer_iteration(void) { fputs("ITERATION\n", trace()); }

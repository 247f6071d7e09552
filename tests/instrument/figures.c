// The paper's Figures 3, 4 and 7 compiled with the pass: exact value flows,
// and exact bytes for a fixed owner map.
#include <stdint.h>

#include "instrument/runtime_testing.h"

#define N 4
double in[N] = {1.5, 2.5, 3.5, 4.5};
double out[N];
int ii = 0, jj = 2, kk = 1;

// Figure 7: out[k] = in[i] + in[j]; a plain copy replicates.
__attribute__((noinline)) void figure7(int i, int j, int k) {
  out[k] = in[i] + in[j];
  out[k + 1] = in[i + 1];
}

// Figure 3: indirect access. Edges follow the data, never the index values.
double x[N], y[N] = {1, 2, 3, 4}, z[N] = {5, 6, 7, 8};
int node_a[N] = {0, 1, 2, 3}, node_b[N] = {3, 2, 1, 0};
__attribute__((noinline)) void figure3(void) {
  for (int i = 0; i < N; ++i) x[node_a[i]] += y[node_b[i]] * z[i];
}

// Figure 4: gather into a workspace, compute there, scatter back.
#define ELEMS 3
double node_x[6] = {1, 2, 3, 4, 5, 6}, force[6], coef[ELEMS] = {0.5, 0.25, 2};
int conn[ELEMS][2] = {{0, 1}, {1, 4}, {5, 2}};
double ws[2], ws2[2];
__attribute__((noinline)) void figure4(void) {
  for (int e = 0; e < ELEMS; ++e) {
    for (int k = 0; k < 2; ++k) ws[k] = node_x[conn[e][k]];     // gather
    for (int k = 0; k < 2; ++k) ws2[k] = ws[k] * coef[e];        // compute
    for (int k = 0; k < 2; ++k) force[conn[e][k]] += ws2[k];     // scatter
  }
}

// Runs figure 4 and checks its last element (nodes 5 and 2).
static void check_figure4(void) {
  figure4();
  CA_EXPECT_SAME_VALUE("fig4: gather replicates", &ws[1], &node_x[2]);  // last element: conn {5, 2}
  CA_EXPECT_SOURCES("fig4: workspace value", &ws2[1], &node_x[2], &coef[2]);
  CA_EXPECT("fig4: scatter creates one value per node update", __ca_debug_value_at(&force[2]) != 0);
  uint32_t sources[8];
  const size_t n = __ca_debug_sources(__ca_debug_value_at(&force[2]), sources, 8);
  CA_EXPECT("fig4: force[2] from its old value and the workspace value", n == 2);
  int has_ws2 = 0;
  for (size_t i = 0; i < n && i < 8; ++i) has_ws2 |= sources[i] == __ca_debug_value_at(&ws2[1]);
  CA_EXPECT("fig4: scatter source is the workspace value", has_ws2);
}

// Owner of x, y, z element k: k < N/2 -> process 0, else 1.
static int halves(uintptr_t home, int procs) {
  (void)procs;
  const double* arrays[3] = {x, y, z};
  for (int a = 0; a < 3; ++a) {
    uintptr_t base = (uintptr_t)arrays[a];
    if (home >= base && home < base + sizeof(double) * N) return (int)((home - base) / sizeof(double)) >= N / 2;
  }
  return 0;
}

int main(void) {
  figure7(ii, jj, kk);
  CA_EXPECT_SOURCES("fig7: V2 from {V0, V1}", &out[1], &in[0], &in[2]);
  CA_EXPECT_SAME_VALUE("fig7: copy replicates", &out[2], &in[1]);
  CA_EXPECT("fig7: first read is an input", __ca_debug_is_input(__ca_debug_value_at(&in[0])));

  const uint64_t before_fig3 = __ca_debug_p2p_bytes(2, halves);
  uint32_t old_x[N];
  for (int k = 0; k < N; ++k) old_x[k] = __ca_debug_value_at(&x[k]);  // 0: never read yet
  figure3();
  // x[k] += y[b] * z[k]: sources are the old x[k] (an input created by the
  // first read), y[b] and z[k]; never the values of node_a / node_b.
  for (int i = 0; i < N; ++i) {
    uint32_t sources[8];
    const size_t n = __ca_debug_sources(__ca_debug_value_at(&x[node_a[i]]), sources, 8);
    CA_EXPECT("fig3: three sources", n == 3);
    int has_y = 0, has_z = 0, has_index = 0;
    for (size_t s = 0; s < n && s < 8; ++s) {
      has_y |= sources[s] == __ca_debug_value_at(&y[node_b[i]]);
      has_z |= sources[s] == __ca_debug_value_at(&z[i]);
      has_index |= sources[s] == __ca_debug_value_at(&node_a[i]) || sources[s] == __ca_debug_value_at(&node_b[i]);
    }
    CA_EXPECT("fig3: y[node_b[i]] is a source", has_y);
    CA_EXPECT("fig3: z[i] is a source", has_z);
    CA_EXPECT("fig3: index values are never sources", !has_index);
    CA_EXPECT("fig3: x was not read before", old_x[node_a[i]] == 0);
  }
  // Each x[k] needs the y on the other half: 4 doubles cross.
  CA_EXPECT("fig3: bytes for the halves owner map", __ca_debug_p2p_bytes(2, halves) - before_fig3 == 4 * 8);

  check_figure4();
  return CA_TEST_RESULT();
}

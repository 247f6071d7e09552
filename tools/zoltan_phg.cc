// zoltan_phg HYPERGRAPH PARTS OUT: partitions a commanalyzer hypergraph
// (include/commanalyzer/estimate/hypergraph.h) into PARTS parts with Zoltan's
// parallel hypergraph partitioner (PHG, connectivity metric, 3 % work
// imbalance) on one process, and writes one part per vertex to OUT.
// Run by SpawnedHypergraphPartitioner: MPI_Init aborts the process where
// MPI cannot start, which must not take the analysis with it.
#include <mpi.h>
#include <sys/personality.h>
#include <unistd.h>
#include <zoltan.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

#include "commanalyzer/estimate/hypergraph.h"

namespace {

using commanalyzer::LocationHypergraph;

int num_objects(void* data, int* err) {
  *err = ZOLTAN_OK;
  return static_cast<int>(static_cast<LocationHypergraph*>(data)->vertex_count());
}

void object_list(void* data, int, int, ZOLTAN_ID_PTR global, ZOLTAN_ID_PTR local, int weight_dim, float* weights,
                 int* err) {
  const auto* h = static_cast<LocationHypergraph*>(data);
  for (std::size_t v = 0; v < h->vertex_count(); ++v) {
    global[v] = local[v] = static_cast<ZOLTAN_ID_TYPE>(v);
    if (weight_dim == 1) weights[v] = static_cast<float>(h->vertex_weight[v]);
  }
  *err = ZOLTAN_OK;
}

void hypergraph_size(void* data, int* nets, int* pins, int* format, int* err) {
  const auto* h = static_cast<LocationHypergraph*>(data);
  *nets = static_cast<int>(h->net_count());
  *pins = static_cast<int>(h->pins.size());
  *format = ZOLTAN_COMPRESSED_EDGE;
  *err = ZOLTAN_OK;
}

void hypergraph_pins(void* data, int, int nets, int pins, int, ZOLTAN_ID_PTR net_ids, int* starts,
                     ZOLTAN_ID_PTR pin_ids, int* err) {
  const auto* h = static_cast<LocationHypergraph*>(data);
  for (int e = 0; e < nets; ++e) {
    net_ids[e] = static_cast<ZOLTAN_ID_TYPE>(e);
    starts[e] = static_cast<int>(h->net_start[e]);
  }
  for (int k = 0; k < pins; ++k) pin_ids[k] = h->pins[k];
  *err = ZOLTAN_OK;
}

void net_weight_size(void* data, int* nets, int* err) {
  *nets = static_cast<int>(static_cast<LocationHypergraph*>(data)->net_count());
  *err = ZOLTAN_OK;
}

void net_weights(void* data, int, int, int nets, int, ZOLTAN_ID_PTR net_ids, ZOLTAN_ID_PTR, float* weights,
                 int* err) {
  const auto* h = static_cast<LocationHypergraph*>(data);
  for (int e = 0; e < nets; ++e) weights[e] = static_cast<float>(h->net_weight[net_ids[e]]);
  *err = ZOLTAN_OK;
}

}  // namespace

int main(int argc, char** argv) {
  // PHG's result depends on where its memory lies (it orders by address
  // somewhere): run with address randomisation off, so the same hypergraph
  // gives the same partition every time.
  if (const int current = personality(0xffffffff); current != -1 && !(current & ADDR_NO_RANDOMIZE)) {
    if (personality(current | ADDR_NO_RANDOMIZE) != -1) execv("/proc/self/exe", argv);
  }
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s HYPERGRAPH PARTS OUT\n", argv[0]);
    return 2;
  }
  const int parts = std::atoi(argv[2]);
  LocationHypergraph h;
  try {
    std::ifstream in(argv[1]);
    if (!in) throw std::runtime_error(std::string("cannot read ") + argv[1]);
    h = commanalyzer::read_hypergraph(in);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zoltan_phg: %s\n", e.what());
    return 2;
  }
  if (parts < 1) {
    std::fprintf(stderr, "zoltan_phg: PARTS must be >= 1\n");
    return 2;
  }
  float version = 0;
  if (Zoltan_Initialize(argc, argv, &version) != ZOLTAN_OK) {
    std::fprintf(stderr, "zoltan_phg: Zoltan_Initialize failed\n");
    return 1;
  }
  Zoltan_Struct* zz = Zoltan_Create(MPI_COMM_SELF);
  const std::string parts_text = std::to_string(parts);
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Param(zz, "LB_METHOD", "HYPERGRAPH");
  Zoltan_Set_Param(zz, "HYPERGRAPH_PACKAGE", "PHG");
  Zoltan_Set_Param(zz, "PHG_CUT_OBJECTIVE", "CONNECTIVITY");
  Zoltan_Set_Param(zz, "LB_APPROACH", "PARTITION");
  Zoltan_Set_Param(zz, "NUM_GLOBAL_PARTS", parts_text.c_str());
  Zoltan_Set_Param(zz, "IMBALANCE_TOL", "1.03");
  Zoltan_Set_Param(zz, "RETURN_LISTS", "PARTS");
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  Zoltan_Set_Param(zz, "EDGE_WEIGHT_DIM", "1");
  Zoltan_Set_Param(zz, "SEED", "1");
  Zoltan_Set_Num_Obj_Fn(zz, num_objects, &h);
  Zoltan_Set_Obj_List_Fn(zz, object_list, &h);
  Zoltan_Set_HG_Size_CS_Fn(zz, hypergraph_size, &h);
  Zoltan_Set_HG_CS_Fn(zz, hypergraph_pins, &h);
  Zoltan_Set_HG_Size_Edge_Wts_Fn(zz, net_weight_size, &h);
  Zoltan_Set_HG_Edge_Wts_Fn(zz, net_weights, &h);
  int changes = 0, global_entries = 0, local_entries = 0, imports = 0, exports = 0;
  ZOLTAN_ID_PTR import_global = nullptr, import_local = nullptr, export_global = nullptr, export_local = nullptr;
  int *import_procs = nullptr, *import_parts = nullptr, *export_procs = nullptr, *export_parts = nullptr;
  const int rc = Zoltan_LB_Partition(zz, &changes, &global_entries, &local_entries, &imports, &import_global,
                                     &import_local, &import_procs, &import_parts, &exports, &export_global,
                                     &export_local, &export_procs, &export_parts);
  if (rc != ZOLTAN_OK) {
    std::fprintf(stderr, "zoltan_phg: Zoltan_LB_Partition failed (%d)\n", rc);
    return 1;
  }
  // With RETURN_LISTS=PARTS the export list names every vertex's part.
  std::vector<int> part(h.vertex_count(), 0);
  for (int i = 0; i < exports; ++i) part[export_local[i]] = export_parts[i];
  Zoltan_LB_Free_Part(&import_global, &import_local, &import_procs, &import_parts);
  Zoltan_LB_Free_Part(&export_global, &export_local, &export_procs, &export_parts);
  Zoltan_Destroy(&zz);
  MPI_Finalize();
  std::ofstream out(argv[3]);
  for (int p : part) out << p << '\n';
  out.flush();
  return out ? 0 : 1;
}

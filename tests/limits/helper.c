// Stands in for tools/zoltan_phg (HYPERGRAPH_FILE PARTS OUT_FILE) in
// limits_test. HELPER_MODE=grow: touches memory until it is stopped
// (shared pages: the tool's RLIMIT_DATA, inherited, does not stop them);
// sleep: waits for ever; otherwise answers part 0 for every vertex.
// HELPER_LOG, if set, receives the hypergraph file's path.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const char* log = getenv("HELPER_LOG");
  if (log != NULL) {
    FILE* f = fopen(log, "w");
    if (f == NULL) return 2;
    fprintf(f, "%s\n", argv[1]);
    fclose(f);
  }
  const char* mode = getenv("HELPER_MODE");
  if (mode != NULL && strcmp(mode, "grow") == 0) {
    for (;;) {
      char* block = mmap(NULL, 8 << 20, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
      if (block != MAP_FAILED) memset(block, 1, 8 << 20);
      usleep(20000);
    }
  }
  if (mode != NULL && strcmp(mode, "sleep") == 0) {
    for (;;) pause();
  }
  FILE* out = fopen(argv[3], "w");
  if (out == NULL) return 2;
  for (int v = 0; v < 1000000; ++v) fputs("0\n", out);
  return fclose(out) == 0 ? 0 : 2;
}

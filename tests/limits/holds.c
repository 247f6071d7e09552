// Holds 96 MiB of its own, a word written per page: the run's peak, which
// analyze reports, is at least that.
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  const size_t bytes = (size_t)96 << 20, page = 4096;
  char* block = malloc(bytes);
  if (block == NULL) return 1;
  for (size_t at = 0; at < bytes; at += page) block[at] = (char)(at / page);
  long sum = 0;
  for (size_t at = 0; at < bytes; at += 64 * page) sum += block[at];
  printf("%ld\n", sum);
  free(block);
  return 0;
}

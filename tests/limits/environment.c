// Prints the GLIBC_TUNABLES it was given: the user's, not the tool's.
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  const char* tunables = getenv("GLIBC_TUNABLES");
  printf("GLIBC_TUNABLES=%s\n", tunables != NULL ? tunables : "(unset)");
  return 0;
}

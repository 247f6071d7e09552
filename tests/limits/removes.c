// Removes the folder named by its argument while it runs: the report
// written there after the run fails late.
#include <stdio.h>

static double a[512];

int main(int argc, char** argv) {
  for (int i = 1; i < 511; ++i) a[i] = 0.5 * (a[i - 1] + a[i + 1]) + i;
  if (argc > 1 && remove(argv[1]) != 0) perror(argv[1]);
  printf("%f\n", a[256]);
  return 0;
}

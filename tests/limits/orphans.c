// Forks a child that outlives it: the child sleeps for ever, the parent
// relaxes an array for ever. Neither may survive the tool.
#include <stdio.h>
#include <unistd.h>

static double a[1024];

int main(void) {
  if (fork() == 0) {
    for (;;) pause();
  }
  for (unsigned long t = 0;; ++t) {
    for (int i = 1; i < 1023; ++i) a[i] = 0.5 * (a[i - 1] + a[i + 1]) + 1e-9 * (double)t;
    if (t == 1) fprintf(stderr, "running\n");
  }
}

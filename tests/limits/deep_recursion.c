// 100,000 nested calls at -O0, each frame holding a few doubles: fits the
// default 8 MiB stack natively and must fit it instrumented too.
#include <stdio.h>
#include <stdlib.h>

static double a[1024];

static double descend(int n) {
  double here = a[n % 1024] * 0.5;
  if (n == 0) return here;
  const double below = descend(n - 1);
  a[n % 1024] = here + below;
  return here + below;
}

int main(int argc, char** argv) {
  const int depth = argc > 1 ? atoi(argv[1]) : 100000;
  for (int i = 0; i < 1024; ++i) a[i] = i;
  printf("%.1f\n", descend(depth));
  return 0;
}

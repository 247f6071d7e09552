// Instrumentation must not change behaviour: this program's stdout and exit
// code are compared with and without the plugin, at -O0 and -O1. It mixes
// floating point, integers, a qsort callback from uninstrumented code,
// structs, recursion, strings, chars and a non-zero exit code.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 16

struct Particle {
  double pos[3];
  float mass;
  int id;
  char tag[8];
};

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static long fib(int k) { return k < 2 ? k : fib(k - 1) + fib(k - 2); }

static struct Particle make(int i) {  // returned by hidden pointer (sret)
  struct Particle p;
  for (int d = 0; d < 3; d++) p.pos[d] = sin(i + d) * 10;
  p.mass = (float)(1 + i % 3);
  p.id = i * 7 % N;
  snprintf(p.tag, sizeof p.tag, "p%02d", i);
  return p;
}

static double energy(struct Particle p) {  // passed by value (byval)
  return 0.5 * p.mass * (p.pos[0] * p.pos[0] + p.pos[1] * p.pos[1] + p.pos[2] * p.pos[2]);
}

int main(int argc, char **argv) {
  (void)argv;
  struct Particle ps[N];
  double e[N], a[N][N], b[N], c[N];
  unsigned h = 2166136261u;
  for (int i = 0; i < N; i++) ps[i] = make(i + argc);
  for (int i = 0; i < N; i++) e[i] = energy(ps[i]);
  qsort(e, N, sizeof e[0], cmp_double);
  for (int i = 0; i < N; i++) {
    b[i] = e[i] / (i + 1);
    for (int j = 0; j < N; j++) a[i][j] = (i == j) ? 4.0 : 1.0 / (1 + abs(i - j));
  }
  for (int it = 0; it < 5; it++) {  // Jacobi sweeps
    for (int i = 0; i < N; i++) {
      double s = b[i];
      for (int j = 0; j < N; j++)
        if (j != i) s -= a[i][j] * (it ? c[j] : 0);
      c[i] = s / a[i][i];
    }
  }
  for (int i = 0; i < N; i++) {
    unsigned char *bytes = (unsigned char *)&c[i];
    for (size_t k = 0; k < sizeof c[i]; k++) h = (h ^ bytes[k]) * 16777619u;
    h ^= (unsigned)strlen(ps[i].tag) + (unsigned)ps[i].id;
  }
  printf("e[0]=%.9g e[%d]=%.9g\n", e[0], N - 1, e[N - 1]);
  printf("c[0]=%.12g c[7]=%.12g\n", c[0], c[7]);
  printf("fib=%ld hash=%08x tag=%s\n", fib(20), h, ps[3].tag);
  return (int)(h % 7) + 3;
}

// Two threads writing halves of one shared array.
#include <pthread.h>
#include <stdio.h>

static double shared[1 << 16];

static void* fill(void* arg) {
  const long half = (long)arg;
  for (long i = half * (1 << 15); i < (half + 1) * (1 << 15); ++i) shared[i] = shared[i] * 0.5 + (double)i;
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (long k = 0; k < 2; ++k) pthread_create(&t[k], NULL, fill, (void*)k);
  for (int k = 0; k < 2; ++k) pthread_join(t[k], NULL);
  printf("%f\n", shared[12345]);
  return 0;
}

// Region minima (LULESH 2.0's time constraints): every element belongs to
// one of 11 regions of geometrically falling sizes (2048 elements down to
// a few); each step updates every element, then takes the minimum of a
// per-element constraint over each region in turn, and the element where
// it is reached, chained through a member of a domain struct of more than
// 1 KiB (a tracked array) that every process holds. An MPI code reduces
// the minimum over all regions once per step: one MPI_Allreduce, however
// small a region.
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"

typedef struct {
  double dtcourant, dt;
  int numReg;
  int *regSize, **regElems;
  double other[160];  // the rest of the domain's scalars
} Domain;

static void courant(Domain *d, const double *ss, const double *vdov, int len, const int *list) {
  double tmp = d->dtcourant;
  int elem = -1;
  for (int i = 0; i < len; ++i) {
    int k = list[i];
    double dtf = ss[k] * ss[k];
    if (vdov[k] < 0) dtf += vdov[k] * vdov[k];
    if (vdov[k] != 0 && dtf < tmp) {
      tmp = dtf;
      elem = k;
    }
  }
  if (elem != -1) d->dtcourant = tmp;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096, steps = argc > 2 ? atoi(argv[2]) : 4;
  Domain *d = malloc(sizeof(Domain));
  double *ss = malloc(n * sizeof(double)), *vdov = malloc(n * sizeof(double));
  int *reg = malloc(n * sizeof(int));
  d->numReg = 11;
  d->regSize = calloc(d->numReg, sizeof(int));
  srand(1);
  for (int i = 0; i < n; ++i) {
    int r = 0;
    while (r < d->numReg - 1 && rand() % 2) ++r;
    reg[i] = r;
    d->regSize[r]++;
  }
  d->regElems = malloc(d->numReg * sizeof(int *));
  for (int r = 0; r < d->numReg; ++r) {
    d->regElems[r] = malloc((d->regSize[r] + 1) * sizeof(int));
    d->regSize[r] = 0;
  }
  for (int i = 0; i < n; ++i) d->regElems[reg[i]][d->regSize[reg[i]]++] = i;
  for (int i = 0; i < n; ++i) {
    ss[i] = 1 + i % 7;
    vdov[i] = (i % 5) - 2.0;
  }
  d->dt = 1;
  CA_REGION_BEGIN();
  for (int s = 0; s < steps; ++s) {
    CA_ITERATION();
    for (int i = 0; i < n; ++i) {
      ss[i] = ss[i] * 0.99 + d->dt;
      vdov[i] = vdov[i] * 0.5 + 0.1;
    }
    d->dtcourant = 1e20;
    for (int r = 0; r < d->numReg; ++r) courant(d, ss, vdov, d->regSize[r], d->regElems[r]);
    d->dt = d->dtcourant * 0.5;
  }
  CA_REGION_END();
  printf("dt %g\n", d->dt);
  return 0;
}

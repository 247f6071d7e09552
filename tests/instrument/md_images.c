// 1-D molecular dynamics with periodic images stored in the same arrays as
// the real atoms (slots n..n+2h-1 are images of the h atoms at each end).
// Every step: refresh images from their real atoms, forces over a neighbour
// list (pairs within the cutoff, images included), image forces folded back
// onto their real atoms, then a position update of the real atoms. An MPI
// code gives each process a slab of the box and exchanges the atoms within
// the cutoff of its ends: positions out, forces back, at most 3 per side.
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1024, steps = argc > 2 ? atoi(argv[2]) : 4;
  const int h = n / 4;               // image atoms at each end
  const int total = n + 2 * h;       // real + images
  const double box = n, cutoff = 2.5;
  double* x = malloc(total * sizeof *x);
  double* f = malloc(total * sizeof *f);
  int* image_of = malloc(2 * h * sizeof *image_of);  // real atom of each image
  double* shift = malloc(2 * h * sizeof *shift);
  for (int i = 0; i < n; ++i) x[i] = i + 0.5 + 0.1 * ((i * 37) % 11 - 5) / 5.0;
  for (int k = 0; k < h; ++k) {
    image_of[k] = k, shift[k] = box;                    // left atoms seen past the right end
    image_of[h + k] = n - h + k, shift[h + k] = -box;   // right atoms seen before the left end
  }
  const int max_pairs = 4 * total;
  int* first = malloc(max_pairs * sizeof *first);
  int* second = malloc(max_pairs * sizeof *second);
  for (int s = 0; s < steps; ++s) {
    for (int k = 0; k < 2 * h; ++k) x[n + k] = x[image_of[k]] + shift[k];
    int pairs = 0;
    for (int i = 0; i < total; ++i) {
      f[i] = 0;
      for (int d = 1; d <= 3; ++d) {
        const int j = i + d < total ? i + d : -1;
        if (j < 0) continue;
        // atoms are sorted within the real part; images sit apart
        const double r = x[j] - x[i];
        if (r > -cutoff && r < cutoff && pairs < max_pairs) first[pairs] = i, second[pairs] = j, ++pairs;
      }
    }
    for (int p = 0; p < pairs; ++p) {
      const double r = x[second[p]] - x[first[p]];
      const double force = 1.0 / (r * r * r) - 0.5 / (r * r);
      f[first[p]] -= force;
      f[second[p]] += force;
    }
    for (int k = 0; k < 2 * h; ++k) f[image_of[k]] += f[n + k];
    for (int i = 0; i < n; ++i) x[i] += 1e-4 * f[i];
  }
  printf("%f %f\n", x[0], x[n / 2]);
  return 0;
}

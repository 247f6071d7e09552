// A hydro-style sweep written as scientists write it: a mesh of structs,
// one loop over the cells per phase, and many small helpers the optimizer
// inlines at -O1 and above (and does not at -O0). Flux through each face
// from the four neighbours, an update of every cell's state, and the time
// step as the minimum over cells of a per-cell limit, every step.
//
//   opt_mesh N STEPS
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  double density, energy, pressure;
  double flux;
  double volume;
} Cell;

typedef struct {
  int n;
  Cell* cells;
} Mesh;

static int wrap(int i, int n) { return (i + n) % n; }
static Cell* cell_at(Mesh* m, int i, int j) { return &m->cells[wrap(i, m->n) * m->n + wrap(j, m->n)]; }
static double square(double x) { return x * x; }
static double half(double x) { return 0.5 * x; }
static double smaller(double a, double b) { return a < b ? a : b; }
static double equation_of_state(const Cell* c) { return 0.4 * c->density * c->energy; }
static double sound_speed_squared(const Cell* c) { return 1.4 * c->pressure / c->density; }
static double face_flux(const Cell* a, const Cell* b) { return half(a->pressure - b->pressure); }

static void compute_fluxes(Mesh* m) {
  for (int i = 0; i < m->n; ++i) {
    for (int j = 0; j < m->n; ++j) {
      Cell* c = cell_at(m, i, j);
      c->flux = face_flux(cell_at(m, i - 1, j), c) + face_flux(cell_at(m, i + 1, j), c) +
                face_flux(cell_at(m, i, j - 1), c) + face_flux(cell_at(m, i, j + 1), c);
    }
  }
}

static void update_cell(Cell* c, double dt) {
  c->energy += dt * c->flux / c->volume;
  c->pressure = equation_of_state(c);
}

static double cell_time_limit(const Cell* c) { return c->volume / (1.0 + square(c->flux) + sound_speed_squared(c)); }

static double time_step(Mesh* m) {
  double dt = 1.0;
  for (int k = 0; k < m->n * m->n; ++k) dt = smaller(dt, cell_time_limit(&m->cells[k]));
  return dt;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 16, steps = argc > 2 ? atoi(argv[2]) : 4;
  Mesh m = {n, calloc((size_t)n * n, sizeof(Cell))};
  for (int k = 0; k < n * n; ++k) {
    Cell* c = &m.cells[k];
    c->density = 1.0 + 0.01 * (k % 7);
    c->energy = 2.0 + 0.001 * k;
    c->volume = 1.0;
    c->pressure = equation_of_state(c);
  }
  double t = 0;
  for (int s = 0; s < steps; ++s) {
    const double dt = time_step(&m);
    compute_fluxes(&m);
    for (int k = 0; k < n * n; ++k) update_cell(&m.cells[k], dt);
    t += dt;
  }
  double energy = 0;
  for (int k = 0; k < n * n; ++k) energy += m.cells[k].energy;
  printf("t=%.6f energy=%.6f\n", t, energy);
  free(m.cells);
  return 0;
}

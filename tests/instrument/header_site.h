// header_site.h: header_site.c's stencil, a function of a header inlined
// into the sweep loop of the .c file (always_inline: at -O0 too).
static inline __attribute__((always_inline)) void relax(double *unew, const double *u, int i) {
  unew[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);  // STATEMENT
}

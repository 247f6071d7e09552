// lulesh_seq.c: a small LULESH-style Lagrangian hydrodynamics proxy (written
// from scratch, not the real LULESH). A structured s x s x s cube of
// hexahedral elements is stored as an unstructured mesh: element -> node
// connectivity nodelist[8*e+k], element face-neighbour lists (lxim, lxip,
// letam, letap, lzetam, lzetap), nodal kinematics (x, xd, f, mass) and
// element thermodynamics (e, p, q, volume, sound speed).
//
// One time step (Lagrange leapfrog):
//   (a) per element: gather the 8 node coordinates into workspace, compute
//       the shape-function derivatives B[3][8] (workspace level 2), the
//       corner forces f_local[3][8] = (p+q) B (level 3), scatter-add them to
//       the nodes;
//   (b) per node: acceleration = f / m (symmetry planes x=0, y=0, z=0),
//       velocity and position update with dt;
//   (c) per element: gather the new node positions and velocities, new
//       volume, volumetric strain rate (vdov), velocity gradients along the
//       three logical directions; monotonic artificial viscosity q that uses
//       the face-neighbour elements' velocity gradients (as LULESH's monoq);
//       energy update and ideal-gas EOS (p, sound speed);
//   (d) per element Courant and volume-change time constraints; the minimum
//       over all elements gives the next dt.
//
// Usage: lulesh_seq [s=12] [steps=20]
// Region of interest: the time-step loop; one CA_ITERATION per step.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "commanalyzer/annotate.h"

#define GAMMA 1.4
#define QLC 0.5               // linear q coefficient
#define QQC (2.0 / 3.0)       // quadratic q coefficient
#define MONOQ_LIMITER 2.0
#define MONOQ_MAX_SLOPE 1.0
#define QQC2 (64.0 * 2.0 * 2.0)
#define DVOVMAX 0.1
#define PTINY 1e-36
#define DT_GROWTH 1.2
#define DT_INIT 1e-4

// Local corner k of a hexahedron: offsets along (xi, eta, zeta).
static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                 {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

static double initial_energy(int i, int j, int k, int s) {  // element (i,j,k)
  double h = 1.0 / s;
  double cx = (i + 0.5) * h, cy = (j + 0.5) * h, cz = (k + 0.5) * h;
  return 1.0 + 20.0 * exp(-(cx * cx + cy * cy + cz * cz) / 0.05);
}

// B[d][k] = V * dN_k/dx_d at the element centre (trilinear shape functions);
// returns the element volume V = 8 det(J).
static double shape_derivs(const double xl[8], const double yl[8],
                           const double zl[8], double B[3][8]) {
  double J[3][3] = {{0.0}};
  for (int k = 0; k < 8; ++k)
    for (int a = 0; a < 3; ++a) {
      double g = (2.0 * corner[k][a] - 1.0) / 8.0;
      J[a][0] += xl[k] * g;
      J[a][1] += yl[k] * g;
      J[a][2] += zl[k] * g;
    }
  double cof[3][3];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      int a1 = (a + 1) % 3, a2 = (a + 2) % 3, b1 = (b + 1) % 3, b2 = (b + 2) % 3;
      cof[a][b] = J[a1][b1] * J[a2][b2] - J[a1][b2] * J[a2][b1];
    }
  double det = J[0][0] * cof[0][0] + J[0][1] * cof[0][1] + J[0][2] * cof[0][2];
  for (int k = 0; k < 8; ++k)
    for (int d = 0; d < 3; ++d) {
      double sum = 0.0;
      for (int a = 0; a < 3; ++a) sum += cof[a][d] * (2.0 * corner[k][a] - 1.0);
      B[d][k] = sum;  // 8 * cof * (+-1/8)
    }
  return 8.0 * det;
}

// Length across the element along logical direction a and the velocity
// gradient along it (difference of the face-averaged velocities, projected).
static void logical_gradient(int a, const double xl[8], const double yl[8],
                             const double zl[8], const double ul[8],
                             const double vl[8], const double wl[8],
                             double *delx, double *delv) {
  double dx = 0, dy = 0, dz = 0, du = 0, dv = 0, dw = 0;
  for (int k = 0; k < 8; ++k) {
    double s = corner[k][a] ? 0.25 : -0.25;
    dx += s * xl[k]; dy += s * yl[k]; dz += s * zl[k];
    du += s * ul[k]; dv += s * vl[k]; dw += s * wl[k];
  }
  double len2 = dx * dx + dy * dy + dz * dz;
  *delx = sqrt(len2);
  *delv = (du * dx + dv * dy + dw * dz) / len2;
}

// LULESH-style monotonic limiter from the neighbours' gradients.
static double limiter(double dv, double dvm, double dvp) {
  double norm = 1.0 / (dv + PTINY);
  dvm *= norm;
  dvp *= norm;
  double phi = 0.5 * (dvm + dvp);
  dvm *= MONOQ_LIMITER;
  dvp *= MONOQ_LIMITER;
  if (dvm < phi) phi = dvm;
  if (dvp < phi) phi = dvp;
  if (phi < 0.0) phi = 0.0;
  if (phi > MONOQ_MAX_SLOPE) phi = MONOQ_MAX_SLOPE;
  return phi;
}

int main(int argc, char **argv) {
  int s = argc > 1 ? atoi(argv[1]) : 12;
  int steps = argc > 2 ? atoi(argv[2]) : 20;
  if (s < 1 || steps < 0) {
    fprintf(stderr, "usage: %s [s] [steps]\n", argv[0]);
    return 1;
  }
  const int sn = s + 1;
  const int nel = s * s * s, nnode = sn * sn * sn;
  const double h = 1.0 / s;

  // ---- mesh and state
  int *nodelist = malloc(sizeof(int) * 8 * nel);
  int *lxim = malloc(sizeof(int) * nel), *lxip = malloc(sizeof(int) * nel);
  int *letam = malloc(sizeof(int) * nel), *letap = malloc(sizeof(int) * nel);
  int *lzetam = malloc(sizeof(int) * nel), *lzetap = malloc(sizeof(int) * nel);
  double *x = malloc(sizeof(double) * nnode), *y = malloc(sizeof(double) * nnode);
  double *z = malloc(sizeof(double) * nnode);
  double *xd = calloc(nnode, sizeof(double)), *yd = calloc(nnode, sizeof(double));
  double *zd = calloc(nnode, sizeof(double));
  double *fx = calloc(nnode, sizeof(double)), *fy = calloc(nnode, sizeof(double));
  double *fz = calloc(nnode, sizeof(double));
  double *nmass = calloc(nnode, sizeof(double));
  int *symm = calloc(nnode, sizeof(int));  // bit d: on the plane coord d == 0
  double *e = malloc(sizeof(double) * nel), *p = malloc(sizeof(double) * nel);
  double *q = calloc(nel, sizeof(double)), *vol = malloc(sizeof(double) * nel);
  double *vnew = malloc(sizeof(double) * nel), *emass = malloc(sizeof(double) * nel);
  double *ss = malloc(sizeof(double) * nel), *vdov = calloc(nel, sizeof(double));
  double *arealg = malloc(sizeof(double) * nel);
  double *delv_xi = calloc(nel, sizeof(double)), *delv_eta = calloc(nel, sizeof(double));
  double *delv_zeta = calloc(nel, sizeof(double));
  double *delx_xi = calloc(nel, sizeof(double)), *delx_eta = calloc(nel, sizeof(double));
  double *delx_zeta = calloc(nel, sizeof(double));

  for (int i = 0; i < sn; ++i)
    for (int j = 0; j < sn; ++j)
      for (int k = 0; k < sn; ++k) {
        int n = (i * sn + j) * sn + k;
        x[n] = i * h;
        y[n] = j * h;
        z[n] = k * h;
        symm[n] = (i == 0) | ((j == 0) << 1) | ((k == 0) << 2);
      }
  for (int i = 0; i < s; ++i)
    for (int j = 0; j < s; ++j)
      for (int k = 0; k < s; ++k) {
        int el = (i * s + j) * s + k;
        for (int c = 0; c < 8; ++c)
          nodelist[8 * el + c] =
              ((i + corner[c][0]) * sn + (j + corner[c][1])) * sn + (k + corner[c][2]);
        lxim[el] = i > 0 ? el - s * s : el;
        lxip[el] = i < s - 1 ? el + s * s : el;
        letam[el] = j > 0 ? el - s : el;
        letap[el] = j < s - 1 ? el + s : el;
        lzetam[el] = k > 0 ? el - 1 : el;
        lzetap[el] = k < s - 1 ? el + 1 : el;
        vol[el] = h * h * h;
        emass[el] = 1.0 * vol[el];  // rho0 = 1
        e[el] = initial_energy(i, j, k, s);
        p[el] = (GAMMA - 1.0) * e[el] * emass[el] / vol[el];
        ss[el] = sqrt(GAMMA * p[el] * vol[el] / emass[el]);
        arealg[el] = h;
      }
  for (int el = 0; el < nel; ++el)
    for (int c = 0; c < 8; ++c) nmass[nodelist[8 * el + c]] += emass[el] / 8.0;

  double dt = DT_INIT, time = 0.0;
  CA_REGION_BEGIN();
  for (int t = 0; t < steps; ++t) {
    // (a) element stress forces, scattered to the nodes
    for (int n = 0; n < nnode; ++n) fx[n] = fy[n] = fz[n] = 0.0;
    for (int el = 0; el < nel; ++el) {
      const int *nl = &nodelist[8 * el];
      double xl[8], yl[8], zl[8], B[3][8], fl[3][8];
      for (int k = 0; k < 8; ++k) {
        xl[k] = x[nl[k]];
        yl[k] = y[nl[k]];
        zl[k] = z[nl[k]];
      }
      shape_derivs(xl, yl, zl, B);
      double sig = p[el] + q[el];
      for (int d = 0; d < 3; ++d)
        for (int k = 0; k < 8; ++k) fl[d][k] = sig * B[d][k];
      for (int k = 0; k < 8; ++k) {
        fx[nl[k]] += fl[0][k];
        fy[nl[k]] += fl[1][k];
        fz[nl[k]] += fl[2][k];
      }
    }
    // (b) nodal acceleration, velocity, position
    for (int n = 0; n < nnode; ++n) {
      double ax = fx[n] / nmass[n], ay = fy[n] / nmass[n], az = fz[n] / nmass[n];
      if (symm[n] & 1) ax = 0.0;
      if (symm[n] & 2) ay = 0.0;
      if (symm[n] & 4) az = 0.0;
      xd[n] += ax * dt;
      yd[n] += ay * dt;
      zd[n] += az * dt;
      x[n] += xd[n] * dt;
      y[n] += yd[n] * dt;
      z[n] += zd[n] * dt;
    }
    // (c) element kinematics from the new node state
    for (int el = 0; el < nel; ++el) {
      const int *nl = &nodelist[8 * el];
      double xl[8], yl[8], zl[8], ul[8], vl[8], wl[8], B[3][8];
      for (int k = 0; k < 8; ++k) {
        xl[k] = x[nl[k]]; yl[k] = y[nl[k]]; zl[k] = z[nl[k]];
        ul[k] = xd[nl[k]]; vl[k] = yd[nl[k]]; wl[k] = zd[nl[k]];
      }
      double v = shape_derivs(xl, yl, zl, B);
      if (v <= 0.0) {
        fprintf(stderr, "lulesh_seq: negative volume in element %d, step %d\n", el, t);
        return 2;
      }
      double dvol = 0.0;
      for (int k = 0; k < 8; ++k) dvol += ul[k] * B[0][k] + vl[k] * B[1][k] + wl[k] * B[2][k];
      vnew[el] = v;
      vdov[el] = dvol / v;
      logical_gradient(0, xl, yl, zl, ul, vl, wl, &delx_xi[el], &delv_xi[el]);
      logical_gradient(1, xl, yl, zl, ul, vl, wl, &delx_eta[el], &delv_eta[el]);
      logical_gradient(2, xl, yl, zl, ul, vl, wl, &delx_zeta[el], &delv_zeta[el]);
    }
    // (c) artificial viscosity (needs the neighbours' gradients), energy, EOS
    for (int el = 0; el < nel; ++el) {
      double phixi = limiter(delv_xi[el], delv_xi[lxim[el]], delv_xi[lxip[el]]);
      double phieta = limiter(delv_eta[el], delv_eta[letam[el]], delv_eta[letap[el]]);
      double phizeta = limiter(delv_zeta[el], delv_zeta[lzetam[el]], delv_zeta[lzetap[el]]);
      double qnew = 0.0;
      if (vdov[el] < 0.0) {
        double rho = emass[el] / vnew[el];
        double dxi = delv_xi[el] * delx_xi[el];
        double deta = delv_eta[el] * delx_eta[el];
        double dzeta = delv_zeta[el] * delx_zeta[el];
        if (dxi > 0.0) dxi = 0.0;
        if (deta > 0.0) deta = 0.0;
        if (dzeta > 0.0) dzeta = 0.0;
        double qlin = -QLC * rho *
                      (dxi * (1.0 - phixi) + deta * (1.0 - phieta) + dzeta * (1.0 - phizeta));
        double qquad = QQC * rho *
                       (dxi * dxi * (1.0 - phixi * phixi) + deta * deta * (1.0 - phieta * phieta) +
                        dzeta * dzeta * (1.0 - phizeta * phizeta));
        qnew = qlin + qquad;
      }
      q[el] = qnew;
      double enew = e[el] - (p[el] + qnew) * (vnew[el] - vol[el]) / emass[el];
      if (enew < 0.0) enew = 0.0;
      e[el] = enew;
      vol[el] = vnew[el];
      double rho = emass[el] / vol[el];
      p[el] = (GAMMA - 1.0) * rho * e[el];
      ss[el] = sqrt(GAMMA * p[el] / rho + 1e-20);
      double len = delx_xi[el];
      if (delx_eta[el] < len) len = delx_eta[el];
      if (delx_zeta[el] < len) len = delx_zeta[el];
      arealg[el] = len;
    }
    // (d) time-step constraints, minimum over all elements -> next dt
    double dtmin = 1e20;
    for (int el = 0; el < nel; ++el) {
      double dtf = ss[el] * ss[el];
      if (vdov[el] < 0.0) dtf += QQC2 * arealg[el] * arealg[el] * vdov[el] * vdov[el];
      double dtc = 0.5 * arealg[el] / sqrt(dtf);
      if (dtc < dtmin) dtmin = dtc;
      if (vdov[el] != 0.0) {
        double dth = (2.0 / 3.0) * DVOVMAX / fabs(vdov[el]);
        if (dth < dtmin) dtmin = dth;
      }
    }
    time += dt;
    dt = dtmin < DT_GROWTH * dt ? dtmin : DT_GROWTH * dt;
    CA_ITERATION();
  }
  CA_REGION_END();

  double ie = 0.0, ke = 0.0, disp = 0.0;
  for (int el = 0; el < nel; ++el) ie += e[el] * emass[el];
  for (int i = 0; i < sn; ++i)
    for (int j = 0; j < sn; ++j)
      for (int k = 0; k < sn; ++k) {
        int n = (i * sn + j) * sn + k;
        ke += 0.5 * nmass[n] * (xd[n] * xd[n] + yd[n] * yd[n] + zd[n] * zd[n]);
        disp += (x[n] - i * h) + 2.0 * (y[n] - j * h) + 3.0 * (z[n] - k * h);
      }
  printf("lulesh s=%d steps=%d time %.6e dt %.6e ie %.10e ke %.10e disp %.10e\n", s, steps,
         time, dt, ie, ke, disp);
  printf("checksum %.12e\n", ie + ke + disp);
  return 0;
}

// lulesh_mpi.c: MPI reference version of lulesh_seq.c.
//
// Decomposition: cube process topology q x q x q (P = 1, 8, 27, 64, ...;
// MPI_Cart_create, non-periodic). Each rank owns a sub-cube of lx x ly x lz
// elements (s split into q nearly equal blocks per dimension) and all the
// nodes of those elements, (lx+1) x (ly+1) x (lz+1); nodes on sub-domain
// boundaries are duplicated on every rank that touches them (as in LULESH).
// Every rank builds its local mesh and initial state from global indices.
//
// Per time step (= one iteration of the counted region):
//   1. nodal force sum: every rank sends its partial forces (fx, fy, fz) of
//      the nodes it shares with each of its up to 26 neighbours (faces:
//      (l+1)^2 nodes, edges: l+1 nodes, corners: 1 node; 3 doubles each) and
//      adds the partials it receives (MPI_Isend/Irecv). Contributions are
//      added in ascending rank order so all copies of a node stay identical.
//   2. element halo: the monotonic q of an element needs its face
//      neighbours' velocity gradients; each rank sends the gradient along x
//      (delv_xi) of its boundary element layer to its x face neighbours, and
//      likewise delv_eta / delv_zeta to the y / z face neighbours (one
//      double per boundary element, up to 6 messages).
//   3. MPI_Allreduce(MIN) of 1 double: the time-step constraint -> next dt.
// The checksum is reduced with MPI_Reduce after the counted region.
//
// Usage: mpirun -np P lulesh_mpi [s=12] [steps=20]
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define GAMMA 1.4
#define QLC 0.5
#define QQC (2.0 / 3.0)
#define MONOQ_LIMITER 2.0
#define MONOQ_MAX_SLOPE 1.0
#define QQC2 (64.0 * 2.0 * 2.0)
#define DVOVMAX 0.1
#define PTINY 1e-36
#define DT_GROWTH 1.2
#define DT_INIT 1e-4

static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                 {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

static double initial_energy(int i, int j, int k, int s) {
  double h = 1.0 / s;
  double cx = (i + 0.5) * h, cy = (j + 0.5) * h, cz = (k + 0.5) * h;
  return 1.0 + 20.0 * exp(-(cx * cx + cy * cy + cz * cz) / 0.05);
}

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
      B[d][k] = sum;
    }
  return 8.0 * det;
}

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

static int block_lo(int c, int q, int n) { return c * (n / q) + (c < n % q ? c : n % q); }
static int block_len(int c, int q, int n) { return n / q + (c < n % q ? 1 : 0); }

// ------------------------------------------------------------ communication
// Directions (dx, dy, dz) in {-1,0,1}^3 are numbered (dx+1)*9+(dy+1)*3+(dz+1);
// 13 is the rank itself. Increasing direction number = increasing neighbour
// rank (row-major Cartesian ranks), which fixes the order of the force sums.
typedef struct {
  MPI_Comm comm;
  int nbr[27];        // neighbour rank or MPI_PROC_NULL
  int *nodes[27];     // local node indices shared with neighbour d (ordered)
  int nnodes[27];
  double *sbuf[27], *rbuf[27];
  int nnode;
  double *tmp;        // 3 * nnode
} NodeComm;

// Sum nf nodal fields over all copies of every shared node.
static void sum_shared_nodes(NodeComm *c, double **f, int nf) {
  MPI_Request req[52];
  int nreq = 0;
  for (int d = 0; d < 27; ++d) {
    if (d == 13 || c->nbr[d] == MPI_PROC_NULL) continue;
    MPI_Irecv(c->rbuf[d], nf * c->nnodes[d], MPI_DOUBLE, c->nbr[d], 10, c->comm, &req[nreq++]);
  }
  for (int d = 0; d < 27; ++d) {
    if (d == 13 || c->nbr[d] == MPI_PROC_NULL) continue;
    for (int j = 0; j < c->nnodes[d]; ++j)
      for (int v = 0; v < nf; ++v) c->sbuf[d][j * nf + v] = f[v][c->nodes[d][j]];
    MPI_Isend(c->sbuf[d], nf * c->nnodes[d], MPI_DOUBLE, c->nbr[d], 10, c->comm, &req[nreq++]);
  }
  MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
  for (int v = 0; v < nf; ++v) {
    double *t = c->tmp + (size_t)v * c->nnode;
    for (int n = 0; n < c->nnode; ++n) t[n] = 0.0;
  }
  for (int d = 0; d < 27; ++d) {
    for (int v = 0; v < nf; ++v) {
      double *t = c->tmp + (size_t)v * c->nnode;
      if (d == 13) {
        for (int n = 0; n < c->nnode; ++n) t[n] += f[v][n];
      } else if (c->nbr[d] != MPI_PROC_NULL) {
        for (int j = 0; j < c->nnodes[d]; ++j) t[c->nodes[d][j]] += c->rbuf[d][j * nf + v];
      }
    }
  }
  for (int v = 0; v < nf; ++v) {
    double *t = c->tmp + (size_t)v * c->nnode;
    for (int n = 0; n < c->nnode; ++n) f[v][n] = t[n];
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Pcontrol(0);
  int s = argc > 1 ? atoi(argv[1]) : 12;
  int steps = argc > 2 ? atoi(argv[2]) : 20;
  int P, rank;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  int q = (int)lround(cbrt((double)P));
  if (q * q * q != P || s < q || steps < 0) {
    fprintf(stderr, "lulesh_mpi: P must be a cube (1, 8, 27, 64, ...) and s >= cbrt(P)\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int dims[3] = {q, q, q}, periods[3] = {0, 0, 0}, coords[3];
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, 3, coords);
  int e0[3], le[3];
  for (int d = 0; d < 3; ++d) {
    e0[d] = block_lo(coords[d], q, s);
    le[d] = block_len(coords[d], q, s);
  }
  const int lx = le[0], ly = le[1], lz = le[2];
  const int nx = lx + 1, ny = ly + 1, nz = lz + 1;
  const int nel = lx * ly * lz, nnode = nx * ny * nz;
  const double h = 1.0 / s;
#define NODE(a, b, c) (((a) * ny + (b)) * nz + (c))
#define ELEM(a, b, c) (((a) * ly + (b)) * lz + (c))

  // ---- neighbours and shared-node lists
  NodeComm nc;
  nc.comm = cart;
  nc.nnode = nnode;
  nc.tmp = malloc(sizeof(double) * 3 * nnode);
  for (int d = 0; d < 27; ++d) {
    int dd[3] = {d / 9 - 1, (d / 3) % 3 - 1, d % 3 - 1}, nb[3], ok = 1;
    int lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
      nb[a] = coords[a] + dd[a];
      if (nb[a] < 0 || nb[a] >= q) ok = 0;
      lo[a] = dd[a] > 0 ? le[a] : 0;
      hi[a] = dd[a] < 0 ? 0 : le[a];
    }
    nc.nbr[d] = MPI_PROC_NULL;
    nc.nodes[d] = NULL;
    nc.nnodes[d] = 0;
    nc.sbuf[d] = nc.rbuf[d] = NULL;
    if (d == 13 || !ok) continue;
    MPI_Cart_rank(cart, nb, &nc.nbr[d]);
    int cnt = (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1);
    nc.nodes[d] = malloc(sizeof(int) * cnt);
    nc.sbuf[d] = malloc(sizeof(double) * 3 * cnt);
    nc.rbuf[d] = malloc(sizeof(double) * 3 * cnt);
    for (int a = lo[0]; a <= hi[0]; ++a)
      for (int b = lo[1]; b <= hi[1]; ++b)
        for (int c = lo[2]; c <= hi[2]; ++c) nc.nodes[d][nc.nnodes[d]++] = NODE(a, b, c);
  }
  // Face neighbours for the element halo: axis a, side 0 (low) / 1 (high).
  int fnbr[3][2];
  for (int a = 0; a < 3; ++a) MPI_Cart_shift(cart, a, 1, &fnbr[a][0], &fnbr[a][1]);
  const int farea[3] = {ly * lz, lx * lz, lx * ly};

  // ---- mesh and state (local numbering; element ghosts after nel)
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
  int *symm = calloc(nnode, sizeof(int));
  double *e = malloc(sizeof(double) * nel), *p = malloc(sizeof(double) * nel);
  double *qv = calloc(nel, sizeof(double)), *vol = malloc(sizeof(double) * nel);
  double *vnew = malloc(sizeof(double) * nel), *emass = malloc(sizeof(double) * nel);
  double *ss = malloc(sizeof(double) * nel), *vdov = calloc(nel, sizeof(double));
  double *arealg = malloc(sizeof(double) * nel);
  double *delv[3], *delx[3], *hsend[3][2];
  for (int a = 0; a < 3; ++a) {  // gradients + 2 ghost layers for axis a
    delv[a] = calloc(nel + 2 * farea[a], sizeof(double));
    delx[a] = calloc(nel, sizeof(double));
    hsend[a][0] = malloc(sizeof(double) * farea[a]);
    hsend[a][1] = malloc(sizeof(double) * farea[a]);
  }

  for (int a = 0; a < nx; ++a)
    for (int b = 0; b < ny; ++b)
      for (int c = 0; c < nz; ++c) {
        int n = NODE(a, b, c), gi = e0[0] + a, gj = e0[1] + b, gk = e0[2] + c;
        x[n] = gi * h;
        y[n] = gj * h;
        z[n] = gk * h;
        symm[n] = (gi == 0) | ((gj == 0) << 1) | ((gk == 0) << 2);
      }
  for (int a = 0; a < lx; ++a)
    for (int b = 0; b < ly; ++b)
      for (int c = 0; c < lz; ++c) {
        int el = ELEM(a, b, c);
        for (int k = 0; k < 8; ++k)
          nodelist[8 * el + k] = NODE(a + corner[k][0], b + corner[k][1], c + corner[k][2]);
        // Face neighbours: local element, ghost slot (neighbour rank), or
        // the element itself on the global boundary (as in lulesh_seq.c).
        int gx0 = nel, gx1 = nel + farea[0], gy0 = nel, gy1 = nel + farea[1];
        int gz0 = nel, gz1 = nel + farea[2];
        lxim[el] = a > 0 ? el - ly * lz : fnbr[0][0] != MPI_PROC_NULL ? gx0 + b * lz + c : el;
        lxip[el] = a < lx - 1 ? el + ly * lz : fnbr[0][1] != MPI_PROC_NULL ? gx1 + b * lz + c : el;
        letam[el] = b > 0 ? el - lz : fnbr[1][0] != MPI_PROC_NULL ? gy0 + a * lz + c : el;
        letap[el] = b < ly - 1 ? el + lz : fnbr[1][1] != MPI_PROC_NULL ? gy1 + a * lz + c : el;
        lzetam[el] = c > 0 ? el - 1 : fnbr[2][0] != MPI_PROC_NULL ? gz0 + a * ly + b : el;
        lzetap[el] = c < lz - 1 ? el + 1 : fnbr[2][1] != MPI_PROC_NULL ? gz1 + a * ly + b : el;
        vol[el] = h * h * h;
        emass[el] = 1.0 * vol[el];
        e[el] = initial_energy(e0[0] + a, e0[1] + b, e0[2] + c, s);
        p[el] = (GAMMA - 1.0) * e[el] * emass[el] / vol[el];
        ss[el] = sqrt(GAMMA * p[el] * vol[el] / emass[el]);
        arealg[el] = h;
      }
  for (int el = 0; el < nel; ++el)
    for (int k = 0; k < 8; ++k) nmass[nodelist[8 * el + k]] += emass[el] / 8.0;
  sum_shared_nodes(&nc, &nmass, 1);  // set-up, not counted

  double *force[3] = {fx, fy, fz};
  double dt = DT_INIT, time = 0.0;
  MPI_Pcontrol(1);
  for (int t = 0; t < steps; ++t) {
    // (a) element stress forces, scattered to the local nodes
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
      double sig = p[el] + qv[el];
      for (int d = 0; d < 3; ++d)
        for (int k = 0; k < 8; ++k) fl[d][k] = sig * B[d][k];
      for (int k = 0; k < 8; ++k) {
        fx[nl[k]] += fl[0][k];
        fy[nl[k]] += fl[1][k];
        fz[nl[k]] += fl[2][k];
      }
    }
    // communication 1: complete the forces on shared nodes
    sum_shared_nodes(&nc, force, 3);
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
        fprintf(stderr, "lulesh_mpi: negative volume on rank %d, step %d\n", rank, t);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      double dvol = 0.0;
      for (int k = 0; k < 8; ++k) dvol += ul[k] * B[0][k] + vl[k] * B[1][k] + wl[k] * B[2][k];
      vnew[el] = v;
      vdov[el] = dvol / v;
      for (int a = 0; a < 3; ++a)
        logical_gradient(a, xl, yl, zl, ul, vl, wl, &delx[a][el], &delv[a][el]);
    }
    // communication 2: element halo of the velocity gradients (face layers)
    {
      MPI_Request req[12];
      int nreq = 0;
      for (int a = 0; a < 3; ++a)
        for (int side = 0; side < 2; ++side) {
          int nb = fnbr[a][side];
          if (nb == MPI_PROC_NULL) continue;
          MPI_Irecv(delv[a] + nel + side * farea[a], farea[a], MPI_DOUBLE, nb, 20 + a, cart,
                    &req[nreq++]);
          int m = 0, l = side ? le[a] - 1 : 0;  // boundary layer on this side
          for (int i = 0; i < lx; ++i)
            for (int j = 0; j < ly; ++j)
              for (int k = 0; k < lz; ++k) {
                int idx[3] = {i, j, k};
                if (idx[a] == l) hsend[a][side][m++] = delv[a][ELEM(i, j, k)];
              }
          MPI_Isend(hsend[a][side], farea[a], MPI_DOUBLE, nb, 20 + a, cart, &req[nreq++]);
        }
      MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    }
    // (c) artificial viscosity, energy, EOS
    for (int el = 0; el < nel; ++el) {
      double phixi = limiter(delv[0][el], delv[0][lxim[el]], delv[0][lxip[el]]);
      double phieta = limiter(delv[1][el], delv[1][letam[el]], delv[1][letap[el]]);
      double phizeta = limiter(delv[2][el], delv[2][lzetam[el]], delv[2][lzetap[el]]);
      double qnew = 0.0;
      if (vdov[el] < 0.0) {
        double rho = emass[el] / vnew[el];
        double dxi = delv[0][el] * delx[0][el];
        double deta = delv[1][el] * delx[1][el];
        double dzeta = delv[2][el] * delx[2][el];
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
      qv[el] = qnew;
      double enew = e[el] - (p[el] + qnew) * (vnew[el] - vol[el]) / emass[el];
      if (enew < 0.0) enew = 0.0;
      e[el] = enew;
      vol[el] = vnew[el];
      double rho = emass[el] / vol[el];
      p[el] = (GAMMA - 1.0) * rho * e[el];
      ss[el] = sqrt(GAMMA * p[el] / rho + 1e-20);
      double len = delx[0][el];
      if (delx[1][el] < len) len = delx[1][el];
      if (delx[2][el] < len) len = delx[2][el];
      arealg[el] = len;
    }
    // (d) time-step constraints; communication 3: global minimum
    double dtmin = 1e20, dtglob;
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
    MPI_Allreduce(&dtmin, &dtglob, 1, MPI_DOUBLE, MPI_MIN, cart);
    time += dt;
    dt = dtglob < DT_GROWTH * dt ? dtglob : DT_GROWTH * dt;
    MPI_Pcontrol(2);
  }
  MPI_Pcontrol(0);

  // Each node is counted by one owner: the rank whose element range starts
  // at or before it (the last rank of a dimension also owns the end node).
  double loc[3] = {0.0, 0.0, 0.0}, glob[3];
  for (int el = 0; el < nel; ++el) loc[0] += e[el] * emass[el];
  for (int a = 0; a < nx; ++a)
    for (int b = 0; b < ny; ++b)
      for (int c = 0; c < nz; ++c) {
        if ((a == lx && coords[0] < q - 1) || (b == ly && coords[1] < q - 1) ||
            (c == lz && coords[2] < q - 1))
          continue;
        int n = NODE(a, b, c), gi = e0[0] + a, gj = e0[1] + b, gk = e0[2] + c;
        loc[1] += 0.5 * nmass[n] * (xd[n] * xd[n] + yd[n] * yd[n] + zd[n] * zd[n]);
        loc[2] += (x[n] - gi * h) + 2.0 * (y[n] - gj * h) + 3.0 * (z[n] - gk * h);
      }
  MPI_Reduce(loc, glob, 3, MPI_DOUBLE, MPI_SUM, 0, cart);
  if (rank == 0) {
    printf("lulesh s=%d steps=%d time %.6e dt %.6e ie %.10e ke %.10e disp %.10e procs=%d\n", s,
           steps, time, dt, glob[0], glob[1], glob[2], P);
    printf("checksum %.12e\n", glob[0] + glob[1] + glob[2]);
  }
  MPI_Finalize();
  return 0;
}

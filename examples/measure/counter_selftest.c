// counter_selftest.c: known traffic for pmpi_counter.c; the expected numbers
// for any N >= 3 are computed independently in check_counter.py.
// Run: mpirun -np N -x LD_PRELOAD=libpmpi_counter.so ./counter_selftest
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int n, r;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (n < 3) {
    if (r == 0) fprintf(stderr, "counter_selftest needs >= 3 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  double d[64] = {0};
  int iv[256] = {0};
  char cv[16] = {0};
  double dr[64];
  int ir[256];
  MPI_Status st;

  // Counting is on from MPI_Init: 80 bytes 0 -> 1 (outside iterations).
  if (r == 0) MPI_Send(d, 10, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
  if (r == 1) MPI_Recv(dr, 10, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &st);

  MPI_Pcontrol(0);  // not counted
  if (r == 1) MPI_Send(iv, 100, MPI_INT, 0, 0, MPI_COMM_WORLD);
  if (r == 0) MPI_Recv(ir, 100, MPI_INT, 1, 0, MPI_COMM_WORLD, &st);
  MPI_Allreduce(d, dr, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Pcontrol(2);  // ignored while off

  MPI_Pcontrol(1);
  // ---- iteration 1: point-to-point + Bcast + Allreduce
  {
    int next = (r + 1) % n, prev = (r + n - 1) % n;
    MPI_Sendrecv(d, 5, MPI_DOUBLE, next, 1, dr, 5, MPI_DOUBLE, prev, 1,
                 MPI_COMM_WORLD, &st);  // ring: 40 B each
    MPI_Request rq[2];
    MPI_Irecv(ir, 3, MPI_INT, (r + n - 2) % n, 2, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(iv, 3, MPI_INT, (r + 2) % n, 2, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);  // 12 B each to r+2
    int up = r + 1 < n ? r + 1 : MPI_PROC_NULL;
    int dn = r > 0 ? r - 1 : MPI_PROC_NULL;
    MPI_Sendrecv(cv, 7, MPI_CHAR, up, 3, cv + 8, 7, MPI_CHAR, dn, 3,
                 MPI_COMM_WORLD, &st);  // 7 B r -> r+1, none from n-1
    MPI_Bcast(d, 4, MPI_DOUBLE, 1, MPI_COMM_WORLD);              // (N-1)*32
    MPI_Allreduce(d, dr, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);  // 2(N-1)*16
    MPI_Pcontrol(2);
  }
  // ---- iteration 2: the other collectives, a sub-communicator, self and
  // persistent sends
  {
    MPI_Reduce(iv, ir, 3, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);        // (N-1)12
    MPI_Gather(d, 2, MPI_DOUBLE, dr, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);  // (N-1)16
    MPI_Scatter(d, 1, MPI_DOUBLE, dr, 1, MPI_DOUBLE, n - 1, MPI_COMM_WORLD);
    MPI_Allgather(iv, 1, MPI_INT, ir, 1, MPI_INT, MPI_COMM_WORLD);    // N(N-1)4
    double *ad = calloc((size_t)(2 * n), sizeof(double));
    double *adr = calloc((size_t)(2 * n), sizeof(double));
    MPI_Alltoall(ad, 2, MPI_DOUBLE, adr, 2, MPI_DOUBLE, MPI_COMM_WORLD);
    int *cnt = calloc((size_t)n, sizeof(int)), *dsp = calloc((size_t)n, sizeof(int));
    int *scnt = calloc((size_t)n, sizeof(int)), *sdsp = calloc((size_t)n, sizeof(int));
    int *rcnt = calloc((size_t)n, sizeof(int)), *rdsp = calloc((size_t)n, sizeof(int));
    int tot = 0;
    for (int i = 0; i < n; ++i) { cnt[i] = i + 1; dsp[i] = tot; tot += i + 1; }
    double *gd = calloc((size_t)tot, sizeof(double));
    MPI_Allgatherv(d, r + 1, MPI_DOUBLE, gd, cnt, dsp, MPI_DOUBLE, MPI_COMM_WORLD);
    int *gi = calloc((size_t)(4 * tot + 4 * n * n), sizeof(int));
    MPI_Gatherv(iv, r + 1, MPI_INT, gi, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD);
    tot = 0;
    for (int i = 0; i < n; ++i) { cnt[i] = 2 * i + 1; dsp[i] = tot; tot += 2 * i + 1; }
    MPI_Scatterv(gi, cnt, dsp, MPI_INT, ir, 2 * r + 1, MPI_INT, 0, MPI_COMM_WORLD);
    int st_ = 0, rt_ = 0;
    for (int j = 0; j < n; ++j) {
      scnt[j] = r + j + 1; sdsp[j] = st_; st_ += scnt[j];
      rcnt[j] = j + r + 1; rdsp[j] = rt_; rt_ += rcnt[j];
    }
    int *sb = calloc((size_t)st_, sizeof(int)), *rb = calloc((size_t)rt_, sizeof(int));
    MPI_Alltoallv(sb, scnt, sdsp, MPI_INT, rb, rcnt, rdsp, MPI_INT, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);

    // Sub-communicator: parity classes, reversed order, so that comm rank 0
    // is the highest world rank of the class.
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, r % 2, n - r, &sub);
    int sr, sn;
    MPI_Comm_rank(sub, &sr);
    MPI_Comm_size(sub, &sn);
    MPI_Bcast(d, 1, MPI_DOUBLE, 0, sub);  // (sn-1)*8 from the top rank
    if (sn > 1 && sr == 0) MPI_Send(d, 3, MPI_DOUBLE, 1, 4, sub);
    if (sn > 1 && sr == 1) MPI_Recv(dr, 3, MPI_DOUBLE, 0, 4, sub, &st);
    MPI_Comm_free(&sub);

    MPI_Sendrecv(d, 1, MPI_DOUBLE, r, 5, dr, 1, MPI_DOUBLE, r, 5,
                 MPI_COMM_WORLD, &st);  // self: diagonal only

    MPI_Request ps, pr;
    MPI_Send_init(d, 4, MPI_DOUBLE, (r + 1) % n, 6, MPI_COMM_WORLD, &ps);
    MPI_Recv_init(dr, 4, MPI_DOUBLE, (r + n - 1) % n, 6, MPI_COMM_WORLD, &pr);
    for (int k = 0; k < 2; ++k) {
      MPI_Start(&pr);
      MPI_Start(&ps);
      MPI_Wait(&pr, &st);
      MPI_Wait(&ps, &st);
    }
    MPI_Request_free(&ps);
    MPI_Request_free(&pr);
    free(ad); free(adr); free(cnt); free(dsp); free(scnt); free(sdsp);
    free(rcnt); free(rdsp); free(gd); free(gi); free(sb); free(rb);
    MPI_Pcontrol(2);
  }
  // tail of the region, after the last iteration mark: 8 B 2 -> 0
  if (r == 2) MPI_Send(d, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
  if (r == 0) MPI_Recv(dr, 1, MPI_DOUBLE, 2, 7, MPI_COMM_WORLD, &st);
  MPI_Pcontrol(0);

  MPI_Allreduce(d, dr, 16, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);  // not counted
  MPI_Finalize();
  return 0;
}

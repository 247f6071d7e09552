// LULESH 2.0's time constraints, in its own code shape: a Domain object
// (std::vectors and scalars, more than 1 KiB: a tracked block every process
// holds) whose elements lie in regions of falling sizes; each cycle sets
// the time step from the last cycle's Courant and hydro constraints
// (TimeIncrement), updates every element, and takes both constraints'
// minima over each region in turn (CalcTimeConstraintsForElems), each
// through a per-thread array of one entry and the element where it is
// reached, tested against -1. Only the elements the shock has reached
// (vdov != 0, a few near one corner) take part, and a minimum kept by
// comparison reads only the values that lowered it. An MPI code reduces
// min(dtcourant / 2, dthydro * 2 / 3) once a cycle: one MPI_Allreduce of one
// value, from the second cycle on (the first takes the fixed initial step).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "commanalyzer/annotate.h"

typedef double Real_t;
typedef int Index_t;

class Domain {
 public:
  Domain(Index_t numElem, Index_t numReg) : m_numElem(numElem), m_numReg(numReg) {
    m_ss.resize(numElem);
    m_vdov.resize(numElem);
    m_arealg.resize(numElem);
    m_regElemSize = new Index_t[numReg]();
    m_regElemlist = new Index_t*[numReg];
  }
  Real_t& ss(Index_t i) { return m_ss[i]; }
  Real_t& vdov(Index_t i) { return m_vdov[i]; }
  Real_t& arealg(Index_t i) { return m_arealg[i]; }
  Index_t numElem() const { return m_numElem; }
  Index_t numReg() const { return m_numReg; }
  Index_t& regElemSize(Index_t r) { return m_regElemSize[r]; }
  Index_t*& regElemlist(Index_t r) { return m_regElemlist[r]; }
  Real_t& dtcourant() { return m_dtcourant; }
  Real_t& dthydro() { return m_dthydro; }
  Real_t& deltatime() { return m_deltatime; }
  Real_t& time() { return m_time; }
  Real_t& stoptime() { return m_stoptime; }
  Real_t& dtfixed() { return m_dtfixed; }
  Real_t& dtmax() { return m_dtmax; }
  Real_t& deltatimemultlb() { return m_deltatimemultlb; }
  Real_t& deltatimemultub() { return m_deltatimemultub; }
  Real_t& qqc() { return m_qqc; }
  Real_t& dvovmax() { return m_dvovmax; }
  Index_t& cycle() { return m_cycle; }

 private:
  std::vector<Real_t> m_ss, m_vdov, m_arealg;
  Index_t m_numElem, m_numReg;
  Index_t* m_regElemSize;
  Index_t** m_regElemlist;
  Real_t m_dtcourant = 1e20, m_dthydro = 1e20, m_deltatime = 5e-5, m_time = 0, m_stoptime = 1e-2;
  Real_t m_dtfixed = -1e-6, m_dtmax = 1e-2, m_deltatimemultlb = 1.1, m_deltatimemultub = 1.2;
  Real_t m_qqc = 2.0, m_dvovmax = 0.1;
  Index_t m_cycle = 0;
  Real_t m_other[140];  // the rest of LULESH's Domain: its other fields and parameters
};

static inline void TimeIncrement(Domain& domain) {
  Real_t targetdt = domain.stoptime() - domain.time();
  if ((domain.dtfixed() <= Real_t(0.0)) && (domain.cycle() != Index_t(0))) {
    Real_t ratio;
    Real_t olddt = domain.deltatime();
    Real_t gnewdt = Real_t(1.0e+20);
    Real_t newdt;
    if (domain.dtcourant() < gnewdt) {
      gnewdt = domain.dtcourant() / Real_t(2.0);
    }
    if (domain.dthydro() < gnewdt) {
      gnewdt = domain.dthydro() * Real_t(2.0) / Real_t(3.0);
    }
    newdt = gnewdt;  // MPI_Allreduce(&gnewdt, &newdt, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD)
    ratio = newdt / olddt;
    if (ratio >= Real_t(1.0)) {
      if (ratio < domain.deltatimemultlb()) {
        newdt = olddt;
      } else if (ratio > domain.deltatimemultub()) {
        newdt = olddt * domain.deltatimemultub();
      }
    }
    if (newdt > domain.dtmax()) {
      newdt = domain.dtmax();
    }
    domain.deltatime() = newdt;
  }
  if ((targetdt > domain.deltatime()) && (targetdt < (Real_t(4.0) * domain.deltatime() / Real_t(3.0)))) {
    targetdt = Real_t(2.0) * domain.deltatime() / Real_t(3.0);
  }
  if (targetdt < domain.deltatime()) {
    domain.deltatime() = targetdt;
  }
  domain.time() += domain.deltatime();
  ++domain.cycle();
}

static inline void CalcCourantConstraintForElems(Domain& domain, Index_t length, Index_t* regElemlist, Real_t qqc,
                                                 Real_t& dtcourant) {
  Index_t threads = 1;
  Index_t courant_elem_per_thread[1];
  Real_t dtcourant_per_thread[1];
  {
    Real_t qqc2 = Real_t(64.0) * qqc * qqc;
    Real_t dtcourant_tmp = dtcourant;
    Index_t courant_elem = -1;
    Index_t thread_num = 0;
    for (Index_t i = 0; i < length; ++i) {
      Index_t indx = regElemlist[i];
      Real_t dtf = domain.ss(indx) * domain.ss(indx);
      if (domain.vdov(indx) < Real_t(0.)) {
        dtf = dtf + qqc2 * domain.arealg(indx) * domain.arealg(indx) * domain.vdov(indx) * domain.vdov(indx);
      }
      dtf = std::sqrt(dtf);
      dtf = domain.arealg(indx) / dtf;
      if (domain.vdov(indx) != Real_t(0.)) {
        if (dtf < dtcourant_tmp) {
          dtcourant_tmp = dtf;
          courant_elem = indx;
        }
      }
    }
    dtcourant_per_thread[thread_num] = dtcourant_tmp;
    courant_elem_per_thread[thread_num] = courant_elem;
  }
  for (Index_t i = 1; i < threads; ++i) {
    if (dtcourant_per_thread[i] < dtcourant_per_thread[0]) {
      dtcourant_per_thread[0] = dtcourant_per_thread[i];
      courant_elem_per_thread[0] = courant_elem_per_thread[i];
    }
  }
  if (courant_elem_per_thread[0] != -1) {
    dtcourant = dtcourant_per_thread[0];
  }
}

static inline void CalcHydroConstraintForElems(Domain& domain, Index_t length, Index_t* regElemlist, Real_t dvovmax,
                                               Real_t& dthydro) {
  Index_t threads = 1;
  Index_t hydro_elem_per_thread[1];
  Real_t dthydro_per_thread[1];
  {
    Real_t dthydro_tmp = dthydro;
    Index_t hydro_elem = -1;
    Index_t thread_num = 0;
    for (Index_t i = 0; i < length; ++i) {
      Index_t indx = regElemlist[i];
      if (domain.vdov(indx) != Real_t(0.)) {
        Real_t dtdvov = dvovmax / (std::fabs(domain.vdov(indx)) + Real_t(1.e-20));
        if (dthydro_tmp > dtdvov) {
          dthydro_tmp = dtdvov;
          hydro_elem = indx;
        }
      }
    }
    dthydro_per_thread[thread_num] = dthydro_tmp;
    hydro_elem_per_thread[thread_num] = hydro_elem;
  }
  for (Index_t i = 1; i < threads; ++i) {
    if (dthydro_per_thread[i] < dthydro_per_thread[0]) {
      dthydro_per_thread[0] = dthydro_per_thread[i];
      hydro_elem_per_thread[0] = hydro_elem_per_thread[i];
    }
  }
  if (hydro_elem_per_thread[0] != -1) {
    dthydro = dthydro_per_thread[0];
  }
}

static inline void CalcTimeConstraintsForElems(Domain& domain) {
  domain.dtcourant() = 1.0e+20;
  domain.dthydro() = 1.0e+20;
  for (Index_t r = 0; r < domain.numReg(); ++r) {
    CalcCourantConstraintForElems(domain, domain.regElemSize(r), domain.regElemlist(r), domain.qqc(),
                                  domain.dtcourant());
    CalcHydroConstraintForElems(domain, domain.regElemSize(r), domain.regElemlist(r), domain.dvovmax(),
                                domain.dthydro());
  }
}

// The elements' update (LagrangeElements): every element from the time
// step; the shock, where vdov != 0, has reached the first `front` elements.
static void UpdateElements(Domain& domain, Index_t front) {
  for (Index_t i = 0; i < domain.numElem(); ++i) {
    domain.ss(i) = domain.ss(i) * Real_t(0.99) + domain.deltatime();
    domain.arealg(i) = domain.arealg(i) + domain.deltatime() * Real_t(0.5);
    domain.vdov(i) = i < front ? domain.vdov(i) * Real_t(1.5) -
                                     (Real_t(1.0) + Real_t((i * 7) % 11)) * Real_t(100.0) * (Real_t(1.0) + domain.deltatime())
                               : Real_t(0.);
  }
}

int main(int argc, char** argv) {
  const Index_t numElem = argc > 1 ? std::atoi(argv[1]) : 1728, its = argc > 2 ? std::atoi(argv[2]) : 6;
  Domain* locDom = new Domain(numElem, 11);
  // Regions of geometrically falling sizes, elements dealt out at random.
  std::vector<Index_t> reg(numElem);
  std::srand(1);
  for (Index_t i = 0; i < numElem; ++i) {
    Index_t r = 0;
    while (r < locDom->numReg() - 1 && std::rand() % 2) ++r;
    reg[i] = r;
    locDom->regElemSize(r)++;
  }
  for (Index_t r = 0; r < locDom->numReg(); ++r) {
    locDom->regElemlist(r) = new Index_t[locDom->regElemSize(r) + 1];
    locDom->regElemSize(r) = 0;
  }
  for (Index_t i = 0; i < numElem; ++i) locDom->regElemlist(reg[i])[locDom->regElemSize(reg[i])++] = i;
  for (Index_t i = 0; i < numElem; ++i) {
    locDom->ss(i) = 1.0 + i % 7;
    locDom->arealg(i) = 0.5 + i % 3;
    locDom->vdov(i) = 0.0;
  }
  CA_REGION_BEGIN();
  while ((locDom->time() < locDom->stoptime()) && (locDom->cycle() < its)) {
    TimeIncrement(*locDom);
    UpdateElements(*locDom, 8 + 6 * locDom->cycle());
    CalcTimeConstraintsForElems(*locDom);
    CA_ITERATION();
  }
  CA_REGION_END();
  std::printf("cycles %d dt %g\n", locDom->cycle(), locDom->deltatime());
  return 0;
}

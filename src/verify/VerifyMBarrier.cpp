// mbarrier family: the protocol of every mbarrier, for every trip count and shape (E0603-E0608, E0613, E0615).
//
// Obligations, per barrier declaration:
//   arrivals   every phase receives exactly arrivals(n) arrivals (E0603): an arrive counts once per thread
//              that executes it (elect: once per warp; a role NAME[n]: n times);
//   expect_tx  the bytes a phase expects equal the bytes of the copies that signal it - box elements x
//              element size per tma.load, multicast copies from the other CTAs included (E0604); and every
//              mbarrier.expect_tx comes before the phase can complete (its arrivals in, the copies in flight
//              carrying all bytes expected so far: one landing would complete it early) (E0615);
//   parity     a wait's parity selects the phase that carries the data the waiter reads next (E0605);
//   laps       a waiter for phase n never faces n + 2 completed phases (E0606);
//   init       mbarrier.init happens before every use and is published by syncthreads (cluster.sync across
//              CTAs) (E0607), with fence.mbarrier_init in between when TMA or another CTA signals it (E0608);
//   peer exit  a remote arrive on (or multicast copy into) another CTA of the cluster happens before that
//              CTA exits: some agent of it observes the access, e.g. through a final cluster.sync (E0613).
// Algorithm: the shared synchronisation analysis (SyncAnalysis.cpp: Z3 facts for every shape, then an
// exhaustive simulation of every trip count up to the pipeline's period bound, SyncSimulator.cpp) finds the
// violations; this file reports the ones of this family and counts the proven obligations.
#include "verify/Families.h"
#include "verify/SyncAnalysis.h"
#include "verify/VerifyContext.h"

namespace cake {

void verifyMBarriers(VerifyContext &ctx) { reportSyncFamily(ctx, SyncFamily::MBarrier); }

} // namespace cake

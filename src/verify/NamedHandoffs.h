// NamedHandoffs: does a kernel hand data between threads through one-way named barriers (`arrive B` on one
// side, `sync B` on the other)?
//
// bar.arrive orders nothing for the arriving threads and everything before it for the threads whose
// bar.sync completes that generation, so the data such a barrier hands over is ordered per generation, not
// per block-barrier interval.  Kernels that use it (and so far had no mbarrier) are checked by the sync
// simulation (SyncAnalysis.cpp: per-generation named-barrier clocks, the same stage read / overwrite checks
// as for mbarrier rings), and SharedRaces.cpp leaves the accesses of two different roles to it.
#pragma once
#include "frontend/AST.h"

namespace cake {

// True when some `arrive` names a named barrier (not an mbarrier) anywhere in the kernel.
bool usesNamedHandoffs(const Kernel &kernel);

} // namespace cake

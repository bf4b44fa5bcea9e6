// Deadlock-freedom family: every wait is eventually satisfied and roles never wait on each other in a cycle
// (E0611), plus the facts that extend the check to every trip count (E0601 when they cannot be proven).
//
// Algorithm: the shared synchronisation simulation runs every agent until it blocks; under the monotone
// "ghost phase" semantics (SyncSimulator.h) the outcome does not depend on the schedule, so an agent still
// blocked at the end is blocked under every schedule.  The diagnostic names the wait, the phase it needs, the
// barrier's state (arrivals, outstanding bytes) and where every other role is stuck or that it finished -
// which covers early returns that skip an arrive, ragged last iterations and missing releases after a loop.
// The Z3 obligations of this family are the periodicity and shape-determinacy of every expression that
// decides a synchronisation event (SyncAnalysis.cpp), which extend the simulated trip counts to all.
#include "verify/Families.h"
#include "verify/SyncAnalysis.h"
#include "verify/VerifyContext.h"

namespace cake {

void verifyDeadlock(VerifyContext &ctx) { reportSyncFamily(ctx, SyncFamily::Deadlock); }

} // namespace cake

// Ring-buffer family: shared stages filled by copies and read by consumers (E0609, E0610, E0612, E0614).
//
// Obligations, per shared array:
//   no overwrite    a write into a stage (tma.load, a store) happens after every read of its previous
//                   contents has ended (wgmma reads end at the wgmma.wait that retires them, tma.store reads
//                   at tma.store.wait) and the writer has observed that - through the consumers' release
//                   arrive and its own wait (E0609).  Equivalently the producer's lead stays <= stages;
//   no early read   a read of a stage happens after the copy filling those rows has landed and the reader
//                   has observed the phase it completed (E0610): the producer's lead stays >= 0;
//   no stray copy   no copy is still in flight when the block exits (E0612);
//   hand-offs       a named barrier used one way (arrive / sync) publishes only what the arriving threads
//                   did before their arrive, and they do not reuse the data or arrive again before a sync of
//                   that generation is ordered before them (E0614).
// Algorithm: happens-before with vector clocks over agents and stages inside the shared synchronisation
// simulation (SyncAnalysis.cpp / SyncSimulator.cpp), for every trip count up to the period bound; this
// file reports the family's findings and proven obligations.
#include "verify/Families.h"
#include "verify/SyncAnalysis.h"
#include "verify/VerifyContext.h"

namespace cake {

void verifyRingBuffers(VerifyContext &ctx) { reportSyncFamily(ctx, SyncFamily::Ring); }

} // namespace cake

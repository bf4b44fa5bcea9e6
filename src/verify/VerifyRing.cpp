// PLACEHOLDER
#include "verify/Families.h"
#include "verify/SyncAnalysis.h"
#include "verify/VerifyContext.h"

namespace cake {

void verifyRingBuffers(VerifyContext &ctx) { reportSyncFamily(ctx, SyncFamily::Ring); }

} // namespace cake

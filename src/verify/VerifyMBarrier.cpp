// PLACEHOLDER
#include "verify/Families.h"
#include "verify/SyncAnalysis.h"
#include "verify/VerifyContext.h"

namespace cake {

void verifyMBarriers(VerifyContext &ctx) { reportSyncFamily(ctx, SyncFamily::MBarrier); }

} // namespace cake

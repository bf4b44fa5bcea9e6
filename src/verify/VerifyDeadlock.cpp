// PLACEHOLDER
#include "verify/Families.h"
#include "verify/SyncAnalysis.h"
#include "verify/VerifyContext.h"

namespace cake {

void verifyDeadlock(VerifyContext &ctx) { reportSyncFamily(ctx, SyncFamily::Deadlock); }

} // namespace cake

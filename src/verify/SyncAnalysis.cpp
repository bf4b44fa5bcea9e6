// PLACEHOLDER
#include "verify/SyncAnalysis.h"
#include "verify/VerifyContext.h"
namespace cake {
SyncAnalysis analyzeSync(VerifyContext &ctx) { return {}; }
const SyncAnalysis &VerifyContext::syncAnalysis() {
  if (!syncAnalysis_) syncAnalysis_ = std::make_unique<SyncAnalysis>(analyzeSync(*this));
  return *syncAnalysis_;
}
void reportSyncFamily(VerifyContext &ctx, SyncFamily family) {
  const SyncAnalysis &a = ctx.syncAnalysis();
  ctx.recordProven(a.proven[static_cast<int>(family)]);
  for (const SyncFinding &f : a.findings) {
    if (f.family != family) continue;
    DiagBuilder b = f.unproven ? ctx.reportUnproven(f.range, f.args.at(0), f.args.at(1))
                               : ctx.reportFailureArgs(f.kind, f.range, f.args);
    for (const DiagNote &n : f.notes) b.note(n.range, n.message);
    if (!f.hint.empty()) b.hint(f.hint);
  }
}
}

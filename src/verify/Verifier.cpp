// Verifier: the list of obligation families and the per-kernel loop that runs them.
//
// For each kernel a VerifyContext is built (Z3 context, requires(...) as assumptions, shape variables,
// compile-time values); each family then adds its obligations' outcomes to the kernel's VerifyResult and
// reports failures / unproven obligations through the DiagnosticEngine.  Families are independent: one
// family's failure does not stop the next (every problem is reported, up to the error limit).
#include "verify/Verifier.h"

#include "verify/Families.h"
#include "verify/VerifyContext.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace cake {

namespace {

// The obligation families, in the order they run.
constexpr FamilyEntry kFamilies[] = {
    // ---- verifier core: synchronisation protocol (shared sync simulation, see SyncAnalysis.h)
    {"mbarrier", verifyMBarriers},
    {"ring buffers", verifyRingBuffers},
    {"deadlock freedom", verifyDeadlock},
    // ---- other families (verify-local)
    {"named barriers", verifyNamedBarriers},
    {"warp barriers", verifyWarpSync},
    {"warp collectives", verifyWarpCollectives},
    {"wgmma and proxies", verifyWgmmaAndProxies},
    {"cp.async groups", verifyCpAsyncGroups},
    {"resources", verifyResources},
    {"SIMT bounds", verifySimtBounds},
    // ---- shared-memory races, mbarrier initialisation order (verify-races)
    {"shared-memory races", verifySharedRaces},
    {"mbarrier initialisation order", verifyMBarrierInitOrder},
    {"async-proxy races", verifyAsyncProxyRaces},
    // ---- Blackwell tensor memory
    {"tensor memory", verifyTensorMemory},
    // ---- obligations written as data (--rules FILE)
    {"rules", verifyRules},
};

} // namespace

void VerifySessionDeleter::operator()(VerifySession *session) const { delete session; }

VerifySessionPtr makeVerifySession() { return VerifySessionPtr(new VerifySession); }

VerifyResult verifyModule(const Module &module, const SemaResult &sema, const VerifyOptions &options,
                          DiagnosticEngine &diags, VerifySession *session) {
  VerifyResult total;
  // One Z3 context for every kernel: each query carries its kernel's assumptions.
  VerifySessionPtr own;
  if (!session) session = (own = makeVerifySession()).get();
  session->beginModule();
  for (const Ptr<Kernel> &kernel : module.kernels) {
    const KernelInfo *info = sema.kernelInfo(kernel.get());
    if (!info) continue;
    VerifyResult result;
    VerifyContext ctx(module, *kernel, *info, sema, options, diags, result, session);
    // CAKE_VERIFY_TIMES=1 in the environment prints each family's wall time (profiling aid, stderr).
    const bool printTimes = std::getenv("CAKE_VERIFY_TIMES") != nullptr;
    for (const FamilyEntry &family : kFamilies) {
      if (diags.limitReached()) break;
      auto start = std::chrono::steady_clock::now();
      ctx.runFamily(family);
      if (printTimes)
        std::fprintf(stderr, "cakec: verify %s: %-30s %8.1f ms\n", kernel->name.c_str(), family.name,
                     std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    total += result;
  }
  return total;
}

} // namespace cake

// The obligation families the verifier runs, one function per file of src/verify (each file opens with a
// comment explaining its algorithm).  Verifier.cpp lists them in the order they run.
#pragma once

namespace cake {

class VerifyContext;

using ObligationFamily = void (*)(VerifyContext &);

struct FamilyEntry {
  const char *name;        // for -v / debugging: "mbarrier", "ring buffers", ...
  ObligationFamily run;
};

// ---- verifier core (VerifyMBarrier.cpp, VerifyRing.cpp, VerifyDeadlock.cpp)
void verifyMBarriers(VerifyContext &ctx);     // arrivals, expect_tx, parity, laps, initialisation
void verifyRingBuffers(VerifyContext &ctx);   // stage overwrite / read-before-fill, producer lead
void verifyDeadlock(VerifyContext &ctx);      // every wait eventually satisfied, no cycles

// ---- other families (verify-local)
void verifyNamedBarriers(VerifyContext &ctx);     // NamedBarriers.cpp: counts, id collisions, divergence
void verifyWarpSync(VerifyContext &ctx);          // WarpSync.cpp: syncwarp reached by exactly its mask's lanes
void verifyWarpCollectives(VerifyContext &ctx);   // WarpCollectives.cpp: shuffles and row reductions reached by whole warps
void verifyWgmmaAndProxies(VerifyContext &ctx);   // WgmmaProxies.cpp: wgmma fence/wait, warpgroups, proxy fences
void verifyCpAsyncGroups(VerifyContext &ctx);     // CpAsyncGroups.cpp: cp.async.wait covers the reads; tma.store committed and waited before exit
void verifyResources(VerifyContext &ctx);         // Resources.cpp: registers, TMA alignment
void verifySimtBounds(VerifyContext &ctx);        // SimtBounds.cpp: global/shared SIMT accesses in bounds

// ---- races and initialisation order (verify-races)
void verifySharedRaces(VerifyContext &ctx);       // SharedRaces.cpp: no two threads touch one shared element between barriers
void verifyMBarrierInitOrder(VerifyContext &ctx); // MBarrierInitOrder.cpp: mbarrier.init by one thread, never again after use
void verifyAsyncProxyRaces(VerifyContext &ctx);

// ---- Blackwell (TensorMemory.cpp)
void verifyTensorMemory(VerifyContext &ctx);      // tmem capacity and alloc/dealloc pairing, commit before ld, wait::ld, tcgen05 fences   // AsyncProxyRaces.cpp: TMA / wgmma shared accesses ordered with other threads' generic ones

// ---- obligations written as data (Rules.cpp; cakec --rules FILE)
void verifyRules(VerifyContext &ctx);             // the rules of VerifyOptions::rules, per role path

} // namespace cake

// SyncAnalysis: the synchronisation protocol of one kernel, checked once and shared by the three core
// families (mbarrier, ring buffers, deadlock).  SyncAnalysis.cpp explains the method: a sync program per
// agent (SyncModel.h), Z3 proofs of the structural facts for every trip count (trip-count feasibility,
// shape independence, periodicity), and an exhaustive simulation (SyncSimulator.h) of every feasible trip
// count up to 2P + 2 under the monotone "ghost phase" semantics, with a frozen-waiter search for laps.
//
// The outcome is a list of findings (one per refuted or unproven obligation, each already phrased as a
// diagnostic) and per-family counts of proven obligations; each family reports its own.
#pragma once
#include "support/Diagnostics.h"
#include "verify/SourceText.h"

#include <string>
#include <vector>

namespace cake {

class VerifyContext;

enum class SyncFamily : uint8_t { MBarrier, Ring, Deadlock };

struct SyncFinding {
  SyncFamily family = SyncFamily::Deadlock;
  bool unproven = false;          // true: E0601 "could not prove"; false: a refutation of `kind`
  bool timedOut = false;          // unproven because the solver ran out of time (E0602)
  DiagKind kind = DiagKind::SyncDeadlock;
  SourceRange range;
  std::vector<std::string> args;  // the message arguments of `kind` (unproven: obligation, reason)
  std::vector<DiagNote> notes;    // trace and the operations involved
  std::string hint;
  std::vector<StatementInsertion> insertions;   // mechanical edits that follow the hint: statements to add
  std::vector<FixIt> fixits;                    // ... and text to replace
};

struct SyncAnalysis {
  bool applicable = false;        // the kernel has mbarriers or roles (otherwise nothing to check here)
  std::vector<SyncFinding> findings;
  unsigned proven[3] = {0, 0, 0}; // obligations proven, per SyncFamily
};

// Builds the analysis (VerifyContext::syncAnalysis() caches it).
SyncAnalysis analyzeSync(VerifyContext &ctx);

// Reports `family`'s findings and proven count through ctx (used by the three family files).
void reportSyncFamily(VerifyContext &ctx, SyncFamily family);

} // namespace cake

// SyncSimulator: runs the agents' event lists (SyncModel.h) against a model of the hardware and reports the
// first protocol violation of each kind.
//
// Semantics ("ghost phase" semantics, monotone):
//   mbarrier  state per slot: completed phases c, arrivals and transaction bytes of the current phase.
//             arrive adds its multiplicity (and expect_tx bytes); a landed copy subtracts its bytes; the
//             phase completes when arrivals == arrivals(n) and the byte balance is 0.  A wait with parity p
//             targets phase n = the smallest n >= max(the agent's previous target on this barrier, initially
//             -1; the phases of it the agent knows complete - 1: its clock's component for the barrier) with
//             n = p (mod 2), and passes when c >= n + 1 (n = -1, the phase "before" the first, passes at
//             once).  This equals the hardware's parity test exactly as long as c <= n + 1 whenever the
//             waiter looks, which the lap check establishes (below); with it, blocking is monotone in c.
//   copies    tma.load puts a copy in flight; copies land lazily (only when no agent can move), oldest
//             first - the adversarial choice for reads of unfilled stages.  Since that hides a phase that
//             could complete as soon as a copy lands, an mbarrier.expect_tx posted when the phase's arrivals
//             are in and its copies in flight carry all the bytes expected so far is E0615.
//   ordering  vector clocks over agents, stages and mbarriers (phases known complete): a completed phase
//             carries the join of its arrivers' clocks and the versions of the stages its copies filled; a
//             passing wait joins the phase's
//             clock; syncthreads / cluster barriers join all participants.  A read of a stage is legal when
//             the reader's clock covers the stage's current version (it observed the fill); a write is
//             legal when the writer's clock covers every read of the previous contents (reads by wgmma end
//             at the wgmma.wait that retires them, tma.store reads at tma.store.wait).
//   threads   the same two checks per thread (ThreadKnowledge.h): each agent also keeps the clock each of
//             its threads observed.  A wait teaches the threads that execute it the phase's observed
//             clock (landed fills, and what the arriving threads had observed plus the arriving agent's
//             own progress); syncwarp joins the executing lanes of each warp; a named barrier teaches its
//             syncing warps what its arrivers observed before their arrive, per generation (an `arrive`
//             learns nothing; a write after it, or a second arrival not ordered after a sync of the previous
//             generation, is E0614); syncthreads / cluster barriers teach every thread.  A read
//             (write) that the agent's clock allows but some executing thread's clock does not is E0610
//             (E0609), naming those threads.
//   schedule  round-robin run-to-block.  Because blocking is monotone and data races are judged by
//             happens-before, not by the order observed, one schedule decides deadlock and races for all
//             schedules (a monotone system has one maximal outcome).  Laps are the exception: for every
//             wait the simulator also runs all other agents to quiescence with the waiter frozen there; if
//             the barrier then reaches c >= n + 2, some schedule laps the waiter.  That run copies only the
//             state that decides progress (program counters, wait targets, barrier counts, copies in
//             flight), not the clocks and stage histories, so a lap check costs the frozen run only.
#pragma once
#include "support/Arch.h"
#include "support/Diagnostics.h"
#include "verify/SyncAnalysis.h"
#include "verify/SourceText.h"
#include "verify/SyncModel.h"

#include <vector>

namespace cake {

struct SimFinding {
  SyncFamily family = SyncFamily::Deadlock;
  DiagKind kind = DiagKind::SyncDeadlock;
  SourceRange range;
  std::vector<std::string> args;
  std::vector<DiagNote> notes;
  std::string hint;
  std::vector<StatementInsertion> insertions;   // mechanical edits that follow the hint: statements to add
  std::vector<FixIt> fixits;                    // ... and text to replace
};

struct SimOutcome {
  std::vector<SimFinding> findings;
  unsigned phasesCompleted = 0;
};

SimOutcome simulateSync(const KernelInfo &info, Arch arch, const SlotTable &slots,
                        const std::vector<SyncAgent> &agents, const SyncProgram &program);

// The outcomes of several tile-count variants of one program, each exactly simulateSync's: programs.back()
// is the longest, and every other one whose base is it (expandSyncTail), in increasing order of the shared
// beginnings, is continued from a copy of the longest's run taken just before the first step, lap check or
// final check that could see past the beginning it shares.  So the shared part is simulated once instead of
// once per tile count.  Variants that do not share (or when the shared run stops first) run on their own.
std::vector<SimOutcome> simulateSyncVariants(const KernelInfo &info, Arch arch, const SlotTable &slots,
                                             const std::vector<SyncAgent> &agents,
                                             const std::vector<const SyncProgram *> &programs);

} // namespace cake

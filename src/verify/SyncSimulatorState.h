// The sync simulator's state - per agent, mbarrier, stage, copy and named barrier - and the Simulator class that
// runs a SyncProgram over it (semantics in SyncSimulator.h).  Its members are defined in three files:
//   SyncSimulator.cpp         the run loop, one event (step), mbarrier phases, initialisation, lap checks
//   SyncSimulatorAccess.cpp   stage reads and writes, what each reading / writing thread observed, named-barrier
//                             hand-offs and overruns
//   SyncSimulatorReports.cpp  the checks at the end of a run and the deadlock, imbalance and exit reports
#pragma once
#include "verify/FrozenRun.h"
#include "verify/SyncSimulator.h"
#include "verify/ThreadKnowledge.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace cake::sync_detail {

using Clock = std::vector<int64_t>;

constexpr size_t kKeptPhaseClocks = 2;
constexpr size_t kCompactReadsAt = 64;   // superseded reads of a stage before they are dropped (compactReads)

inline void join(Clock &into, const Clock &from) {
  for (size_t i = 0; i < into.size() && i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}

struct BarrierState {
  bool initialised = false;
  int initAgent = -1;
  int64_t initClock = 0;
  const SyncEvent *initEvent = nullptr;
  int64_t fenceClock = -1;           // initAgent's clock at its fence.mbarrier_init after the init
  int64_t completed = 0;             // phases completed (c)
  int64_t arrivals = 0, balance = 0, expected = 0, landed = 0;
  int64_t expectors = 0;             // executions of expect_tx (arrive or mbarrier.expect_tx) in the phase
  Clock phaseClock;
  // Clocks of the most recently completed phases: phase completed - completedClocks.size() + i.  A wait
  // that passes targets phase completed - 1 at the latest (older targets are laps, reported before the
  // wait passes), so two phases suffice.
  std::deque<Clock> completedClocks;
  std::vector<Participant> participants;   // arrivals of the current phase
  Participant lastExpect;
  // What the arriving threads had observed (ThreadKnowledge::knownBy, plus their agent's own progress) and
  // the fills of the phase's copies: what a wait teaches the threads that execute it.  Parallel to
  // phaseClock / completedClocks, which join the arriving agents' lock-step clocks.
  std::vector<int64_t> phaseKnow;
  std::deque<std::vector<int64_t>> completedKnow;
  std::deque<std::vector<Participant>> completedParticipants;   // parallel to completedKnow (for notes)
};

struct Read {
  int agent = -1;
  bool done = false;
  int64_t clock = 0;   // reader's own clock when the read ended
  const SyncEvent *event = nullptr;
};

// One write of (a row range of) a stage: copies of half a tile from two CTAs of a cluster fill one stage.
struct Write {
  int64_t version = 0;
  bool landed = true;
  int writer = -1;
  const SyncEvent *writeEvent = nullptr;
  int writeBarrier = -1;        // barrier the filling copy signals (-1: generic write)
  int64_t writePhase = -1;      // phase of writeBarrier the copy belongs to (its issue phase)
  int64_t lo = 0, hi = INT64_MAX;   // rows [lo, hi) of the tile
  size_t writerPc = 0;              // generic writes: the writer's event index
};

inline bool overlaps(int64_t lo1, int64_t hi1, int64_t lo2, int64_t hi2) { return lo1 < hi2 && lo2 < hi1; }

struct StageState {
  int64_t version = 0;          // writes so far (the stage's component of the vector clocks)
  std::vector<Write> writes;    // the current contents, by row range
  std::vector<Read> reads;      // reads not yet superseded by a covering write
};

struct Copy {
  int stage = -1, barrier = -1, agent = -1;
  int64_t bytes = 0, version = 0, issuePhase = 0;
  const SyncEvent *event = nullptr;
};

// An access to another CTA's shared memory (Simulator::checkPeerExits): a remote arrive (value: the
// arriving agent's own clock component then) or a landed copy from another CTA (value: the stage version).
struct RemoteAccess {
  int64_t value = 0;
  int agent = -1, slot = -1;   // slot: the barrier arrived on / signalled
  const SyncEvent *event = nullptr;
};

struct NamedArrival {
  int agent = -1;
  size_t pc = 0;
  const SyncEvent *event = nullptr;
  int64_t generation = 0;
};

struct AgentState {
  size_t pc = 0;
  Clock clock;
  std::map<int, int64_t> target;                    // barrier -> previous wait target
  std::map<int, bool> targetAdvanced;               // barrier -> its last wait targeted a later phase than the one before
  std::map<int, const SyncEvent *> lastWait;        // barrier -> last passed wait
  const SyncEvent *lastPassed = nullptr;            // the last wait this agent passed, and its target
  int64_t lastPassedTarget = 0;
  std::vector<Clock> blockSyncClocks, clusterClocks;
  std::vector<std::pair<int, size_t>> openWgmma, openStore;                 // (stage, read index)
  std::deque<std::vector<std::pair<int, size_t>>> wgmmaGroups, storeGroups;
  size_t clusterArrived = 0, clusterWaited = 0;
  size_t lapCheckedPc = SIZE_MAX;
  int64_t namedGeneration = -1;   // at a named `sync`: the generation it arrived in (-1: not arrived yet)
  bool namedReleased = false;     // ... let through without the barrier completing (see releaseNamedWaits)
  // The arrivals of the last named-barrier generation this agent synced on (agent, event index, event): what
  // a read after it relies on, for blaming a write that came after its writer's arrive (namedHandoffWrite).
  std::vector<NamedArrival> lastNamedSync;
  ThreadKnowledge know;           // the clock each of its threads has observed
};

// A named barrier (bar.sync id, n) of one CTA: threads arrive (32 per warp) until n have, which completes
// the generation; the threads that synced on it go on with the join of every arriver's clock.
struct NamedBarrierState {
  int64_t arrived = 0, generation = 0;
  Clock clock;                                  // join of the current generation's arrivals
  std::map<int64_t, Clock> completedClocks;     // generation -> its joined clock, while someone may need it
  std::vector<int64_t> know;                    // what the arriving threads observed (contribute)
  std::map<int64_t, std::vector<int64_t>> completedKnow;
  std::vector<NamedArrival> arrivals;           // the current generation's arrivals
  std::map<int64_t, std::vector<NamedArrival>> completedArrivals;   // parallel to completedClocks
  std::map<int, std::map<int64_t, int64_t>> lastGeneration;   // agent -> thread -> generation of its last arrival
  // generation -> the agents that synced on it and their own clock just after (what an arrival in a later
  // generation must have observed: the completion of the previous one it took part in)
  std::map<int64_t, std::vector<std::pair<int, int64_t>>> syncedBy;
};

class Simulator {
public:
  Simulator(const KernelInfo &info, Arch arch, const SlotTable &slots, const std::vector<SyncAgent> &agents,
            const SyncProgram &program);

  // Round-robin run-to-block until the end, a finding, or (with a horizon) the first decision that could
  // depend on events at or past the horizon; then paused() is true and run() continues from there (the
  // round-robin position is part of the state, so a paused run resumed - or a copy of it resumed with
  // another program - makes exactly the steps an uninterrupted run would).
  void run();

  // The horizon: per agent, the first event index at which this program may differ from another one that
  // shares its beginning (SIZE_MAX: none).  While every agent is before its horizon, the run makes the same
  // steps and checks under both programs.  Null: no horizon.
  void setHorizon(const std::vector<size_t> *horizon) { horizon_ = horizon; }
  // Continue with `program`, which agrees with the current one before the horizon (pointers to events of
  // the shared beginning stay valid: they point into the longer program, which outlives this run).
  void switchProgram(const SyncProgram &program) { program_ = &program; }
  bool paused() const { return paused_; }
  bool stopped() const { return stopped_; }

  SimOutcome outcome;

private:
  enum class LapVerdict : uint8_t { NoLap, Lap, BeyondHorizon };

  bool beyondHorizon() const;

  size_t eventCount(int a) const { return program_->size(static_cast<size_t>(a)); }

  // Nothing can move and agents wait at named barriers whose count cannot be reached any more: a count
  // mismatch, which the named-barrier family reports.  Here the waiting agents go on without the ordering
  // the barrier would give (so every later check sees fewer orderings, never more).  True if any went on.
  bool releaseNamedWaits();

  // Forgets the joined clocks of generations no agent of the CTA still waits for.
  void dropNamedClocks(NamedBarrierState &nb, int cta, int64_t id);
  const SyncEvent &event(int a, size_t i) const { return program_->at(static_cast<size_t>(a), i); }
  const SyncAgent &agent(int a) const { return (*agents_)[static_cast<size_t>(a)]; }
  std::string barName(int b) const { return slots_->barriers[static_cast<size_t>(b)].name(); }
  std::string stageName(int s) const { return slots_->stages[static_cast<size_t>(s)].name(); }
  int64_t declared(int b) const { return slots_->barriers[static_cast<size_t>(b)].decl->arrivals; }
  size_t stageClockIndex(int s) const { return agents_->size() + static_cast<size_t>(s); }
  size_t barrierClockIndex(int b) const { return agents_->size() + slots_->stages.size() + static_cast<size_t>(b); }
  bool finished(int a) const { return agentStates_[static_cast<size_t>(a)].pc >= eventCount(a); }

  static std::string at(const SyncEvent &e) { return e.where.empty() ? "" : " (" + e.where + ")"; }
  std::string who(int a, const SyncEvent &e) const { return agent(a).name + at(e); }

  SimFinding &report(SyncFamily family, DiagKind kind, SourceRange range, std::vector<std::string> args);

  // Does a copy into stage s signal barrier b (anywhere in the program)?
  bool someCopySignals(int s, int b) const;

  // The fix-it of a wait one phase early: its parity flipped (a literal 0 / 1 swapped, else `(P) ^ 1`).
  static void flipParity(SimFinding &f, const SyncEvent &wait);

  SourceRange declRange(int b) const;

  // ---- mbarrier phases
  void maybeComplete(int b);

  // An expect_tx on barrier b whose current phase can already complete: its arrivals are in and the bytes
  // expected so far are those of the copies in flight, so the copies landing now complete it (copies land
  // lazily in this simulation, which would otherwise hide that).  The bytes this expect_tx announces then
  // belong to a phase that may be over (E0615).  Judged in the simulated order.
  bool checkExpectTxInTime(int a, int b, const SyncEvent &e);

  int64_t pendingBytes(int b, int64_t phase) const;

  void land(size_t i);

  // ---- initialisation
  bool checkInit(int a, int b, const SyncEvent &e, const char *use, bool asyncOrRemote);

  // ---- stages
  bool checkReadable(int a, int s, const SyncEvent &e);

  // ---- named-barrier hand-offs (E0614)
  std::string namedName(const SyncEvent &e) const;

  // The writer's first arrive on a named barrier after its event `pc`, if any.
  const SyncEvent *nextNamedArrive(int writer, size_t pc) const;

  static bool blocks(EventKind k);

  // Reader `a` has not observed the generic write `w` of stage `s` by another agent.  When the last named
  // generation `a` synced on holds an arrival of the writer that precedes the write with nothing between
  // them that waits (the write belongs to the hand-off that arrival made), the write came after the arrive
  // that publishes it: E0614 at the write.  Otherwise the read is early (E0610, the caller's report).
  bool namedHandoffWrite(int a, int s, const SyncEvent &e, const Write &w);

  // Agent `a`'s threads arrive on a named barrier.  Those that arrived in an earlier generation must have
  // observed its completion (a thread that synced on it, then something that orders this arrival after
  // that sync: a hand-off back); bar.arrive does not wait, so otherwise their arrivals can count twice in one
  // generation, which then completes without the threads that should meet them (E0614).  In the simulated
  // order that shows either as a second arrival in the open generation or as an arrival not ordered after
  // any sync of the previous one.  The report is at the write of shared data between the two arrivals when
  // there is one (the reuse that needed the hand-off back), else at the second arrival.
  bool checkNamedOverrun(int a, const SyncEvent &e, NamedBarrierState &nb);

  // What the threads executing `e` pass on when they arrive (on an mbarrier or a named barrier): what they
  // observed, and the agent's own progress - its own reads count as released by any of its threads
  // (an `elect { arrive }` after every thread's read is the usual release).
  void contribute(int a, const SyncEvent &e, std::vector<int64_t> &into) const;

  // The agent as a whole has observed every fill the read needs (checkReadable); now each reading thread
  // must have, through a synchronisation it took part in: its own wait, a syncwarp after a wait by a lane
  // of its warp, a named barrier or block barrier it passed after such a wait (ThreadKnowledge).
  bool checkReadersObserved(int a, int s, const SyncEvent &e);

  // Notes and hint for an access by threads that did not observe what it needs (`what`: "fill" / "release";
  // `access`: "read" / "write"): the wait that did observe it and which threads ran it, and the fix the case
  // suggests - syncwarp when a lane of every such thread's warp waited, a named barrier when other warps
  // did, else an arrival from threads that observed it.
  void explainUnobserved(SimFinding &f, int a, const SyncEvent &e, const SyncEvent *wait,
                         const std::vector<int64_t> &unaware, const std::string &what, const std::string &access) const;

  // The agent as a whole is ordered after every earlier read of the rows it writes (checkWritable); now each
  // writing thread must be, through a synchronisation it took part in (as for reads).
  bool checkWritersObserved(int a, int s, const SyncEvent &e);

  // The reader's arrive between the wait before `read` and `read` itself, on a barrier `writer` has waited on.
  const SyncEvent *releaseBeforeRead(int reader, const SyncEvent &read, const AgentState &writer) const;

  bool checkWritable(int a, int s, const SyncEvent &e);

  // Records a write of rows [lo, hi) after checkWritable succeeded: it replaces the overlapping contents
  // and supersedes the reads it covers (they were just checked to happen before it).
  int64_t recordWrite(int s, Write w);

  // Drops the superseded reads of stage s (every later check skips them) and renumbers the references of the
  // agents' open and committed wgmma / tma.store groups to the others.  Those references are never to a
  // superseded read: a read is superseded only when done, and an async read is done only when its group
  // retires (and leaves the list).  Without this the list grows with every read of the run, and each write's
  // checks walk all of it: quadratic in the length of a long simulation.
  void compactReads(int s);

  void retire(AgentState &as, std::deque<std::vector<std::pair<int, size_t>>> &groups, int64_t keep, int a);

  // ---- one event; false when the agent is blocked or finished
  bool step(int a);

  void addParticipants(SimFinding &f, const BarrierState &s, int b);

  // The progress part of the current state (FrozenRun).
  FrozenRun frozenState() const;

  LapVerdict lapCheck(int a, int b, int64_t n, const SyncEvent &e);

  void finalChecks();

  // A CTA exits when its last agent finishes; an access to its shared memory from another CTA of the cluster
  // must happen before that: some agent of the target CTA has observed it (its final clock covers the
  // arrive, or the stage version the copy wrote) - usually through a final cluster barrier.
  void checkPeerExits();

  void reportPeerExit(const RemoteAccess &r, const std::string &what, int cta);

  void reportTxImbalance(int b);

  // E0604's fix-it: when one expect_tx execution announces phase `phase` of `b`, its byte count rewritten as
  // the sum of the tiles of the phase's copies (landed and in flight; ExpectTxFix.h).
  void fixExpectTx(SimFinding &f, int b, int64_t phase);

  // A phase of `b` that ends short of arrivals(n): when the previous phase completed and some agent arrived
  // on it fewer times now than then, arrivals(n) was right and a path of that agent skips its arrive (a
  // branch, an early return, a loop that ends sooner).  The hint says so, with the arrive it made before;
  // otherwise the count itself is suspect.
  void explainShortPhase(SimFinding &f, int b);

  // E0603's fix-it where the declared count is what is wrong: no phase of `b` has completed, and every agent
  // whose program arrives on `b` at all has arrived on the open phase - arrivals(n) rewritten to the arrivals
  // that phase received.
  void fixArrivalCount(SimFinding &f, int b);

  void reportDeadlock(const std::vector<int> &stuck);

  int64_t agentTarget(int a, const SyncEvent &e) const;

  bool moreArrivalsPossible(int b) const;

  std::string describeBlocked(int a, const SyncEvent &e) const;

  const KernelInfo *info_;
  Arch arch_;
  const SlotTable *slots_;
  const std::vector<SyncAgent> *agents_;
  const SyncProgram *program_;
  std::vector<AgentState> agentStates_;
  std::vector<BarrierState> barriers_;
  std::vector<StageState> stages_;
  std::vector<Copy> inFlight_;
  std::map<int, Clock> pendingSync_;
  std::map<std::pair<int, int64_t>, NamedBarrierState> named_;   // (CTA, hardware id)
  size_t ctas_ = 1;
  std::vector<RemoteAccess> remoteArrives_, remoteFills_;
  size_t rrAgent_ = 0;        // round-robin position: the agent running now
  bool rrProgress_ = false;   // some agent moved in the current round
  const std::vector<size_t> *horizon_ = nullptr;
  bool paused_ = false;
  bool stopped_ = false;
};

} // namespace cake::sync_detail

// SyncSimulator: the multi-agent state machine of the sync protocol (semantics in SyncSimulator.h).
#include "verify/SyncSimulator.h"
#include "verify/FrozenRun.h"
#include "verify/NamedBarrierOperand.h"

#include "verify/ThreadKnowledge.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>

namespace cake {

namespace {

using sync_detail::FrozenRun;
using sync_detail::Participant;
using Clock = std::vector<int64_t>;

constexpr size_t kKeptPhaseClocks = 2;
constexpr size_t kCompactReadsAt = 64;   // superseded reads of a stage before they are dropped (compactReads)

void join(Clock &into, const Clock &from) {
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

bool overlaps(int64_t lo1, int64_t hi1, int64_t lo2, int64_t hi2) { return lo1 < hi2 && lo2 < hi1; }

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
            const SyncProgram &program)
      : info_(&info), arch_(arch), slots_(&slots), agents_(&agents), program_(&program) {
    // Components: one per agent (its progress), per stage (its version), per mbarrier (phases known complete).
    size_t width = agents.size() + slots.stages.size() + slots.barriers.size();
    agentStates_.resize(agents.size());
    for (size_t a = 0; a < agents.size(); ++a) {
      agentStates_[a].clock.assign(width, 0);
      agentStates_[a].know.reset(agents[a].threads, width);
    }
    barriers_.resize(slots.barriers.size());
    for (BarrierState &b : barriers_) {
      b.phaseClock.assign(width, 0);
      b.phaseKnow.assign(width, 0);
    }
    stages_.resize(slots.stages.size());
    for (const SyncAgent &ag : agents) ctas_ = std::max(ctas_, static_cast<size_t>(ag.cta) + 1);
    remoteArrives_.resize(agents.size() * ctas_);
    remoteFills_.resize(slots.stages.size());
  }

  // Round-robin run-to-block until the end, a finding, or (with a horizon) the first decision that could
  // depend on events at or past the horizon; then paused() is true and run() continues from there (the
  // round-robin position is part of the state, so a paused run resumed - or a copy of it resumed with
  // another program - makes exactly the steps an uninterrupted run would).
  void run() {
    paused_ = false;
    size_t n = agentStates_.size();
    while (!stopped_) {
      for (; rrAgent_ < n && !stopped_; ++rrAgent_) {
        int a = static_cast<int>(rrAgent_);
        while (!stopped_) {
          if (beyondHorizon()) {
            paused_ = true;
            return;
          }
          if (!step(a)) break;
          rrProgress_ = true;
        }
        if (paused_) return;   // a lap check would have looked past the horizon: redo this step later
      }
      if (stopped_) break;
      rrAgent_ = 0;
      bool progress = rrProgress_;
      rrProgress_ = false;
      if (!progress) {
        if (inFlight_.empty()) {
          if (releaseNamedWaits()) continue;
          break;
        }
        bool anyRunning = false;
        for (size_t a = 0; a < agentStates_.size(); ++a)
          if (!finished(static_cast<int>(a))) anyRunning = true;
        if (!anyRunning) break;   // copies nobody waits for: reported by finalChecks
        land(0);
      }
    }
    if (stopped_) return;
    if (horizon_) {   // the final checks look at whole programs
      paused_ = true;
      return;
    }
    finalChecks();
  }

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
  bool beyondHorizon() const {
    if (!horizon_) return false;
    for (size_t a = 0; a < agentStates_.size(); ++a)
      if (agentStates_[a].pc >= (*horizon_)[a]) return true;
    return false;
  }

  size_t eventCount(int a) const { return program_->size(static_cast<size_t>(a)); }

  // Nothing can move and agents wait at named barriers whose count cannot be reached any more: a count
  // mismatch, which the named-barrier family reports.  Here the waiting agents go on without the ordering
  // the barrier would give (so every later check sees fewer orderings, never more).  True if any went on.
  bool releaseNamedWaits() {
    bool any = false;
    for (size_t a = 0; a < agentStates_.size(); ++a) {
      AgentState &as = agentStates_[a];
      if (as.namedGeneration >= 0 && !as.namedReleased) {
        as.namedReleased = true;
        any = true;
      }
    }
    return any;
  }

  // Forgets the joined clocks of generations no agent of the CTA still waits for.
  void dropNamedClocks(NamedBarrierState &nb, int cta, int64_t id) {
    int64_t oldest = nb.generation;
    for (size_t o = 0; o < agentStates_.size(); ++o) {
      const AgentState &os = agentStates_[o];
      if (os.namedGeneration < 0 || agent(static_cast<int>(o)).cta != cta || os.pc >= eventCount(static_cast<int>(o)))
        continue;
      const SyncEvent &at = event(static_cast<int>(o), os.pc);
      if (at.kind == EventKind::NamedSync && at.namedId == id) oldest = std::min(oldest, os.namedGeneration);
    }
    nb.completedClocks.erase(nb.completedClocks.begin(), nb.completedClocks.lower_bound(oldest));
    nb.completedKnow.erase(nb.completedKnow.begin(), nb.completedKnow.lower_bound(oldest));
    nb.completedArrivals.erase(nb.completedArrivals.begin(), nb.completedArrivals.lower_bound(oldest));
  }
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

  SimFinding &report(SyncFamily family, DiagKind kind, SourceRange range, std::vector<std::string> args) {
    stopped_ = true;
    outcome.findings.push_back({family, kind, range, std::move(args), {}, {}, {}, {}});
    return outcome.findings.back();
  }

  // Does a copy into stage s signal barrier b (anywhere in the program)?
  bool someCopySignals(int s, int b) const {
    for (size_t x = 0; x < agents_->size(); ++x)
      for (size_t i = 0; i < program_->size(x); ++i) {
        const SyncEvent &ev = program_->at(x, i);
        if (ev.kind != EventKind::TmaLoad) continue;
        for (size_t k = 0; k < ev.stages.size() && k < ev.barriers.size(); ++k)
          if (ev.stages[k] == s && ev.barriers[k] == b) return true;
      }
    return false;
  }

  // The fix-it of a wait one phase early: its parity flipped (a literal 0 / 1 swapped, else `(P) ^ 1`).
  static void flipParity(SimFinding &f, const SyncEvent &wait) {
    if (!wait.op) return;
    for (const Clause &c : wait.op->clauses) {
      if (c.name != "parity" || c.args.size() != 1 || !c.args[0]) continue;
      const Expr &p = *c.args[0];
      if (auto *lit = dynCast<IntLitExpr>(&p); lit && lit->value <= 1) {
        f.fixits.push_back({p.range, lit->value ? "0" : "1"});
      } else {
        f.fixits.push_back({SourceRange{p.range.begin, p.range.begin.offset}, "("});
        f.fixits.push_back({SourceRange{{p.range.begin.file, p.range.end}, p.range.end}, ") ^ 1"});
      }
    }
  }

  SourceRange declRange(int b) const {
    const MBarrierInfo *mb = slots_->barriers[static_cast<size_t>(b)].decl;
    return mb && mb->decl ? mb->decl->nameRange : SourceRange{};
  }

  // ---- mbarrier phases
  void maybeComplete(int b) {
    BarrierState &s = barriers_[static_cast<size_t>(b)];
    if (s.arrivals < declared(b) || s.balance != 0) return;
    int64_t phase = s.completed;
    {
      for (const Copy &c : inFlight_) {
        if (c.barrier != b || c.issuePhase != phase) continue;
        SimFinding &f = report(SyncFamily::MBarrier, DiagKind::MbarrierExpectTx,
                               s.lastExpect.event ? s.lastExpect.event->range : declRange(b),
                               {barName(b), std::to_string(phase), std::to_string(s.expected),
                                std::to_string(s.expected + pendingBytes(b, phase))});
        f.notes.push_back({c.event->range, "this copy (" + std::to_string(c.bytes) + " bytes, issued by " +
                                               who(c.agent, *c.event) + ") has not landed when phase " +
                                               std::to_string(phase) + " completes"});
        f.notes.push_back({declRange(b), "barrier declared here"});
        f.hint = "expect_tx must count the bytes of every copy that signals the barrier in this phase";
        return;
      }
    }
    s.completedClocks.push_back(s.phaseClock);
    if (s.completedClocks.size() > kKeptPhaseClocks) s.completedClocks.pop_front();
    s.completedKnow.push_back(s.phaseKnow);
    if (s.completedKnow.size() > kKeptPhaseClocks) s.completedKnow.pop_front();
    s.completedParticipants.push_back(s.participants);
    if (s.completedParticipants.size() > kKeptPhaseClocks) s.completedParticipants.pop_front();
    std::fill(s.phaseKnow.begin(), s.phaseKnow.end(), 0);
    s.completed++;
    outcome.phasesCompleted++;
    s.arrivals = 0;
    s.balance = 0;
    s.expected = 0;
    s.landed = 0;
    s.participants.clear();
    s.lastExpect = {};
    std::fill(s.phaseClock.begin(), s.phaseClock.end(), 0);
  }

  // An expect_tx on barrier b whose current phase can already complete: its arrivals are in and the bytes
  // expected so far are those of the copies in flight, so the copies landing now complete it (copies land
  // lazily in this simulation, which would otherwise hide that).  The bytes this expect_tx announces then
  // belong to a phase that may be over (E0615).  Judged in the simulated order.
  bool checkExpectTxInTime(int a, int b, const SyncEvent &e) {
    const BarrierState &s = barriers_[static_cast<size_t>(b)];
    int64_t pending = pendingBytes(b, s.completed);
    if (s.arrivals < declared(b) || pending == 0 || s.balance != pending) return true;
    SimFinding &f = report(SyncFamily::MBarrier, DiagKind::MbarrierExpectTxLate, e.range,
                           {"expect_tx (" + std::to_string(e.bytes * e.multiplicity) + " bytes) by " + who(a, e),
                            barName(b), std::to_string(s.completed)});
    for (const Participant &p : s.participants)
      if (p.event && p.event->kind == EventKind::Arrive)
        f.notes.push_back({p.event->range, "the phase's arrivals are complete after this arrive by " + who(p.agent, *p.event) +
                                               (p.event->bytes ? ", which expects " + std::to_string(p.event->bytes * p.event->multiplicity) +
                                                                     " bytes" : "")});
    for (const Copy &c : inFlight_)
      if (c.barrier == b && c.issuePhase == s.completed)
        f.notes.push_back({c.event->range, "this copy (" + std::to_string(c.bytes) + " bytes, issued by " +
                                               who(c.agent, *c.event) + ") may land before the expect_tx and complete phase " +
                                               std::to_string(s.completed)});
    f.hint = "post every expect_tx of a phase before the arrival that completes its count: add these bytes to "
             "that arrive's expect_tx, or move this 'mbarrier.expect_tx' above it";
    return false;
  }

  int64_t pendingBytes(int b, int64_t phase) const {
    int64_t n = 0;
    for (const Copy &c : inFlight_)
      if (c.barrier == b && c.issuePhase == phase) n += c.bytes;
    return n;
  }

  void land(size_t i) {
    Copy c = inFlight_[i];
    inFlight_.erase(inFlight_.begin() + static_cast<std::ptrdiff_t>(i));
    StageState &st = stages_[static_cast<size_t>(c.stage)];
    for (Write &w : st.writes)
      if (w.version == c.version) w.landed = true;
    if (slots_->stages[static_cast<size_t>(c.stage)].cta != agent(c.agent).cta)
      remoteFills_[static_cast<size_t>(c.stage)] = {c.version, c.agent, c.barrier, c.event};
    BarrierState &b = barriers_[static_cast<size_t>(c.barrier)];
    b.balance -= c.bytes;
    b.landed += c.bytes;
    Clock &pc = b.phaseClock;
    pc[stageClockIndex(c.stage)] = std::max(pc[stageClockIndex(c.stage)], c.version);
    int64_t &known = b.phaseKnow[stageClockIndex(c.stage)];
    known = std::max(known, c.version);
    b.participants.push_back({c.agent, c.event});
    maybeComplete(c.barrier);
  }

  // ---- initialisation
  bool checkInit(int a, int b, const SyncEvent &e, const char *use, bool asyncOrRemote) {
    BarrierState &s = barriers_[static_cast<size_t>(b)];
    const AgentState &as = agentStates_[static_cast<size_t>(a)];
    const MBarrierInfo *decl = slots_->barriers[static_cast<size_t>(b)].decl;
    if (!s.initialised || (s.initAgent != a && as.clock[static_cast<size_t>(s.initAgent)] < s.initClock)) {
      bool everInit = false;
      for (size_t x = 0; x < agents_->size(); ++x)
        for (size_t i = 0; i < program_->size(x); ++i)
          if (const SyncEvent &ev = program_->at(x, i); ev.kind == EventKind::Init && std::find(ev.barriers.begin(), ev.barriers.end(), b) != ev.barriers.end())
            everInit = true;
      SimFinding &f = report(SyncFamily::MBarrier, DiagKind::MbarrierNotInitialized, e.range,
                             {decl->decl->name, who(a, e),
                              !everInit ? "it is initialised (no mbarrier.init reaches it)"
                              : slots_->barriers[static_cast<size_t>(b)].cta != agent(a).cta
                                  ? "its initialisation is published to the cluster (cluster.sync)"
                                  : "its initialisation is published by a block barrier (syncthreads)"});
      if (s.initEvent) f.notes.push_back({s.initEvent->range, "initialised here by " + agent(s.initAgent).name});
      f.notes.push_back({declRange(b), "barrier declared here"});
      f.hint = "initialise it with 'mbarrier.init' in one thread, then 'fence.mbarrier_init;' and 'syncthreads;' "
               "before any role uses it";
      return false;
    }
    if (asyncOrRemote && archIn(arch_, archsFrom(Arch::SM90)) &&
        (s.fenceClock < 0 || (s.initAgent != a && as.clock[static_cast<size_t>(s.initAgent)] < s.fenceClock))) {
      SimFinding &f = report(SyncFamily::MBarrier, DiagKind::MbarrierInitNotFenced, e.range, {decl->decl->name, use});
      if (s.initEvent) f.notes.push_back({s.initEvent->range, "initialised here by " + agent(s.initAgent).name});
      f.hint = "add 'fence.mbarrier_init;' after 'mbarrier.init' (in the initialising thread), before the syncthreads";
      if (s.initEvent) f.insertions.push_back({s.initEvent->range, true, "fence.mbarrier_init;", {}});
      return false;
    }
    return true;
  }

  // ---- stages
  bool checkReadable(int a, int s, const SyncEvent &e) {
    const StageState &ss = stages_[static_cast<size_t>(s)];
    const AgentState &as = agentStates_[static_cast<size_t>(a)];
    const Write *bad = nullptr;
    bool any = false;
    for (const Write &w : ss.writes) {
      if (!overlaps(w.lo, w.hi, e.lo, e.hi)) continue;
      any = true;
      bool observed = w.landed && as.clock[stageClockIndex(s)] >= w.version;
      if (!observed && !(w.writer == a && w.writeBarrier < 0)) {
        bad = &w;
        break;
      }
    }
    if (any && !bad) return checkReadersObserved(a, s, e);
    Write none;
    none.version = 0;
    const Write &st = bad ? *bad : none;
    // A wait that passed on the phase before initialisation (parity 1 on a fresh barrier), then a read of
    // data that has not arrived: the parity is off by one phase.
    if (as.lastPassed && as.lastPassedTarget < 0) {
      const SyncEvent &wait = *as.lastPassed;
      int wb = wait.barriers[0];
      SimFinding &f = report(SyncFamily::MBarrier, DiagKind::MbarrierWaitParity, wait.range,
                             {barName(wb), std::to_string(wait.parity),
                              "-1 (the phase before initialisation, which counts as complete)",
                              agent(a).name + " then reads '" + stageName(s) + "'" + at(e) + ", which no completed phase has filled"});
      f.notes.push_back({wait.range, agent(a).name + " passes this wait at once" + at(wait)});
      f.notes.push_back({e.range, "and reads '" + stageName(s) + "' here" + at(e)});
      f.hint = "the k-th use of a stage of an S-stage ring waits with parity (k / S) & 1 (consumer) and "
               "((k / S) & 1) ^ 1 (producer)";
      // The flip is offered when the stage is filled through this barrier (not for a producer's wait on its
      // 'empty' barrier).  For a consumer that joins the ring mid-sequence (its parity is for a later phase and
      // the bug is the missing order) it is wrong: utils/verify-fixits.py counts that case.
      if (someCopySignals(s, wb)) flipParity(f, wait);
      return false;
    }
    if (!bad) {
      SimFinding &f = report(SyncFamily::Ring, DiagKind::StageReadBeforeFilled, e.range,
                             {who(a, e), stageName(s), "anything has been written to it"});
      f.hint = "fill the stage (tma.load / cp.async / a store) and wait for the fill before reading it";
      return false;
    }
    // Parity: the reader waited on the fill's barrier, but for an older phase than the fill's.
    if (st.writeBarrier >= 0) {
      auto t = as.target.find(st.writeBarrier);
      auto w = as.lastWait.find(st.writeBarrier);
      if (t != as.target.end() && w != as.lastWait.end() && t->second < st.writePhase) {
        const SyncEvent &wait = *w->second;
        SimFinding &f = report(SyncFamily::MBarrier, DiagKind::MbarrierWaitParity, wait.range,
                               {barName(st.writeBarrier), std::to_string(wait.parity), std::to_string(t->second),
                                "the copy into '" + stageName(s) + "' that " + agent(a).name + " then reads" +
                                    at(e) + " completes phase " + std::to_string(st.writePhase)});
        f.notes.push_back({wait.range, agent(a).name + " passes this wait" + at(wait)});
        f.notes.push_back({e.range, "and reads '" + stageName(s) + "' here" + at(e) + " before the copy has landed"});
        if (st.writeEvent) f.notes.push_back({st.writeEvent->range, "the copy is issued here by " + who(st.writer, *st.writeEvent)});
        f.hint = "the k-th use of a stage of an S-stage ring waits with parity (k / S) & 1 (consumer) and "
                 "((k / S) & 1) ^ 1 (producer)";
        if (st.writePhase == t->second + 1) flipParity(f, wait);
        return false;
      }
    }
    if (st.writeBarrier < 0 && st.writeEvent && st.writer != a && namedHandoffWrite(a, s, e, st)) return false;
    std::string why = !st.landed ? "the copy that fills it has completed" : "it has observed the write that fills it";
    SimFinding &f = report(SyncFamily::Ring, DiagKind::StageReadBeforeFilled, e.range, {who(a, e), stageName(s), why});
    if (st.writeEvent) f.notes.push_back({st.writeEvent->range, "filled here by " + who(st.writer, *st.writeEvent) +
                                                                    (st.landed ? "" : "; the copy may still be in flight")});
    if (st.writeBarrier >= 0) {
      f.notes.push_back({declRange(st.writeBarrier), "the copy signals '" + barName(st.writeBarrier) + "' phase " +
                                                          std::to_string(st.writePhase) + ", which " + agent(a).name +
                                                          " has not waited for"});
      f.hint = "wait on '" + barName(st.writeBarrier) + "' for the phase the copy completes before reading the stage";
    } else if (const SyncEvent *handoff = st.writeEvent ? nextNamedArrive(st.writer, st.writerPc) : nullptr) {
      f.notes.push_back({handoff->range, who(st.writer, *handoff) + " hands it over here"});
      f.hint = "read it after a 'sync " + namedName(*handoff) + "' that takes this arrive (bar.sync orders the "
               "reader after everything the arriving threads did before their arrive)";
    } else {
      f.hint = "order the write before the read with an mbarrier or a block barrier";
    }
    return false;
  }

  // ---- named-barrier hand-offs (E0614)
  std::string namedName(const SyncEvent &e) const {
    const Expr *index = nullptr;
    const BarrierStmt *b = e.op ? namedBarrierOperand(*e.op, &index) : nullptr;
    if (!b) return "barrier " + std::to_string(e.namedId);
    return index ? b->name + " (id " + std::to_string(e.namedId) + ")" : b->name;
  }

  // The writer's first arrive on a named barrier after its event `pc`, if any.
  const SyncEvent *nextNamedArrive(int writer, size_t pc) const {
    for (size_t i = pc + 1; i < eventCount(writer); ++i)
      if (event(writer, i).kind == EventKind::NamedArrive) return &event(writer, i);
    return nullptr;
  }

  static bool blocks(EventKind k) {
    return k == EventKind::Wait || k == EventKind::NamedSync || k == EventKind::BlockSync ||
           k == EventKind::ClusterWait;
  }

  // Reader `a` has not observed the generic write `w` of stage `s` by another agent.  When the last named
  // generation `a` synced on holds an arrival of the writer that precedes the write with nothing between
  // them that waits (the write belongs to the hand-off that arrival made), the write came after the arrive
  // that publishes it: E0614 at the write.  Otherwise the read is early (E0610, the caller's report).
  bool namedHandoffWrite(int a, int s, const SyncEvent &e, const Write &w) {
    const AgentState &as = agentStates_[static_cast<size_t>(a)];
    const NamedArrival *arrival = nullptr;
    for (const NamedArrival &n : as.lastNamedSync)
      if (n.agent == w.writer && n.pc < w.writerPc) arrival = &n;
    if (!arrival) return false;
    for (size_t i = arrival->pc + 1; i < w.writerPc; ++i)
      if (blocks(event(w.writer, i).kind)) return false;
    const SyncEvent &arrive = *arrival->event;
    SimFinding &f = report(SyncFamily::Ring, DiagKind::NamedHandoff, w.writeEvent->range,
                           {who(w.writer, *w.writeEvent), "writes", stageName(s),
                            "after its arrive on '" + namedName(arrive) + "'" + at(arrive) + ", which hands it to " +
                                agent(a).name + ": the arrive publishes only what comes before it"});
    f.notes.push_back({arrive.range, agent(w.writer).name + " arrives here" + at(arrive) + ", before the write"});
    f.notes.push_back({e.range, agent(a).name + " reads '" + stageName(s) + "' here" + at(e) +
                                    " after its sync on '" + namedName(arrive) + "', unordered with the write"});
    f.hint = "move the write above the 'arrive " + namedName(arrive) + "' (bar.arrive orders only what comes "
             "before it)";
    return true;
  }

  // Agent `a`'s threads arrive on a named barrier.  Those that arrived in an earlier generation must have
  // observed its completion (a thread that synced on it, then something that orders this arrival after
  // that sync: a hand-off back); bar.arrive does not wait, so otherwise their arrivals can count twice in one
  // generation, which then completes without the threads that should meet them (E0614).  In the simulated
  // order that shows either as a second arrival in the open generation or as an arrival not ordered after
  // any sync of the previous one.  The report is at the write of shared data between the two arrivals when
  // there is one (the reuse that needed the hand-off back), else at the second arrival.
  bool checkNamedOverrun(int a, const SyncEvent &e, NamedBarrierState &nb) {
    const AgentState &as = agentStates_[static_cast<size_t>(a)];
    const std::vector<int64_t> &mine = e.threads ? *e.threads : agent(a).threads;
    std::map<int64_t, int64_t> &last = nb.lastGeneration[a];
    int64_t previousGen = -1;
    std::vector<int64_t> again;
    for (int64_t t : mine)
      if (auto it = last.find(t); it != last.end() && it->second >= previousGen) {
        if (it->second > previousGen) again.clear();
        previousGen = it->second;
        again.push_back(t);
      }
    bool overrun = false;
    if (previousGen == nb.generation) {
      overrun = true;
    } else if (previousGen >= 0) {
      bool hasSyncers = false;
      if (auto c = nb.completedArrivals.find(previousGen); c != nb.completedArrivals.end())
        for (const NamedArrival &n : c->second) hasSyncers = hasSyncers || n.event->kind == EventKind::NamedSync;
      if (hasSyncers) {
        bool observed = false;
        if (auto sb = nb.syncedBy.find(previousGen); sb != nb.syncedBy.end())
          for (auto [agentIndex, value] : sb->second)
            observed = observed || as.clock[static_cast<size_t>(agentIndex)] >= value;
        overrun = !observed;
      }
    }
    if (!overrun) {
      for (int64_t t : mine) last[t] = nb.generation;
      if (nb.syncedBy.size() > 8) {
        int64_t oldest = nb.generation;
        for (auto &[agentIndex, gens] : nb.lastGeneration)
          for (auto &[tid, g] : gens) oldest = std::min(oldest, g);
        nb.syncedBy.erase(nb.syncedBy.begin(), nb.syncedBy.lower_bound(oldest));
      }
      return true;
    }
    // The previous arrival of these threads.
    const NamedArrival *prev = nullptr;
    for (const NamedArrival &n : nb.arrivals)
      if (n.agent == a && n.generation == previousGen) prev = &n;
    if (auto c = nb.completedArrivals.find(previousGen); !prev && c != nb.completedArrivals.end())
      for (const NamedArrival &n : c->second)
        if (n.agent == a) prev = &n;
    const SyncEvent *write = nullptr;
    for (size_t i = prev ? prev->pc + 1 : as.pc; i < as.pc && !write; ++i)
      if (event(a, i).kind == EventKind::Write) write = &event(a, i);
    std::string name = namedName(e);
    std::string previous = prev ? " (its arrive" + at(*prev->event) + ")" : "";
    SimFinding &f = write
        ? report(SyncFamily::Ring, DiagKind::NamedHandoff, write->range,
                 {who(a, *write), "writes", stageName(write->stages[0]),
                  "again before the threads that sync on '" + name + "' have taken its previous hand-off" + previous +
                      ": bar.arrive does not wait for them, so nothing orders this write after their reads"})
        : report(SyncFamily::Ring, DiagKind::NamedHandoff, e.range,
                 {who(a, e), "arrives on", name,
                  "again before it has observed the completion of the generation of its previous arrive" + previous});
    if (prev) f.notes.push_back({prev->event->range, agent(a).name + " arrives here" + at(*prev->event)});
    f.notes.push_back({e.range, "and again here" + at(e) + ", not ordered after any sync of that generation: " +
                                    describeThreads(again) + " can count twice in one generation, which then "
                                    "completes without the threads that sync on it"});
    f.hint = "hand the data back before reusing it: the readers 'arrive' on a second named barrier after their "
             "reads, and " + agent(a).name + " executes 'sync' on it before writing again";
    return false;
  }

  // What the threads executing `e` pass on when they arrive (on an mbarrier or a named barrier): what they
  // observed, and the agent's own progress - its own reads count as released by any of its threads
  // (an `elect { arrive }` after every thread's read is the usual release).
  void contribute(int a, const SyncEvent &e, std::vector<int64_t> &into) const {
    const AgentState &as = agentStates_[static_cast<size_t>(a)];
    as.know.knownBy(e.threads.get(), into.data());
    size_t self = static_cast<size_t>(a);
    into[self] = std::max(into[self], as.clock[self]);
  }

  // The agent as a whole has observed every fill the read needs (checkReadable); now each reading thread
  // must have, through a synchronisation it took part in: its own wait, a syncwarp after a wait by a lane
  // of its warp, a named barrier or block barrier it passed after such a wait (ThreadKnowledge).
  bool checkReadersObserved(int a, int s, const SyncEvent &e) {
    const StageState &ss = stages_[static_cast<size_t>(s)];
    const AgentState &as = agentStates_[static_cast<size_t>(a)];
    for (const Write &w : ss.writes) {
      if (!overlaps(w.lo, w.hi, e.lo, e.hi) || (w.writer == a && w.writeBarrier < 0)) continue;
      std::vector<int64_t> unaware = as.know.unaware(e.threads.get(), stageClockIndex(s), w.version);
      if (unaware.empty()) continue;
      std::string fill = w.writeBarrier >= 0 ? "the copy that fills it" : "the write that fills it";
      SimFinding &f = report(SyncFamily::Ring, DiagKind::StageReadBeforeFilled, e.range,
                             {who(a, e), stageName(s), fill + " is observed by " + describeThreads(unaware)});
      // The wait of this agent that observed the fill: on the fill's barrier, else the last one passed.
      const SyncEvent *wait = as.lastPassed;
      if (w.writeBarrier >= 0)
        if (auto it = as.lastWait.find(w.writeBarrier); it != as.lastWait.end()) wait = it->second;
      explainUnobserved(f, a, e, wait, unaware, "fill", "read");
      if (w.writeEvent) f.notes.push_back({w.writeEvent->range, "filled here by " + who(w.writer, *w.writeEvent)});
      return false;
    }
    return true;
  }

  // Notes and hint for an access by threads that did not observe what it needs (`what`: "fill" / "release";
  // `access`: "read" / "write"): the wait that did observe it and which threads ran it, and the fix the case
  // suggests - syncwarp when a lane of every such thread's warp waited, a named barrier when other warps
  // did, else an arrival from threads that observed it.
  void explainUnobserved(SimFinding &f, int a, const SyncEvent &e, const SyncEvent *wait,
                         const std::vector<int64_t> &unaware, const std::string &what, const std::string &access) const {
    const std::vector<int64_t> *waiters = wait && wait->threads ? wait->threads.get() : nullptr;
    bool waiterInEveryWarp = waiters != nullptr;
    bool waitersCoverThem = waiters != nullptr;
    for (int64_t t : unaware) {
      bool inWarp = false, same = false;
      if (waiters)
        for (int64_t u : *waiters) {
          inWarp = inWarp || u / 32 == t / 32;
          same = same || u == t;
        }
      waiterInEveryWarp = waiterInEveryWarp && inWarp;
      waitersCoverThem = waitersCoverThem && same;
    }
    if (waiters && !waitersCoverThem)
      f.notes.push_back({wait->range, "the wait that observes the " + what + " runs only in " +
                                          describeThreads(*waiters) + " of " + agent(a).name + at(*wait)});
    else if (wait && waitersCoverThem) {
      f.notes.push_back({wait->range, "these threads pass this wait" + at(*wait) + ", but the threads that arrived "
                                          "on its phase had not observed the " + what});
      // The arrivals of that phase, with their threads.
      int b = wait->barriers.empty() ? -1 : wait->barriers[0];
      const AgentState &as = agentStates_[static_cast<size_t>(a)];
      if (auto t = as.target.find(b); b >= 0 && t != as.target.end()) {
        const BarrierState &bs = barriers_[static_cast<size_t>(b)];
        int64_t oldest = bs.completed - static_cast<int64_t>(bs.completedParticipants.size());
        if (t->second >= oldest && t->second < bs.completed)
          for (const Participant &p : bs.completedParticipants[static_cast<size_t>(t->second - oldest)])
            if (p.event && p.event->kind == EventKind::Arrive && p.event->threads)
              f.notes.push_back({p.event->range, "the phase is completed by " + who(p.agent, *p.event) +
                                                     " arriving here from " + describeThreads(*p.event->threads)});
      }
    }
    if (e.threads) f.notes.push_back({e.range, "the " + access + " runs in " + describeThreads(*e.threads)});
    if (waiters && !waitersCoverThem && waiterInEveryWarp) {
      f.hint = "add 'syncwarp;' after the wait, outside the 'elect' / lane condition, so that the other lanes of "
               "each warp are ordered after it; or let every thread that does the " + access + " wait; or move "
               "the " + access + " under the same condition as the wait";
      f.insertions.push_back({wait->range, true, "syncwarp;", e.range});
    }
    else if (waiters && !waitersCoverThem)
      f.hint = "let every warp that does the " + access + " wait; or, after the wait, pass a named barrier "
               "('sync BAR') that both the waiting warps and these warps execute; or move the " + access +
               " under the same condition as the wait";
    else
      f.hint = "the threads that arrive on a barrier pass on only what they observed: arrive from threads that "
               "waited for the " + what + ", or let these threads wait for it themselves";
  }

  // The agent as a whole is ordered after every earlier read of the rows it writes (checkWritable); now each
  // writing thread must be, through a synchronisation it took part in (as for reads).
  bool checkWritersObserved(int a, int s, const SyncEvent &e) {
    const StageState &st = stages_[static_cast<size_t>(s)];
    const AgentState &as = agentStates_[static_cast<size_t>(a)];
    for (const Read &r : st.reads) {
      if (r.agent < 0 || r.agent == a || !r.done || !overlaps(r.event->lo, r.event->hi, e.lo, e.hi)) continue;
      std::vector<int64_t> unaware = as.know.unaware(e.threads.get(), static_cast<size_t>(r.agent), r.clock);
      if (unaware.empty()) continue;
      SimFinding &f = report(SyncFamily::Ring, DiagKind::StageOverwritten, e.range,
                             {who(a, e) + " (" + describeThreads(unaware) + ")", stageName(s), agent(r.agent).name});
      f.notes.push_back({r.event->range, agent(r.agent).name + " reads '" + stageName(s) + "' here" + at(*r.event)});
      explainUnobserved(f, a, e, as.lastPassed, unaware, "release", "write");
      return false;
    }
    return true;
  }

  // The reader's arrive between the wait before `read` and `read` itself, on a barrier `writer` has waited on.
  const SyncEvent *releaseBeforeRead(int reader, const SyncEvent &read, const AgentState &writer) const {
    size_t count = eventCount(reader);
    for (size_t i = 0; i < count; ++i) {
      if (&event(reader, i) != &read) continue;
      for (size_t j = i; j-- > 0;) {
        const SyncEvent &before = event(reader, j);
        if (before.kind == EventKind::Wait) return nullptr;
        if (before.kind == EventKind::Arrive && !before.barriers.empty() && writer.lastWait.count(before.barriers[0]))
          return &before;
      }
      return nullptr;
    }
    return nullptr;
  }

  bool checkWritable(int a, int s, const SyncEvent &e) {
    const StageState &st = stages_[static_cast<size_t>(s)];
    const AgentState &as = agentStates_[static_cast<size_t>(a)];
    for (const Read &r : st.reads) {
      if (r.agent < 0 || !overlaps(r.event->lo, r.event->hi, e.lo, e.hi)) continue;
      bool ok = r.done && (r.agent == a || as.clock[static_cast<size_t>(r.agent)] >= r.clock);
      if (ok) continue;
      SimFinding &f = report(SyncFamily::Ring, DiagKind::StageOverwritten, e.range,
                             {who(a, e), stageName(s), agent(r.agent).name});
      f.notes.push_back({r.event->range, agent(r.agent).name + " reads '" + stageName(s) + "' here" + at(*r.event) +
                                             (r.done ? "" : "; the read has not ended yet")});
      // An early release: between the reader's wait that acquired the stage and the read, an arrive on a
      // barrier the writer waits on - the writer's wait passed on it, before the read.
      size_t count = eventCount(r.agent);
      if (const SyncEvent *early = releaseBeforeRead(r.agent, *r.event, as)) {
        f.notes.push_back({early->range, "releases it here" + at(*early) + ", before the read: " + agent(a).name +
                                             "'s wait on '" + barName(early->barriers[0]) + "' passes on this arrive"});
        f.hint = "move the arrive on '" + barName(early->barriers[0]) + "' below " + agent(r.agent).name +
                 "'s last read of '" + stageName(s) + "': a stage is released after its reads";
        return false;
      }
      // The release: the reader's first arrive after the read.
      for (size_t i = 0; i < count; ++i) {
        if (&event(r.agent, i) != r.event) continue;
        bool retired = r.event->kind == EventKind::Read;
        for (size_t j = i + 1; j < count; ++j) {
          const SyncEvent &later = event(r.agent, j);
          if (later.kind == EventKind::WgmmaWait || later.kind == EventKind::StoreWait) retired = true;
          if (later.kind != EventKind::Arrive) continue;
          f.notes.push_back({later.range, "and releases it here" + at(later) +
                                               (retired ? ", which " + agent(a).name + " does not wait for before the overwrite"
                                                        : ", before the wait that ends the read")});
          break;
        }
        break;
      }
      f.hint = "before refilling a stage, wait for every consumer's release of it (an 'empty' mbarrier with "
               "parity ((k / S) & 1) ^ 1); the producer may run at most S stages ahead";
      return false;
    }
    for (const Write &w : st.writes) {
      if (w.landed || !w.writeEvent || !overlaps(w.lo, w.hi, e.lo, e.hi)) continue;
      SimFinding &f = report(SyncFamily::Ring, DiagKind::StageOverwritten, e.range,
                             {who(a, e), stageName(s), "the previous copy into it (still in flight)"});
      f.notes.push_back({w.writeEvent->range, "previous copy issued here by " + who(w.writer, *w.writeEvent)});
      f.hint = "a stage must be consumed and released before it is refilled";
      return false;
    }
    return checkWritersObserved(a, s, e);
  }

  // Records a write of rows [lo, hi) after checkWritable succeeded: it replaces the overlapping contents
  // and supersedes the reads it covers (they were just checked to happen before it).
  int64_t recordWrite(int s, Write w) {
    StageState &ss = stages_[static_cast<size_t>(s)];
    w.version = ++ss.version;
    std::vector<Write> kept;
    for (const Write &o : ss.writes)
      if (!overlaps(o.lo, o.hi, w.lo, w.hi)) kept.push_back(o);
    kept.push_back(w);
    ss.writes = std::move(kept);
    // Reads stay referenced by wgmma / tma.store groups by index: mark covered ones as superseded, and
    // drop them in bulk once they are most of the list (compactReads).
    size_t superseded = 0;
    for (Read &r : ss.reads) {
      if (r.agent >= 0 && r.done && r.event->lo >= w.lo && r.event->hi <= w.hi) r.agent = -1 - r.agent;
      if (r.agent < 0) ++superseded;
    }
    if (superseded >= kCompactReadsAt && 2 * superseded >= ss.reads.size()) compactReads(s);
    return w.version;
  }

  // Drops the superseded reads of stage s (every later check skips them) and renumbers the references of the
  // agents' open and committed wgmma / tma.store groups to the others.  Those references are never to a
  // superseded read: a read is superseded only when done, and an async read is done only when its group
  // retires (and leaves the list).  Without this the list grows with every read of the run, and each write's
  // checks walk all of it: quadratic in the length of a long simulation.
  void compactReads(int s) {
    std::vector<Read> &reads = stages_[static_cast<size_t>(s)].reads;
    std::vector<size_t> renumber(reads.size(), SIZE_MAX);
    size_t kept = 0;
    for (size_t i = 0; i < reads.size(); ++i)
      if (reads[i].agent >= 0) {
        renumber[i] = kept;
        reads[kept++] = reads[i];
      }
    reads.resize(kept);
    auto fix = [&](std::vector<std::pair<int, size_t>> &refs) {
      for (auto &[stage, i] : refs)
        if (stage == s) i = i < renumber.size() ? renumber[i] : SIZE_MAX;
    };
    for (AgentState &as : agentStates_) {
      fix(as.openWgmma);
      fix(as.openStore);
      for (auto &g : as.wgmmaGroups) fix(g);
      for (auto &g : as.storeGroups) fix(g);
    }
  }

  void retire(AgentState &as, std::deque<std::vector<std::pair<int, size_t>>> &groups, int64_t keep, int a) {
    while (static_cast<int64_t>(groups.size()) > std::max<int64_t>(keep, 0)) {
      for (auto [s, i] : groups.front()) {
        std::vector<Read> &reads = stages_[static_cast<size_t>(s)].reads;
        if (i < reads.size() && reads[i].agent == a) {
          reads[i].done = true;
          reads[i].clock = as.clock[static_cast<size_t>(a)];
        }
      }
      groups.pop_front();
    }
  }

  // ---- one event; false when the agent is blocked or finished
  bool step(int a) {
    AgentState &as = agentStates_[static_cast<size_t>(a)];
    if (as.pc >= eventCount(a)) return false;
    const SyncEvent &e = event(a, as.pc);
    Clock &clk = as.clock;
    size_t self = static_cast<size_t>(a);
    switch (e.kind) {
    case EventKind::BlockSync: case EventKind::ClusterWait: {
      bool cluster = e.kind == EventKind::ClusterWait;
      size_t j = cluster ? as.clusterWaited : as.blockSyncClocks.size();
      if (!cluster) {
        // Record the arrival once, then wait for every unfinished agent of the CTA.
        if (pendingSync_.count(a) == 0) pendingSync_[a] = clk;
        for (size_t o = 0; o < agents_->size(); ++o) {
          if (agent(static_cast<int>(o)).cta != agent(a).cta || static_cast<int>(o) == a) continue;
          const AgentState &os = agentStates_[o];
          bool arrived = os.blockSyncClocks.size() > j || pendingSync_.count(static_cast<int>(o));
          if (!arrived && !finished(static_cast<int>(o))) return false;
        }
        Clock joined = clk;
        for (size_t o = 0; o < agents_->size(); ++o) {
          if (agent(static_cast<int>(o)).cta != agent(a).cta) continue;
          if (auto it = pendingSync_.find(static_cast<int>(o)); it != pendingSync_.end()) join(joined, it->second);
          else if (agentStates_[o].blockSyncClocks.size() > j) join(joined, agentStates_[o].blockSyncClocks[j]);
        }
        as.blockSyncClocks.push_back(pendingSync_[a]);
        pendingSync_.erase(a);
        clk = joined;
        as.know.learnAll(clk.data());
      } else {
        if (as.clusterArrived <= j) return false;   // cluster.wait without arrive: treated as blocked
        for (size_t o = 0; o < agents_->size(); ++o) {
          const AgentState &os = agentStates_[o];
          if (os.clusterArrived <= j && !finished(static_cast<int>(o))) return false;
        }
        for (size_t o = 0; o < agents_->size(); ++o)
          if (agentStates_[o].clusterClocks.size() > j) join(clk, agentStates_[o].clusterClocks[j]);
        as.clusterWaited++;
        as.know.learnAll(clk.data());
      }
      break;
    }
    case EventKind::ClusterArrive:
      as.clusterClocks.push_back(clk);
      as.clusterArrived++;
      break;
    case EventKind::NamedSync: case EventKind::NamedArrive: {
      NamedBarrierState &nb = named_[{agent(a).cta, e.namedId}];
      if (as.namedGeneration < 0) {
        if (!checkNamedOverrun(a, e, nb)) return false;
        if (nb.clock.empty()) nb.clock.assign(clk.size(), 0);
        join(nb.clock, clk);
        if (nb.know.empty()) nb.know.assign(clk.size(), 0);
        contribute(a, e, nb.know);
        nb.arrived += e.multiplicity;
        int64_t generation = nb.generation;
        nb.arrivals.push_back({a, as.pc, &e, generation});
        if (nb.arrived >= e.count) {
          nb.completedClocks[generation] = std::move(nb.clock);
          nb.clock.assign(clk.size(), 0);
          nb.completedKnow[generation] = std::move(nb.know);
          nb.know.assign(clk.size(), 0);
          nb.completedArrivals[generation] = std::move(nb.arrivals);
          nb.arrivals.clear();
          nb.arrived = 0;
          nb.generation++;
        }
        if (e.kind == EventKind::NamedArrive) break;
        as.namedGeneration = generation;
      }
      const int64_t waitedFor = as.namedGeneration;
      if (nb.generation <= waitedFor && !as.namedReleased) return false;   // until the count is reached
      as.namedGeneration = -1;
      as.namedReleased = false;
      if (nb.generation > waitedFor) {
        join(clk, nb.completedClocks[waitedFor]);
        as.lastNamedSync = nb.completedArrivals[waitedFor];
        nb.syncedBy[waitedFor].push_back({a, clk[self] + 1});
        if (auto k = nb.completedKnow.find(waitedFor); k != nb.completedKnow.end())
          as.know.learn(e.threads.get(), k->second.data());
        dropNamedClocks(nb, agent(a).cta, e.namedId);
      }
      break;
    }
    case EventKind::Init:
      for (int b : e.barriers) {
        BarrierState &s = barriers_[static_cast<size_t>(b)];
        s.initialised = true;
        s.initAgent = a;
        s.initClock = clk[self] + 1;
        s.initEvent = &e;
        s.fenceClock = -1;
      }
      break;
    case EventKind::FenceInit:
      for (BarrierState &s : barriers_)
        if (s.initialised && s.initAgent == a && s.fenceClock < 0) s.fenceClock = clk[self] + 1;
      break;
    case EventKind::Arrive: {
      int b = e.barriers[0];
      bool remote = slots_->barriers[static_cast<size_t>(b)].cta != agent(a).cta;
      if (!checkInit(a, b, e, "arrived on from another CTA", remote)) return false;
      BarrierState &s = barriers_[static_cast<size_t>(b)];
      if (remote) {   // the latest one: a CTA exit ordered after it is ordered after the earlier ones too
        size_t target = static_cast<size_t>(slots_->barriers[static_cast<size_t>(b)].cta);
        remoteArrives_[self * ctas_ + target] = {clk[self], a, b, &e};
      }
      s.arrivals += e.multiplicity;
      s.balance += e.bytes * e.multiplicity;
      s.expected += e.bytes * e.multiplicity;
      if (e.bytes) s.lastExpect = {a, &e};
      join(s.phaseClock, clk);
      contribute(a, e, s.phaseKnow);
      s.participants.push_back({a, &e});
      if (s.arrivals > declared(b)) {
        SimFinding &f = report(SyncFamily::MBarrier, DiagKind::MbarrierArrivalCount, declRange(b),
                               {barName(b), std::to_string(s.completed), std::to_string(s.arrivals),
                                std::to_string(declared(b))});
        addParticipants(f, s, b);
        f.hint = "arrivals(n) must equal the number of threads that arrive per phase (an arrive in 'elect' "
                 "counts once per warp)";
        return false;
      }
      maybeComplete(b);
      break;
    }
    case EventKind::ExpectTx: {
      int b = e.barriers[0];
      if (!checkInit(a, b, e, "used", false)) return false;
      if (!checkExpectTxInTime(a, b, e)) return false;
      BarrierState &s = barriers_[static_cast<size_t>(b)];
      s.balance += e.bytes * e.multiplicity;
      s.expected += e.bytes * e.multiplicity;
      s.lastExpect = {a, &e};
      join(s.phaseClock, clk);
      contribute(a, e, s.phaseKnow);
      break;
    }
    case EventKind::Wait: {
      int b = e.barriers[0];
      if (!checkInit(a, b, e, "waited on", false)) return false;
      BarrierState &s = barriers_[static_cast<size_t>(b)];
      // The target: the first phase with the wait's parity that is not older than the previous target nor
      // than the phases this agent knows to be complete (a consumer that joins the ring mid-sequence, after
      // learning through another agent that earlier phases completed, targets a later phase).
      int64_t prev = as.target.count(b) ? as.target[b] : -1;
      int64_t n = std::max(prev, clk[barrierClockIndex(b)] - 1);
      if (((n % 2) + 2) % 2 != e.parity) ++n;
      if (as.lapCheckedPc != as.pc && n >= 0) {
        LapVerdict v = lapCheck(a, b, n, e);
        if (v == LapVerdict::BeyondHorizon) {
          paused_ = true;   // nothing changed yet: the step is made again after the pause
          return false;
        }
        as.lapCheckedPc = as.pc;
        if (v == LapVerdict::Lap) return false;
      }
      if (n >= 0 && s.completed < n + 1) return false;   // blocked
      if (n >= 0) {
        // Not kept (cannot happen without a lap reported first): no join - fewer orderings, never more.
        int64_t oldest = s.completed - static_cast<int64_t>(s.completedClocks.size());
        if (n >= oldest) {
          join(clk, s.completedClocks[static_cast<size_t>(n - oldest)]);
          as.know.learn(e.threads.get(), s.completedKnow[static_cast<size_t>(n - oldest)].data());
        }
      }
      as.target[b] = n;
      clk[barrierClockIndex(b)] = std::max(clk[barrierClockIndex(b)], n + 1);
      as.lastWait[b] = &e;
      as.lastPassed = &e;
      as.lastPassedTarget = n;
      break;
    }
    case EventKind::TmaLoad: {
      for (size_t d = 0; d < e.barriers.size(); ++d) {
        int b = e.barriers[d], st = e.stages[d];
        if (!checkInit(a, b, e, "signalled by tma.load", true)) return false;
        if (!checkWritable(a, st, e)) return false;
        Write w;
        w.landed = false;
        w.writer = a;
        w.writeEvent = &e;
        w.writeBarrier = b;
        w.writePhase = barriers_[static_cast<size_t>(b)].completed;
        w.lo = e.lo;
        w.hi = e.hi;
        int64_t version = recordWrite(st, w);
        inFlight_.push_back({st, b, a, e.bytes * e.multiplicity, version, barriers_[static_cast<size_t>(b)].completed, &e});
      }
      break;
    }
    case EventKind::Read: case EventKind::ReadAsync: case EventKind::StoreRead: {
      int st = e.stages[0];
      if (!checkReadable(a, st, e)) return false;
      clk[self]++;
      std::vector<Read> &reads = stages_[static_cast<size_t>(st)].reads;
      reads.push_back({a, e.kind == EventKind::Read, clk[self], &e});
      if (e.kind == EventKind::ReadAsync) as.openWgmma.emplace_back(st, reads.size() - 1);
      if (e.kind == EventKind::StoreRead) as.openStore.emplace_back(st, reads.size() - 1);
      as.pc++;
      return true;
    }
    case EventKind::Write: {
      int st = e.stages[0];
      if (!checkWritable(a, st, e)) return false;
      Write w;
      w.writer = a;
      w.writeEvent = &e;
      w.writerPc = as.pc;
      clk[stageClockIndex(st)] = recordWrite(st, w);
      as.know.learnStage(e.threads.get(), stageClockIndex(st), clk[stageClockIndex(st)]);
      break;
    }
    case EventKind::WarpSync: as.know.syncWarps(e.threads.get(), e.laneMask); break;
    case EventKind::WgmmaCommit:
      as.wgmmaGroups.push_back(std::move(as.openWgmma));
      as.openWgmma.clear();
      break;
    case EventKind::StoreCommit:
      as.storeGroups.push_back(std::move(as.openStore));
      as.openStore.clear();
      break;
    case EventKind::WgmmaWait: clk[self]++; retire(as, as.wgmmaGroups, e.count, a); as.pc++; return true;
    case EventKind::StoreWait: clk[self]++; retire(as, as.storeGroups, e.count, a); as.pc++; return true;
    }
    clk[self]++;
    as.pc++;
    return true;
  }

  void addParticipants(SimFinding &f, const BarrierState &s, int b) {
    std::map<const SyncEvent *, std::pair<int, int64_t>> byEvent;   // event -> (agent, threads)
    for (const Participant &p : s.participants)
      if (p.event && p.event->kind == EventKind::Arrive) {
        auto &slot = byEvent[p.event];
        slot.first = p.agent;
        slot.second += p.event->multiplicity;
      }
    for (const auto &[ev, who_] : byEvent)
      f.notes.push_back({ev->range, agent(who_.first).name + " arrives here" + at(*ev) + " (" +
                                        std::to_string(ev->multiplicity) + " thread" +
                                        (ev->multiplicity == 1 ? "" : "s") + " per execution)"});
    f.notes.push_back({declRange(b), "declared here with arrivals(" + std::to_string(declared(b)) + ")"});
  }

  // The progress part of the current state (FrozenRun).
  FrozenRun frozenState() const {
    FrozenRun f(*program_, barriers_.size());
    f.agents.resize(agentStates_.size());
    f.targets.assign(agentStates_.size() * barriers_.size(), FrozenRun::kNoTarget);
    for (size_t a = 0; a < agentStates_.size(); ++a) {
      const AgentState &as = agentStates_[a];
      FrozenRun::AgentProgress &p = f.agents[a];
      p.pc = as.pc;
      p.cta = agent(static_cast<int>(a)).cta;
      p.blockSyncs = as.blockSyncClocks.size();
      p.pendingSync = pendingSync_.count(static_cast<int>(a)) != 0;
      p.clusterArrived = as.clusterArrived;
      p.clusterWaited = as.clusterWaited;
      for (const auto &[b, t] : as.target) f.targets[a * barriers_.size() + static_cast<size_t>(b)] = t;
    }
    f.barriers.resize(barriers_.size());
    for (size_t b = 0; b < barriers_.size(); ++b) {
      const BarrierState &s = barriers_[b];
      f.barriers[b] = {s.completed, s.arrivals, s.balance, declared(static_cast<int>(b)),
                       s.participants.empty() ? Participant{} : s.participants.back()};
    }
    f.inFlight.reserve(inFlight_.size());
    for (const Copy &c : inFlight_) f.inFlight.push_back({c.barrier, c.agent, c.bytes, c.event});
    return f;
  }

  // Every other agent runs to quiescence while `a` is frozen at its wait for phase n: if the barrier then
  // completes phase n + 1, some schedule makes the parity test see phase n + 1 instead of n.
  enum class LapVerdict : uint8_t { NoLap, Lap, BeyondHorizon };
  LapVerdict lapCheck(int a, int b, int64_t n, const SyncEvent &e) {
    FrozenRun frozen = frozenState();
    frozen.horizon = horizon_;
    bool lapped = frozen.laps(a, b, n + 1);
    if (frozen.crossedHorizon) return LapVerdict::BeyondHorizon;
    if (!lapped) return LapVerdict::NoLap;
    SimFinding &f = report(SyncFamily::MBarrier, DiagKind::MbarrierLap, e.range,
                           {barName(b), std::to_string(n + 1), std::to_string(n)});
    f.notes.push_back({e.range, agent(a).name + " waits here for phase " + std::to_string(n) + at(e) +
                                    "; while it has not looked yet, phases " + std::to_string(n) + " and " +
                                    std::to_string(n + 1) + " can both complete"});
    if (frozen.completer.event)
      f.notes.push_back({frozen.completer.event->range,
                         "phase " + std::to_string(n + 1) + " is completed by " +
                             who(frozen.completer.agent, *frozen.completer.event)});
    f.notes.push_back({declRange(b), "barrier declared here"});
    f.hint = "the agent that completes the barrier must wait for this waiter's release (e.g. an 'empty' "
             "barrier) before it starts the next phase";
    return LapVerdict::Lap;
  }

  void finalChecks() {
    // Deadlock: some agent has not finished.
    std::vector<int> stuck;
    for (size_t a = 0; a < agents_->size(); ++a)
      if (!finished(static_cast<int>(a))) stuck.push_back(static_cast<int>(a));
    if (!stuck.empty()) {
      reportDeadlock(stuck);
      return;
    }
    for (const Copy &c : inFlight_) {
      SimFinding &f = report(SyncFamily::Ring, DiagKind::AsyncCopyNotAwaited, c.event->range,
                             {"tma.load by " + who(c.agent, *c.event), stageName(c.stage)});
      // Whoever waits on the barrier at all stopped before this copy's phase: the waiting loop runs fewer
      // iterations than the copying one (or returns early).
      int waiter = -1;
      int64_t lastPhase = -1;
      for (size_t a = 0; a < agentStates_.size(); ++a) {
        auto t = agentStates_[a].target.find(c.barrier);
        if (t != agentStates_[a].target.end() && t->second > lastPhase && agentStates_[a].lastWait.count(c.barrier)) {
          lastPhase = t->second;
          waiter = static_cast<int>(a);
        }
      }
      if (waiter < 0) {
        f.hint = "wait on the barrier the copy signals before the kernel ends";
        return;
      }
      const SyncEvent &w = *agentStates_[static_cast<size_t>(waiter)].lastWait.at(c.barrier);
      f.notes.push_back({w.range, agent(waiter).name + "'s last wait on '" + barName(c.barrier) + "' is here" + at(w) +
                                      ", for phase " + std::to_string(lastPhase)});
      f.hint = "the waits on '" + barName(c.barrier) + "' stop before the copies into it do (this one completes phase " +
               std::to_string(c.issuePhase) + "): every phase a copy completes needs a wait before the kernel ends";
      return;
    }
    for (size_t b = 0; b < barriers_.size(); ++b) {
      const BarrierState &s = barriers_[b];
      int bi = static_cast<int>(b);
      if (s.arrivals > 0 && s.arrivals < declared(bi)) {
        SimFinding &f = report(SyncFamily::MBarrier, DiagKind::MbarrierArrivalCount, declRange(bi),
                               {barName(bi), std::to_string(s.completed), std::to_string(s.arrivals),
                                std::to_string(declared(bi))});
        addParticipants(f, s, bi);
        f.notes.push_back({declRange(bi), "the kernel ends with this phase incomplete"});
        explainShortPhase(f, bi);
        return;
      }
      if (s.arrivals == declared(bi) && s.balance != 0) {
        reportTxImbalance(bi);
        return;
      }
    }
    checkPeerExits();
  }

  // A CTA exits when its last agent finishes; an access to its shared memory from another CTA of the cluster
  // must happen before that: some agent of the target CTA has observed it (its final clock covers the
  // arrive, or the stage version the copy wrote) - usually through a final cluster barrier.
  void checkPeerExits() {
    auto observedBy = [&](int cta, size_t component, int64_t value) {
      for (size_t y = 0; y < agents_->size(); ++y)
        if (agent(static_cast<int>(y)).cta == cta && agentStates_[y].clock[component] >= value) return true;
      return false;
    };
    for (size_t i = 0; i < remoteArrives_.size(); ++i) {
      const RemoteAccess &r = remoteArrives_[i];
      int cta = static_cast<int>(i % ctas_);
      if (!r.event || observedBy(cta, static_cast<size_t>(r.agent), r.value)) continue;
      reportPeerExit(r, "arrives on '" + barName(r.slot) + "'", cta);
      return;
    }
    for (size_t st = 0; st < remoteFills_.size(); ++st) {
      const RemoteAccess &r = remoteFills_[st];
      int cta = slots_->stages[st].cta;
      if (!r.event || observedBy(cta, stageClockIndex(static_cast<int>(st)), r.value)) continue;
      reportPeerExit(r, "writes '" + stageName(static_cast<int>(st)) + "' (multicast) and signals '" + barName(r.slot) + "'",
                     cta);
      return;
    }
  }

  void reportPeerExit(const RemoteAccess &r, const std::string &what, int cta) {
    std::string by = (r.event->kind == EventKind::TmaLoad ? "tma.load by " : "") + who(r.agent, *r.event);
    SimFinding &f = report(SyncFamily::MBarrier, DiagKind::ClusterPeerExited, r.event->range, {by, what, std::to_string(cta)});
    for (size_t y = 0; y < agents_->size(); ++y) {
      int yi = static_cast<int>(y);
      if (agent(yi).cta != cta || eventCount(yi) == 0) continue;
      const SyncEvent &last = event(yi, eventCount(yi) - 1);
      f.notes.push_back({last.range, agent(yi).name + " may finish after its last synchronisation here" + at(last) +
                                         " without having observed the access"});
    }
    f.hint = "end the kernel with 'cluster.sync;' in every CTA after its last remote arrive or multicast copy, so "
             "that no CTA exits while a peer may still access its shared memory";
  }

  void reportTxImbalance(int b) {
    const BarrierState &s = barriers_[static_cast<size_t>(b)];
    SimFinding &f = report(SyncFamily::MBarrier, DiagKind::MbarrierExpectTx,
                           s.lastExpect.event ? s.lastExpect.event->range : declRange(b),
                           {barName(b), std::to_string(s.completed), std::to_string(s.expected), std::to_string(s.landed)});
    for (const Participant &p : s.participants)
      if (p.event && p.event->kind == EventKind::TmaLoad)
        f.notes.push_back({p.event->range, "this copy delivers " + std::to_string(p.event->bytes) + " bytes" + at(*p.event)});
    f.notes.push_back({declRange(b), "barrier declared here"});
    f.hint = "expect_tx must equal the sum of the box sizes (elements x element size) of the copies that signal "
             "the barrier in one phase, including multicast copies from other CTAs";
  }

  // A phase of `b` that ends short of arrivals(n): when the previous phase completed and some agent arrived
  // on it fewer times now than then, arrivals(n) was right and a path of that agent skips its arrive (a
  // branch, an early return, a loop that ends sooner).  The hint says so, with the arrive it made before;
  // otherwise the count itself is suspect.
  void explainShortPhase(SimFinding &f, int b) {
    const BarrierState &s = barriers_[static_cast<size_t>(b)];
    f.hint = "arrivals(n) must equal the number of threads that arrive per phase (an arrive in 'elect' "
             "counts once per warp); every phase that is started must be completed";
    if (s.completedParticipants.empty()) return;
    std::map<int, int64_t> before, now;   // agent -> threads arrived
    std::map<int, const SyncEvent *> beforeEvent;
    for (const Participant &p : s.completedParticipants.back())
      if (p.event && p.event->kind == EventKind::Arrive) {
        before[p.agent] += p.event->multiplicity;
        beforeEvent.emplace(p.agent, p.event);
      }
    for (const Participant &p : s.participants)
      if (p.event && p.event->kind == EventKind::Arrive) now[p.agent] += p.event->multiplicity;
    for (const auto &[who_, n] : before) {
      if (now[who_] >= n) continue;
      const SyncEvent &e = *beforeEvent.at(who_);
      f.notes.push_back({e.range, agent(who_).name + " arrives here for phase " + std::to_string(s.completed - 1) + at(e) +
                                      " with " + std::to_string(n) + " thread(s), for phase " +
                                      std::to_string(s.completed) + " with " + std::to_string(now[who_])});
      f.hint = "phase " + std::to_string(s.completed - 1) + " of '" + barName(b) + "' met arrivals(" +
               std::to_string(declared(b)) + "); in phase " + std::to_string(s.completed) + " " + agent(who_).name +
               " arrives " + std::to_string(n - now[who_]) + " thread(s) short: a path of " + agent(who_).name +
               " skips its arrive (a branch, an early return or a shorter loop) - arrive on that path too, "
               "rather than changing arrivals(n)";
      return;
    }
  }

  void reportDeadlock(const std::vector<int> &stuck) {
    // Prefer the precise causes: an open phase that can no longer get its arrivals or bytes.
    for (int a : stuck) {
      const SyncEvent &e = event(a, agentStates_[static_cast<size_t>(a)].pc);
      if (e.kind != EventKind::Wait) continue;
      int b = e.barriers[0];
      const BarrierState &s = barriers_[static_cast<size_t>(b)];
      if (s.arrivals == declared(b) && s.balance > 0) {
        reportTxImbalance(b);
        outcome.findings.back().notes.push_back({e.range, agent(a).name + " waits here forever" + at(e)});
        return;
      }
      if (s.arrivals > 0 && s.arrivals < declared(b) && !moreArrivalsPossible(b)) {
        SimFinding &f = report(SyncFamily::MBarrier, DiagKind::MbarrierArrivalCount, declRange(b),
                               {barName(b), std::to_string(s.completed), std::to_string(s.arrivals),
                                std::to_string(declared(b))});
        addParticipants(f, s, b);
        f.notes.push_back({e.range, agent(a).name + " waits here forever for phase " +
                                        std::to_string(agentTarget(a, e)) + at(e)});
        explainShortPhase(f, b);
        return;
      }
    }
    int first = stuck[0];
    const SyncEvent &e = event(first, agentStates_[static_cast<size_t>(first)].pc);
    std::string what = describeBlocked(first, e);
    SimFinding &f = report(SyncFamily::Deadlock, DiagKind::SyncDeadlock, e.range, {what});
    for (size_t i = 1; i < stuck.size(); ++i) {
      const SyncEvent &o = event(stuck[i], agentStates_[static_cast<size_t>(stuck[i])].pc);
      f.notes.push_back({o.range, describeBlocked(stuck[i], o)});
    }
    for (size_t a = 0; a < agents_->size(); ++a)
      if (finished(static_cast<int>(a)) && eventCount(static_cast<int>(a)) > 0)
        f.notes.push_back({event(static_cast<int>(a), eventCount(static_cast<int>(a)) - 1).range,
                           agent(static_cast<int>(a)).name + " has finished; its last synchronisation is here" +
                               at(event(static_cast<int>(a), eventCount(static_cast<int>(a)) - 1))});
    if (e.kind == EventKind::Wait) {
      int b = e.barriers[0];
      f.notes.push_back({declRange(b), "'" + barName(b) + "' is declared here with arrivals(" +
                                           std::to_string(declared(b)) + ")"});
      if (agentTarget(first, e) == 0 && !agentStates_[static_cast<size_t>(first)].target.count(b))
        f.hint = "a fresh mbarrier has completed no phase: the first wait passes at once only with parity 1 "
                 "(the producer's first wait on an 'empty' barrier uses parity ((k / S) & 1) ^ 1)";
      else
        f.hint = "every phase a role waits for must receive its arrivals: check early returns, loop bounds and "
                 "the release of the last stages after the loop";
    }
  }

  int64_t agentTarget(int a, const SyncEvent &e) const {
    const AgentState &as = agentStates_[static_cast<size_t>(a)];
    int b = e.barriers[0];
    int64_t n = as.target.count(b) ? as.target.at(b) : -1;
    if (((n % 2) + 2) % 2 != e.parity) ++n;
    return n;
  }

  bool moreArrivalsPossible(int b) const {
    for (size_t a = 0; a < agents_->size(); ++a) {
      const AgentState &as = agentStates_[a];
      for (size_t i = as.pc; i < program_->size(a); ++i)
        if (const SyncEvent &e = program_->at(a, i); e.kind == EventKind::Arrive && e.barriers[0] == b) return true;
    }
    return false;
  }

  std::string describeBlocked(int a, const SyncEvent &e) const {
    if (e.kind == EventKind::Wait) {
      int b = e.barriers[0];
      const BarrierState &s = barriers_[static_cast<size_t>(b)];
      int64_t n = agentTarget(a, e);
      std::string text = agent(a).name + " waits forever on '" + barName(b) + "' for phase " + std::to_string(n) +
                         at(e) + ": it has completed " + std::to_string(s.completed) + " phase" +
                         (s.completed == 1 ? "" : "s") + ", and the current one has " + std::to_string(s.arrivals) +
                         " of " + std::to_string(declared(b)) + " arrivals";
      if (s.balance > 0) text += " and " + std::to_string(s.balance) + " transaction bytes outstanding";
      return text;
    }
    if (e.kind == EventKind::BlockSync)
      return agent(a).name + " waits forever at syncthreads" + at(e) + ": not every role of the block reaches it";
    return agent(a).name + " waits forever at the cluster barrier" + at(e);
  }

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
  // Accesses to another CTA's shared memory, for the exit check (RemoteAccess): per (agent, target CTA) the
  // latest remote arrive, per stage the latest copy from another CTA that landed in it.
  size_t ctas_ = 1;
  std::vector<RemoteAccess> remoteArrives_, remoteFills_;
  size_t rrAgent_ = 0;        // round-robin position: the agent running now
  bool rrProgress_ = false;   // some agent moved in the current round
  const std::vector<size_t> *horizon_ = nullptr;
  bool paused_ = false;
  bool stopped_ = false;
};

} // namespace

SimOutcome simulateSync(const KernelInfo &info, Arch arch, const SlotTable &slots,
                        const std::vector<SyncAgent> &agents, const SyncProgram &program) {
  Simulator sim(info, arch, slots, agents, program);
  sim.run();
  return sim.outcome;
}

std::vector<SimOutcome> simulateSyncVariants(const KernelInfo &info, Arch arch, const SlotTable &slots,
                                             const std::vector<SyncAgent> &agents,
                                             const std::vector<const SyncProgram *> &programs) {
  std::vector<SimOutcome> outcomes(programs.size());
  if (programs.empty()) return outcomes;
  const SyncProgram &longest = *programs.back();
  Simulator shared(info, arch, slots, agents, longest);
  std::vector<std::vector<size_t>> horizons(programs.size() - 1);
  const std::vector<size_t> *previous = nullptr;
  for (size_t i = 0; i + 1 < programs.size(); ++i) {
    const SyncProgram &variant = *programs[i];
    // The shared run may stand for this variant only while its horizon never moved back (the steps so far
    // were checked against the earlier, shorter horizons) and it has not stopped.
    bool shareable = variant.base == &longest && variant.basePrefix.size() == agents.size() && !shared.stopped();
    std::vector<size_t> &horizon = horizons[i];
    for (size_t a = 0; shareable && a < agents.size(); ++a) {
      // An agent whose whole list is the longest's (no tile loop) never differs, not even in finishing.
      bool whole = variant.events[a].empty() && variant.basePrefix[a] == longest.events[a].size();
      horizon.push_back(whole ? SIZE_MAX : variant.basePrefix[a]);
      if (previous && horizon[a] < (*previous)[a]) shareable = false;
    }
    if (!shareable) {
      outcomes[i] = simulateSync(info, arch, slots, agents, variant);
      continue;
    }
    shared.setHorizon(&horizon);
    previous = &horizon;
    shared.run();
    if (!shared.paused()) {   // stopped before the horizon: the variant's run differs at most in its notes
      outcomes[i] = simulateSync(info, arch, slots, agents, variant);
      continue;
    }
    Simulator own = shared;   // the variant's run up to here, step for step
    own.setHorizon(nullptr);
    own.switchProgram(variant);
    own.run();
    outcomes[i] = std::move(own.outcome);
  }
  shared.setHorizon(nullptr);
  if (!shared.stopped()) shared.run();
  outcomes.back() = std::move(shared.outcome);
  return outcomes;
}

} // namespace cake

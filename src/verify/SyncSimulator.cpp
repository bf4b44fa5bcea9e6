// SyncSimulator: the multi-agent state machine of the sync protocol (semantics in SyncSimulator.h).
#include "verify/SyncSimulator.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>

namespace cake {

namespace {

using Clock = std::vector<int64_t>;

constexpr size_t kKeptPhaseClocks = 2;

void join(Clock &into, const Clock &from) {
  for (size_t i = 0; i < into.size() && i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}

struct Participant {   // who touched a barrier in the current phase (for notes)
  int agent = -1;
  const SyncEvent *event = nullptr;
};

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
  // wait passes), so two phases suffice and lap-check copies stay small; light runs ignore clocks.
  std::deque<Clock> completedClocks;
  std::vector<Participant> participants;   // arrivals of the current phase
  Participant lastExpect;
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
};

class Simulator {
public:
  Simulator(const KernelInfo &info, Arch arch, const SlotTable &slots, const std::vector<SyncAgent> &agents,
            const SyncProgram &program)
      : info_(&info), arch_(arch), slots_(&slots), agents_(&agents), program_(&program) {
    size_t width = agents.size() + slots.stages.size();
    agentStates_.resize(agents.size());
    for (AgentState &a : agentStates_) a.clock.assign(width, 0);
    barriers_.resize(slots.barriers.size());
    for (BarrierState &b : barriers_) b.phaseClock.assign(width, 0);
    stages_.resize(slots.stages.size());
  }

  void run() {
    while (!stopped_) {
      bool progress = false;
      for (size_t a = 0; a < agentStates_.size() && !stopped_; ++a) {
        if (static_cast<int>(a) == frozen_) continue;
        while (!stopped_ && step(static_cast<int>(a))) progress = true;
      }
      if (stopped_) break;
      if (!progress) {
        if (inFlight_.empty()) break;
        bool anyRunning = false;
        for (size_t a = 0; a < agentStates_.size(); ++a)
          if (static_cast<int>(a) != frozen_ && !finished(static_cast<int>(a))) anyRunning = true;
        if (!anyRunning && !light_) break;   // copies nobody waits for: reported by finalChecks
        land(0);
      }
    }
    if (!stopped_ && !light_) finalChecks();
  }

  SimOutcome outcome;
  int64_t completedOf(int barrier) const { return barriers_[static_cast<size_t>(barrier)].completed; }
  std::vector<std::optional<Participant>> completer;   // light runs: who completed the watched phase

  void freezeForLapCheck(int agent, int barrier, int64_t phase) {
    frozen_ = agent;
    light_ = true;
    watchBarrier_ = barrier;
    watchPhase_ = phase;
  }
  Participant watchCompleter_;

private:
  const std::vector<SyncEvent> &events(int a) const { return program_->events[static_cast<size_t>(a)]; }
  const SyncAgent &agent(int a) const { return (*agents_)[static_cast<size_t>(a)]; }
  std::string barName(int b) const { return slots_->barriers[static_cast<size_t>(b)].name(); }
  std::string stageName(int s) const { return slots_->stages[static_cast<size_t>(s)].name(); }
  int64_t declared(int b) const { return slots_->barriers[static_cast<size_t>(b)].decl->arrivals; }
  size_t stageClockIndex(int s) const { return agents_->size() + static_cast<size_t>(s); }
  bool finished(int a) const { return agentStates_[static_cast<size_t>(a)].pc >= events(a).size(); }

  static std::string at(const SyncEvent &e) { return e.where.empty() ? "" : " (" + e.where + ")"; }
  std::string who(int a, const SyncEvent &e) const { return agent(a).name + at(e); }

  SimFinding &report(SyncFamily family, DiagKind kind, SourceRange range, std::vector<std::string> args) {
    stopped_ = true;
    outcome.findings.push_back({family, kind, range, std::move(args), {}, {}});
    return outcome.findings.back();
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
    if (!light_) {
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
    if (watchBarrier_ == b && phase == watchPhase_ && !s.participants.empty()) watchCompleter_ = s.participants.back();
    if (!light_) {
      s.completedClocks.push_back(s.phaseClock);
      if (s.completedClocks.size() > kKeptPhaseClocks) s.completedClocks.pop_front();
    }
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
    BarrierState &b = barriers_[static_cast<size_t>(c.barrier)];
    b.balance -= c.bytes;
    b.landed += c.bytes;
    Clock &pc = b.phaseClock;
    pc[stageClockIndex(c.stage)] = std::max(pc[stageClockIndex(c.stage)], c.version);
    b.participants.push_back({c.agent, c.event});
    maybeComplete(c.barrier);
  }

  // ---- initialisation
  bool checkInit(int a, int b, const SyncEvent &e, const char *use, bool asyncOrRemote) {
    if (light_) return true;
    BarrierState &s = barriers_[static_cast<size_t>(b)];
    const AgentState &as = agentStates_[static_cast<size_t>(a)];
    const MBarrierInfo *decl = slots_->barriers[static_cast<size_t>(b)].decl;
    if (!s.initialised || (s.initAgent != a && as.clock[static_cast<size_t>(s.initAgent)] < s.initClock)) {
      bool everInit = false;
      for (size_t x = 0; x < agents_->size(); ++x)
        for (const SyncEvent &ev : program_->events[x])
          if (ev.kind == EventKind::Init && std::find(ev.barriers.begin(), ev.barriers.end(), b) != ev.barriers.end())
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
      return false;
    }
    return true;
  }

  // ---- stages
  bool checkReadable(int a, int s, const SyncEvent &e) {
    if (light_) return true;
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
    if (any && !bad) return true;
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
        return false;
      }
    }
    std::string why = !st.landed ? "the copy that fills it has completed" : "it has observed the write that fills it";
    SimFinding &f = report(SyncFamily::Ring, DiagKind::StageReadBeforeFilled, e.range, {who(a, e), stageName(s), why});
    if (st.writeEvent) f.notes.push_back({st.writeEvent->range, "filled here by " + who(st.writer, *st.writeEvent) +
                                                                    (st.landed ? "" : "; the copy may still be in flight")});
    if (st.writeBarrier >= 0) {
      f.notes.push_back({declRange(st.writeBarrier), "the copy signals '" + barName(st.writeBarrier) + "' phase " +
                                                          std::to_string(st.writePhase) + ", which " + agent(a).name +
                                                          " has not waited for"});
      f.hint = "wait on '" + barName(st.writeBarrier) + "' for the phase the copy completes before reading the stage";
    } else {
      f.hint = "order the write before the read with an mbarrier or a block barrier";
    }
    return false;
  }

  bool checkWritable(int a, int s, const SyncEvent &e) {
    if (light_) return true;
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
      // The release: the reader's first arrive after the read.
      const std::vector<SyncEvent> &evs = events(r.agent);
      for (size_t i = 0; i < evs.size(); ++i) {
        if (&evs[i] != r.event) continue;
        bool retired = r.event->kind == EventKind::Read;
        for (size_t j = i + 1; j < evs.size(); ++j) {
          if (evs[j].kind == EventKind::WgmmaWait || evs[j].kind == EventKind::StoreWait) retired = true;
          if (evs[j].kind != EventKind::Arrive) continue;
          f.notes.push_back({evs[j].range, "and releases it here" + at(evs[j]) +
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
    return true;
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
    // Reads stay referenced by wgmma / tma.store groups by index: mark covered ones as superseded instead
    // of erasing them.
    for (Read &r : ss.reads)
      if (r.done && r.event->lo >= w.lo && r.event->hi <= w.hi) r.agent = -1 - std::abs(r.agent);
    return w.version;
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
    if (as.pc >= events(a).size()) return false;
    const SyncEvent &e = events(a)[as.pc];
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
      } else {
        if (as.clusterArrived <= j) return false;   // cluster.wait without arrive: treated as blocked
        for (size_t o = 0; o < agents_->size(); ++o) {
          const AgentState &os = agentStates_[o];
          if (os.clusterArrived <= j && !finished(static_cast<int>(o))) return false;
        }
        for (size_t o = 0; o < agents_->size(); ++o)
          if (agentStates_[o].clusterClocks.size() > j) join(clk, agentStates_[o].clusterClocks[j]);
        as.clusterWaited++;
      }
      break;
    }
    case EventKind::ClusterArrive:
      as.clusterClocks.push_back(clk);
      as.clusterArrived++;
      break;
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
      s.arrivals += e.multiplicity;
      s.balance += e.bytes * e.multiplicity;
      s.expected += e.bytes * e.multiplicity;
      if (e.bytes) s.lastExpect = {a, &e};
      join(s.phaseClock, clk);
      s.participants.push_back({a, &e});
      if (s.arrivals > declared(b) && !light_) {
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
      BarrierState &s = barriers_[static_cast<size_t>(b)];
      s.balance += e.bytes * e.multiplicity;
      s.expected += e.bytes * e.multiplicity;
      s.lastExpect = {a, &e};
      join(s.phaseClock, clk);
      break;
    }
    case EventKind::Wait: {
      int b = e.barriers[0];
      if (!checkInit(a, b, e, "waited on", false)) return false;
      BarrierState &s = barriers_[static_cast<size_t>(b)];
      int64_t prev = as.target.count(b) ? as.target[b] : -1;
      int64_t n = prev;
      if (((n % 2) + 2) % 2 != e.parity) ++n;
      if (!light_ && as.lapCheckedPc != as.pc && n >= 0) {
        as.lapCheckedPc = as.pc;
        if (!lapCheck(a, b, n, e)) return false;
      }
      if (n >= 0 && s.completed < n + 1) return false;   // blocked
      if (n >= 0 && !light_) {
        // Not kept (cannot happen without a lap reported first): no join - fewer orderings, never more.
        int64_t oldest = s.completed - static_cast<int64_t>(s.completedClocks.size());
        if (n >= oldest) join(clk, s.completedClocks[static_cast<size_t>(n - oldest)]);
      }
      as.target[b] = n;
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
      clk[stageClockIndex(st)] = recordWrite(st, w);
      break;
    }
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

  // Every other agent runs to quiescence while `a` is frozen at its wait for phase n: if the barrier then
  // completes phase n + 1, some schedule makes the parity test see phase n + 1 instead of n.
  bool lapCheck(int a, int b, int64_t n, const SyncEvent &e) {
    Simulator frozen = *this;
    frozen.outcome = {};
    frozen.freezeForLapCheck(a, b, n + 1);
    frozen.run();
    if (frozen.completedOf(b) < n + 2) return true;
    SimFinding &f = report(SyncFamily::MBarrier, DiagKind::MbarrierLap, e.range,
                           {barName(b), std::to_string(n + 1), std::to_string(n)});
    f.notes.push_back({e.range, agent(a).name + " waits here for phase " + std::to_string(n) + at(e) +
                                    "; while it has not looked yet, phases " + std::to_string(n) + " and " +
                                    std::to_string(n + 1) + " can both complete"});
    if (frozen.watchCompleter_.event)
      f.notes.push_back({frozen.watchCompleter_.event->range,
                         "phase " + std::to_string(n + 1) + " is completed by " +
                             who(frozen.watchCompleter_.agent, *frozen.watchCompleter_.event)});
    f.notes.push_back({declRange(b), "barrier declared here"});
    f.hint = "the agent that completes the barrier must wait for this waiter's release (e.g. an 'empty' "
             "barrier) before it starts the next phase";
    return false;
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
      f.hint = "wait on the barrier the copy signals before the kernel ends";
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
        f.hint = "arrivals(n) must equal the number of threads that arrive per phase (an arrive in 'elect' "
                 "counts once per warp); every phase that is started must be completed";
        return;
      }
      if (s.arrivals == declared(bi) && s.balance != 0) {
        reportTxImbalance(bi);
        return;
      }
    }
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

  void reportDeadlock(const std::vector<int> &stuck) {
    // Prefer the precise causes: an open phase that can no longer get its arrivals or bytes.
    for (int a : stuck) {
      const SyncEvent &e = events(a)[agentStates_[static_cast<size_t>(a)].pc];
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
        f.hint = "arrivals(n) must equal the number of threads that arrive per phase (an arrive in 'elect' "
                 "counts once per warp)";
        return;
      }
    }
    int first = stuck[0];
    const SyncEvent &e = events(first)[agentStates_[static_cast<size_t>(first)].pc];
    std::string what = describeBlocked(first, e);
    SimFinding &f = report(SyncFamily::Deadlock, DiagKind::SyncDeadlock, e.range, {what});
    for (size_t i = 1; i < stuck.size(); ++i) {
      const SyncEvent &o = events(stuck[i])[agentStates_[static_cast<size_t>(stuck[i])].pc];
      f.notes.push_back({o.range, describeBlocked(stuck[i], o)});
    }
    for (size_t a = 0; a < agents_->size(); ++a)
      if (finished(static_cast<int>(a)) && !events(static_cast<int>(a)).empty())
        f.notes.push_back({events(static_cast<int>(a)).back().range,
                           agent(static_cast<int>(a)).name + " has finished; its last synchronisation is here" +
                               at(events(static_cast<int>(a)).back())});
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
      const std::vector<SyncEvent> &evs = program_->events[a];
      for (size_t i = as.pc; i < evs.size(); ++i)
        if (evs[i].kind == EventKind::Arrive && evs[i].barriers[0] == b) return true;
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
  bool stopped_ = false;
  bool light_ = false;
  int frozen_ = -1;
  int watchBarrier_ = -1;
  int64_t watchPhase_ = -1;
};

} // namespace

SimOutcome simulateSync(const KernelInfo &info, Arch arch, const SlotTable &slots,
                        const std::vector<SyncAgent> &agents, const SyncProgram &program) {
  Simulator sim(info, arch, slots, agents, program);
  sim.run();
  return sim.outcome;
}

} // namespace cake

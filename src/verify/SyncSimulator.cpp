// SyncSimulator: the multi-agent state machine of the sync protocol (semantics in SyncSimulator.h; the state and
// the class in SyncSimulatorState.h): the run loop, one event at a time, mbarrier phases and initialisation,
// lap checks, and the entry points simulateSync / simulateSyncVariants.
#include "verify/SyncSimulatorState.h"
#include "verify/NamedBarrierOperand.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>

namespace cake::sync_detail {

Simulator::Simulator(const KernelInfo &info, Arch arch, const SlotTable &slots, const std::vector<SyncAgent> &agents,
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

void Simulator::run() {
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

bool Simulator::beyondHorizon() const {
  if (!horizon_) return false;
  for (size_t a = 0; a < agentStates_.size(); ++a)
    if (agentStates_[a].pc >= (*horizon_)[a]) return true;
  return false;
}

bool Simulator::releaseNamedWaits() {
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

void Simulator::dropNamedClocks(NamedBarrierState &nb, int cta, int64_t id) {
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

SimFinding &Simulator::report(SyncFamily family, DiagKind kind, SourceRange range, std::vector<std::string> args) {
  stopped_ = true;
  outcome.findings.push_back({family, kind, range, std::move(args), {}, {}, {}, {}});
  return outcome.findings.back();
}

bool Simulator::someCopySignals(int s, int b) const {
  for (size_t x = 0; x < agents_->size(); ++x)
    for (size_t i = 0; i < program_->size(x); ++i) {
      const SyncEvent &ev = program_->at(x, i);
      if (ev.kind != EventKind::TmaLoad) continue;
      for (size_t k = 0; k < ev.stages.size() && k < ev.barriers.size(); ++k)
        if (ev.stages[k] == s && ev.barriers[k] == b) return true;
    }
  return false;
}

void Simulator::flipParity(SimFinding &f, const SyncEvent &wait) {
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

SourceRange Simulator::declRange(int b) const {
  const MBarrierInfo *mb = slots_->barriers[static_cast<size_t>(b)].decl;
  return mb && mb->decl ? mb->decl->nameRange : SourceRange{};
}

void Simulator::maybeComplete(int b) {
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
      fixExpectTx(f, b, phase);
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
  s.expectors = 0;
  s.landed = 0;
  s.participants.clear();
  s.lastExpect = {};
  std::fill(s.phaseClock.begin(), s.phaseClock.end(), 0);
}

bool Simulator::checkExpectTxInTime(int a, int b, const SyncEvent &e) {
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

int64_t Simulator::pendingBytes(int b, int64_t phase) const {
  int64_t n = 0;
  for (const Copy &c : inFlight_)
    if (c.barrier == b && c.issuePhase == phase) n += c.bytes;
  return n;
}

void Simulator::land(size_t i) {
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

bool Simulator::checkInit(int a, int b, const SyncEvent &e, const char *use, bool asyncOrRemote) {
  BarrierState &s = barriers_[static_cast<size_t>(b)];
  const AgentState &as = agentStates_[static_cast<size_t>(a)];
  const MBarrierInfo *decl = slots_->barriers[static_cast<size_t>(b)].decl;
  if (!s.initialised || (s.initAgent != a && as.clock[static_cast<size_t>(s.initAgent)] < s.initClock)) {
    const SyncEvent *ownInit = nullptr;     // the first init of this barrier
    const SyncEvent *otherInit = nullptr;   // the first init of another barrier: where this one's init belongs
    for (size_t x = 0; x < agents_->size(); ++x)
      for (size_t i = 0; i < program_->size(x); ++i)
        if (const SyncEvent &ev = program_->at(x, i); ev.kind == EventKind::Init) {
          if (std::find(ev.barriers.begin(), ev.barriers.end(), b) != ev.barriers.end()) {
            if (!ownInit) ownInit = &ev;
          } else if (!otherInit) {
            otherInit = &ev;
          }
        }
    bool everInit = ownInit != nullptr;
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
    if (!everInit && otherInit) f.insertions.push_back({otherInit->range, true, "mbarrier.init " + decl->decl->name + ";", {}});
    if (everInit) {    // initialised, not published: a barrier after the statement that initialises it
      bool cluster = slots_->barriers[static_cast<size_t>(b)].cta != agent(a).cta;
      f.insertions.push_back({ownInit->range, true, cluster ? "cluster.sync;" : "syncthreads;", e.range});
    }
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

void Simulator::retire(AgentState &as, std::deque<std::vector<std::pair<int, size_t>>> &groups, int64_t keep, int a) {
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

bool Simulator::step(int a) {
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
    if (e.bytes) {
      s.lastExpect = {a, &e};
      s.expectors += e.multiplicity;
    }
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
    s.expectors += e.multiplicity;
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
    as.targetAdvanced[b] = n > prev;
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

void Simulator::addParticipants(SimFinding &f, const BarrierState &s, int b) {
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

FrozenRun Simulator::frozenState() const {
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
    p.namedGeneration = as.namedGeneration;
    p.namedReleased = as.namedReleased;
    for (const auto &[b, t] : as.target) f.targets[a * barriers_.size() + static_cast<size_t>(b)] = t;
  }
  f.barriers.resize(barriers_.size());
  for (size_t b = 0; b < barriers_.size(); ++b) {
    const BarrierState &s = barriers_[b];
    f.barriers[b] = {s.completed, s.arrivals, s.balance, declared(static_cast<int>(b)),
                     s.participants.empty() ? Participant{} : s.participants.back()};
  }
  for (const auto &[key, nb] : named_) f.named[key] = {nb.arrived, nb.generation};
  f.inFlight.reserve(inFlight_.size());
  for (const Copy &c : inFlight_) f.inFlight.push_back({c.barrier, c.agent, c.bytes, c.event});
  return f;
}

Simulator::LapVerdict Simulator::lapCheck(int a, int b, int64_t n, const SyncEvent &e) {
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

} // namespace cake::sync_detail

namespace cake {

using sync_detail::Simulator;

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

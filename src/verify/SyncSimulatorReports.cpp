// SyncSimulatorReports: the simulator's checks at the end of a run (barriers left mid-phase, copies in flight,
// CTAs exiting while peers still access their shared memory) and the deadlock and tx-imbalance reports.
#include "verify/SyncSimulatorState.h"

#include "verify/ExpectTxFix.h"

#include <algorithm>
#include <cstdint>

namespace cake::sync_detail {

void Simulator::finalChecks() {
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

void Simulator::checkPeerExits() {
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

void Simulator::reportPeerExit(const RemoteAccess &r, const std::string &what, int cta) {
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
  const BlockStmt *body = info_->kernel ? info_->kernel->body.get() : nullptr;
  if (body && !body->stmts.empty()) f.insertions.push_back({body->stmts.back()->range, true, "cluster.sync;", {}});
}

void Simulator::reportTxImbalance(int b) {
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
  fixExpectTx(f, b, s.completed);
}

void Simulator::fixExpectTx(SimFinding &f, int b, int64_t phase) {
  const BarrierState &s = barriers_[static_cast<size_t>(b)];
  if (s.expectors != 1 || !s.lastExpect.event || !s.lastExpect.event->op) return;
  std::optional<SourceRange> arg = expectTxArgRange(*s.lastExpect.event->op);
  if (!arg) return;
  std::vector<PhaseCopy> copies;
  for (const Participant &p : s.participants)
    if (p.event && p.event->kind == EventKind::TmaLoad) copies.push_back({p.event->op, p.event->multiplicity});
  for (const Copy &c : inFlight_)
    if (c.barrier == b && c.issuePhase == phase) copies.push_back({c.event->op, c.event->multiplicity});
  if (std::optional<std::string> text = expectTxBytesText(std::move(copies))) f.fixits.push_back({*arg, *text});
}

void Simulator::explainShortPhase(SimFinding &f, int b) {
  const BarrierState &s = barriers_[static_cast<size_t>(b)];
  f.hint = "arrivals(n) must equal the number of threads that arrive per phase (an arrive in 'elect' "
           "counts once per warp); every phase that is started must be completed";
  if (s.completedParticipants.empty()) {
    fixArrivalCount(f, b);
    return;
  }
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

void Simulator::reportDeadlock(const std::vector<int> &stuck) {
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
    if (agentTarget(first, e) == 0 && !agentStates_[static_cast<size_t>(first)].target.count(b)) {
      f.hint = "a fresh mbarrier has completed no phase: the first wait passes at once only with parity 1 "
               "(the producer's first wait on an 'empty' barrier uses parity ((k / S) & 1) ^ 1)";
      flipParity(f, e);
    } else {
      f.hint = "every phase a role waits for must receive its arrivals: check early returns, loop bounds and "
               "the release of the last stages after the loop";
    }
    fixArrivalCount(f, b);
  }
}

void Simulator::fixArrivalCount(SimFinding &f, int b) {
  const BarrierState &s = barriers_[static_cast<size_t>(b)];
  if (s.completed != 0 || s.arrivals <= 0 || s.arrivals == declared(b)) return;
  const MBarrierInfo *mb = slots_->barriers[static_cast<size_t>(b)].decl;
  if (!mb || !mb->decl) return;
  const Expr *count = nullptr;
  for (const Attr &attr : mb->decl->attrs)
    if (attr.name == "arrivals" && attr.args.size() == 1) count = attr.args[0].value.get();
  if (!count) return;
  for (size_t a = 0; a < agents_->size(); ++a) {
    bool arrives = false;
    for (size_t i = 0; i < program_->size(a) && !arrives; ++i) {
      const SyncEvent &e = program_->at(a, i);
      arrives = e.kind == EventKind::Arrive && e.barriers[0] == b;
    }
    bool arrived = std::any_of(s.participants.begin(), s.participants.end(), [&](const Participant &p) {
      return p.agent == static_cast<int>(a) && p.event && p.event->kind == EventKind::Arrive;
    });
    if (arrives && !arrived) return;   // an agent skipped its arrive: the count is not the suspect
  }
  f.fixits.push_back({count->range, std::to_string(s.arrivals)});
}

int64_t Simulator::agentTarget(int a, const SyncEvent &e) const {
  const AgentState &as = agentStates_[static_cast<size_t>(a)];
  int b = e.barriers[0];
  int64_t n = as.target.count(b) ? as.target.at(b) : -1;
  if (((n % 2) + 2) % 2 != e.parity) ++n;
  return n;
}

bool Simulator::moreArrivalsPossible(int b) const {
  for (size_t a = 0; a < agents_->size(); ++a) {
    const AgentState &as = agentStates_[a];
    for (size_t i = as.pc; i < program_->size(a); ++i)
      if (const SyncEvent &e = program_->at(a, i); e.kind == EventKind::Arrive && e.barriers[0] == b) return true;
  }
  return false;
}

std::string Simulator::describeBlocked(int a, const SyncEvent &e) const {
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

} // namespace cake::sync_detail

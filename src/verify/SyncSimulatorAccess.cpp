// SyncSimulatorAccess: the simulator's checks of stage reads and writes (a fill observed before a read, every
// read released before a write), per thread through ThreadKnowledge, and named-barrier hand-offs and overruns.
#include "verify/SyncSimulatorState.h"
#include "verify/NamedBarrierOperand.h"

#include <algorithm>
#include <climits>
#include <cstdint>

namespace cake::sync_detail {

bool Simulator::checkReadable(int a, int s, const SyncEvent &e) {
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
      // The reader's wait moved on to a new phase and the reader has observed the stage's contents before
      // this copy: the wait is right, and another agent refilled the stage before the read without waiting
      // for the reader to release it (a parity flip would make the reader wait for the refill's data).
      auto advanced = as.targetAdvanced.find(st.writeBarrier);
      if (st.writer != a && st.writeEvent && advanced != as.targetAdvanced.end() && advanced->second &&
          st.version >= 1 && as.clock[stageClockIndex(s)] >= st.version - 1) {
        SimFinding &f = report(SyncFamily::Ring, DiagKind::StageOverwritten, st.writeEvent->range,
                               {who(st.writer, *st.writeEvent), stageName(s), agent(a).name});
        f.notes.push_back({wait.range, agent(a).name + " waits here for phase " + std::to_string(t->second) +
                                           ", whose copy filled '" + stageName(s) + "'" + at(wait)});
        f.notes.push_back({e.range, "and reads it here" + at(e) + ", after the refill may have landed"});
        f.hint = "let the refill wait until every reader released the stage: an mbarrier the readers arrive on "
                 "after their last read of it, waited on before the copy (or a barrier both pass)";
        return false;
      }
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

std::string Simulator::namedName(const SyncEvent &e) const {
  const Expr *index = nullptr;
  const BarrierStmt *b = e.op ? namedBarrierOperand(*e.op, &index) : nullptr;
  if (!b) return "barrier " + std::to_string(e.namedId);
  return index ? b->name + " (id " + std::to_string(e.namedId) + ")" : b->name;
}

const SyncEvent *Simulator::nextNamedArrive(int writer, size_t pc) const {
  for (size_t i = pc + 1; i < eventCount(writer); ++i)
    if (event(writer, i).kind == EventKind::NamedArrive) return &event(writer, i);
  return nullptr;
}

bool Simulator::blocks(EventKind k) {
  return k == EventKind::Wait || k == EventKind::NamedSync || k == EventKind::BlockSync ||
         k == EventKind::ClusterWait;
}

bool Simulator::namedHandoffWrite(int a, int s, const SyncEvent &e, const Write &w) {
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

bool Simulator::checkNamedOverrun(int a, const SyncEvent &e, NamedBarrierState &nb) {
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

void Simulator::contribute(int a, const SyncEvent &e, std::vector<int64_t> &into) const {
  const AgentState &as = agentStates_[static_cast<size_t>(a)];
  as.know.knownBy(e.threads.get(), into.data());
  size_t self = static_cast<size_t>(a);
  into[self] = std::max(into[self], as.clock[self]);
}

bool Simulator::checkReadersObserved(int a, int s, const SyncEvent &e) {
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

void Simulator::explainUnobserved(SimFinding &f, int a, const SyncEvent &e, const SyncEvent *wait,
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
  else if (waiters && !waitersCoverThem) {
    f.hint = "let every warp that does the " + access + " wait; or, after the wait, pass a named barrier "
             "('sync BAR') that both the waiting warps and these warps execute; or move the " + access +
             " under the same condition as the wait";
    // The fix-it: the same wait again, by every thread, after the condition that holds it (waiting twice for
    // one phase passes at once the second time).
    StatementInsertion again{wait->range, true, "", e.range};
    again.copyOf = wait->range;
    f.insertions.push_back(again);
  }
  else
    f.hint = "the threads that arrive on a barrier pass on only what they observed: arrive from threads that "
             "waited for the " + what + ", or let these threads wait for it themselves";
}

bool Simulator::checkWritersObserved(int a, int s, const SyncEvent &e) {
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

const SyncEvent *Simulator::releaseBeforeRead(int reader, const SyncEvent &read, const AgentState &writer) const {
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

bool Simulator::checkWritable(int a, int s, const SyncEvent &e) {
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
    // The writer's own asynchronous read (its tma.store, its wgmma) has not ended: it waits for it, here.
    if (r.agent == a && !r.done && (r.event->kind == EventKind::StoreRead || r.event->kind == EventKind::ReadAsync)) {
      bool store = r.event->kind == EventKind::StoreRead;
      std::string wait = store ? "tma.store.wait 0;" : "wgmma.wait 0;";
      f.hint = std::string("the ") + (store ? "tma.store" : "wgmma") + " reads '" + stageName(s) +
               "' asynchronously until " + (store ? "its committed bulk async-group retires" : "its group retires") +
               ": add '" + wait + "' before this write" + (store ? " (and 'tma.store.commit;' after the store)" : "");
      f.insertions.push_back({e.range, false, wait, {}, true});
      return false;
    }
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

int64_t Simulator::recordWrite(int s, Write w) {
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

void Simulator::compactReads(int s) {
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

} // namespace cake::sync_detail

// FrozenRun: the sync simulator's lap check (SyncSimulator.cpp) - a light run of every agent but one from
// a copy of the simulator's progress state.
//
// Algorithm.  The "what if" of a lap: every agent but `frozen` runs to quiescence from a given state while
// `frozen` stays at its wait for phase n (watchPhase = n + 1); a lap when the barrier then completes phase
// n + 1.  Only progress matters here, so the state is the part of the simulator's that decides blocking -
// program counters, wait targets, block / cluster / named barrier counts, per-barrier phase counters and the
// copies in flight - without clocks, stages or reads (copying those at every wait made the lap checks
// quadratic in the run length).  The semantics are the simulator's with its ordering and error checks left out:
// arrivals and bytes complete phases, copies land oldest first only when no agent can move, a wait blocks
// until its target phase completed (targeted from the barrier's completed phases: this run has no clocks).
// The run stops as soon as phase n + 1 completes (c is monotone).
#pragma once
#include "verify/SyncModel.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <vector>

namespace cake::sync_detail {

// Who touched a barrier in the current phase (for notes).
struct Participant {
  int agent = -1;
  const SyncEvent *event = nullptr;
};

class FrozenRun {
public:
  struct AgentProgress {
    size_t pc = 0;
    int cta = 0;
    size_t blockSyncs = 0, clusterArrived = 0, clusterWaited = 0;
    bool pendingSync = false;   // arrived at its current syncthreads, not yet through
    int64_t namedGeneration = -1;   // at a named `sync`: the generation it arrived in (-1: not arrived yet)
    bool namedReleased = false;     // let through by the simulator without the barrier completing
  };
  struct NamedProgress {
    int64_t arrived = 0, generation = 0;
  };
  struct BarrierProgress {
    int64_t completed = 0, arrivals = 0, balance = 0, declared = 0;
    Participant last;           // the latest arrival or landed copy
  };
  struct Flight {
    int barrier = -1, agent = -1;
    int64_t bytes = 0;
    const SyncEvent *event = nullptr;
  };

  static constexpr int64_t kNoTarget = INT64_MIN;
  FrozenRun(const SyncProgram &program, size_t barrierCount) : program_(&program), barrierCount_(barrierCount) {}

  std::vector<AgentProgress> agents;
  std::vector<int64_t> targets;   // agent * barrierCount + barrier -> previous wait target (kNoTarget: none)
  std::vector<BarrierProgress> barriers;
  std::vector<Flight> inFlight;   // oldest first
  std::map<std::pair<int, int64_t>, NamedProgress> named;   // (CTA, hardware id)
  // Per agent, the program counter from which the run no longer follows the program it stands for
  // (SIZE_MAX: everywhere); reaching it sets `crossedHorizon` and stops the run (see Simulator::horizon).
  const std::vector<size_t> *horizon = nullptr;
  bool crossedHorizon = false;
  Participant completer;          // who completed the watched phase

  // True when the barrier completes phase watchPhase while `frozen` waits.
  bool laps(int frozen, int barrier, int64_t watchPhase) {
    frozen_ = frozen;
    watchBarrier_ = barrier;
    watchPhase_ = watchPhase;
    if (beyondHorizon()) return false;
    size_t head = 0;
    for (;;) {
      bool progress = false;
      for (size_t a = 0; a < agents.size(); ++a) {
        if (static_cast<int>(a) == frozen_) continue;
        while (step(static_cast<int>(a))) {
          progress = true;
          if (lapped()) return true;
          if (horizon && agents[a].pc >= (*horizon)[a]) {
            crossedHorizon = true;
            return false;
          }
        }
      }
      if (progress) continue;
      if (head >= inFlight.size()) break;
      land(inFlight[head++]);
      if (lapped()) return true;
    }
    return lapped();
  }

private:
  bool lapped() const { return barriers[static_cast<size_t>(watchBarrier_)].completed > watchPhase_; }
  bool beyondHorizon() {
    if (horizon)
      for (size_t a = 0; a < agents.size(); ++a)
        if (agents[a].pc >= (*horizon)[a]) crossedHorizon = true;
    return crossedHorizon;
  }
  bool finished(size_t a) const { return agents[a].pc >= program_->size(a); }

  void maybeComplete(int b) {
    BarrierProgress &s = barriers[static_cast<size_t>(b)];
    if (s.arrivals < s.declared || s.balance != 0) return;
    if (b == watchBarrier_ && s.completed == watchPhase_) completer = s.last;
    s.completed++;
    s.arrivals = 0;
    s.balance = 0;
  }

  void land(const Flight &f) {
    BarrierProgress &s = barriers[static_cast<size_t>(f.barrier)];
    s.balance -= f.bytes;
    s.last = {f.agent, f.event};
    maybeComplete(f.barrier);
  }

  // One event of agent a; false when it is blocked or finished.
  bool step(int a) {
    AgentProgress &as = agents[static_cast<size_t>(a)];
    if (as.pc >= program_->size(static_cast<size_t>(a))) return false;
    const SyncEvent &e = program_->at(static_cast<size_t>(a), as.pc);
    switch (e.kind) {
    case EventKind::BlockSync: {
      as.pendingSync = true;
      for (size_t o = 0; o < agents.size(); ++o) {
        if (agents[o].cta != as.cta || static_cast<int>(o) == a) continue;
        bool arrived = agents[o].blockSyncs > as.blockSyncs || agents[o].pendingSync;
        if (!arrived && !finished(o)) return false;
      }
      as.blockSyncs++;
      as.pendingSync = false;
      break;
    }
    case EventKind::ClusterWait: {
      size_t j = as.clusterWaited;
      if (as.clusterArrived <= j) return false;
      for (size_t o = 0; o < agents.size(); ++o)
        if (agents[o].clusterArrived <= j && !finished(o)) return false;
      as.clusterWaited++;
      break;
    }
    case EventKind::ClusterArrive: as.clusterArrived++; break;
    case EventKind::NamedSync: case EventKind::NamedArrive: {
      // A named barrier's generation completes when its count of threads arrived; a `sync` waits for the
      // generation it arrived in (a hand-off between roles orders their work, as in the simulator).
      NamedProgress &nb = named[{as.cta, e.namedId}];
      if (as.namedGeneration < 0) {
        int64_t generation = nb.generation;
        nb.arrived += e.multiplicity;
        if (nb.arrived >= e.count) {
          nb.arrived = 0;
          nb.generation++;
        }
        if (e.kind == EventKind::NamedArrive) break;
        as.namedGeneration = generation;
      }
      if (nb.generation <= as.namedGeneration && !as.namedReleased) return false;
      as.namedGeneration = -1;
      as.namedReleased = false;
      break;
    }
    case EventKind::Arrive: {
      BarrierProgress &s = barriers[static_cast<size_t>(e.barriers[0])];
      s.arrivals += e.multiplicity;
      s.balance += e.bytes * e.multiplicity;
      s.last = {a, &e};
      maybeComplete(e.barriers[0]);
      break;
    }
    case EventKind::ExpectTx: barriers[static_cast<size_t>(e.barriers[0])].balance += e.bytes * e.multiplicity; break;
    case EventKind::Wait: {
      int b = e.barriers[0];
      int64_t &target = targets[static_cast<size_t>(a) * barrierCount_ + static_cast<size_t>(b)];
      // The phase the hardware's parity test picks in this state: not older than the previous target nor
      // than the completed phases (the simulator starts from the phases the agent knows complete, which are
      // never more; this run has no clocks, and an agent that skips phases - a consumer taking every other
      // use of a stage - must not target a phase it skipped).
      int64_t n = std::max(target == kNoTarget ? -1 : target, barriers[static_cast<size_t>(b)].completed - 1);
      if (((n % 2) + 2) % 2 != e.parity) ++n;
      if (n >= 0 && barriers[static_cast<size_t>(b)].completed < n + 1) return false;
      target = n;
      break;
    }
    case EventKind::TmaLoad:
      for (int b : e.barriers) inFlight.push_back({b, a, e.bytes * e.multiplicity, &e});
      break;
    default: break;   // init, fences, reads, writes, commits and waits on groups never block progress
    }
    as.pc++;
    return true;
  }

  const SyncProgram *program_;
  size_t barrierCount_;
  int frozen_ = -1, watchBarrier_ = -1;
  int64_t watchPhase_ = -1;
};

} // namespace cake::sync_detail

// RaceDetector: dynamic checking of shared-memory accesses while a block (cluster) runs - data races,
// generic-vs-async proxy accesses without fence.proxy_async, and reads of never-written elements.
//
// Happens-before with vector clocks.  The agents are the warps of the cluster (a warp runs its lanes in
// lock-step, so accesses within one warp are not checked against each other) and the asynchronous
// copies: each TMA load/store and cp.async gets an agent slot (one of kAsyncSlots, reused round-robin with
// ever-growing clocks) whose clock is the issuing warp's clock at issue plus its own tick.  Edges:
//   barriers   syncthreads, named barriers, cluster.sync: each waiter gets the join of every arriving
//              warp's clock (bar.arrive contributes without receiving);
//   mbarriers  an arrive (and a TMA load's complete_tx) joins the arriver's clock into the phase; when the
//              phase completes its clock is kept, and a `wait` that returns joins it;
//   groups     cp.async.wait / tma.store.wait join the clocks of the copies they cover.
// Every shared element keeps its last write (agent, clock, statement, proxy) and the last read of each
// agent since; an access conflicts with a recorded one of another agent (one of them a write) whose clock
// the accessing agent's vector clock has not reached.  Atomics are not checked against each other.  The
// first finding is kept (with the seed that exposed it) and reported when the block ends.
#pragma once
#include "support/Diagnostics.h"
#include "support/SourceManager.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cake::interp {

using VectorClock = std::vector<uint32_t>;
void joinInto(VectorClock &into, const VectorClock &from);

struct RaceAccess {
  int agent = -1;
  uint32_t clock = 0;
  SourceRange at;
  bool async = false;      // async proxy (TMA, wgmma)
  int issuer = -1;         // async copies: the warp that issued it
  const char *what = "";   // "tma.load", "cp.async", "" for a warp's own access
};

struct ElementShadow {
  bool written = false;
  RaceAccess write;
  std::vector<RaceAccess> reads;   // at most one per agent since the last write
};

struct RaceFinding {
  DiagKind kind;
  std::vector<std::string> args;
  SourceRange at;
  std::vector<std::pair<SourceRange, std::string>> notes;
};

class RaceDetector {
public:
  static constexpr int kAsyncSlots = 64;
  explicit RaceDetector(int warps);

  int warps() const { return warps_; }
  VectorClock &clock(int agent) { return clocks_[size_t(agent)]; }
  void tick(int agent) { ++clocks_[size_t(agent)][size_t(agent)]; }
  // Barrier completion: every participant contributes, the waiters receive.
  void barrier(const std::vector<int> &participants, const std::vector<int> &waiters);
  // A new asynchronous agent for a copy issued by `warp`: its slot and vector clock.
  int issueAsync(int warp, VectorClock &vc);
  void fenceProxyAsync(int warp) { fenced_[size_t(warp)] = clocks_[size_t(warp)][size_t(warp)]; }

  // One element access: `index` into the array's shadow (its physical element); `logical` (row-major over
  // `dims`, or -1 when only the physical element is known) names it in messages.
  void access(std::vector<ElementShadow> &shadow, size_t index, const RaceAccess &a, const VectorClock &vc, bool write,
              bool atomic, const std::string &array, const std::vector<int64_t> &dims, int64_t logical, uint64_t seed);

  std::optional<RaceFinding> finding;   // the first one

private:
  std::string who(const RaceAccess &a) const;
  void report(DiagKind kind, std::vector<std::string> args, const RaceAccess &now, const RaceAccess *other, uint64_t seed);
  int warps_;
  std::vector<VectorClock> clocks_;
  std::vector<uint32_t> fenced_;   // per warp: its clock at its last fence.proxy_async
  int nextSlot_ = 0;
};

} // namespace cake::interp

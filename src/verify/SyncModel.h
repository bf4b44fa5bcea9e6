// SyncModel: the synchronisation program of each agent, for one concrete choice of the kernel's symbolic
// values (shape variables, scalar params, block indices), as a flat list of events.
//
// Agents.  An agent is one role instance of one CTA of the cluster (`load`, `math[1]`, `CTA 1: load`), or the
// warps no role covers (`block`).  Its threads execute the role body in lock-step: a condition that depends
// on thread identity (tid.x, lane, warp, ROLE.warp, ROLE.thread, cluster.rank) is evaluated per thread and
// narrows the agent's *active set*; `elect` keeps the lowest active lane of each warp; `return` removes the
// threads that reach it for the rest of the program.  An event's multiplicity is the size of the active set
// where it executes (an arrive in `elect` inside a 2-instance warpgroup role: 4 per instance).  A wait
// blocks the whole agent (lock-step for progress: threads of one agent never run ahead of each other), but
// orders only the threads that execute it (below).
//
// Each event also records the threads that execute it (the active set), so that the simulator can tell
// which threads observed a wait (ThreadKnowledge.h) while it still blocks the whole agent.
//
// Events.  Only what matters to the protocol is kept: mbarrier.init / fence.mbarrier_init, syncthreads /
// cluster barriers, `syncwarp` (where the walk reaches it: in code that has other events), named barriers (sync / arrive: the hardware id, the thread count, 32 per arriving warp),
// arrive (multiplicity, expect_tx bytes, target CTA), mbarrier.expect_tx, wait (parity),
// tma.load (destination stage on every multicast destination, the barrier it signals there, bytes = box
// elements x element size), reads of shared stages (ldmatrix, loads, wgmma operands - asynchronous until
// the wgmma.wait that retires their group - and tma.store sources, until tma.store.wait), and generic
// writes (stores, stmatrix, cp.async).  Loops and ifs without such events are skipped entirely; loops
// with them are unrolled with their concrete bounds (the caller enumerates trip counts).
//
// Expansion evaluates every expression it needs concretely (64-bit, target division semantics); induction
// counters (InductionCounters.h) are tracked per agent as their `+= c` executes.  A value it cannot evaluate
// (a load, a float, a mutable variable that is not an induction counter) in a position that matters - a loop bound, a
// branch around events, a stage index, a parity, a byte count - is recorded as a problem: the caller turns
// it into an "unproven" diagnostic.
#pragma once
#include "frontend/AST.h"
#include "frontend/Builtins.h"
#include "frontend/KernelInfo.h"
#include "verify/InductionCounters.h"

#include <climits>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cake {

struct SyncAgent {
  std::string name;                 // "math[1]"; "CTA 1: math[1]" in clusters
  int cta = 0;                      // rank in the cluster
  const RoleInfo *role = nullptr;   // null: the warps outside every role
  int64_t instance = 0;
  std::vector<int64_t> threads;     // tid.x of its threads
};

// Every mbarrier and every stage of a shared array, per CTA, gets a slot number.
struct BarrierSlot {
  int cta = 0;
  const MBarrierInfo *decl = nullptr;
  int64_t index = 0;
  std::string name() const;         // "full[2]" (with "CTA 1: " in clusters)
  bool inCluster = false;
};
// The bracket groups of a shared array's type that number ring stages: all but the innermost (the tile).
size_t stageLevels(const Type *t);

struct StageSlot {
  int cta = 0;
  const SharedAllocation *decl = nullptr;
  int64_t index = 0;
  bool staged = false;              // a[s] of a multi-stage array (else the whole array)
  bool inCluster = false;
  std::string name() const;         // "a[1]" / "tile"
};

struct SlotTable {
  std::vector<BarrierSlot> barriers;
  std::vector<StageSlot> stages;
  int barrierSlot(int cta, const MBarrierInfo *decl, int64_t index) const;   // -1 if out of range
  int stageSlot(int cta, const SharedAllocation *decl, int64_t index) const;
};

SlotTable buildSlots(const KernelInfo &info);
std::vector<SyncAgent> buildAgents(const KernelInfo &info);

enum class EventKind : uint8_t {
  Init, FenceInit, BlockSync, ClusterArrive, ClusterWait, NamedSync, NamedArrive,
  Arrive, ExpectTx, Wait, TmaLoad,
  Read, ReadAsync, StoreRead, Write,
  WgmmaCommit, WgmmaWait, StoreCommit, StoreWait,
  WarpSync
};

struct SyncEvent {
  EventKind kind = EventKind::Init;
  const OpStmt *op = nullptr;       // null for reads inside expressions (then `at` is the expression)
  SourceRange range;                // where the event is in the source
  std::vector<int> barriers;        // Init: every slot; Arrive/ExpectTx/Wait: one; TmaLoad: per destination
  std::vector<int> stages;          // TmaLoad: per destination (parallel to barriers); reads/writes: one
  int64_t multiplicity = 1;         // threads executing it
  int64_t bytes = 0;                // Arrive: expect_tx per thread; ExpectTx: bytes; TmaLoad: per copy
  int64_t parity = 0;               // Wait
  int64_t count = 0;                // WgmmaWait / StoreWait N; NamedSync / NamedArrive: the barrier's thread count
  int64_t namedId = 0;              // NamedSync / NamedArrive: the hardware barrier id (1..15)
  std::string where;                // loop context, "k = 5"
  int64_t lo = 0, hi = INT64_MAX;   // TmaLoad: the rows of the stage's tile it writes (a slice); else all
  // The threads that execute it (tid.x, ascending; shared between events with equal sets).  Null: every
  // thread of the agent.
  std::shared_ptr<const std::vector<int64_t>> threads;
  uint32_t laneMask = 0xffffffffu;  // WarpSync: the lanes of the mask
};

struct SyncProblem {
  SourceRange range;
  std::string what;                 // "the loop bound", "the stage index"
  std::string reason;
  const Decl *variable = nullptr;   // the mutable variable (not an induction counter) it depends on, if that is why
};

struct SyncProgram {
  std::vector<std::vector<SyncEvent>> events;   // per agent
  std::vector<SyncProblem> problems;
  // Per agent: the expansion's state at the start of each iteration of the agent's first tile-loop run (a
  // loop in ConcreteValues::tripOverrides), then at its exit; empty when the agent runs no tile loop.  A
  // program with fewer tiles is this one up to such a point, then its own rest (expandSyncTail).
  struct TileStart {
    size_t event = 0;                                           // index of the next event
    DeclMap<int64_t> counters;   // induction counters' values
    DeclMap<std::vector<int64_t>> counterThreads;
    std::vector<const Decl *> counterOrder;
    std::vector<int64_t> active;                                // the agent's active threads
  };
  std::vector<std::vector<TileStart>> tileStarts;
  // A tile-count variant that shares its beginning with another program (expandSyncTail): agent a's events
  // are base->events[a][0, basePrefix[a]) followed by events[a].  Null: events[a] is the whole list.
  const SyncProgram *base = nullptr;
  std::vector<size_t> basePrefix;

  size_t size(size_t agent) const { return (base ? basePrefix[agent] : 0) + events[agent].size(); }
  const SyncEvent &at(size_t agent, size_t i) const {
    if (base && i < basePrefix[agent]) return base->events[agent][i];
    return events[agent][i - (base ? basePrefix[agent] : 0)];
  }
};

// Concrete values of the symbolic names: shape variables, scalar params (by Decl), and the builtins that
// are uniform over the block (block.x/y/z, num_sms) by value.
struct ConcreteValues {
  DeclMap<int64_t> decls;
  std::map<BuiltinValue, int64_t> builtins;
  // Loops run exactly this many times instead of evaluating their bounds (persistent tile loops, whose
  // trip count the analysis enumerates directly); their loop variable has no value inside.
  std::map<const ForStmt *, int64_t, DeclSourceOrder> tripOverrides;
  // What the launch fixes that the kernel reads from memory (ExprToZ3::launchReads: `u32(cu[n]) % u32(TT + 1)`),
  // by expression node, from the same shape query's model.
  std::map<const Expr *, int64_t> launchValues;
  // Induction counters (evaluated concretely as the loops unroll); null: every `var` is unknown.
  const InductionCounters *counters = nullptr;
  // Data guards (isDataGuard) whose condition the analysis could not prove periodic and shape-determinate:
  // the expansion does not evaluate them but walks both branches with every active thread (each access in
  // them may happen).  Null: none.
  const std::set<const IfStmt *> *mayGuards = nullptr;   // looked up only, never iterated
};

SyncProgram expandSync(const Kernel &kernel, const KernelInfo &info, const SlotTable &slots,
                       const std::vector<SyncAgent> &agents, const ConcreteValues &values);

// The program for `values` (whose tile loops run T times) as a variant of `longer`, the expansion of the
// same values with more tiles: up to the end of the T-th tile of each agent's first tile-loop run the two
// programs agree event for event (the walk is the same), so the expansion skips to `longer`'s state at
// that point (its TileStart) and expands only what follows.  The result's base is `longer`; it has the
// problems of the part it expanded (the shared beginning's are `longer`'s).
SyncProgram expandSyncTail(const Kernel &kernel, const KernelInfo &info, const SlotTable &slots,
                           const std::vector<SyncAgent> &agents, const ConcreteValues &values,
                           const SyncProgram &longer);

// Does the statement contain any operation the sync model records (used to skip irrelevant code)?
bool containsSyncEvents(const Stmt &s);

// A data guard: an `if` around shared-memory accesses (loads, stores, cp.async, ldmatrix, stmatrix) whose
// branches hold no synchronisation (barriers, arrives, waits, syncwarp, TMA, wgmma, their commits), no
// `return` and no call: its condition decides only which accesses happen, never the order of the protocol's
// events (a ragged-row guard `if t * 32 + r < M { a[s][r, c] = ... }`).  `wgmma.wait` is allowed (an
// epilogue at a data-dependent point of a loop drains the thread's own groups): where the analysis cannot
// evaluate the condition it takes such a wait not to run, which can only leave reads open longer.
bool isDataGuard(const IfStmt &s);

} // namespace cake

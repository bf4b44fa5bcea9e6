// Private to src/cost: the warp-level interpreter behind countWork() (WorkCounter.h), shared by
// WorkCounter.cpp (samples, statements, control flow), CountExprs.cpp (expressions, addresses) and
// CountOps.cpp (operation statements).
#pragma once
#include "cost/AccessPattern.h"
#include "cost/LaneValue.h"
#include "cost/WorkCounter.h"
#include "frontend/Builtins.h"
#include "frontend/Ops.h"
#include "frontend/Types.h"

#include <map>
#include <set>
#include <unordered_map>

namespace cake::cost::detail {

// What one warp (or a block, or the grid) accumulated.  Loop scaling multiplies deltas of this.
struct Accum {
  Counts counts{};
  std::vector<Counts> roleCounts;   // the same counts per role (roles, then "no role")
  std::vector<double> siteBytes;
  // the warp's critical path (not scaled by warp/block multiplicity)
  double chainInstr = 0, chainRounds = 0, chainAsync = 0, chainBarriers = 0;

  void addScaled(const Accum &other, double factor, bool withChain);
  void addScaledDifference(const Accum &to, const Accum &from, double factor);   // += (to - from) * factor
  void clear(size_t roles);
};

// A point in one warp's walk.  Loop summaries add more copies of the work walked between two points: the
// counts, and the bytes of the load round and cp.async group still open when no round or group closed.
struct WalkMark {
  Accum acc;
  double roundBytes = 0, cpGroupBytes = 0;
  int64_t roundsClosed = 0, cpCommits = 0;
};

struct SiteInfo {
  const void *node = nullptr;
  const Decl *tensor = nullptr;
  bool store = false;
  uint32_t blockDeps = 0;
  bool probed = false;                  // WaveFootprint.cpp: its addresses in the first blocks were probed
  std::vector<int64_t> waveAddresses;   // ... lane 0's address in blocks 0, 1, ... (empty: no answer)
};

// While an address is evaluated for another block (WaveFootprint.cpp): the names re-evaluated so far.
struct Rebinding {
  std::unordered_map<const Decl *, LaneValue> values;
  bool failed = false;
};

// A tensor element / vector / tile access, located.
struct ResolvedAccess {
  bool memory = false;                    // a global or shared tensor (else a register value)
  const Decl *base = nullptr;
  AddressSpace space = AddressSpace::Register;
  const SharedAllocation *shared = nullptr;
  LaneValue byteOffset;                   // from the allocation / tensor origin
  int64_t elemBytes = 0;
  int64_t tileElements = 1;               // elements covered by slices and whole dims
  uint32_t deps = 0;                      // dependence of the address
};

// The byte offsets of a shared access as stored: a swizzled array's row-major offsets mapped through its
// column blocks and swizzle XOR (frontend/SharedLayout.h), other arrays' unchanged; nullopt when a swizzled
// array's offsets are unknown (the access is then counted conflict-free).
std::optional<LaneValue> physicalSharedOffsets(const ResolvedAccess &ra);

// What a statement can do to the control path (ControlTrace.cpp).
struct ControlFacts {
  bool control = false;   // a branch, return, integer var assignment or loop with non-constant bounds
  bool returns = false;   // a return
};

// A traced loop segment: the loop, the block, the lanes entering it and its bounds.
struct LoopTraceKey {
  const ForStmt *loop;
  std::array<int64_t, 3> block;
  uint32_t active;
  int64_t lo, hi, step;
  auto operator<=>(const LoopTraceKey &) const = default;
};

// A control loop being walked (ControlTrace.cpp).
struct ControlLoop {
  LoopTraceKey key;
  bool keyable = false;            // uniform, warp-independent bounds, a body leaving no control state
  uint32_t outerLoopBits = 0;      // the variables of the loops around it
  uint32_t ownBit = 0;             // its own variable
};

// Iterations [first, ...) of one class: `count` iterations taking the same branches as iteration `first`.
struct IterationClass {
  int64_t first = 0;
  int64_t count = 0;
};

class Counter {
public:
  Counter(const Kernel &kernel, const KernelInfo &info, const ShapeBinding &binding);
  WorkProfile run();

  // ---- statements (WorkCounter.cpp)
  void walkBlock(const BlockStmt &b);
  void walkStmt(const Stmt &s);
  void walkIf(const IfStmt &s);
  void walkFor(const ForStmt &s);
  void walkLoopIterations(const ForStmt &f, const LaneValue &lo, const LaneValue &hi, const LaneValue &step);
  void walkRole(const RoleStmt &s);
  void walkAssign(const AssignStmt &s);
  void walkVar(const VarStmt &s);
  void runIterations(const ForStmt &f, int64_t lo, int64_t step, int64_t trips, uint32_t loDeps);
  void iterate(const ForStmt &f, const LaneValue &value, uint32_t mask);
  void closeRound();
  void invalidateAssignedSince(size_t mark);
  WalkMark markWalk() const;
  void rewindTo(const WalkMark &m);
  void scaleWalk(const WalkMark &from, const WalkMark &to, double extra);
  void note(const std::string &text);
  void findTmaBarriers(const Stmt &s);

  // ---- control traces (ControlTrace.cpp)
  ControlFacts findControl(const Stmt &s);
  void findControlSlice(const Stmt &s, std::vector<const Decl *> &reads,
                        std::multimap<const Decl *, const Expr *> &defs);
  void buildControlSlice(const Stmt &body);
  void walkControlLoop(const ForStmt &f, const LaneValue &lo, const LaneValue &hi, const LaneValue &step);
  void noteControlDeps(uint32_t deps);
  bool sameInEveryWarp(const ControlLoop &loop) const;
  bool leavesNoControlState(const ForStmt &f) const;
  LoopTraceKey replayKey(const ControlLoop &loop) const;
  static bool isIntegerRegisterAssign(const AssignStmt &s);
  void traceMix(uint64_t word);
  void traceTrips(const LaneValue &lo, const LaneValue &hi, const LaneValue &step);
  uint64_t traceWarp(int64_t warp);

  // ---- wave footprints (WaveFootprint.cpp)
  void probeWaveFootprint(size_t site, const Expr &source);
  LaneValue rebindName(const Decl *decl, const LaneValue &current);

  // ---- iteration classes (IterationClasses.cpp)
  bool walkByClass(const ForStmt &f, int64_t lo, int64_t step, int64_t trips, uint32_t loDeps, uint32_t mask,
                   const WalkMark &before);
  std::optional<std::vector<IterationClass>> classifyIterations(const ForStmt &f, int64_t lo, int64_t step,
                                                                int64_t trips, uint32_t loDeps, uint32_t mask);
  LaneValue loopValueAt(int64_t lo, int64_t step, int64_t i, uint32_t bit, uint32_t loDeps) const;

  // ---- expressions (CountExprs.cpp)
  LaneValue eval(const Expr &e);
  LaneValue evalName(const NameExpr &n);
  LaneValue evalBuiltin(BuiltinValue v, const Expr &e);
  LaneValue evalBinary(const BinaryExpr &b);
  LaneValue evalCall(const CallExpr &c);
  LaneValue evalLoad(const Expr &e);
  ResolvedAccess resolve(const Expr &e);
  std::optional<int64_t> dimValue(const TensorDim &d);

  // ---- operations (CountOps.cpp)
  void walkOp(const OpStmt &op);
  void countStore(const AssignStmt &s, const ResolvedAccess &target, int64_t bytesPerLane);
  // An atomic update of `target` by every active lane (atom.* call or red.* statement at `node`).
  void countAtomic(const Expr &target, const void *node);

  // ---- accounting
  void issue(double n);
  void add(Count c, double v) {
    acc_.counts[static_cast<size_t>(c)] += v * localWeight_;
    if (roleSlot_ < acc_.roleCounts.size()) acc_.roleCounts[roleSlot_][static_cast<size_t>(c)] += v * localWeight_;
  }
  void fp32(double laneOps, double flops) {
    add(Count::Fp32LaneOps, laneOps);
    add(Count::Fp32Flops, flops);
  }
  size_t siteFor(const void *node, const Decl *tensor, bool store);
  void globalAccess(const void *node, const ResolvedAccess &ra, int64_t bytesPerLane, bool store, Count kind,
                    bool synchronous);
  void sharedAccess(const ResolvedAccess &ra, int64_t bytesPerLane, bool store);
  int lanes() const { return __builtin_popcount(active_); }

  // ---- samples (WorkCounter.cpp)
  void startWarp(int64_t warp);
  uint32_t walkWarp(int64_t warp);
  uint32_t walkBlockSample(std::array<int64_t, 3> block);

  const Kernel &kernel_;
  const KernelInfo &info_;
  const ShapeBinding &binding_;

  bool exhaustive_ = false;                   // CountMode::Exhaustive: no samples, classes or traces
  Rebinding *rebinding_ = nullptr;            // set while probing a wave footprint
  uint32_t blockLoopBits_ = 0;                // the variables of the loops being walked whose bounds read the block

  // per-walk state
  std::unordered_map<const Decl *, LaneValue> env_;
  uint32_t active_ = 0, returned_ = 0;
  double localWeight_ = 1;
  unsigned loopDepth_ = 0;
  uint32_t controlDeps_ = 0;
  int64_t warp_ = 0;
  std::array<int64_t, 3> block_{};
  size_t roleSlot_ = 0;                       // index into roleCounts (roles, then "no role")
  std::vector<const Decl *> assignedInts_;
  Accum acc_;                                 // the current warp

  // per-warp in-flight tracking
  bool roundHasLoad_ = false;
  double roundBytes_ = 0, maxRoundBytes_ = 0;
  double cpGroupBytes_ = 0, cpMaxGroupBytes_ = 0;
  int64_t cpDepth_ = 1;
  int64_t roundsClosed_ = 0, cpCommits_ = 0;

  // per block / grid
  Accum block_acc_, grid_acc_;
  double blockInflight_ = 0;
  std::vector<SiteInfo> sites_;
  std::unordered_map<const void *, size_t> siteIndex_;
  std::map<const void *, std::pair<const Decl *, double>> tmaSites_;   // tma.load site -> (barrier, box bytes)
  std::set<const Decl *> tmaBarriers_;        // mbarriers some tma.load signals (found before the walk)
  int64_t pipelineDepth_ = 1;
  int64_t walkedStmts_ = 0, tracedStmts_ = 0;   // statements walked in full / traced
  // control traces
  std::set<const ForStmt *> controlLoops_;    // loops whose bodies have control flow
  std::set<const ForStmt *> boundLoops_;      // loops whose bounds are not compile-time constants
  std::set<const ForStmt *> returnLoops_;     // loops whose bodies can return
  std::set<const Decl *> controlSlice_;       // lets and vars some control value reads (all a trace evaluates)
  std::unordered_map<const ForStmt *, std::vector<const Decl *>> loopAssigned_;   // integer vars a loop assigns
  std::vector<const Decl *> assignedVars_;    // findControl: those of the statements walked so far
  // lets outside loops whose value reads no warp index, and the block it was computed in (a trace reuses it)
  std::unordered_map<const Decl *, std::array<int64_t, 3>> letBlock_;
  std::vector<const ControlLoop *> controlLoopStack_;             // control loops being walked
  std::unordered_map<const ForStmt *, uint32_t> loopControlDeps_; // deps of the controls seen inside each
  std::map<LoopTraceKey, uint64_t> loopTraces_;                   // replayable segments
  std::map<LoopTraceKey, std::vector<IterationClass>> loopClasses_;  // ... and iteration classes
  bool controlOnly_ = false;                  // tracing: operations and control-free loop bodies skipped
  uint64_t traceHash_ = 0;                    // the current warp's control path
  // the warps walked or traced in the current block sample whose control read a block coordinate, with
  // their traces (another block takes the same paths when these warps trace the same there: the others'
  // controls read nothing that differs between blocks)
  std::vector<std::pair<int64_t, uint64_t>> walkedTraces_;
  std::vector<std::string> notes_;
  std::set<std::string> noteSet_;
};

} // namespace cake::cost::detail

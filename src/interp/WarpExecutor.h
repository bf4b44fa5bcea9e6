// WarpExecutor: executes the typed AST of one kernel for one warp of one block, in lock-step over the
// warp's 32 lanes (the model: Interpreter.cpp).
//
// Statements run under an active-lane mask: `if` runs its branches under the lanes whose condition holds
// (and fails), a `for` runs its body while any lane's index is below its bound, `return` removes lanes for
// the rest of the kernel, `elect` runs on the lowest active lane, and a role's body only on its warps.
// Expressions return a WarpValue computed for the active lanes only, so a masked-off lane never divides
// by zero or reads out of bounds.  Warp collectives (shuffles, warp.*) need all 32 lanes (E0904).
// Barriers hand the baton to the WarpScheduler.
//
// The implementation is split by concept: ExecStmt.cpp (statements, barriers), EvalExpr.cpp (operators,
// names, builtins), EvalCall.cpp (conversions, intrinsics, shuffles, atomics), Memory.cpp (places:
// register / shared / global addressing with bounds checks, loads and stores).
#pragma once
#include "frontend/KernelInfo.h"
#include "frontend/SharedLayout.h"
#include "frontend/Types.h"
#include "interp/RaceDetector.h"
#include "interp/Value.h"
#include "interp/WarpScheduler.h"
#include "support/Diagnostics.h"

#include <array>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace cake::interp {

// A global tensor argument: an element image with the manifest's dims and strides (in elements).
struct GlobalTensor {
  const Param *param = nullptr;
  ScalarKind elem = ScalarKind::F32;
  std::vector<int64_t> dims, strides;
  std::vector<uint8_t> bytes;   // large enough for the largest in-bounds element
};

// A shared array of one block: logical indices, physical bytes (swizzled / column-blocked: SharedLayout.h).
struct SharedArray {
  const SharedStmt *decl = nullptr;
  ScalarKind elem = ScalarKind::F32;
  std::vector<int64_t> dims;    // all bracket groups, flattened
  ColumnBlocks layout;
  std::vector<uint8_t> bytes;
  std::vector<ElementShadow> shadow;   // per physical element: the race detector's records
  int64_t physical(int64_t linearElement) const;
};

// What every block of a launch shares.
struct LaunchState {
  const Kernel *kernel = nullptr;
  const KernelInfo *info = nullptr;
  DiagnosticEngine *diags = nullptr;
  std::unordered_map<const Decl *, Scalar> scalarArgs;   // shape variables (i32) and scalar params
  std::map<const Param *, GlobalTensor> globals;
  std::array<int64_t, 3> grid = {1, 1, 1};
  int64_t numSms = 132;
  uint64_t maxSteps = 0;
  uint64_t steps = 0;           // only the warp holding the baton touches it
};

// One mbarrier of a block (docs/language.md 14.2): the current phase, the arrivals it still misses and
// its transaction bytes (expected minus completed).  A phase completes when both reach 0; the barrier then
// moves to the next phase, re-armed with `arrivals`.
struct MBarrierState {
  bool initialized = false;
  int64_t arrivals = 0;      // arrivals(n)
  int64_t phase = 0;         // the current (incomplete) phase; phases before it completed
  int64_t pending = 0;       // arrivals still missing in the current phase
  int64_t tx = 0;            // transaction bytes still expected in the current phase
  VectorClock phaseClock;    // race detection: what the arrivals (and copies) of the current phase release
  VectorClock lastClock;     // ... and of the last completed phase (a returning wait acquires it)
  void completeIfDone() {
    if (initialized && pending == 0 && tx == 0) {
      ++phase;
      pending = arrivals;
      lastClock = std::move(phaseClock);
      phaseClock.clear();
    }
  }
};

// An asynchronous operation in flight (ExecAsync.cpp, ExecTcgen05.cpp): issued by one thread, its data moves
// when it completes (at a hand-off, at a covering wait, or at the end of the block).  The tcgen05 operations
// of one thread (Tcgen05Mma, Tcgen05Commit) complete in issue order.
struct AsyncOp {
  enum Kind : uint8_t { CpAsync, TmaLoad, TmaStore, Tcgen05Mma, Tcgen05Commit } kind = CpAsync;
  int thread = 0;                      // in the cluster: scheduler warp * 32 + lane
  int64_t group = 0;                   // cp.async / tma.store: the group it belongs to (the thread's commits so far)
  MBarrierState *signal = nullptr;     // tma.load: receives `bytes` completed transactions; tcgen05.commit: `arrivals`
  int64_t bytes = 0;
  int64_t arrivals = 0;
  RaceAccess access;                   // race detection: the copy as an agent (slot, clock, statement)
  VectorClock clock;
  std::function<void(const AsyncOp &)> perform;   // moves the data
};

// The asynchronous operations in flight in a cluster (a block without a cluster is a cluster of one), in
// issue order: a multicast TMA load writes into, and signals, several blocks.
struct AsyncQueue {
  std::deque<AsyncOp> pending;
  WarpScheduler *scheduler = nullptr;
  RaceDetector *races = nullptr;
  uint64_t seed = 0;
  // Completed cp.async / tma.store copies whose group wait has not run yet: (kind, thread, group, clock).
  struct Done { AsyncOp::Kind kind; int thread; int64_t group; VectorClock clock; };
  std::vector<Done> done;
  // Race detection of one element a copy accesses (through the async proxy when the copy is one, except in
  // tensor memory, which has no proxies).
  void touch(const AsyncOp &op, SharedArray &a, int64_t physicalByte, bool write);
  // Performs one pending operation and removes it (a tcgen05 operation: the same thread's earlier ones first);
  // returns how many operations before it were completed (and removed) with it.
  size_t complete(size_t pendingIndex);
  // Per issuing thread (in the cluster): the join of the clocks of its tcgen05 operations so far (each is
  // ordered after the thread's earlier ones).
  std::unordered_map<int, VectorClock> tcgen05Issued;
  bool progress(bool force);           // WarpScheduler::progress
  void drain();                        // completes everything still pending (the cluster ends)
};

// One mbarrier an operand names for one lane (`full[s]` may differ between lanes).
struct MBarrierRef {
  MBarrierState *state = nullptr;
  const MBarrierStmt *decl = nullptr;
  size_t index = 0;
  std::string shown;   // "full[2]"
};

struct BlockState {
  std::array<int64_t, 3> index = {0, 0, 0};
  std::array<int64_t, 3> clusterIndex = {0, 0, 0};   // position in the cluster
  int rank = 0;                                      // cluster.rank
  std::map<const SharedStmt *, SharedArray> shared;
  std::map<const MBarrierStmt *, std::vector<MBarrierState>> mbarriers;
  std::vector<int64_t> cpCommits, bulkCommits;   // per thread: cp.async / tma.store groups committed
  WarpScheduler *scheduler = nullptr;
  AsyncQueue *async = nullptr;
  RaceDetector *races = nullptr;
  std::vector<BlockState *> *cluster = nullptr;  // the blocks of the cluster, by rank
  int firstWarp = 0;                             // the scheduler's number of this block's warp 0
};

// A shared tile view: `a[s]`, `b[s][r0 +: 128, :]`, `v[s][:, 64 +: 64]`, `b[s].T` - logical dims with the
// strides (in elements of the array's logical row-major order) of the array they view.
struct SharedTile {
  SharedArray *array = nullptr;
  int64_t base = 0;
  std::vector<int64_t> dims, strides;
  int64_t elements() const;
  int64_t linear(int64_t flat) const;   // the logical element of row-major element `flat` of the view
  int64_t at(int64_t r, int64_t c) const { return base + r * strides[strides.size() - 2] + c * strides.back(); }
};

// Where a register, shared or global access goes: per lane, the first element; `length` elements on.
struct Place {
  enum Kind : uint8_t { Register, Shared, Global } kind = Register;
  const Decl *reg = nullptr;
  SharedArray *shared = nullptr;
  GlobalTensor *global = nullptr;
  ValueKind elem;                         // registers may hold untyped constants (a constant let)
  unsigned length = 1;                    // scalars per lane
  std::array<int64_t, kLanes> offset{};   // element index (register: scalar index in the value)
  std::string_view name;                  // for messages (the AST's spelling)
};

// The destination of a fragment store: `C[m0, n0]`, `O[b, h, r0, 0]`, `cs[i][0, 0]`, `L[r0]` - the last
// index list's dims and strides, its (warp-uniform) indices and the offset of the element they name.
struct TileTarget {
  Place base;
  std::vector<int64_t> dims, strides, start;
  int64_t baseOffset = 0;
};

// Where element e of a fragment of type t sits in its tile, for a lane of warp `warp` (Fragments.cpp).
struct FragCoord {
  int row, col;
};
FragCoord fragCoord(const Type *t, int warp, int lane, unsigned e);
// A row / column vector `v` of type `from` spread to the elements of an accumulator of type `to` (other
// combinations are returned as they are).
WarpValue broadcastFragment(WarpValue v, const Type *from, const Type *to, LaneMask mask);

class WarpExecutor {
public:
  WarpExecutor(LaunchState &launch, BlockState &block, int warp);
  void run();   // the kernel body; throws RunFailed after reporting a diagnostic

  // ---- ExecStmt.cpp
  void execBlock(const BlockStmt &b, LaneMask mask);
  void execStmt(const Stmt &s, LaneMask mask);

  // ---- EvalExpr.cpp
  WarpValue eval(const Expr &e, LaneMask mask);
  // eval, then the untyped constant (if it is one) converted to `to`.
  WarpValue evalAs(const Expr &e, LaneMask mask, ValueKind to);
  static WarpValue adapt(WarpValue v, ValueKind to, LaneMask mask);
  static ValueKind kindOf(const Type *t);
  static unsigned widthOf(const Type *t);
  int64_t constInt(const Expr &e, LaneMask mask);   // an integer that must be uniform (slice lengths)

  // ---- EvalCall.cpp
  WarpValue evalCall(const CallExpr &c, LaneMask mask);

  // ---- Memory.cpp
  Place place(const Expr &e, LaneMask mask, const char *access);
  WarpValue load(const Place &p, LaneMask mask, ValueKind kind);
  void store(const Place &p, const WarpValue &v, LaneMask mask);

  // ---- ExecAsync.cpp: mbarriers, TMA, cp.async and their groups, fences
  bool execAsyncOp(const OpStmt &op, LaneMask mask);   // false: not one of these
  // The mbarrier operand `e` names, per active lane of m (E0910 unless initialised, when asked); `ranks`: per
  // lane, the cluster block whose copy is meant (`cta(..)`), null: this block.
  std::array<MBarrierRef, kLanes> mbarrierOf(const Expr &e, LaneMask m, bool mustBeInitialised, const WarpValue *ranks = nullptr);
  SharedTile sharedTile(const Expr &e, LaneMask mask);

  // ---- Fragments.cpp / ExecMma.cpp: fragments, tensor cores, fragment memory traffic
  WarpValue fragmentCoords(const Type *t, bool column, LaneMask mask);   // .row / .col
  WarpValue lineReduce(const CallExpr &c, LaneMask mask);                // rowmax ... colsum
  void execArgReduce(const OpStmt &op, LaneMask mask);                   // rowargmin ... colargmax
  void execMmaSync(const OpStmt &op, LaneMask mask);
  void execWgmma(const OpStmt &op, LaneMask mask);
  void execMatrixMove(const OpStmt &op, LaneMask mask, bool toShared, bool trans);   // ldmatrix / stmatrix
  void execFragmentStore(const OpStmt &op, LaneMask mask, bool add);

  // ---- ExecTcgen05.cpp: tensor memory and the tcgen05 operations (Blackwell)
  bool execTcgen05(const OpStmt &op, LaneMask mask);   // false: not one of these
  TileTarget tileTarget(const Expr &e, LaneMask mask);
  WarpValue gather(const IndexExpr &e, LaneMask mask);                   // T[.. frag ..]: loads at a fragment's layout

  // ---- WgmmaHazards.cpp: the registers of pending wgmmas and the wgmma.fence rule (docs/language.md 13.3)
  struct RegisterRange {
    const Decl *reg;
    int64_t first, last;    // scalar indices [first, last) of the value
    SourceRange by;         // the wgmma that holds them / the statement that wrote them
  };
  static bool isWgmmaRegister(const Decl *d);   // a wgmma_acc / wgmma_a fragment (or a register array of them)
  // `af`, `afs[i]`: an operand that names register storage (the wgmma holds it); `bf16(p)` is a temporary whose
  // reads are ordinary instructions before the wgmma
  static bool namesRegister(const Expr &e);
  void wgmmaRegisterAccess(const Place &p, LaneMask mask, bool write);   // load / store of a register place
  void wgmmaValueAccess(const Decl *d, bool write, SourceRange where);  // a whole value read, declared or assigned
  void wgmmaIssue(const OpStmt &op, LaneMask mask);                      // before execWgmma: the fence rule, then pending
  void wgmmaGroupOp(const OpStmt &op, LaneMask mask);                    // wgmma.fence / commit / wait N
  std::vector<RegisterRange> wgmmaOpenGroup;                  // issued since the last wgmma.commit
  std::deque<std::vector<RegisterRange>> wgmmaCommitted;      // committed, not yet retired; oldest first
  std::vector<RegisterRange> wgmmaUnfenced;                   // written by other instructions since the last fence
  bool inWgmma = false;                                       // execWgmma's own operand traffic is not checked

  // ---- RaceDetector hooks: one shared element (logical index) accessed by this warp
  void sharedAccess(SharedArray &a, int64_t logical, bool write, bool async = false);
  int agent() const { return block.firstWarp + warp; }
  const Stmt *current = nullptr;   // the statement running now (for race reports)
  bool atomicAccess = false;       // accesses of an atomic: not checked against each other

  // ---- diagnostics: report (with the block / thread) and stop the block
  [[noreturn]] void fail(DiagKind kind, SourceRange where, std::vector<std::string> args, std::string hint = {});
  std::string whereText(int lane) const;   // "block (0, 0, 0), thread 37"
  std::string blockText() const;           // "block (0, 0, 0)"
  void requireFullWarp(const char *what, SourceRange where, LaneMask mask);

  LaunchState &launch;
  BlockState &block;
  const int warp;
  LaneMask alive = kAllLanes;                        // lanes that have not returned
  std::unordered_map<const Decl *, WarpValue> env;   // let / var / loop variables
  const RoleInfo *role = nullptr;                    // the role whose body runs now

private:
  void execFor(const ForStmt &f, LaneMask mask);
  void execIf(const IfStmt &s, LaneMask mask);
  void execAssign(const AssignStmt &a, LaneMask mask);
  void execOp(const OpStmt &op, LaneMask mask);
  WarpValue evalBinary(const BinaryExpr &e, LaneMask mask);
  WarpValue evalUnary(const UnaryExpr &e, LaneMask mask);
  WarpValue evalName(const NameExpr &e, LaneMask mask);
  WarpValue evalMember(const MemberExpr &e, LaneMask mask);
  WarpValue evalIndex(const IndexExpr &e, LaneMask mask);
  WarpValue evalShuffle(const CallExpr &c, LaneMask mask);
  WarpValue evalWarpReduce(const CallExpr &c, LaneMask mask);
  WarpValue evalAtomic(const CallExpr &c, LaneMask mask);
  WarpValue evalMath(const CallExpr &c, LaneMask mask);
  WarpValue evalConversion(const CallExpr &c, LaneMask mask);
};

// Element-wise binary arithmetic on two values of one kind (shared by operators, compound assignment and
// atomics); `where` locates a division by zero.
WarpValue binaryArith(WarpExecutor &x, BinaryOp op, const WarpValue &a, const WarpValue &b, LaneMask mask,
                      SourceRange where);

} // namespace cake::interp

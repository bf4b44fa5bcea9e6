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
  std::vector<double> roleInstr;
  std::vector<double> siteBytes;
  // the warp's critical path (not scaled by warp/block multiplicity)
  double chainInstr = 0, chainRounds = 0, chainAsync = 0, chainBarriers = 0;

  void addScaled(const Accum &other, double factor, bool withChain);
  Accum minus(const Accum &base) const;
  void clear(size_t roles);
};

struct SiteInfo {
  const void *node = nullptr;
  const Decl *tensor = nullptr;
  bool store = false;
  uint32_t blockDeps = 0;
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

class Counter {
public:
  Counter(const Kernel &kernel, const KernelInfo &info, const ShapeBinding &binding);
  WorkProfile run();

  // ---- statements (WorkCounter.cpp)
  void walkBlock(const BlockStmt &b);
  void walkStmt(const Stmt &s);
  void walkIf(const IfStmt &s);
  void walkFor(const ForStmt &s);
  void walkRole(const RoleStmt &s);
  void walkAssign(const AssignStmt &s);
  void walkVar(const VarStmt &s);
  void runIterations(const ForStmt &f, int64_t lo, int64_t step, int64_t trips, uint32_t loDeps);
  void iterate(const ForStmt &f, const LaneValue &value, uint32_t mask);
  void closeRound();
  void invalidateAssignedSince(size_t mark);
  void note(const std::string &text);
  void findTmaBarriers(const Stmt &s);

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

  // ---- accounting
  void issue(double n);
  void add(Count c, double v) { acc_.counts[static_cast<size_t>(c)] += v * localWeight_; }
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
  uint32_t walkWarp(int64_t warp);
  uint32_t walkBlockSample(std::array<int64_t, 3> block);

  const Kernel &kernel_;
  const KernelInfo &info_;
  const ShapeBinding &binding_;

  // per-walk state
  std::unordered_map<const Decl *, LaneValue> env_;
  uint32_t active_ = 0, returned_ = 0;
  double localWeight_ = 1;
  unsigned loopDepth_ = 0;
  uint32_t controlDeps_ = 0;
  int64_t warp_ = 0;
  std::array<int64_t, 3> block_{};
  size_t roleSlot_ = 0;                       // index into roleInstr (roles, then "no role")
  std::vector<const Decl *> assignedInts_;
  Accum acc_;                                 // the current warp

  // per-warp in-flight tracking
  bool roundHasLoad_ = false;
  double roundBytes_ = 0, maxRoundBytes_ = 0;
  double cpGroupBytes_ = 0, cpMaxGroupBytes_ = 0;
  int64_t cpDepth_ = 1;

  // per block / grid
  Accum block_acc_, grid_acc_;
  double blockInflight_ = 0;
  std::vector<SiteInfo> sites_;
  std::unordered_map<const void *, size_t> siteIndex_;
  std::map<const void *, std::pair<const Decl *, double>> tmaSites_;   // tma.load site -> (barrier, box bytes)
  std::set<const Decl *> tmaBarriers_;        // mbarriers some tma.load signals (found before the walk)
  int64_t pipelineDepth_ = 1;
  int64_t walkedStmts_ = 0;
  std::vector<std::string> notes_;
  std::set<std::string> noteSet_;
};

} // namespace cake::cost::detail

// ControlPath: where a statement sits in the kernel's control structure, and which warps reach it.
//
// walkControl() visits every statement of a kernel in source order and hands the visitor the path of
// enclosing constructs: the role (if any), and the stack of `if` branches, `elect` blocks and `for` loops
// around it, plus every `return` seen earlier under non-uniform control (threads that left the kernel).
//
// reachingWarps() answers "which warps of the block execute this statement, and do all threads of each such
// warp execute it together?":
//   - the candidate warps are the role's warps (or every warp of the block outside roles);
//   - a block-uniform `if`/loop keeps them all (every thread takes the same branch, so either all of them
//     get here or none - that is fine for barriers and warpgroup instructions);
//   - a warp- or warpgroup-uniform condition is evaluated concretely for each candidate warp (warp, ROLE.warp and
//     ROLE.index are known per warp; compile-time values are known); a warp for which it is false is
//     dropped; when it cannot be evaluated the answer is "unknown" with the culprit expression;
//   - a condition over the variables of enclosing loops with compile-time bounds (`for h in 0..2 unroll {
//     if h == ROLE.index { .. } }`) is evaluated at every value of them: a warp reaches the statement when
//     the conditions hold in some iteration (at most kMaxLoopValueCombinations combinations, else unknown);
//   - a thread-varying condition, an `elect`, a loop with thread-varying bounds, or an earlier `return`
//     under non-uniform control makes the statement divergent (the construct is recorded for the note).
#pragma once
#include "frontend/AST.h"
#include "frontend/KernelInfo.h"
#include "verify/Uniformity.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cake {

struct ControlFrame {
  enum Kind : uint8_t { Then, Else, Elect, Loop } kind;
  const Stmt *stmt;          // the IfStmt / ElectStmt / ForStmt
  const Expr *cond;          // IfStmt condition (Then: must hold, Else: must fail); null otherwise
};

struct ControlPath {
  const RoleStmt *role = nullptr;
  std::vector<ControlFrame> frames;                   // outermost first
  std::vector<const ReturnStmt *> divergentReturns;   // earlier returns under non-uniform control
};

// Visits every statement (pre-order, source order).  The visitor returns nothing; nested statements are
// visited after their parent with the parent pushed as a frame.
void walkControl(const Kernel &k, const UniformityAnalysis &u,
                 const std::function<void(const Stmt &, const ControlPath &)> &visit);

struct WarpReach {
  std::vector<int64_t> warps;          // warps that reach (sorted), when known
  bool known = true;
  const Expr *unknownCause = nullptr;  // a warp-uniform expression that could not be evaluated
  // Divergence: the construct that splits the threads of a warp (if/elect/for), or a divergent return.
  const Stmt *divergentAt = nullptr;
  const Expr *divergentCause = nullptr;   // the thread-varying sub-expression (tid.x, lane, ...)
  std::string divergentWhy;               // "the condition depends on lane", "inside elect", ...
  bool divergent() const { return divergentAt != nullptr; }
};

// The threads a construct synchronises, which decides which enclosing loops split them: a warp (shuffles,
// votes, syncwarp) tolerates trip counts that differ between warps, a warpgroup (wgmma) ones that differ
// between warpgroups (ROLE.index of a warpgroup role); barriers of several warps need the same trip count
// in all threads.
enum class SyncScope : uint8_t { Warp, Warpgroup, Block };
WarpReach reachingWarps(const ControlPath &path, const KernelInfo &info, const UniformityAnalysis &u, SyncScope scope);

// How many combinations of compile-time loop values reachingWarps tries before it calls a condition unknown.
constexpr size_t kMaxLoopValueCombinations = 256;

// Concrete value of an integer/pred expression for one warp (warp, ROLE.warp and ROLE.index bound);
// compile-time values and constant lets fold; anything else is nullopt.
struct WarpPoint {
  int64_t warp = 0;
  const RoleStmt *role = nullptr;
  int64_t roleIndex = 0, roleWarp = 0;
  std::vector<std::pair<const Decl *, int64_t>> loopValues;   // variables of compile-time loops, when bound
};
std::optional<int64_t> evalAtWarp(const Expr &e, const WarpPoint &at);
// Warp `warp` of the block, inside `role` (null: kernel-level code) whose layout is `info` (null: none).
WarpPoint warpPointAt(int64_t warp, const RoleStmt *role, const RoleInfo *info);

// "warps 4..7" / "warps 0, 4" for messages.
std::string describeWarps(const std::vector<int64_t> &warps);

} // namespace cake

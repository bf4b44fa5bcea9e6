// Uniformity: how much a value varies between the threads of a block.
//
//   Block      the same in every thread (literals, compile-time and shape values, scalar params, block.*,
//              grid_dim.*, loop variables with uniform bounds, lets of uniform values)
//   Warpgroup  the same in the 128 threads of each aligned warpgroup, but it may differ between warpgroups
//              (ROLE.index of a role whose instances are whole warpgroups)
//   Warp       the same in every lane of a warp, but it may differ between warps (warp, ROLE.warp,
//              ROLE.index of other roles, warp.sum(..) / warp.any(..) results)
//   Thread  may differ between the lanes of one warp (tid.*, lane, ROLE.thread, shuffles of such values)
//
// The analysis is a join over the chain Block < Warpgroup < Warp < Thread.  Immutable names take the
// uniformity of their initialiser (loop variables: of their bounds).  Mutable `var`s are solved by a
// fixpoint over every assignment: a var is as varying as the values assigned to it *and* the control
// under which they are assigned (a var written only under `if lane == 0` is Thread-varying).  Loads take
// the uniformity of their indices (every thread reading one address reads one value).
//
// Used by the named-barrier family (a barrier under Thread-varying control is divergent) and the wgmma
// family (warpgroup-wide instructions need warpgroup-uniform control).
#pragma once
#include "frontend/AST.h"
#include "frontend/Builtins.h"
#include "frontend/KernelInfo.h"

#include <map>

namespace cake {

enum class Uniformity : uint8_t { Block = 0, Warpgroup = 1, Warp = 2, Thread = 3 };
inline Uniformity join(Uniformity a, Uniformity b) { return a > b ? a : b; }
const char *uniformityName(Uniformity u);   // "block-uniform", "warpgroup-uniform", "warp-uniform", "thread-varying"

class UniformityAnalysis {
public:
  // `info` tells which roles' instances are whole warpgroups (their ROLE.index is Warpgroup-uniform).
  UniformityAnalysis(const Kernel &k, const KernelInfo &info);
  Uniformity of(const Expr &e) const { return eval(e, 0); }
  // The first builtin leaf (tid.x, lane, warp, ...) or var that makes `e` at least `level` varying; for
  // messages ("depends on tid.x").  Null when there is none.
  const Expr *culprit(const Expr &e, Uniformity level) const;

private:
  Uniformity eval(const Expr &e, unsigned depth) const;
  Uniformity ofBuiltin(const Expr &e, BuiltinValue v) const;
  Uniformity ofDecl(const Decl &d, unsigned depth) const;
  void solveVars(const Kernel &k);
  void visit(const Stmt &s, Uniformity control, bool &changed);

  const KernelInfo *info_;
  std::map<const Decl *, Uniformity> vars_;   // mutable vars, after the fixpoint
  mutable std::map<const Decl *, Uniformity> lets_;   // memoised lets (for the current vars_)
};

} // namespace cake

// RaceWalker: the statement walk and the pair-query helpers that the two race families share
// (SharedRaces.cpp, E0655: generic accesses of two threads between block barriers; AsyncProxyRaces.cpp,
// E0658: async-proxy operations against other threads' generic accesses).
//
// Both families walk the structured kernel body once in program order, keep a path condition
// (PathCondition: enclosing ifs, loop ranges, elect, the role's threads), count barriers as Z3 terms of the
// loop indices (SharedRaces: one block-barrier epoch; AsyncProxyRaces: one counter per barrier), record
// every shared-memory access with its region, path condition, counters and loops, and then ask Z3 per pair
// for two threads t1 != t2 (the second one's builtins and loop constants renamed with a trailing ') that
// touch one element with nothing ordering them.
//
// What lives here (the family-independent part):
//   - the walk: walkBlock (early-return rule from PathCondition), walkStmt's dispatch (lets / vars /
//     assignments are scanned; elect runs under lane == 0; ops, roles, loops and ifs go to the family's
//     hooks), walkRoleBody (the role's launch facts and body; the family saves / merges its counters around
//     it), the loop prologue (bounds scanned, nesting bounded by kMaxLoopDepth, bounds translated), the
//     condition of an if, the expression scan that finds index expressions (scanIndex hook), and the
//     destination of a `store` (a fragment tile goes to the recordFragmentStore hook), the targets of
//     atomics (atom.* calls, red.* operations: atomicTarget_ names the element while it is scanned);
//   - the region of an index expression a[s][r, c +: n] (start and length per dimension, tile extents
//     overriding the innermost lengths);
//   - the pair side: the renaming to the second thread, the assumptions both threads share, the overlap of
//     two regions, and the text of counterexample values, threads, elements and shape variables.
// What stays in the families: the barrier counting (epoch vs counters, loop encodings), which accesses are
// recorded and how, and which pairs are queried and reported.
#pragma once
#include "verify/PathWalker.h"
#include "verify/VerifyContext.h"

#include <z3++.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace cake {

// One dimension of the elements an access touches: [start, start + length).
struct Region {
  z3::expr start, length;
};


class RaceWalker {
public:
  virtual ~RaceWalker() = default;

protected:
  static constexpr size_t kMaxLoopDepth = 10;   // each level walks its body again: bound the work
  static constexpr int64_t kMaxUnrolledLoopTrips = 8;   // compile-time loops walked once per iteration

  // `roleRangeAsOneTerm`: see PathCondition::linkThreadBuiltins.
  RaceWalker(VerifyContext &ctx, bool roleRangeAsOneTerm);

  // The kernel-level facts: tid.x / warp / lane as the first thread variables, their links, requires(...).
  void beginWalk();

  // ---- walk
  void walkBlock(const BlockStmt &b);
  void walkStmt(const Stmt &s);
  // The role's facts pushed, its body walked with role_ set, both restored.
  void walkRoleBody(const RoleStmt &r);
  // Scans the bounds of `f`; false when its body is not walked (none, or `depth` loops already enclose it:
  // an epoch problem).
  bool loopPrologue(const ForStmt &f, size_t depth);
  struct LoopBounds {
    std::optional<z3::expr> lower, upper, step;   // step: 1 when absent
  };
  LoopBounds translateBounds(const ForStmt &f);
  // Scans the condition of `i`; its Bool term (nullopt: absent or not translatable).
  std::optional<z3::expr> scanCondition(const IfStmt &i);

  virtual void walkOp(const OpStmt &op) = 0;
  virtual void walkRole(const RoleStmt &r) = 0;
  virtual void walkFor(const ForStmt &f) = 0;
  virtual void walkIf(const IfStmt &i) = 0;

  // ---- accesses
  // Visits the sub-expressions of `e` (a read, or a write when `write`) in statement `at`; index
  // expressions go to scanIndex.
  void scan(const Expr &e, bool write, const Stmt &at);
  virtual void scanIndex(const IndexExpr &ix, bool write, const Stmt &at) = 0;
  // Scans the index operands (starts, lengths) of every bracket group of `ix`.
  void scanIndexOperands(const IndexExpr &ix, const Stmt &at);
  // The destination of a `store`: a fragment tile `store T[r, c] <- frag` (the warp writes the fragment's whole
  // M x N tile) goes to recordFragmentStore, and so does a row or column vector `store T[.., i] <- v` (the
  // warp writes its rows or columns along the last index: all N columns of a column vector, the 16 rows
  // 16 * (warp % 4) .. of a wgmma row vector, all 16 of an mma row vector); any other destination is
  // scanned as a write.
  void scanStoreDestination(const OpStmt &op);
  virtual void recordFragmentStore(const IndexExpr &tile, const std::vector<int64_t> &extent, const OpStmt &op) = 0;
  // Scans an op's sources and clause arguments as reads and its destinations as writes (red.*: see
  // scanReduction).
  void scanOpOperands(const OpStmt &op);
  // red.OP T[i], v: v read, T[i] an atomic write; red.add T[r, c] <- frag: the fragment tile, atomically.
  void scanReduction(const OpStmt &op);
  // The region of `e` (a[s][r, c +: n], a[s], a; member accesses skipped) in `array`, the tile extent
  // overriding the innermost lengths.  A dimension or index that cannot be translated sets `problem` (and
  // ends the region).  False when `e` has more indices than `array` has dimensions.
  bool regionOf(const Decl &array, const Expr &e, const std::vector<int64_t> &tileExtent,
                std::vector<Region> &region, std::string &problem);
  // While a wgmma row vector's store is recorded: the rows one warp writes (16), offset by 16 * (warp % 4)
  // along the last index.
  int64_t warpBandRows_ = 0;

  // The first problem that makes the barrier counts unusable (reported once by the family).
  void epochProblem(SourceRange r, const std::string &why);

  // ---- pairs
  struct Renaming {
    z3::expr_vector from, to;   // the thread variables and loop constants -> their primed copies
  };
  Renaming secondThread();
  // requires(...), the translator's side conditions, then `extra`, as one conjunction.
  z3::expr assumptions(const std::vector<z3::expr> &extra = {});
  z3::expr_vector toVector(const std::vector<z3::expr> &v);
  static z3::expr rename(const z3::expr &e, const z3::expr_vector &from, const z3::expr_vector &to);
  // The regions overlap in every dimension (b's terms renamed to the second thread).
  z3::expr overlap(const std::vector<Region> &a, const std::vector<Region> &b, const Renaming &r);

  // ---- counterexample text
  static std::string value(const z3::model &m, const z3::expr &e);
  // "thread 40 (warp 1, lane 8)" (tid.x renamed with from -> to when from is given).
  std::string threadPrefix(const z3::model &m, const z3::expr_vector *from, const z3::expr_vector *to);
  // "sa[1, 8 +: 8]"
  std::string elementText(const std::string &array, const std::vector<Region> &region, const z3::model &m,
                          const z3::expr_vector *from, const z3::expr_vector *to);
  // "K = 64, N = 128": the free variables other than thread variables and names with a hidden prefix.
  std::string shapeText(const z3::model &m, std::initializer_list<const char *> hiddenPrefixes);

  VerifyContext &ctx_;
  z3::context &z3_;
  ExprToZ3 tr_;                        // own translator: its side conditions are exactly this family's
  PathCondition path_;
  bool roleRangeAsOneTerm_;
  bool collect_ = true;                // false while a loop body is walked again only to count barriers
  const Expr *atomicTarget_ = nullptr; // while scanning the target of atom.* / red.*: that element (or tile)
  unsigned loopCounter_ = 0;
  std::vector<z3::expr> loopConsts_;   // every loop constant ever created (renamed for the second thread)
  std::vector<z3::expr> threadVars_;   // tid.x, warp, lane, ROLE.* (renamed for the second thread)
  std::vector<z3::expr> requirements_;
  std::string epochProblem_;
  SourceRange epochProblemRange_;
  const RoleStmt *role_ = nullptr;
};

} // namespace cake

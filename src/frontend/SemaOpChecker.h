// OpChecker: the checks of one operation statement (Sema, operations).  Declared here because its
// definitions are split by subject: SemaOps.cpp has the dispatch, the generic operand and clause checks, the
// memory and synchronisation operations; SemaOpsMatrix.cpp the fragment and tensor-core operations
// (ldmatrix/stmatrix, fragment stores, arg reductions, mma.sync, wgmma, tcgen05).  Internal to sema.
#pragma once

#include "frontend/SemaImpl.h"

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake {

class OpChecker {
public:
  OpChecker(Sema &S, OpStmt &s, const OpInfo &op, const StmtContext &ctx) : S(S), s(s), op(op), ctx(ctx) {}

  void run();

private:
  Sema &S;
  OpStmt &s;
  const OpInfo &op;
  const StmtContext &ctx;
  std::string name() const { return std::string(op.spelling); }

  // ---------------------------------------------------------------- generic checks
  void typeAll();

  bool form(OpArrow expected);

  static SourceRange span(const std::vector<Ptr<Expr>> &list, SourceRange fallback);

  bool count(std::vector<Ptr<Expr>> &list, size_t min, size_t max, std::string_view what);

  // Clause name -> clause, after E0321 / E0411 / E0320 / argument-count checks.
  std::map<std::string, Clause *> clauses(std::initializer_list<std::string_view> allowed,
                                          std::initializer_list<std::string_view> required);

  void noOperands();

  const Type *operand(Expr &e) { return S.checkExpr(e, ExprMode::Operand); }

  const Type *integer(Expr &e, std::string_view what);

  void badOperand(const Expr &e, std::string why) { S.diags_.report(DiagKind::BadOperand, e.range, name(), std::move(why)); }

  // The address space an operand's value comes from (element loads from tensors, tiles, registers).
  std::optional<AddressSpace> spaceOf(Expr &e);

  bool requireSpace(Expr &e, AddressSpace want, std::string_view role);

  // A single mbarrier: full[s] or a non-array mbarrier.
  bool singleMBarrier(Expr &e);
  void reportNotSingleMBarrier(Expr &e, const Type *t);

  // A shared/global tensor element used as tile coordinates: A[m0, k0].
  struct Coords {
    IndexExpr *index = nullptr;
    const Type *tensor = nullptr;   // the indexed tensor (one bracket group left)
    Decl *root = nullptr;
  };
  std::optional<Coords> coords(Expr &e, std::string_view role);

  // A 2-D-or-more shared tile operand (a[s], tile, a[s][r +: 64, :]).
  const Type *sharedTile(Expr &e, std::string_view role);

  const SharedAllocation *allocationOf(Expr &e);

  static std::vector<int64_t> dimValues(const Type *t);
  static std::string dimsText(const std::vector<int64_t> &v);

  void elementsMatch(Expr &at, ScalarKind a, ScalarKind b, const std::string &ctxText);

  // ---------------------------------------------------------------- role placement
  void warpgroupOp();

  void blockWide();

  // ---------------------------------------------------------------- operations
  void waitGroup(int64_t max);

  void tmaLoad();

  void tmaStore();

  // Checks shared `tile` against the tensor map of the global tensor addressed by `coords`.
  void tmaTile(Expr &tileExpr, const Type *tile, Expr &globalExpr, Coords &c, std::string_view);

  // A TMA tile of a column-blocked array (rows wider than the swizzle span) must be one whole column block:
  // a column slice one span wide starting at a constant multiple of the block width (E0356).
  void columnBlock(Expr &tileExpr, const Type *tile);

  // cp.async DST <- SRC [valid(COND)]: COND is a pred; where it is false nothing is read and DST is zero-filled.
  void cpAsync();

  // Fragments for ldmatrix/stmatrix: 16-bit dtype; returns the total 32-bit registers, or -1.
  int64_t matrixFragments(std::vector<Ptr<Expr>> &list, bool written, ScalarKind *dtype);

  // A row of 8 16-bit elements in shared memory: a[s][r, c +: 8].
  bool matrixRow(Expr &e, ScalarKind dtype);

  // ldmatrix FRAGS <- ROW (load) / stmatrix ROW <- FRAGS: one to four fragments and a shared row.
  void matrixMove(bool load);

  void store();

  // rowargmin VALUE, INDEX <- FRAG: row vectors of the minimum (maximum) and its column; colargmin /
  // colargmax: column vectors of the minimum (maximum) and its row.
  void argReduction();

  // The source of `store`: a fragment, or a column slice of a wgmma accumulator, `F[:, c0 +: n]` (F the
  // accumulator or its conversion): the columns c0 .. c0+n-1 of all 64 rows, a wgmma_acc fragment 64 x n.
  // n is a constant multiple of 8; c0 a multiple of 8 with c0 + n <= N, checked here when it is a constant
  // and by code generation after unrolling otherwise (E0358).
  const Type *accumulatorColumns(Expr &e);

  // `A * B` of mma.sync / wgmma: returns the multiplication, or null (reported).
  BinaryExpr *product();

  const Type *accumulator(FragKind kind);

  void mmaSync();

  // tcgen05.mma D += A * B [accumulate(P)]: the operands' rules are SemaTcgen05.cpp's.
  void tcgen05Mma();

  // tcgen05.ld FRAG <- TILE / tcgen05.st TILE <- FRAG.
  void tcgen05Copy();

  void wgmma();

  void mbarrierInit();

  void mbarrierExpectTx();

  void arrive();

  void wait();

  // `sync epi;` on `barrier epi[2]`: which instance's barrier is meant (E0352)?
  void reportBareBarrierArray(const Expr &e);

  // syncwarp | syncwarp(MASK): MASK a non-zero 32-bit constant (E0350); the lanes that reach it are the
  // verifier's obligation (E0665-E0667).
  void syncwarp();

  void sync();
};

} // namespace cake

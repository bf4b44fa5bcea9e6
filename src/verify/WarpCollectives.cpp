// Verifier family: warp-collective reductions and shuffles are reached by every lane of the warp (E0660).
//
// shfl.*, warp.* (sum/max/min/any/all), rowmax/rowmin/rowsum and rowargmin/rowargmax lower to shfl.sync or
// vote.sync with the full lane mask, so every lane of each warp that executes one must execute it together.  Algorithm: walk the
// kernel's control structure (ControlPath), and for every statement that contains such a collective ask
// reachingWarps whether the threads of a warp can be split on the way there (a lane- or thread-dependent
// `if`, an `elect`, a thread-varying loop bound, an earlier divergent return).  A split is a failure at the
// collective with a note at the construct that splits; a warp-uniform path is proven.
#include "verify/ControlPath.h"
#include "verify/Families.h"
#include "verify/SourceText.h"
#include "verify/Uniformity.h"
#include "verify/VerifyContext.h"

#include "frontend/Intrinsics.h"
#include "frontend/Ops.h"

namespace cake {

namespace {

bool isWarpCollectiveCall(const std::string &callee) {
  return callee.rfind("shfl.", 0) == 0 || callee.rfind("warp.", 0) == 0 || isLineReduction(callee);
}

// The first sub-expression of `e` (itself included, pre-order, left to right) for which `match` returns a
// value, or nullopt.
template <class Match>
auto firstMatch(const Expr *e, const Match &match) -> decltype(match(e)) {
  if (!e) return std::nullopt;
  if (auto r = match(e)) return r;
  auto any = [&](std::initializer_list<const Expr *> es) -> decltype(match(e)) {
    for (const Expr *x : es)
      if (auto r = firstMatch(x, match)) return r;
    return std::nullopt;
  };
  switch (e->kind) {
  case ExprKind::Unary: return any({cast<UnaryExpr>(e)->operand.get()});
  case ExprKind::Binary: return any({cast<BinaryExpr>(e)->lhs.get(), cast<BinaryExpr>(e)->rhs.get()});
  case ExprKind::Member: return any({cast<MemberExpr>(e)->base.get()});
  case ExprKind::Index: {
    auto *ix = cast<IndexExpr>(e);
    if (auto r = any({ix->base.get()})) return r;
    for (const IndexItem &it : ix->items)
      if (auto r = any({it.start.get(), it.length.get()})) return r;
    return std::nullopt;
  }
  case ExprKind::Call: {
    for (const auto &a : cast<CallExpr>(e)->args)
      if (auto r = any({a.get()})) return r;
    return std::nullopt;
  }
  default: return std::nullopt;
  }
}

// The first warp-collective call inside `e`, or null.
const CallExpr *findCollective(const Expr *e) {
  auto found = firstMatch(e, [](const Expr *x) -> std::optional<const CallExpr *> {
    if (auto *call = dynCast<CallExpr>(x); call && isWarpCollectiveCall(call->callee)) return call;
    return std::nullopt;
  });
  return found ? *found : nullptr;
}

// A collective on the right of `a && b` / `a || b` runs only in the lanes where `a` does not decide the
// result (codegen branches around a right side that reads memory or shuffles): with a thread-varying `a`,
// the collective and the left operand that splits the warp there.
std::optional<std::pair<const CallExpr *, const Expr *>> shortCircuitSplit(const Expr *e, const UniformityAnalysis &u) {
  return firstMatch(e, [&](const Expr *x) -> std::optional<std::pair<const CallExpr *, const Expr *>> {
    auto *b = dynCast<BinaryExpr>(x);
    if (b && (b->op == BinaryOp::LogAnd || b->op == BinaryOp::LogOr) && b->lhs && u.of(*b->lhs) == Uniformity::Thread)
      if (const CallExpr *c = findCollective(b->rhs.get())) return std::make_pair(c, b->lhs.get());
    return std::nullopt;
  });
}

// The expressions a statement evaluates itself (not those of its nested statements).
std::vector<const Expr *> ownExprs(const Stmt &s) {
  switch (s.kind) {
  case StmtKind::Let: return {cast<LetStmt>(&s)->init.get()};
  case StmtKind::Var: return {cast<VarStmt>(&s)->init.get()};
  case StmtKind::Assign: return {cast<AssignStmt>(&s)->value.get(), cast<AssignStmt>(&s)->target.get()};
  case StmtKind::If: return {cast<IfStmt>(&s)->cond.get()};
  case StmtKind::For: {
    auto *f = cast<ForStmt>(&s);
    return {f->lower.get(), f->upper.get(), f->step.get()};
  }
  case StmtKind::Op: {
    auto *op = cast<OpStmt>(&s);
    std::vector<const Expr *> es;
    for (const auto &e : op->dsts) es.push_back(e.get());
    for (const auto &e : op->srcs) es.push_back(e.get());
    return es;
  }
  default: return {};
  }
}

// The collective a statement executes itself (not its nested statements): where it is and its name.
std::optional<std::pair<SourceRange, std::string>> collectiveOf(const Stmt &s) {
  if (auto *op = dynCast<OpStmt>(&s); op && op->op && (op->op->id == OpId::RowArgmin || op->op->id == OpId::RowArgmax ||
                                                       op->op->id == OpId::ColArgmin || op->op->id == OpId::ColArgmax))
    return std::make_pair(op->range, op->name);
  for (const Expr *e : ownExprs(s))
    if (const CallExpr *c = findCollective(e)) return std::make_pair(c->range, c->callee);
  return std::nullopt;
}

} // namespace

void verifyWarpCollectives(VerifyContext &ctx) {
  UniformityAnalysis uniformity(ctx.kernel(), ctx.info());
  walkControl(ctx.kernel(), uniformity, [&](const Stmt &s, const ControlPath &path) {
    auto collective = collectiveOf(s);
    if (!collective) return;
    WarpReach r = reachingWarps(path, ctx.info(), uniformity, SyncScope::Warp);
    if (!r.divergent()) {
      for (const Expr *e : ownExprs(s))
        if (auto split = shortCircuitSplit(e, uniformity)) {
          const std::string lhs = sourceText(ctx.diags(), split->second->range);
          ctx.reportFailure(DiagKind::WarpCollectiveDivergent, split->first->range, split->first->callee,
                            "it is on the right of '&&' / '||' and runs only in the lanes its thread-varying left "
                            "operand leaves undecided")
              .note(split->second->range, "left operand '" + lhs + "'")
              .hint("evaluate '" + split->first->callee + "' on every lane first (let v = " + split->first->callee +
                    "(..);) and use v on the right of the operator");
          return;
        }
      ctx.recordProven();
      return;
    }
    auto d = ctx.reportFailure(DiagKind::WarpCollectiveDivergent, collective->first, collective->second, r.divergentWhy);
    if (auto *i = dynCast<IfStmt>(r.divergentAt)) d.note(i->cond->range, "condition '" + sourceText(ctx.diags(), i->cond->range) + "'");
    else d.note(headOf(r.divergentAt->range), "divergent construct here");
    d.hint("execute '" + collective->second + "' on every lane of the warp (outside elect and lane-dependent ifs); "
           "mask the values instead, e.g. select(lane < n, x, 0.0)");
  });
}

} // namespace cake

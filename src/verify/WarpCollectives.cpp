// Verifier family: warp-collective reductions and shuffles are reached by every lane of the warp (E0660).
//
// shfl.*, warp.sum/max/min, rowmax/rowmin/rowsum and rowargmin/rowargmax lower to shfl.sync with the full
// lane mask, so every lane of each warp that executes one must execute it together.  Algorithm: walk the
// kernel's control structure (ControlPath), and for every statement that contains such a collective ask
// reachingWarps whether the threads of a warp can be split on the way there (a lane- or thread-dependent
// `if`, an `elect`, a thread-varying loop bound, an earlier divergent return).  A split is a failure at the
// collective with a note at the construct that splits; a warp-uniform path is proven.
#include "verify/ControlPath.h"
#include "verify/Families.h"
#include "verify/SourceText.h"
#include "verify/Uniformity.h"
#include "verify/VerifyContext.h"

#include "frontend/Ops.h"

namespace cake {

namespace {

bool isWarpCollectiveCall(const std::string &callee) {
  return callee.rfind("shfl.", 0) == 0 || callee == "warp.sum" || callee == "warp.max" || callee == "warp.min" ||
         callee == "rowmax" || callee == "rowmin" || callee == "rowsum";
}

// The first warp-collective call inside `e`, or null.
const CallExpr *findCollective(const Expr *e) {
  if (!e) return nullptr;
  switch (e->kind) {
  case ExprKind::Unary: return findCollective(cast<UnaryExpr>(e)->operand.get());
  case ExprKind::Binary: {
    auto *b = cast<BinaryExpr>(e);
    if (auto *c = findCollective(b->lhs.get())) return c;
    return findCollective(b->rhs.get());
  }
  case ExprKind::Member: return findCollective(cast<MemberExpr>(e)->base.get());
  case ExprKind::Index: {
    auto *ix = cast<IndexExpr>(e);
    if (auto *c = findCollective(ix->base.get())) return c;
    for (const IndexItem &it : ix->items) {
      if (auto *c = findCollective(it.start.get())) return c;
      if (auto *c = findCollective(it.length.get())) return c;
    }
    return nullptr;
  }
  case ExprKind::Call: {
    auto *call = cast<CallExpr>(e);
    if (isWarpCollectiveCall(call->callee)) return call;
    for (const auto &a : call->args)
      if (auto *c = findCollective(a.get())) return c;
    return nullptr;
  }
  default: return nullptr;
  }
}

// The collective a statement executes itself (not its nested statements): where it is and its name.
std::optional<std::pair<SourceRange, std::string>> collectiveOf(const Stmt &s) {
  auto found = [](const CallExpr *c) -> std::optional<std::pair<SourceRange, std::string>> {
    if (!c) return std::nullopt;
    return std::make_pair(c->range, c->callee);
  };
  switch (s.kind) {
  case StmtKind::Let: return found(findCollective(cast<LetStmt>(&s)->init.get()));
  case StmtKind::Var: return found(findCollective(cast<VarStmt>(&s)->init.get()));
  case StmtKind::Assign: {
    auto *a = cast<AssignStmt>(&s);
    if (auto r = found(findCollective(a->value.get()))) return r;
    return found(findCollective(a->target.get()));
  }
  case StmtKind::If: return found(findCollective(cast<IfStmt>(&s)->cond.get()));
  case StmtKind::For: {
    auto *f = cast<ForStmt>(&s);
    for (const Expr *e : {f->lower.get(), f->upper.get(), f->step.get()})
      if (auto r = found(findCollective(e))) return r;
    return std::nullopt;
  }
  case StmtKind::Op: {
    auto *op = cast<OpStmt>(&s);
    if (op->op && (op->op->id == OpId::RowArgmin || op->op->id == OpId::RowArgmax))
      return std::make_pair(op->range, op->name);
    for (const auto &e : op->dsts)
      if (auto r = found(findCollective(e.get()))) return r;
    for (const auto &e : op->srcs)
      if (auto r = found(findCollective(e.get()))) return r;
    return std::nullopt;
  }
  default: return std::nullopt;
  }
}

} // namespace

void verifyWarpCollectives(VerifyContext &ctx) {
  UniformityAnalysis uniformity(ctx.kernel());
  walkControl(ctx.kernel(), uniformity, [&](const Stmt &s, const ControlPath &path) {
    auto collective = collectiveOf(s);
    if (!collective) return;
    WarpReach r = reachingWarps(path, ctx.info(), uniformity);
    if (!r.divergent()) {
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

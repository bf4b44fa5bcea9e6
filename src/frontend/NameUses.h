// NameUses: every name an expression or a statement reads (its NameExprs, in source order), for analyses that
// ask which declarations an expression or a statement depends on.
#pragma once
#include "frontend/AST.h"
#include "frontend/StmtSlots.h"

namespace cake {

// Calls f(const NameExpr &) for each name in `e` (null: none): operands, member bases, index bases, starts and
// lengths, call arguments and list elements.
template <class F> void forEachNameUse(const Expr *e, F &&f) {
  if (!e) return;
  switch (e->kind) {
  case ExprKind::Name: f(*cast<NameExpr>(e)); break;
  case ExprKind::Member: forEachNameUse(cast<MemberExpr>(e)->base.get(), f); break;
  case ExprKind::Unary: forEachNameUse(cast<UnaryExpr>(e)->operand.get(), f); break;
  case ExprKind::Binary:
    forEachNameUse(cast<BinaryExpr>(e)->lhs.get(), f);
    forEachNameUse(cast<BinaryExpr>(e)->rhs.get(), f);
    break;
  case ExprKind::Index: {
    auto *ix = cast<IndexExpr>(e);
    forEachNameUse(ix->base.get(), f);
    for (const IndexItem &item : ix->items) {
      forEachNameUse(item.start.get(), f);
      forEachNameUse(item.length.get(), f);
    }
    break;
  }
  case ExprKind::Call:
    for (const auto &a : cast<CallExpr>(e)->args) forEachNameUse(a.get(), f);
    break;
  case ExprKind::List:
    for (const auto &a : cast<ListExpr>(e)->elements) forEachNameUse(a.get(), f);
    break;
  case ExprKind::IntLit: case ExprKind::BoolLit: case ExprKind::FloatLit: break;
  }
}

// Calls f(const NameExpr &) for each name in the expressions of `s` and of every statement nested in it
// (initialisers, bounds, conditions, operands, clause arguments, assignment targets and values), in source order.
template <class F> void forEachNameUseIn(const Stmt *s, F &&f) {
  if (!s) return;
  forEachExprSlot(*s, [&](const Ptr<Expr> &e) { forEachNameUse(e.get(), f); });
  forEachNestedStmt(*s, [&](const Stmt &nested) { forEachNameUseIn(&nested, f); });
}

} // namespace cake

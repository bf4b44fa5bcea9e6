// NameUses: every name an expression or a statement reads (its NameExprs, in source order), for analyses that
// ask which declarations an expression or a statement depends on.
#pragma once
#include "frontend/AST.h"

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
  switch (s->kind) {
  case StmtKind::Block:
    for (const Ptr<Stmt> &c : cast<BlockStmt>(s)->stmts) forEachNameUseIn(c.get(), f);
    break;
  case StmtKind::Let: forEachNameUse(cast<LetStmt>(s)->init.get(), f); break;
  case StmtKind::Var: forEachNameUse(cast<VarStmt>(s)->init.get(), f); break;
  case StmtKind::Shared: break;
  case StmtKind::MBarrier: forEachNameUse(cast<MBarrierStmt>(s)->count.get(), f); break;
  case StmtKind::Barrier: forEachNameUse(cast<BarrierStmt>(s)->count.get(), f); break;
  case StmtKind::Role: {
    auto *r = cast<RoleStmt>(s);
    forEachNameUse(r->instances.get(), f);
    forEachNameUse(r->first.get(), f);
    forEachNameUse(r->last.get(), f);
    forEachNameUseIn(r->body.get(), f);
    break;
  }
  case StmtKind::For: {
    auto *l = cast<ForStmt>(s);
    forEachNameUse(l->lower.get(), f);
    forEachNameUse(l->upper.get(), f);
    forEachNameUse(l->step.get(), f);
    forEachNameUse(l->unrollFactor.get(), f);
    forEachNameUseIn(l->body.get(), f);
    break;
  }
  case StmtKind::If: {
    auto *i = cast<IfStmt>(s);
    forEachNameUse(i->cond.get(), f);
    forEachNameUseIn(i->thenBody.get(), f);
    forEachNameUseIn(i->elseBody.get(), f);
    break;
  }
  case StmtKind::Elect: forEachNameUseIn(cast<ElectStmt>(s)->body.get(), f); break;
  case StmtKind::Return: forEachNameUse(cast<ReturnStmt>(s)->value.get(), f); break;
  case StmtKind::Assign:
    forEachNameUse(cast<AssignStmt>(s)->target.get(), f);
    forEachNameUse(cast<AssignStmt>(s)->value.get(), f);
    break;
  case StmtKind::Op: {
    auto *op = cast<OpStmt>(s);
    for (const Ptr<Expr> &d : op->dsts) forEachNameUse(d.get(), f);
    for (const Ptr<Expr> &x : op->srcs) forEachNameUse(x.get(), f);
    for (const Clause &c : op->clauses)
      for (const Ptr<Expr> &a : c.args) forEachNameUse(a.get(), f);
    break;
  }
  case StmtKind::Call: forEachNameUse(cast<CallStmt>(s)->call.get(), f); break;
  }
}

} // namespace cake

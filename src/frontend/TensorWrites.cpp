// writesTensor: a walk over the statements and, for atom.* calls, the expressions they hold.
#include "frontend/TensorWrites.h"

namespace cake {

namespace {

// Is `e` (a target: T, T[i], T[i][j]) the tensor itself or an element of it?
bool writesExpr(const Expr &e, const Decl *tensor) {
  const NameExpr *n = indexRoot(e);
  return n && n->decl == tensor;
}

// Does an atom.* call inside `e` update `tensor`?
bool atomicOn(const Expr *e, const Decl *tensor) {
  if (!e) return false;
  switch (e->kind) {
  case ExprKind::Unary: return atomicOn(cast<UnaryExpr>(e)->operand.get(), tensor);
  case ExprKind::Binary: return atomicOn(cast<BinaryExpr>(e)->lhs.get(), tensor) || atomicOn(cast<BinaryExpr>(e)->rhs.get(), tensor);
  case ExprKind::Member: return atomicOn(cast<MemberExpr>(e)->base.get(), tensor);
  case ExprKind::Index: {
    const auto *ix = cast<IndexExpr>(e);
    for (const auto &it : ix->items)
      if (atomicOn(it.start.get(), tensor) || atomicOn(it.length.get(), tensor)) return true;
    return atomicOn(ix->base.get(), tensor);
  }
  case ExprKind::Call: {
    const auto *c = cast<CallExpr>(e);
    if (c->callee.rfind("atom.", 0) == 0 && !c->args.empty() && c->args[0] && writesExpr(*c->args[0], tensor)) return true;
    for (const auto &a : c->args)
      if (atomicOn(a.get(), tensor)) return true;
    return false;
  }
  default: return false;
  }
}

} // namespace

const NameExpr *indexRoot(const Expr &e) {
  const Expr *cur = &e;
  while (const auto *ix = dynCast<IndexExpr>(cur)) cur = ix->base.get();
  return dynCast<NameExpr>(cur);
}

bool writesTensor(const Stmt &s, const Decl *tensor) {
  switch (s.kind) {
  case StmtKind::Block:
    for (const auto &c : cast<BlockStmt>(&s)->stmts)
      if (writesTensor(*c, tensor)) return true;
    return false;
  case StmtKind::Role: return writesTensor(*cast<RoleStmt>(&s)->body, tensor);
  case StmtKind::For: return writesTensor(*cast<ForStmt>(&s)->body, tensor);
  case StmtKind::If: {
    const auto *i = cast<IfStmt>(&s);
    return atomicOn(i->cond.get(), tensor) || writesTensor(*i->thenBody, tensor) || (i->elseBody && writesTensor(*i->elseBody, tensor));
  }
  case StmtKind::Elect: return writesTensor(*cast<ElectStmt>(&s)->body, tensor);
  case StmtKind::Assign: {
    const auto *a = cast<AssignStmt>(&s);
    return writesExpr(*a->target, tensor) || atomicOn(a->value.get(), tensor) || atomicOn(a->target.get(), tensor);
  }
  case StmtKind::Let: return atomicOn(cast<LetStmt>(&s)->init.get(), tensor);
  case StmtKind::Var: return atomicOn(cast<VarStmt>(&s)->init.get(), tensor);
  case StmtKind::Op: {
    const auto *o = cast<OpStmt>(&s);
    for (const auto &d : o->dsts)
      if (writesExpr(*d, tensor) || atomicOn(d.get(), tensor)) return true;
    for (const auto &e : o->srcs)
      if (atomicOn(e.get(), tensor)) return true;
    return false;
  }
  case StmtKind::Call: return true;
  default: return false;
  }
}

} // namespace cake

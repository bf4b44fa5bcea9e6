// The expression slots and nested statements of a statement, enumerated once for the passes that walk or rewrite
// the AST (NameUses, Inline, the type-parameter substitution).  Both templates take a Stmt or a const Stmt and
// hand the callback the slot as it is stored (Ptr<Expr> &, or const Ptr<Expr> & from a const statement), null
// slots skipped.
#pragma once
#include "frontend/AST.h"

#include <type_traits>

namespace cake {

// T with the constness of S (a Stmt or a const Stmt).
template <class S, class T> using SameConstAs = std::conditional_t<std::is_const_v<S>, const T, T>;

// Calls f(slot) for every expression of `s` itself, in source order (not those of nested statements, not types
// or attributes): initialisers, counts, role bounds, loop bounds and unroll factor, conditions, returned values,
// assignment targets and values, operands and clause arguments, and the arguments of a called fn.
template <class S, class F> void forEachExprSlot(S &s, F &&f) {
  static_assert(std::is_same_v<std::remove_const_t<S>, Stmt>);
  auto slot = [&](auto &e) { if (e) f(e); };
  switch (s.kind) {
  case StmtKind::Let: slot(static_cast<SameConstAs<S, LetStmt> &>(s).init); break;
  case StmtKind::Var: slot(static_cast<SameConstAs<S, VarStmt> &>(s).init); break;
  case StmtKind::MBarrier: slot(static_cast<SameConstAs<S, MBarrierStmt> &>(s).count); break;
  case StmtKind::Barrier: slot(static_cast<SameConstAs<S, BarrierStmt> &>(s).count); break;
  case StmtKind::Role: {
    auto &r = static_cast<SameConstAs<S, RoleStmt> &>(s);
    slot(r.instances);
    slot(r.first);
    slot(r.last);
    break;
  }
  case StmtKind::For: {
    auto &l = static_cast<SameConstAs<S, ForStmt> &>(s);
    slot(l.lower);
    slot(l.upper);
    slot(l.step);
    slot(l.unrollFactor);
    break;
  }
  case StmtKind::If: slot(static_cast<SameConstAs<S, IfStmt> &>(s).cond); break;
  case StmtKind::Return: slot(static_cast<SameConstAs<S, ReturnStmt> &>(s).value); break;
  case StmtKind::Assign: {
    auto &a = static_cast<SameConstAs<S, AssignStmt> &>(s);
    slot(a.target);
    slot(a.value);
    break;
  }
  case StmtKind::Op: {
    auto &o = static_cast<SameConstAs<S, OpStmt> &>(s);
    for (auto &d : o.dsts) slot(d);
    for (auto &x : o.srcs) slot(x);
    for (auto &c : o.clauses)
      for (auto &a : c.args) slot(a);
    break;
  }
  case StmtKind::Call: {
    auto &c = static_cast<SameConstAs<S, CallStmt> &>(s);
    if (c.call)
      for (auto &a : c.call->args) slot(a);
    break;
  }
  case StmtKind::Block: case StmtKind::Shared: case StmtKind::Elect: break;
  }
}

// Calls f(stmt) for every statement nested directly in `s`, in source order: the statements of a block, the body
// of a role, loop or elect, the then and else branches of an if (an else-if is the nested if statement).
template <class S, class F> void forEachNestedStmt(S &s, F &&f) {
  static_assert(std::is_same_v<std::remove_const_t<S>, Stmt>);
  auto child = [&](auto &p) { if (p) f(*p); };
  switch (s.kind) {
  case StmtKind::Block:
    for (auto &c : static_cast<SameConstAs<S, BlockStmt> &>(s).stmts) child(c);
    break;
  case StmtKind::Role: child(static_cast<SameConstAs<S, RoleStmt> &>(s).body); break;
  case StmtKind::For: child(static_cast<SameConstAs<S, ForStmt> &>(s).body); break;
  case StmtKind::Elect: child(static_cast<SameConstAs<S, ElectStmt> &>(s).body); break;
  case StmtKind::If: {
    auto &i = static_cast<SameConstAs<S, IfStmt> &>(s);
    child(i.thenBody);
    child(i.elseBody);
    break;
  }
  default: break;
  }
}

} // namespace cake

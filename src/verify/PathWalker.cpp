// PathCondition: the path-condition stack and the early-return rule of the verifier's structured walks
// (see PathWalker.h).
#include "verify/PathWalker.h"

#include "frontend/Builtins.h"

namespace cake {

z3::expr PathCondition::conjunction() const {
  z3::expr_vector v(z3_);
  for (const z3::expr &e : terms_) v.push_back(e);
  return z3::mk_and(v);
}

void PathCondition::restore(Mark m) {
  terms_.resize(m.terms, z3_.bool_val(true));
  inexact_ = m.inexact;
}

std::optional<z3::expr> PathCondition::translateCondition(const Expr &cond) {
  std::optional<z3::expr> c = tr_.translate(cond);
  if (c && !c->is_bool()) c.reset();
  return c;
}

// `if c { ...; return; }` without else: the rest of the block runs only where c is false.
static bool endsInReturn(const BlockStmt *b) {
  return b && !b->stmts.empty() && b->stmts.back() && isa<ReturnStmt>(b->stmts.back().get());
}

void PathCondition::walkBlock(const BlockStmt &b, const std::function<void(const Stmt &)> &walkStmt) {
  Mark entry = mark();
  for (auto &s : b.stmts) {
    if (!s) continue;
    walkStmt(*s);
    auto *i = dynCast<IfStmt>(s.get());
    if (i && !i->elseBody && i->cond && endsInReturn(i->thenBody.get())) {
      if (auto c = translateCondition(*i->cond)) push(!*c);
      else dropCondition();
    }
  }
  restore(entry);
}

void PathCondition::withCondition(const Expr *cond, bool holds, const std::function<void()> &body) {
  Mark entry = mark();
  std::optional<z3::expr> c = cond ? translateCondition(*cond) : std::nullopt;
  if (c) push(holds ? *c : !*c);
  else dropCondition();
  body();
  restore(entry);
}

z3::expr PathCondition::roleRange(const RoleInfo &ri) {
  z3::expr tid = tr_.builtinVar(BuiltinValue::TidX);
  return tid >= z3_.int_val(ri.firstWarp * 32) && tid < z3_.int_val(ri.endWarp * 32);
}

void PathCondition::linkThreadBuiltins(const RoleStmt *role, std::vector<z3::expr> *roleVars, bool rangeAsOneTerm) {
  z3::expr tid = tr_.builtinVar(BuiltinValue::TidX);
  push(tr_.builtinVar(BuiltinValue::Warp) == tid / 32);
  push(tr_.builtinVar(BuiltinValue::Lane) == z3::mod(tid, 32));
  const RoleInfo *ri = role ? info_.roleOf(role) : nullptr;
  if (!ri || !ri->rangeKnown || ri->warpsPerInstance() <= 0) return;
  int64_t span = ri->warpsPerInstance() * 32;   // threads per role instance
  if (rangeAsOneTerm) {
    push(roleRange(*ri));
  } else {
    push(tid >= z3_.int_val(ri->firstWarp * 32));
    push(tid < z3_.int_val(ri->endWarp * 32));
  }
  z3::expr rel = tid - z3_.int_val(ri->firstWarp * 32);
  z3::expr idx = tr_.builtinVar(BuiltinValue::RoleIndex, role);
  z3::expr thr = tr_.builtinVar(BuiltinValue::RoleThread, role);
  z3::expr wrp = tr_.builtinVar(BuiltinValue::RoleWarp, role);
  if (roleVars)
    for (const z3::expr &v : {idx, thr, wrp}) roleVars->push_back(v);
  push(idx == rel / z3_.int_val(span));
  push(thr == z3::mod(rel, z3_.int_val(span)));
  push(wrp == z3::mod(rel, z3_.int_val(span)) / 32);
}

} // namespace cake

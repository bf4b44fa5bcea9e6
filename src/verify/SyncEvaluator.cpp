// SyncEvaluator: see SyncEvaluator.h.
#include "verify/SyncEvaluator.h"

#include "frontend/Types.h"

namespace cake::sync_detail {

std::optional<int64_t> Evaluator::eval(const Expr &e, const ThreadPoint &at, std::string &why) const {
  failedVariable_ = nullptr;
  recording_.clear();
  tooDeep_ = false;
  return ev(e, at, why, 0);
}

std::optional<int64_t> Evaluator::fail(std::string &why, std::string text) const {
  if (why.empty()) why = std::move(text);
  return std::nullopt;
}

void Evaluator::note(const Dep &d) const {
  if (recording_.empty()) return;
  std::vector<Dep> &deps = *recording_.back();
  for (const Dep &x : deps)
    if (x.decl == d.decl) return;   // read once per evaluation: the state does not change during one
  deps.push_back(d);
}

void Evaluator::noteState(const Decl *d, const DeclMap<int64_t> &state) const {
  if (recording_.empty()) return;
  auto it = state.find(d);
  note(it == state.end() ? Dep{d, false, 0} : Dep{d, true, it->second});
}

std::optional<int64_t> Evaluator::builtin(BuiltinValue v, const ThreadPoint &at, std::string &why) const {
  const SyncAgent &a = *at.agent;
  switch (v) {
  case BuiltinValue::TidX: case BuiltinValue::Lane: case BuiltinValue::Warp: case BuiltinValue::RoleWarp:
  case BuiltinValue::RoleThread:
    note(Dep{nullptr, true, at.tid});
    break;
  default: break;
  }
  int64_t cx = info_.cluster[0], cy = info_.cluster[1];
  int64_t roleFirst = 0;
  if (a.role) roleFirst = a.role->firstWarp + a.instance * a.role->warpsPerInstance();
  switch (v) {
  case BuiltinValue::TidX: return at.tid;
  case BuiltinValue::TidY: case BuiltinValue::TidZ: return 0;
  case BuiltinValue::Lane: return at.tid % 32;
  case BuiltinValue::Warp: return at.tid / 32;
  case BuiltinValue::BlockDimX: return info_.threads;
  case BuiltinValue::BlockDimY: case BuiltinValue::BlockDimZ: return 1;
  case BuiltinValue::ClusterRank: return a.cta;
  case BuiltinValue::ClusterX: return a.cta % cx;
  case BuiltinValue::ClusterY: return (a.cta / cx) % cy;
  case BuiltinValue::ClusterZ: return a.cta / (cx * cy);
  case BuiltinValue::RoleIndex: return a.instance;
  case BuiltinValue::RoleWarp: return at.tid / 32 - roleFirst;
  case BuiltinValue::RoleThread: return at.tid - roleFirst * 32;
  case BuiltinValue::GridDimX: case BuiltinValue::GridDimY: case BuiltinValue::GridDimZ: {
    size_t dim = v == BuiltinValue::GridDimX ? 0 : v == BuiltinValue::GridDimY ? 1 : 2;
    if (dim >= info_.grid.size() || !info_.grid[dim]) return 1;
    return ev(*info_.grid[dim], at, why, 1);
  }
  default: {
    auto it = values_.builtins.find(v);
    if (it != values_.builtins.end()) return it->second;
    if (v == BuiltinValue::BlockX || v == BuiltinValue::BlockY || v == BuiltinValue::BlockZ) return 0;
    return fail(why, std::string("'") + std::string(builtinValueName(v)) + "' has no value");
  }
  }
}

std::optional<int64_t> Evaluator::ev(const Expr &e, const ThreadPoint &at, std::string &why, unsigned depth) const {
  if (depth > kMaxEvalDepth) {
    tooDeep_ = true;
    return fail(why, "expression nested too deeply");
  }
  if (e.type && (e.type->isFloat() || e.type->isVector() || e.type->isFragment() || e.type->isTensor()))
    return fail(why, "a " + typeToString(e.type) + " value");
  switch (e.kind) {
  case ExprKind::IntLit: return static_cast<int64_t>(cast<IntLitExpr>(&e)->value);
  case ExprKind::BoolLit: return cast<BoolLitExpr>(&e)->value ? 1 : 0;
  case ExprKind::FloatLit: return fail(why, "a float value");
  case ExprKind::List: return fail(why, "a list");
  case ExprKind::Index: return fail(why, "a value loaded from memory");
  case ExprKind::Name: {
    auto *n = cast<NameExpr>(&e);
    const Decl *d = n->decl;
    if (!d) return fail(why, "unresolved name");
    if (d->declKind == DeclKind::LoopVar) {   // loops_ holds loop variables only
      noteState(d, loops_);
      if (auto it = loops_.find(d); it != loops_.end()) return it->second;
    }
    if (auto it = values_.decls.find(d); it != values_.decls.end()) return it->second;
    switch (d->declKind) {
    case DeclKind::CtParam: {
      auto *p = static_cast<const CtParam *>(d);
      if (p->value) return *p->value;
      if (auto it = info_.ctValues.find(p->name); it != info_.ctValues.end()) return it->second;
      return fail(why, "compile-time parameter '" + p->name + "' has no value");
    }
    case DeclKind::Let: {
      auto *let = static_cast<const LetStmt *>(d);
      if (!let->init) return fail(why, "let without value");
      // Evaluated once for as long as what it read is unchanged: chains of lets that reuse the previous
      // one stay linear, and a let is not re-evaluated at every use.
      auto it = lets_.find(d);
      if (it == lets_.end() || !current(it->second, at)) {
        const Decl *outerFailed = failedVariable_;
        failedVariable_ = nullptr;
        LetValue lv;
        lv.agent = at.agent;
        const bool outerTooDeep = tooDeep_;
        tooDeep_ = false;
        recording_.push_back(&lv.deps);
        lv.value = ev(*let->init, at, lv.why, depth + 1);
        recording_.pop_back();
        lv.failedVariable = failedVariable_;
        failedVariable_ = outerFailed;
        if (tooDeep_) {
          // Too deep from here, not in itself (from a shallower use it may have a value): not kept.
          lets_.erase(d);
          if (why.empty() && lv.failedVariable) failedVariable_ = lv.failedVariable;
          return fail(why, lv.why);
        }
        tooDeep_ = outerTooDeep;
        it = lets_.insert_or_assign(d, std::move(lv)).first;   // (the evaluation may have rehashed lets_)
      }
      for (const Dep &dep : it->second.deps) note(dep);   // the enclosing let read the same
      if (!it->second.value) {
        if (why.empty() && it->second.failedVariable) failedVariable_ = it->second.failedVariable;
        fail(why, it->second.why);
      }
      return it->second.value;
    }
    case DeclKind::Builtin:
      if (auto bv = builtinValueOf(e)) return builtin(*bv, at, why);
      return fail(why, "'" + d->name + "' is not a value");
    case DeclKind::Var: {
      noteState(d, counters_);
      if (auto it = counters_.find(d); it != counters_.end()) return it->second;
      std::string text = "the mutable variable '" + d->name + "'";
      if (why.empty()) failedVariable_ = d;
      if (values_.counters)
        if (auto it = values_.counters->notCounters.find(d); it != values_.counters->notCounters.end())
          text += ", which is not an induction counter: " + it->second;
      return fail(why, text);
    }
    case DeclKind::LoopVar:
      if (values_.tripOverrides.count(static_cast<const ForStmt *>(d)))
        return fail(why, "the variable of loop '" + d->name +
                             "', which the verifier models by its trip count only (its iterations must not differ in synchronisation)");
      return fail(why, "'" + d->name + "' has no known value");
    default: return fail(why, "'" + d->name + "' has no known value");
    }
  }
  case ExprKind::Member: {
    if (auto bv = builtinValueOf(e)) return builtin(*bv, at, why);
    return fail(why, "member expression");
  }
  case ExprKind::Unary: {
    auto *u = cast<UnaryExpr>(&e);
    auto x = ev(*u->operand, at, why, depth + 1);
    if (!x) return std::nullopt;
    switch (u->op) {
    case UnaryOp::Neg: return -*x;
    case UnaryOp::Not: return *x == 0 ? 1 : 0;
    case UnaryOp::BitNot: return u->operand->type && u->operand->type->isPred() ? (*x ? 0 : 1) : ~*x;
    }
    return std::nullopt;
  }
  case ExprKind::Binary: {
    auto *b = cast<BinaryExpr>(&e);
    if (auto fixed = values_.launchValues.find(&e); fixed != values_.launchValues.end()) return fixed->second;
    auto l = ev(*b->lhs, at, why, depth + 1);
    if (!l) return std::nullopt;
    if (b->op == BinaryOp::LogAnd && !*l) return 0;
    if (b->op == BinaryOp::LogOr && *l) return 1;
    auto r = ev(*b->rhs, at, why, depth + 1);
    if (!r) return std::nullopt;
    bool isUnsigned = b->type && b->type->kind == TypeKind::Scalar && b->type->scalar == ScalarKind::U32;
    switch (b->op) {
    case BinaryOp::Add: return *l + *r;
    case BinaryOp::Sub: return *l - *r;
    case BinaryOp::Mul: return *l * *r;
    case BinaryOp::Div:
      if (*r == 0) return fail(why, "a division by zero");
      return isUnsigned ? int64_t(uint64_t(*l) / uint64_t(*r)) : *l / *r;   // C++: truncation, as PTX
    case BinaryOp::Rem:
      if (*r == 0) return fail(why, "a remainder by zero");
      return isUnsigned ? int64_t(uint64_t(*l) % uint64_t(*r)) : *l % *r;
    case BinaryOp::Shl: return (*r < 0 || *r > 62) ? fail(why, "a shift out of range") : std::optional<int64_t>(*l << *r);
    case BinaryOp::Shr: return (*r < 0 || *r > 62) ? fail(why, "a shift out of range") : std::optional<int64_t>(*l >> *r);
    case BinaryOp::BitAnd: return *l & *r;
    case BinaryOp::BitOr: return *l | *r;
    case BinaryOp::BitXor: return *l ^ *r;
    case BinaryOp::Eq: return *l == *r;
    case BinaryOp::Ne: return *l != *r;
    case BinaryOp::Lt: return *l < *r;
    case BinaryOp::Le: return *l <= *r;
    case BinaryOp::Gt: return *l > *r;
    case BinaryOp::Ge: return *l >= *r;
    case BinaryOp::LogAnd: return (*l && *r) ? 1 : 0;
    case BinaryOp::LogOr: return (*l || *r) ? 1 : 0;
    }
    return std::nullopt;
  }
  case ExprKind::Call: {
    auto *c = cast<CallExpr>(&e);
    int64_t args[3] = {0, 0, 0};   // no call below takes more (others fail after their arguments)
    const size_t count = c->args.size();
    for (size_t i = 0; i < count; ++i) {
      auto v = ev(*c->args[i], at, why, depth + 1);
      if (!v) return std::nullopt;
      if (i < 3) args[i] = *v;
    }
    const std::string &n = c->callee;
    if ((n == "i32" || n == "u32" || n == "i64") && count == 1) return args[0];
    if (n == "cdiv" && count == 2) {
      if (args[1] == 0) return fail(why, "a division by zero");
      return args[0] / args[1] + (args[0] % args[1] > 0 ? 1 : 0);   // as codegen computes it
    }
    if (n == "min" && count == 2) return std::min(args[0], args[1]);
    if (n == "max" && count == 2) return std::max(args[0], args[1]);
    if (n == "abs" && count == 1) return args[0] < 0 ? -args[0] : args[0];
    if (n == "select" && count == 3) return args[0] ? args[1] : args[2];
    return fail(why, "a call to '" + n + "'");
  }
  }
  return fail(why, "an unsupported expression");
}

bool Evaluator::current(const LetValue &v, const ThreadPoint &at) const {
  if (v.agent != at.agent) return false;
  for (const Dep &dep : v.deps) {
    if (!dep.decl) {
      if (dep.value != at.tid) return false;
      continue;
    }
    const DeclMap<int64_t> &state = dep.decl->declKind == DeclKind::LoopVar ? loops_ : counters_;
    auto it = state.find(dep.decl);
    if ((it != state.end()) != dep.present || (dep.present && it->second != dep.value)) return false;
  }
  return true;
}

} // namespace cake::sync_detail

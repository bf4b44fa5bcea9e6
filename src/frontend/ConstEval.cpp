// Compile-time integer evaluation (see ConstEval.h).  A recursive walk over the expression; the first
// failure (not constant, overflow, division by zero) wins and carries the offending sub-expression.  The
// options (binding hook, verifier switches) are read at the few places where the rules differ.
#include "frontend/ConstEval.h"

namespace cake {

bool checkedAdd(int64_t a, int64_t b, int64_t &out) { return !__builtin_add_overflow(a, b, &out); }
bool checkedMul(int64_t a, int64_t b, int64_t &out) { return !__builtin_mul_overflow(a, b, &out); }

namespace {
ConstResult okValue(int64_t v) { return {ConstResult::Ok, v, nullptr}; }
ConstResult fail(ConstResult::Status s, const Expr &e) { return {s, 0, &e}; }
} // namespace

ConstResult ConstEvaluator::evaluate(const Expr &e) const {
  LetMemo memo;
  LetMemo *outer = lets_;   // the bind hook may evaluate with this evaluator again
  lets_ = &memo;
  ConstResult r = eval(e, 0);
  lets_ = outer;
  return r;
}

ConstResult ConstEvaluator::eval(const Expr &e, unsigned depth) const {
  if (depth > options_.maxDepth) return fail(ConstResult::NotConstant, e);
  if (options_.bind && (e.kind == ExprKind::Name || e.kind == ExprKind::Member))
    if (std::optional<int64_t> bound = options_.bind(e)) return okValue(*bound);
  switch (e.kind) {
  case ExprKind::IntLit: {
    auto &lit = *cast<IntLitExpr>(&e);
    if (lit.value > static_cast<uint64_t>(INT64_MAX)) return fail(ConstResult::Overflow, e);
    return okValue(static_cast<int64_t>(lit.value));
  }
  case ExprKind::BoolLit: return okValue(cast<BoolLitExpr>(&e)->value ? 1 : 0);
  case ExprKind::Name: {
    const Decl *d = cast<NameExpr>(&e)->decl;
    if (!d) return fail(ConstResult::NotConstant, e);
    if (d->declKind == DeclKind::CtParam) {
      auto *ct = static_cast<const CtParam *>(d);
      if (!ct->value) return fail(ConstResult::NotConstant, e);
      return okValue(*ct->value);
    }
    if (d->declKind == DeclKind::Let) {
      auto *let = static_cast<const LetStmt *>(d);
      if (!let->init) return fail(ConstResult::NotConstant, e);
      if (lets_)
        if (auto it = lets_->find(d); it != lets_->end())
          return it->second.status == ConstResult::NotConstant ? fail(ConstResult::NotConstant, e) : it->second;
      ConstResult r = eval(*let->init, depth + 1);
      if (lets_) lets_->emplace(d, r);
      if (r.status == ConstResult::NotConstant) return fail(ConstResult::NotConstant, e);
      return r;
    }
    return fail(ConstResult::NotConstant, e);
  }
  case ExprKind::Unary: {
    auto &u = *cast<UnaryExpr>(&e);
    if (!u.operand) return fail(ConstResult::NotConstant, e);
    ConstResult r = eval(*u.operand, depth + 1);
    if (!r.ok()) return r;
    switch (u.op) {
    case UnaryOp::Neg:
      if (r.value == INT64_MIN) return fail(ConstResult::Overflow, e);
      return okValue(-r.value);
    case UnaryOp::Not: return okValue(r.value == 0 ? 1 : 0);
    case UnaryOp::BitNot: return okValue(~r.value);
    }
    return fail(ConstResult::NotConstant, e);
  }
  case ExprKind::Binary: {
    auto &b = *cast<BinaryExpr>(&e);
    if (!b.lhs || !b.rhs) return fail(ConstResult::NotConstant, e);
    ConstResult l = eval(*b.lhs, depth + 1);
    if (!l.ok()) return l;
    if (options_.shortCircuitLogic) {
      if (b.op == BinaryOp::LogAnd && l.value == 0) return okValue(0);
      if (b.op == BinaryOp::LogOr && l.value != 0) return okValue(1);
    }
    ConstResult r = eval(*b.rhs, depth + 1);
    if (!r.ok()) return r;
    int64_t x = l.value, y = r.value, out = 0;
    switch (b.op) {
    case BinaryOp::Add: if (__builtin_add_overflow(x, y, &out)) return fail(ConstResult::Overflow, e); return okValue(out);
    case BinaryOp::Sub: if (__builtin_sub_overflow(x, y, &out)) return fail(ConstResult::Overflow, e); return okValue(out);
    case BinaryOp::Mul: if (__builtin_mul_overflow(x, y, &out)) return fail(ConstResult::Overflow, e); return okValue(out);
    case BinaryOp::Div:
    case BinaryOp::Rem:
      if (y == 0) return fail(ConstResult::DivisionByZero, e);
      if (x == INT64_MIN && y == -1) return fail(ConstResult::Overflow, e);
      return okValue(b.op == BinaryOp::Div ? x / y : x % y);
    case BinaryOp::Shl:
      if (options_.wrappingShiftLeft) {
        if (y < 0 || y > 62) return fail(ConstResult::Overflow, e);
        return okValue(static_cast<int64_t>(static_cast<uint64_t>(x) << y));
      }
      if (y < 0 || y >= 64) return fail(ConstResult::Overflow, e);
      if (x < 0 || (y > 0 && (static_cast<uint64_t>(x) >> (63 - y)) != 0)) return fail(ConstResult::Overflow, e);
      return okValue(static_cast<int64_t>(static_cast<uint64_t>(x) << y));
    case BinaryOp::Shr:
      if (y < 0 || y >= 64) return fail(ConstResult::Overflow, e);
      return okValue(x >> y);
    case BinaryOp::BitAnd: return okValue(x & y);
    case BinaryOp::BitOr: return okValue(x | y);
    case BinaryOp::BitXor: return okValue(x ^ y);
    case BinaryOp::Eq: return okValue(x == y);
    case BinaryOp::Ne: return okValue(x != y);
    case BinaryOp::Lt: return okValue(x < y);
    case BinaryOp::Le: return okValue(x <= y);
    case BinaryOp::Gt: return okValue(x > y);
    case BinaryOp::Ge: return okValue(x >= y);
    case BinaryOp::LogAnd: return okValue(x != 0 && y != 0);
    case BinaryOp::LogOr: return okValue(x != 0 || y != 0);
    }
    return fail(ConstResult::NotConstant, e);
  }
  case ExprKind::Call: return evalCall(*cast<CallExpr>(&e), depth);
  case ExprKind::FloatLit:
  case ExprKind::Member:
  case ExprKind::Index:
  case ExprKind::List:
    return fail(ConstResult::NotConstant, e);
  }
  return fail(ConstResult::NotConstant, e);
}

// Intrinsics: cdiv, min, max and (with integerCasts) i32/u32/i64.
ConstResult ConstEvaluator::evalCall(const CallExpr &c, unsigned depth) const {
  for (const Ptr<Expr> &a : c.args)
    if (!a) return fail(ConstResult::NotConstant, c);
  if (options_.integerCasts && (c.callee == "i32" || c.callee == "u32" || c.callee == "i64") && c.args.size() == 1)
    return eval(*c.args[0], depth + 1);
  bool isCdiv = c.callee == "cdiv", isMin = c.callee == "min", isMax = c.callee == "max";
  if ((!isCdiv && !isMin && !isMax) || c.args.size() != 2) return fail(ConstResult::NotConstant, c);
  ConstResult l = eval(*c.args[0], depth + 1);
  if (!l.ok()) return l;
  ConstResult r = eval(*c.args[1], depth + 1);
  if (!r.ok()) return r;
  if (isMin) return okValue(l.value < r.value ? l.value : r.value);
  if (isMax) return okValue(l.value > r.value ? l.value : r.value);
  int64_t a = l.value, b = r.value;
  switch (options_.cdiv) {
  case ConstEvalOptions::Cdiv::AddThenDivide: {
    int64_t sum = 0;
    if (b <= 0) return fail(ConstResult::NotConstant, c);
    if (__builtin_add_overflow(a, b - 1, &sum)) return fail(ConstResult::Overflow, c);
    return okValue(sum / b);
  }
  case ConstEvalOptions::Cdiv::CeilingOfNonNegative:
    if (a < 0 || b <= 0) return fail(ConstResult::NotConstant, c);
    break;
  case ConstEvalOptions::Cdiv::Ceiling:
    break;
  }
  // cdiv(a, b) = (a + b - 1) / b for positive b; defined as floor-towards-+inf division generally.
  if (b == 0) return fail(ConstResult::DivisionByZero, c);
  if (a == INT64_MIN && b == -1) return fail(ConstResult::Overflow, c);
  int64_t q = a / b;
  if ((a % b != 0) && ((a > 0) == (b > 0))) ++q;
  return okValue(q);
}

} // namespace cake

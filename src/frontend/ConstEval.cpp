// Compile-time integer evaluation (see ConstEval.h).  A recursive walk over the expression; the first
// failure (not constant, overflow, division by zero) wins and carries the offending sub-expression.
#include "frontend/ConstEval.h"

namespace cake {

bool checkedAdd(int64_t a, int64_t b, int64_t &out) { return !__builtin_add_overflow(a, b, &out); }
bool checkedMul(int64_t a, int64_t b, int64_t &out) { return !__builtin_mul_overflow(a, b, &out); }

namespace {
ConstResult okValue(int64_t v) { return {ConstResult::Ok, v, nullptr}; }
ConstResult fail(ConstResult::Status s, const Expr &e) { return {s, 0, &e}; }
} // namespace

ConstResult ConstEvaluator::eval(const Expr &e, unsigned depth) const {
  if (depth > maxDepth_) return fail(ConstResult::NotConstant, e);
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
      ConstResult r = eval(*let->init, depth + 1);
      if (r.status == ConstResult::NotConstant) return fail(ConstResult::NotConstant, e);
      return r;
    }
    return fail(ConstResult::NotConstant, e);
  }
  case ExprKind::Unary: {
    auto &u = *cast<UnaryExpr>(&e);
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
    ConstResult l = eval(*b.lhs, depth + 1);
    if (!l.ok()) return l;
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
  case ExprKind::Call: {
    auto &c = *cast<CallExpr>(&e);
    bool isCdiv = c.callee == "cdiv", isMin = c.callee == "min", isMax = c.callee == "max";
    if ((!isCdiv && !isMin && !isMax) || c.args.size() != 2) return fail(ConstResult::NotConstant, e);
    ConstResult l = eval(*c.args[0], depth + 1);
    if (!l.ok()) return l;
    ConstResult r = eval(*c.args[1], depth + 1);
    if (!r.ok()) return r;
    if (isMin) return okValue(l.value < r.value ? l.value : r.value);
    if (isMax) return okValue(l.value > r.value ? l.value : r.value);
    // cdiv(a, b) = (a + b - 1) / b for positive b; defined as floor-towards-+inf division generally.
    if (r.value == 0) return fail(ConstResult::DivisionByZero, e);
    if (l.value == INT64_MIN && r.value == -1) return fail(ConstResult::Overflow, e);
    int64_t q = l.value / r.value;
    if ((l.value % r.value != 0) && ((l.value > 0) == (r.value > 0))) ++q;
    return okValue(q);
  }
  case ExprKind::FloatLit:
  case ExprKind::Member:
  case ExprKind::Index:
  case ExprKind::List:
    return fail(ConstResult::NotConstant, e);
  }
  return fail(ConstResult::NotConstant, e);
}

} // namespace cake

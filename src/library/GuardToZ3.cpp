// GuardToZ3 (see the header): one recursive walk over the Expr tree (runtime/src/ExprTree.h).
#include "library/GuardToZ3.h"

#include "ExprTree.h"

namespace cake::library {

namespace {

using rt::ExprNode;
using rt::ExprOp;

class Walker {
public:
  Walker(z3::context &z3, const GuardToZ3::Resolver &resolve, std::string &unresolved)
      : z3_(z3), resolve_(resolve), unresolved_(unresolved) {}

  std::optional<z3::expr> walk(const ExprNode &n) {
    auto boolToBv = [&](const z3::expr &b) { return z3::ite(b, z3_.bv_val(1, 64), z3_.bv_val(0, 64)); };
    auto nonzero = [&](const z3::expr &v) { return v != z3_.bv_val(0, 64); };
    switch (n.op) {
    case ExprOp::Literal: return z3_.bv_val(static_cast<int64_t>(n.value), 64);
    case ExprOp::Name: {
      std::optional<z3::expr> v = resolve_(n.name);
      if (!v && unresolved_.empty()) unresolved_ = n.name;
      return v;
    }
    default: break;
    }
    std::optional<z3::expr> a = walk(*n.operands[0]);
    if (!a) return std::nullopt;
    switch (n.op) {
    case ExprOp::Neg: return -*a;
    case ExprOp::Not: return boolToBv(!nonzero(*a));
    case ExprOp::BitNot: return ~*a;
    default: break;
    }
    std::optional<z3::expr> b = walk(*n.operands[1]);
    if (!b) return std::nullopt;
    const z3::expr &x = *a, &y = *b;
    switch (n.op) {
    case ExprOp::Add: return x + y;
    case ExprOp::Sub: return x - y;
    case ExprOp::Mul: return x * y;
    case ExprOp::Div: return z3::expr(z3_, Z3_mk_bvsdiv(z3_, x, y));
    case ExprOp::Rem: return z3::srem(x, y);
    case ExprOp::Cdiv: {
      z3::expr q(z3_, Z3_mk_bvsdiv(z3_, x, y));
      z3::expr r = z3::srem(x, y);
      z3::expr zero = z3_.bv_val(0, 64);
      return z3::ite(r != zero && ((x < zero) == (y < zero)), q + z3_.bv_val(1, 64), q);
    }
    case ExprOp::Shl: return z3::shl(x, y);
    case ExprOp::Shr: return z3::ashr(x, y);
    case ExprOp::Lt: return boolToBv(x < y);
    case ExprOp::Le: return boolToBv(x <= y);
    case ExprOp::Gt: return boolToBv(x > y);
    case ExprOp::Ge: return boolToBv(x >= y);
    case ExprOp::Eq: return boolToBv(x == y);
    case ExprOp::Ne: return boolToBv(x != y);
    case ExprOp::BitAnd: return x & y;
    case ExprOp::BitXor: return x ^ y;
    case ExprOp::BitOr: return x | y;
    case ExprOp::And: return boolToBv(nonzero(x) && nonzero(y));
    case ExprOp::Or: return boolToBv(nonzero(x) || nonzero(y));
    case ExprOp::Min: return z3::ite(x < y, x, y);
    case ExprOp::Max: return z3::ite(x < y, y, x);
    default: return std::nullopt;
    }
  }

private:
  z3::context &z3_;
  const GuardToZ3::Resolver &resolve_;
  std::string &unresolved_;
};

}   // namespace

std::optional<z3::expr> GuardToZ3::value(const rt::Expr &expr) {
  unresolved_.clear();
  if (!expr.valid()) return std::nullopt;
  return Walker(z3_, resolve_, unresolved_).walk(*expr.root());
}

std::optional<z3::expr> GuardToZ3::truth(const rt::Expr &expr) {
  std::optional<z3::expr> v = value(expr);
  if (!v) return std::nullopt;
  return *v != z3_.bv_val(0, 64);
}

}   // namespace cake::library

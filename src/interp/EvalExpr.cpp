// Expressions of one warp: literals, names, builtins, operators (see WarpExecutor.h).
//
// Every expression is evaluated for the lanes of `mask` only.  `&&` and `||` evaluate their right operand
// only in the lanes the left one leaves undecided (as the generated code does), so a guard such as
// `r < R && X[r] > 0` never loads out of bounds.  Untyped constants stay exact until they meet a typed
// operand; the result of an expression that sema typed is converted to that type (eval's last step).
#include "frontend/Builtins.h"
#include "interp/WarpExecutor.h"

#include <cmath>
#include <limits>

namespace cake::interp {

ValueKind WarpExecutor::kindOf(const Type *t) {
  if (!t) return ValueKind::of(ScalarKind::I32);
  switch (t->kind) {
  case TypeKind::UntypedInt: return {ValueKind::IntLit, ScalarKind::I64};
  case TypeKind::UntypedFloat: return {ValueKind::FloatLit, ScalarKind::F32};
  case TypeKind::Scalar: case TypeKind::Vector: case TypeKind::Tensor: case TypeKind::Fragment:
    return ValueKind::of(t->elementScalar());
  default: return ValueKind::of(ScalarKind::I32);
  }
}

unsigned WarpExecutor::widthOf(const Type *t) {
  if (!t) return 1;
  if (t->isVector()) return t->width;
  if (t->isFragment()) return unsigned(t->fragElementsPerThread());
  if (t->isTensor()) {   // clamped: callers refuse widths this large (E0903)
    int64_t n = t->numElements().value_or(1), w = t->element ? widthOf(t->element) : 1;
    return n <= 0 || n > int64_t(UINT32_MAX) / w ? UINT32_MAX : unsigned(n * w);
  }
  return 1;
}

WarpValue WarpExecutor::adapt(WarpValue v, ValueKind to, LaneMask mask) {
  if (!v.kind.isUntyped() || to.isUntyped()) {
    if (v.kind.tag == ValueKind::IntLit && to.tag == ValueKind::FloatLit) {
      for (int l : lanesOf(mask))
        for (unsigned e = 0; e < v.width; ++e) v.at(l, e).f = double(v.at(l, e).i);
      v.kind = to;
    }
    return v;
  }
  for (int l : lanesOf(mask))
    for (unsigned e = 0; e < v.width; ++e) {
      Scalar &s = v.at(l, e);
      if (v.kind.tag == ValueKind::IntLit) s = convertScalar(s, ScalarKind::I64, to.scalar);
      else s = convertScalar(s, ScalarKind::F32, to.scalar);   // a double; converts by value
    }
  v.kind = to;
  return v;
}

WarpValue WarpExecutor::evalAs(const Expr &e, LaneMask mask, ValueKind to) { return adapt(eval(e, mask), to, mask); }

int64_t WarpExecutor::constInt(const Expr &e, LaneMask mask) {
  WarpValue v = eval(e, mask);
  return mask ? v.at(__builtin_ctz(mask)).i : 0;
}

WarpValue WarpExecutor::eval(const Expr &e, LaneMask mask) {
  WarpValue v;
  switch (e.kind) {
  case ExprKind::IntLit: v = WarpValue::uniformInt({ValueKind::IntLit, ScalarKind::I64}, int64_t(cast<IntLitExpr>(&e)->value)); break;
  case ExprKind::FloatLit: v = WarpValue::uniformFloat({ValueKind::FloatLit, ScalarKind::F32}, cast<FloatLitExpr>(&e)->value); break;
  case ExprKind::BoolLit: v = WarpValue::uniformInt(ValueKind::of(ScalarKind::Pred), cast<BoolLitExpr>(&e)->value); break;
  case ExprKind::Name: v = evalName(*cast<NameExpr>(&e), mask); break;
  case ExprKind::Member: v = evalMember(*cast<MemberExpr>(&e), mask); break;
  case ExprKind::Unary: v = evalUnary(*cast<UnaryExpr>(&e), mask); break;
  case ExprKind::Binary: v = evalBinary(*cast<BinaryExpr>(&e), mask); break;
  case ExprKind::Index: v = evalIndex(*cast<IndexExpr>(&e), mask); break;
  case ExprKind::Call: v = evalCall(*cast<CallExpr>(&e), mask); break;
  case ExprKind::List: fail(DiagKind::InterpUnsupported, e.range, {"a list expression outside an attribute"});
  }
  ValueKind want = kindOf(e.type);
  if (v.kind.isUntyped() && !want.isUntyped() && e.type && (e.type->isScalar() || e.type->isVector())) v = adapt(std::move(v), want, mask);
  return v;
}

namespace {

WarpValue builtinValue(WarpExecutor &x, BuiltinValue b, LaneMask mask, SourceRange where) {
  auto perLane = [&](ScalarKind k, auto f) {
    WarpValue v(ValueKind::of(k), 1);
    for (int l : lanesOf(mask)) v.at(l).i = wrapToInt(f(l), k);
    return v;
  };
  const auto &blk = x.block.index;
  const auto &grid = x.launch.grid;
  const int w = x.warp;
  switch (b) {
  case BuiltinValue::TidX: return perLane(ScalarKind::U32, [&](int l) { return int64_t(w) * kLanes + l; });
  case BuiltinValue::TidY: case BuiltinValue::TidZ: return WarpValue::uniformInt(ValueKind::of(ScalarKind::U32), 0);
  case BuiltinValue::BlockX: return WarpValue::uniformInt(ValueKind::of(ScalarKind::U32), blk[0]);
  case BuiltinValue::BlockY: return WarpValue::uniformInt(ValueKind::of(ScalarKind::U32), blk[1]);
  case BuiltinValue::BlockZ: return WarpValue::uniformInt(ValueKind::of(ScalarKind::U32), blk[2]);
  case BuiltinValue::BlockDimX: return WarpValue::uniformInt(ValueKind::of(ScalarKind::U32), x.launch.info->threads);
  case BuiltinValue::BlockDimY: case BuiltinValue::BlockDimZ: return WarpValue::uniformInt(ValueKind::of(ScalarKind::U32), 1);
  case BuiltinValue::GridDimX: return WarpValue::uniformInt(ValueKind::of(ScalarKind::U32), grid[0]);
  case BuiltinValue::GridDimY: return WarpValue::uniformInt(ValueKind::of(ScalarKind::U32), grid[1]);
  case BuiltinValue::GridDimZ: return WarpValue::uniformInt(ValueKind::of(ScalarKind::U32), grid[2]);
  case BuiltinValue::Lane: return perLane(ScalarKind::I32, [](int l) { return int64_t(l); });
  case BuiltinValue::Warp: return WarpValue::uniformInt(ValueKind::of(ScalarKind::I32), w);
  case BuiltinValue::NumSms: return WarpValue::uniformInt(ValueKind::of(ScalarKind::I32), x.launch.numSms);
  case BuiltinValue::Inf:
    return WarpValue::uniformFloat({ValueKind::FloatLit, ScalarKind::F32}, std::numeric_limits<double>::infinity());
  case BuiltinValue::RoleIndex: case BuiltinValue::RoleWarp: case BuiltinValue::RoleThread: {
    const RoleInfo *r = x.role;
    if (!r || r->warpsPerInstance() <= 0) x.fail(DiagKind::InterpUnsupported, where, {"a role member outside its role"});
    int64_t inRole = w - r->firstWarp, per = r->warpsPerInstance();
    if (b == BuiltinValue::RoleIndex) return WarpValue::uniformInt(ValueKind::of(ScalarKind::I32), inRole / per);
    if (b == BuiltinValue::RoleWarp) return WarpValue::uniformInt(ValueKind::of(ScalarKind::I32), inRole % per);
    return perLane(ScalarKind::I32, [&](int l) { return (inRole % per) * kLanes + l; });
  }
  case BuiltinValue::ClusterRank: return WarpValue::uniformInt(ValueKind::of(ScalarKind::U32), x.block.rank);
  case BuiltinValue::ClusterX: return WarpValue::uniformInt(ValueKind::of(ScalarKind::U32), x.block.clusterIndex[0]);
  case BuiltinValue::ClusterY: return WarpValue::uniformInt(ValueKind::of(ScalarKind::U32), x.block.clusterIndex[1]);
  case BuiltinValue::ClusterZ: return WarpValue::uniformInt(ValueKind::of(ScalarKind::U32), x.block.clusterIndex[2]);
  default: x.fail(DiagKind::InterpUnsupported, where, {"the builtin value here"});
  }
}

} // namespace

WarpValue WarpExecutor::evalName(const NameExpr &e, LaneMask mask) {
  const Decl *d = e.decl;
  if (!d) CAKE_INTERNAL_ERROR("interpreter: an unresolved name '" + e.name + "'");
  switch (d->declKind) {
  case DeclKind::Let: case DeclKind::Var: case DeclKind::LoopVar: {
    auto it = env.find(d);
    if (it == env.end()) CAKE_INTERNAL_ERROR("interpreter: '" + e.name + "' read before its declaration ran");
    wgmmaValueAccess(d, false, e.range);
    return it->second;
  }
  case DeclKind::CtParam: {
    auto *ct = static_cast<const CtParam *>(d);
    return WarpValue::uniformInt({ValueKind::IntLit, ScalarKind::I64}, ct->value.value_or(0));
  }
  case DeclKind::ShapeVar: case DeclKind::Param: {
    auto it = launch.scalarArgs.find(d);
    if (it == launch.scalarArgs.end()) fail(DiagKind::InterpUnsupported, e.range, {"a tensor parameter used as a value"});
    WarpValue v(kindOf(d->type), 1);
    for (Scalar &s : v.data) s = it->second;
    return v;
  }
  case DeclKind::Builtin: {
    auto b = builtinValueOf(e);
    if (!b) fail(DiagKind::InterpUnsupported, e.range, {"the builtin '" + e.name + "' as a value"});
    return builtinValue(*this, *b, mask, e.range);
  }
  case DeclKind::Shared: return load(place(e, mask, "load"), mask, kindOf(d->type));
  default: fail(DiagKind::InterpUnsupported, e.range, {"'" + e.name + "' as a value"});
  }
}

WarpValue WarpExecutor::evalMember(const MemberExpr &e, LaneMask mask) {
  if (e.base->type && e.base->type->isFragment() && (e.member == "row" || e.member == "col"))
    return fragmentCoords(e.base->type, e.member == "col", mask);
  auto b = builtinValueOf(e);
  if (!b) fail(DiagKind::InterpUnsupported, e.range, {"the member '." + e.member + "' (tile views)"});
  return builtinValue(*this, *b, mask, e.range);
}

WarpValue WarpExecutor::evalUnary(const UnaryExpr &e, LaneMask mask) {
  WarpValue v = eval(*e.operand, mask);
  bool isFloat = v.kind.isFloat();
  for (int l : lanesOf(mask))
    for (unsigned i = 0; i < v.width; ++i) {
      Scalar &s = v.at(l, i);
      switch (e.op) {
      case UnaryOp::Neg:
        if (isFloat) s.f = -s.f;
        else s.i = v.kind.isUntyped() ? -s.i : wrapToInt(int64_t(0ull - uint64_t(s.i)), v.kind.scalar);
        break;
      case UnaryOp::Not: s.i = !s.i; break;
      case UnaryOp::BitNot: s.i = v.kind.isUntyped() ? ~s.i : wrapToInt(~s.i, v.kind.scalar); break;
      }
    }
  return v;
}

WarpValue WarpExecutor::evalBinary(const BinaryExpr &e, LaneMask mask) {
  if (e.op == BinaryOp::LogAnd || e.op == BinaryOp::LogOr) {
    WarpValue a = eval(*e.lhs, mask);
    LaneMask undecided = 0;
    for (int l : lanesOf(mask))
      if ((a.at(l).i != 0) == (e.op == BinaryOp::LogAnd)) undecided |= LaneMask(1) << l;
    if (undecided) {
      WarpValue b = eval(*e.rhs, undecided);
      for (int l : lanesOf(undecided)) a.at(l).i = b.at(l).i != 0;
    }
    return a;
  }
  WarpValue a = eval(*e.lhs, mask), b = eval(*e.rhs, mask);
  if (e.type && e.type->isFragment()) {   // a row / column vector meets an accumulator
    a = broadcastFragment(std::move(a), e.lhs->type, e.type, mask);
    b = broadcastFragment(std::move(b), e.rhs->type, e.type, mask);
  }
  if (e.op == BinaryOp::Shl || e.op == BinaryOp::Shr) {
    ValueKind want = kindOf(e.type);
    if (a.kind.isUntyped() && !want.isUntyped()) a = adapt(std::move(a), want, mask);
    return binaryArith(*this, e.op, a, b, mask, e.range);
  }
  ValueKind common = !a.kind.isUntyped() ? a.kind : !b.kind.isUntyped() ? b.kind
                     : (a.kind.tag == ValueKind::FloatLit || b.kind.tag == ValueKind::FloatLit) ? ValueKind{ValueKind::FloatLit, ScalarKind::F32}
                                                                                                   : a.kind;
  return binaryArith(*this, e.op, adapt(std::move(a), common, mask), adapt(std::move(b), common, mask), mask, e.range);
}

namespace {

bool isComparison(BinaryOp op) {
  return op == BinaryOp::Eq || op == BinaryOp::Ne || op == BinaryOp::Lt || op == BinaryOp::Le || op == BinaryOp::Gt ||
         op == BinaryOp::Ge;
}

template <class T> int64_t compare(BinaryOp op, T x, T y) {
  switch (op) {
  case BinaryOp::Eq: return x == y;
  case BinaryOp::Ne: return x != y;
  case BinaryOp::Lt: return x < y;
  case BinaryOp::Le: return x <= y;
  case BinaryOp::Gt: return x > y;
  default: return x >= y;
  }
}

unsigned intBits(ValueKind k) { return k.isUntyped() ? 64 : k.scalar == ScalarKind::I64 ? 64 : 32; }
bool isSigned(ValueKind k) { return k.isUntyped() || k.scalar != ScalarKind::U32; }

} // namespace

WarpValue binaryArith(WarpExecutor &x, BinaryOp op, const WarpValue &a, const WarpValue &b, LaneMask mask,
                      SourceRange where) {
  unsigned width = std::max(a.width, b.width);
  bool cmp = isComparison(op);
  WarpValue r(cmp ? ValueKind::of(ScalarKind::Pred) : a.kind, width);
  const ValueKind k = a.kind;
  const bool isFloat = k.isFloat();
  for (int l : lanesOf(mask))
    for (unsigned e = 0; e < width; ++e) {
      const Scalar &p = a.at(l, a.width == 1 ? 0 : e), &q = b.at(l, b.width == 1 ? 0 : e);
      Scalar &out = r.at(l, e);
      if (cmp) {
        out.i = isFloat ? compare(op, p.f, q.f) : compare(op, p.i, q.i);
        continue;
      }
      if (isFloat) {
        double v = 0;
        switch (op) {
        case BinaryOp::Add: v = p.f + q.f; break;
        case BinaryOp::Sub: v = p.f - q.f; break;
        case BinaryOp::Mul: v = p.f * q.f; break;
        case BinaryOp::Div: v = p.f / q.f; break;
        default: x.fail(DiagKind::InterpUnsupported, where, {"this operator on floats"});
        }
        out.f = k.isUntyped() ? v : roundToFloat(v, k.scalar);
        continue;
      }
      // Integers (and pred for & | ^): two's-complement arithmetic in 64 bits, then wrapped to the type.
      uint64_t u = uint64_t(p.i), w = uint64_t(q.i);
      int64_t v = 0;
      const unsigned bits = intBits(k);
      switch (op) {
      case BinaryOp::Add: v = int64_t(u + w); break;
      case BinaryOp::Sub: v = int64_t(u - w); break;
      case BinaryOp::Mul: v = int64_t(u * w); break;
      case BinaryOp::Div: case BinaryOp::Rem:
        if (q.i == 0) x.fail(DiagKind::InterpDivisionByZero, where, {op == BinaryOp::Div ? "division" : "remainder", x.whereText(l)});
        if (p.i == std::numeric_limits<int64_t>::min() && q.i == -1) v = op == BinaryOp::Div ? p.i : 0;
        else v = op == BinaryOp::Div ? p.i / q.i : p.i % q.i;   // u32 values are non-negative here
        break;
      case BinaryOp::Shl: v = w >= bits ? 0 : int64_t(u << w); break;
      case BinaryOp::Shr:
        if (isSigned(k)) v = w >= bits ? (p.i < 0 ? -1 : 0) : (p.i >> w);
        else v = w >= bits ? 0 : int64_t(u >> w);
        break;
      case BinaryOp::BitAnd: v = p.i & q.i; break;
      case BinaryOp::BitOr: v = p.i | q.i; break;
      case BinaryOp::BitXor: v = p.i ^ q.i; break;
      default: CAKE_INTERNAL_ERROR("interpreter: unexpected binary operator");
      }
      out.i = k.isUntyped() ? v : wrapToInt(v, k.scalar);
    }
  return r;
}

WarpValue WarpExecutor::evalIndex(const IndexExpr &e, LaneMask mask) {
  // The chain's root decides: a register, shared or global name is addressed (Memory.cpp); anything else
  // is a computed vector whose element is picked.
  const Expr *root = &e;
  while (auto *ix = dynCast<IndexExpr>(root)) root = ix->base.get();
  if (isa<NameExpr>(root)) {
    if (e.type && e.type->isFragment() && !(e.base->type && e.base->type->isTensor() && e.base->type->element &&
                                            e.base->type->element->isFragment()) && !(e.base->type && e.base->type->isFragment()))
      return gather(e, mask);   // bias[n0 + acc.col]: a tensor indexed with fragments
    return load(place(e, mask, "load"), mask, kindOf(e.type));
  }
  WarpValue base = eval(*e.base, mask);
  if (e.items.size() != 1 || e.items[0].kind != IndexItem::Point)
    fail(DiagKind::InterpUnsupported, e.range, {"this index form on a computed value"});
  WarpValue idx = eval(*e.items[0].start, mask);
  WarpValue r(base.kind, 1);
  for (int l : lanesOf(mask)) {
    int64_t j = idx.at(l).i;
    if (j < 0 || j >= int64_t(base.width))
      fail(DiagKind::InterpOutOfBounds, e.items[0].range,
           {"read", "vector", whereText(l), std::to_string(j), "0", std::to_string(base.width)});
    r.at(l) = base.at(l, unsigned(j));
  }
  return r;
}

} // namespace cake::interp

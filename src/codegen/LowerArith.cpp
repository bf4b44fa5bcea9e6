// Arithmetic, comparisons, select, conversions and vector packing.
//
// How: operands are lowered first; untyped literals adapt to the typed operand (both untyped: folded as
// literals).  Constant operands fold (Value.cpp).  Scalars map to one PTX instruction each:
//   int   add/sub/mul.lo/div/rem/shl/shr/and/or/xor .s32|.u32|.s64|.b32, setp.<cc>.<type>; division and
//         remainder by a constant become shifts/masks/mul.hi (divRemByConstant), using the known
//         lower bounds of index values (Value::lowerBound)
//   f32   add/sub/mul.f32, div.rn.f32, setp.<cc>.f32 ('!=' is the unordered setp.neu, as in C)
//   f16/bf16 scalars compute in f32 and round back once (cvt.rn), which is exact for add/sub/mul of two
//   16-bit values up to that single rounding.
//   pred  and/or/xor/not .pred
// Vectors apply the scalar rule per lane (a scalar operand is broadcast).  Conversions:
//   bf16 -> f32 is exact bit placement (shl 16 / and 0xffff0000 on the packed pair, no unpacking),
//   f32 pairs -> bf16x2 / f16x2 with one cvt.rn.bf16x2.f32 / cvt.rn.f16x2.f32 per pair,
//   int <-> float with cvt.rn / cvt.rzi (truncation toward zero, saturating), 16-bit floats via f32.
#include "codegen/KernelLowering.h"

#include "frontend/ASTPrinter.h"
#include "support/Tf32.h"

#include <cstring>

namespace cake::codegen {

namespace {
bool isComparison(BinaryOp op) {
  return op == BinaryOp::Eq || op == BinaryOp::Ne || op == BinaryOp::Lt || op == BinaryOp::Le ||
         op == BinaryOp::Gt || op == BinaryOp::Ge;
}
bool isCommutative(BinaryOp op) {
  return op == BinaryOp::Add || op == BinaryOp::Mul || op == BinaryOp::BitAnd || op == BinaryOp::BitOr ||
         op == BinaryOp::BitXor || op == BinaryOp::Eq || op == BinaryOp::Ne;
}
std::string_view cmpName(BinaryOp op, bool isFloatCmp) {
  switch (op) {
  case BinaryOp::Eq: return "eq";
  case BinaryOp::Ne: return isFloatCmp ? "neu" : "ne";
  case BinaryOp::Lt: return "lt";
  case BinaryOp::Le: return "le";
  case BinaryOp::Gt: return "gt";
  default: return "ge";
  }
}
BinaryOp swapComparison(BinaryOp op) {
  switch (op) {
  case BinaryOp::Lt: return BinaryOp::Gt;
  case BinaryOp::Le: return BinaryOp::Ge;
  case BinaryOp::Gt: return BinaryOp::Lt;
  case BinaryOp::Ge: return BinaryOp::Le;
  default: return op;
  }
}
// Common scalar type of two operands: a typed one wins over an untyped literal.
Scalar commonScalar(Scalar a, Scalar b) {
  if (isUntyped(a) && isUntyped(b)) return (a == Scalar::FloatLit || b == Scalar::FloatLit) ? Scalar::FloatLit : Scalar::IntLit;
  if (isUntyped(a)) return b;
  if (isUntyped(b)) return a;
  if (a == b) return a;
  // Sema rejects mixed typed operands; stay total anyway: prefer the wider, then the unsigned one.
  if (scalarBits(a) != scalarBits(b)) return scalarBits(a) > scalarBits(b) ? a : b;
  return a == Scalar::U32 ? a : b;
}
} // namespace

Value KernelLowering::lowerUnary(const UnaryExpr &e) { return unaryOp(e.op, lowerExpr(*e.operand), e.range); }

Value KernelLowering::unaryOp(UnaryOp op, const Value &a, SourceRange where) {
  if (a.type.isFrag()) return fragmentUnaryOp(op, a, where);
  if (a.type.isVector()) {
    std::vector<Value> lanes = unpackVector(a);
    for (auto &l : lanes) {
      if (op == UnaryOp::Neg) l = binaryOp(BinaryOp::Sub, Value::ofConst(Scalar::IntLit, {}), l, where);
      else l = placeholder(l.type);
    }
    if (op != UnaryOp::Neg) diags_.report(DiagKind::CodegenUnsupportedForm, where, "this operator on a vector");
    return packVector(a.type, lanes);
  }
  if (a.isConst()) {
    if (auto r = foldUnary(op, a.type.elem, *a.constant)) return Value::ofConst(a.type.elem, *r);
  }
  Scalar s = concreteScalar(a.type.elem);
  if (op == UnaryOp::Not || s == Scalar::Pred) {
    Value p = toPred(a);
    std::string d = out_.newReg(RegClass::Pred);
    out_.inst("not.pred " + d + ", " + reg(p));
    return Value::ofRegs(ValueType::scalar(Scalar::Pred), {d});
  }
  if (op == UnaryOp::BitNot) {
    Value d = freshValue(ValueType::scalar(s));
    out_.inst("not." + std::string(ptxBitType(s)) + " " + d.regs[0] + ", " + reg(a));
    return d;
  }
  // Neg
  if (scalarBits(s) == 16 && isFloat(s)) {
    Value f = convert(a, ValueType::scalar(Scalar::F32), where);
    Value n = freshValue(ValueType::scalar(Scalar::F32));
    out_.inst("neg.f32 " + n.regs[0] + ", " + reg(f));
    return convert(n, ValueType::scalar(s), where);
  }
  Value d = freshValue(ValueType::scalar(s));
  out_.inst("neg." + std::string(ptxArithType(s)) + " " + d.regs[0] + ", " + reg(a));
  return d;
}

Value KernelLowering::lowerBinary(const BinaryExpr &e) {
  // On pred fragments (row vectors, accumulator masks) && and || are element-wise: both sides are evaluated
  // (every element has its own left operand, so there is nothing to branch around) and combined per element.
  bool elementWise = e.type && e.type->isFragment();
  if ((e.op == BinaryOp::LogAnd || e.op == BinaryOp::LogOr) && !elementWise) return lowerLogical(e);
  Value a = lowerExpr(*e.lhs);
  Value b = lowerExpr(*e.rhs);
  if (elementWise && e.op == BinaryOp::LogAnd) return binaryOp(BinaryOp::BitAnd, a, b, e.range);
  if (elementWise && e.op == BinaryOp::LogOr) return binaryOp(BinaryOp::BitOr, a, b, e.range);
  return binaryOp(e.op, a, b, e.range);
}

Value KernelLowering::binaryOp(BinaryOp op, Value a, Value b, SourceRange where) {
  // Vectors: per lane.
  if (a.type.isVector() || b.type.isVector()) {
    const ValueType vt = a.type.isVector() ? a.type : b.type;
    std::vector<Value> la = a.type.isVector() ? unpackVector(a) : std::vector<Value>(vt.lanes, a);
    std::vector<Value> lb = b.type.isVector() ? unpackVector(b) : std::vector<Value>(vt.lanes, b);
    if (la.size() != lb.size()) {
      diags_.report(DiagKind::CodegenUnsupportedForm, where, "an operation on vectors of different lengths");
      return placeholder(vt);
    }
    std::vector<Value> r;
    for (size_t i = 0; i < la.size(); ++i) r.push_back(binaryOp(op, la[i], lb[i], where));
    ValueType rt = vt;
    if (isComparison(op)) {
      diags_.report(DiagKind::CodegenUnsupportedForm, where, "a comparison of vectors");
      return placeholder(ValueType::scalar(Scalar::Pred));
    }
    return packVector(rt, r);
  }
  if (a.type.isFrag() || b.type.isFrag()) return fragmentBinaryOp(op, a, b, where);
  Scalar s = commonScalar(a.type.elem, b.type.elem);
  bool cmp = isComparison(op);
  ValueType resultType = ValueType::scalar(cmp ? Scalar::Pred : s);
  // Constant folding.
  if (a.isConst() && b.isConst()) {
    Value ca = isUntyped(s) ? a : adapt(a, ValueType::scalar(s));
    Value cb = isUntyped(s) ? b : adapt(b, ValueType::scalar(s));
    ConstScalar x = *ca.constant, y = *cb.constant;
    if (isFloat(s) && !isFloat(ca.type.elem)) x = convertConst(ca.type.elem, s, x);
    if (isFloat(s) && !isFloat(cb.type.elem)) y = convertConst(cb.type.elem, s, y);
    if (auto r = foldBinary(op, s, x, y)) return Value::ofConst(resultType.elem, *r);
  }
  s = concreteScalar(s);
  a = adapt(a, ValueType::scalar(s));
  b = adapt(b, ValueType::scalar(s));
  if (!a.isConst() && concreteScalar(a.type.elem) != s) a = convert(a, ValueType::scalar(s), where);
  if (!b.isConst() && concreteScalar(b.type.elem) != s) b = convert(b, ValueType::scalar(s), where);
  // Algebraic identities that keep unrolled index arithmetic small.
  if (!cmp && isInteger(s)) {
    auto cb = constInt(b), ca = constInt(a);
    if ((op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Shl || op == BinaryOp::Shr ||
         op == BinaryOp::BitOr || op == BinaryOp::BitXor) && cb && *cb == 0)
      return a;
    if (op == BinaryOp::Add && ca && *ca == 0) return b;
    if ((op == BinaryOp::Mul || op == BinaryOp::Div) && cb && *cb == 1) return a;
    if (op == BinaryOp::Mul && ca && *ca == 1) return b;
    if (op == BinaryOp::Mul && ((ca && *ca == 0) || (cb && *cb == 0))) return Value::ofInt(s, 0);
  }
  // 16-bit floats: compute in f32.
  if (isFloat(s) && scalarBits(s) == 16) {
    ValueType f32 = ValueType::scalar(Scalar::F32);
    Value r = binaryOp(op, convert(a, f32, where), convert(b, f32, where), where);
    return cmp ? r : convert(r, ValueType::scalar(s), where);
  }
  if (isFloat(s) && s != Scalar::F32) {
    diags_.report(DiagKind::CodegenUnsupportedForm, where, "arithmetic on " + std::string(scalarName(s)) +
                                                            " (convert to f32 first)");
    return placeholder(resultType);
  }
  // Immediates go second where the operation commutes.
  if (a.isConst() && !b.isConst() && (isCommutative(op) || cmp)) {
    std::swap(a, b);
    if (cmp) op = swapComparison(op);
  }
  std::string ra = reg(a);
  std::string rb = operand(b);
  std::string ts(ptxArithType(s)), tb(ptxBitType(s));
  if (s == Scalar::Pred) {
    std::string d = out_.newReg(RegClass::Pred);
    rb = reg(b);
    switch (op) {
    case BinaryOp::BitAnd: out_.inst("and.pred " + d + ", " + ra + ", " + rb); break;
    case BinaryOp::BitOr: out_.inst("or.pred " + d + ", " + ra + ", " + rb); break;
    case BinaryOp::BitXor:
    case BinaryOp::Ne: out_.inst("xor.pred " + d + ", " + ra + ", " + rb); break;
    case BinaryOp::Eq: {
      std::string x = out_.newReg(RegClass::Pred);
      out_.inst("xor.pred " + x + ", " + ra + ", " + rb);
      out_.inst("not.pred " + d + ", " + x);
      break;
    }
    default:
      diags_.report(DiagKind::CodegenUnsupportedForm, where, "this operator on pred values");
      break;
    }
    return Value::ofRegs(ValueType::scalar(Scalar::Pred), {d});
  }
  if (cmp && isInteger(s)) {
    if (auto decided = decideComparison(op, a, b)) return Value::ofInt(Scalar::Pred, *decided ? 1 : 0);
  }
  if (cmp) {
    std::string d = out_.newReg(RegClass::Pred);
    out_.inst("setp." + std::string(cmpName(op, isFloat(s))) + "." + ts + " " + d + ", " + ra + ", " + rb);
    return Value::ofRegs(resultType, {d});
  }
  if (isInteger(s) && scalarBits(s) == 32) {
    if (auto r = reassociateAffine(op, a, b, s, where)) return *r;
  }
  if ((op == BinaryOp::Div || op == BinaryOp::Rem) && b.isConst()) {
    if (auto q = divRemByConstant(op, a, b.constant->i, s)) return *q;
  }
  Value d = freshValue(resultType);
  const std::string &rd = d.regs[0];
  if (isFloat(s)) {   // f32
    switch (op) {
    case BinaryOp::Add: out_.inst("add.f32 " + rd + ", " + ra + ", " + rb); break;
    case BinaryOp::Sub: out_.inst("sub.f32 " + rd + ", " + ra + ", " + rb); break;
    case BinaryOp::Mul: out_.inst("mul.f32 " + rd + ", " + ra + ", " + rb); break;
    case BinaryOp::Div: out_.inst("div.rn.f32 " + rd + ", " + ra + ", " + rb); break;
    default:
      diags_.report(DiagKind::CodegenUnsupportedForm, where, "this operator on floats");
      break;
    }
    return d;
  }
  if ((op == BinaryOp::Add || op == BinaryOp::Sub) && b.isConst()) {
    // Remember d = base + constant for address folding (LowerMemory.cpp).
    auto [base, off] = affineParts(a);
    if (!base.empty()) {
      d.affineBase = base;
      d.affineOffset = op == BinaryOp::Add ? off + b.constant->i : off - b.constant->i;
    }
  }
  switch (op) {
  case BinaryOp::Add: out_.inst("add." + ts + " " + rd + ", " + ra + ", " + rb); break;
  case BinaryOp::Sub: out_.inst("sub." + ts + " " + rd + ", " + ra + ", " + rb); break;
  case BinaryOp::Mul: out_.inst("mul.lo." + ts + " " + rd + ", " + ra + ", " + rb); break;
  case BinaryOp::Div: out_.inst("div." + ts + " " + rd + ", " + ra + ", " + rb); break;
  case BinaryOp::Rem: out_.inst("rem." + ts + " " + rd + ", " + ra + ", " + rb); break;
  case BinaryOp::Shl:
  case BinaryOp::Shr: {
    std::string amount = rb;
    if (!b.isConst() && scalarBits(s) == 64) {
      amount = out_.newReg(RegClass::B32);
      out_.inst("cvt.u32.u64 " + amount + ", " + rb);
    }
    if (op == BinaryOp::Shl) out_.inst("shl." + tb + " " + rd + ", " + ra + ", " + amount);
    else out_.inst("shr." + ts + " " + rd + ", " + ra + ", " + amount);
    break;
  }
  case BinaryOp::BitAnd: out_.inst("and." + tb + " " + rd + ", " + ra + ", " + rb); break;
  case BinaryOp::BitOr: out_.inst("or." + tb + " " + rd + ", " + ra + ", " + rb); break;
  case BinaryOp::BitXor: out_.inst("xor." + tb + " " + rd + ", " + ra + ", " + rb); break;
  default:
    diags_.report(DiagKind::CodegenUnsupportedForm, where, "this operator on integers");
    break;
  }
  d.lowerBound = resultLowerBound(op, a, b);
  d.upperBound = resultUpperBound(op, a, b);
  return d;
}

std::optional<int64_t> KernelLowering::lowerBoundOf(const Value &v) const {
  if (v.isConst()) return v.constant->i;
  return v.lowerBound;
}

std::optional<int64_t> KernelLowering::upperBoundOf(const Value &v) const {
  if (v.isConst()) return v.constant->i;
  return v.upperBound;
}

bool KernelLowering::knownNonNegative(const Value &v) const {
  if (v.isConst()) return v.constant->i >= 0 && v.constant->i < (int64_t{1} << 31);
  return v.lowerBound && *v.lowerBound >= 0;
}

// The lower bound of `a op b` for integer scalars, from the operands' bounds (constants are their own).
// Bounds stay within 32-bit index values; anything that could leave them is "unknown".
std::optional<int64_t> KernelLowering::resultLowerBound(BinaryOp op, const Value &a, const Value &b) const {
  constexpr int64_t limit = int64_t{1} << 31;
  auto la = lowerBoundOf(a), lb = lowerBoundOf(b);
  auto bounded = [&](int64_t v) -> std::optional<int64_t> {
    if (v <= -limit || v >= limit) return std::nullopt;
    return v;
  };
  bool na = knownNonNegative(a), nb = knownNonNegative(b);
  switch (op) {
  case BinaryOp::Add:
    if (la && lb) return bounded(*la + *lb);
    return std::nullopt;
  case BinaryOp::Sub:   // only a constant subtrahend has a known upper value
    if (la && b.isConst()) return bounded(*la - b.constant->i);
    return std::nullopt;
  case BinaryOp::Mul:
    if (na && nb) return bounded(*la * *lb);
    return std::nullopt;
  case BinaryOp::Div:
    if (na && nb && *lb > 0 && b.isConst()) return *la / *lb;
    if (na && nb) return 0;
    return std::nullopt;
  case BinaryOp::Rem: case BinaryOp::Shr: case BinaryOp::BitOr: case BinaryOp::BitXor: case BinaryOp::Shl:
    if (na && nb) return 0;
    return std::nullopt;
  case BinaryOp::BitAnd:
    if (na || nb) return 0;
    return std::nullopt;
  default: return std::nullopt;
  }
}

// The upper bound of `a op b` for integer scalars, as resultLowerBound: only where both bounds of the
// operands that matter are known and the result stays within 32-bit index values.
std::optional<int64_t> KernelLowering::resultUpperBound(BinaryOp op, const Value &a, const Value &b) const {
  constexpr int64_t limit = int64_t{1} << 31;
  auto ua = upperBoundOf(a), ub = upperBoundOf(b), lb = lowerBoundOf(b);
  auto bounded = [&](std::optional<int64_t> v) -> std::optional<int64_t> {
    if (!v || *v <= -limit || *v >= limit) return std::nullopt;
    return v;
  };
  bool na = knownNonNegative(a), nb = knownNonNegative(b);
  std::optional<int64_t> divisor = b.isConst() && b.constant->i > 0 ? std::optional<int64_t>(b.constant->i) : std::nullopt;
  switch (op) {
  case BinaryOp::Add:
    if (ua && ub && *ua < limit && *ub < limit && *ua > -limit && *ub > -limit) return bounded(*ua + *ub);
    return std::nullopt;
  case BinaryOp::Sub:
    if (ua && lb && *ua < limit && *lb > -limit && *ua > -limit && *lb < limit) return bounded(*ua - *lb);
    return std::nullopt;
  case BinaryOp::Mul:
    if (na && nb && ua && ub && *ua < limit && *ub < limit) return bounded(*ua * *ub);
    return std::nullopt;
  case BinaryOp::Div:
    if (na && divisor && ua) return *ua / *divisor;
    return std::nullopt;
  case BinaryOp::Rem:
    if (na && divisor) return ua ? std::min(*ua, *divisor - 1) : *divisor - 1;
    return std::nullopt;
  case BinaryOp::Shr:
    if (na && b.isConst() && b.constant->i >= 0 && b.constant->i < 32 && ua) return *ua >> b.constant->i;
    return std::nullopt;
  case BinaryOp::BitAnd:   // x & c <= c for c >= 0, whatever x
    if (b.isConst() && b.constant->i >= 0 && b.constant->i < limit) return ua && na ? std::min(*ua, b.constant->i) : b.constant->i;
    if (a.isConst() && a.constant->i >= 0 && a.constant->i < limit) return ub && nb ? std::min(*ub, a.constant->i) : a.constant->i;
    return std::nullopt;
  default: return std::nullopt;
  }
}

// An integer comparison that the operands' ranges decide (both bounds of both sides known, all within 32-bit
// index values, where signed and unsigned readings agree for non-negative values): its value, else nullopt.
std::optional<bool> KernelLowering::decideComparison(BinaryOp op, const Value &a, const Value &b) const {
  constexpr int64_t limit = int64_t{1} << 31;
  auto la = lowerBoundOf(a), ua = upperBoundOf(a), lb = lowerBoundOf(b), ub = upperBoundOf(b);
  if (!la || !ua || !lb || !ub) return std::nullopt;
  bool bothSigned = isSigned(concreteScalar(a.type.elem)) && isSigned(concreteScalar(b.type.elem));
  for (int64_t v : {*la, *ua, *lb, *ub})
    if (v <= -limit || v >= limit || (!bothSigned && v < 0)) return std::nullopt;
  switch (op) {
  case BinaryOp::Lt: if (*ua < *lb) return true; if (*la >= *ub) return false; break;
  case BinaryOp::Le: if (*ua <= *lb) return true; if (*la > *ub) return false; break;
  case BinaryOp::Gt: if (*la > *ub) return true; if (*ua <= *lb) return false; break;
  case BinaryOp::Ge: if (*la >= *ub) return true; if (*ua < *lb) return false; break;
  case BinaryOp::Eq: if (*ua < *lb || *la > *ub) return false; break;
  case BinaryOp::Ne: if (*ua < *lb || *la > *ub) return true; break;
  default: break;
  }
  return std::nullopt;
}

// Affine reassociation of 32-bit index arithmetic: the constant part of an operand (Value::affineBase +
// affineOffset) is kept outside the operation, so that the unrolled copies of an address computation share
// one register and differ only in a constant, which LowerMemory.cpp folds into the instruction's immediate
// ([%r+imm]).  With x, y registers and c, k, d constants:
//   (x + c1) +/- (y + c2)      -> (x +/- y) + (c1 +/- c2)       exact in two's complement
//   (x + c) * k, (x + c) << k  -> x*k + c*k, (x << k) + (c << k)  exact in two's complement
//   (x + c) / d, (x + c) % d   -> x/d + c/d, x % d               only when x >= 0 is known (from the lower
//                                                                bound of x + c), c >= 0 and d divides c
// e.g. with idx = v * 256 + t (v an unrolled constant): idx / 8 = t / 8 + 32 v and idx % 8 = t % 8, the same
// registers for every v.  Returns nullopt where no rule applies (no operand has a non-zero constant part).
std::optional<Value> KernelLowering::reassociateAffine(BinaryOp op, const Value &a, const Value &b, Scalar s,
                                                       SourceRange where) {
  constexpr int64_t limit = int64_t{1} << 31;
  // The register x and constant c of v = x + c (c != 0), x carrying the lower bound it is known to have.
  auto split = [&](const Value &v) -> std::optional<std::pair<Value, int64_t>> {
    if (v.isConst()) return std::nullopt;
    auto [base, off] = affineParts(v);
    if (base.empty() || off == 0) return std::nullopt;
    Value x = Value::ofRegs(ValueType::scalar(s), {base});
    if (auto lb = lowerBoundOf(v); lb && *lb - off > -limit && *lb - off < limit) x.lowerBound = *lb - off;
    if (auto ub = upperBoundOf(v); ub && *ub - off > -limit && *ub - off < limit) x.upperBound = *ub - off;
    return std::pair<Value, int64_t>{x, off};
  };
  auto plus = [&](const Value &core, int64_t c) {
    return binaryOp(BinaryOp::Add, core, Value::ofInt(s, c), where);
  };
  if ((op == BinaryOp::Add || op == BinaryOp::Sub) && !a.isConst() && !b.isConst()) {
    auto pa = split(a), pb = split(b);
    if (!pa && !pb) return std::nullopt;
    Value x = pa ? pa->first : a, y = pb ? pb->first : b;
    int64_t ca = pa ? pa->second : 0, cb = pb ? pb->second : 0;
    return plus(binaryOp(op, x, y, where), op == BinaryOp::Add ? ca + cb : ca - cb);
  }
  auto k = constInt(b);
  if (!k) return std::nullopt;
  auto pa = split(a);
  if (!pa) return std::nullopt;
  auto [x, c] = *pa;
  if (op == BinaryOp::Mul) return plus(binaryOp(op, x, b, where), c * *k);
  if (op == BinaryOp::Shl && *k >= 0 && *k < 32) return plus(binaryOp(op, x, b, where), c * (int64_t{1} << *k));
  if ((op == BinaryOp::Div || op == BinaryOp::Rem) && *k > 1 && c > 0 && c % *k == 0 && knownNonNegative(x)) {
    Value core = binaryOp(op, x, b, where);
    return op == BinaryOp::Div ? plus(core, c / *k) : core;
  }
  return std::nullopt;
}

// Integer division and remainder by a constant.  ptxas expands div/rem by an immediate into the generic
// reciprocal sequence (~20 instructions), so they are strength-reduced here:
//   dividend known in [0, 2^31) (or u32) and d = 2^k:   shr.u32 / and.b32
//   dividend known in [0, 2^31), other d >= 3:           q = mul.hi.u32(n, m) >> l (divisionMagic31 in
//     Value.cpp, which proves it exact); remainder n - q * d (one mad).
//   signed dividend of unknown sign and d = 2^k:         round toward zero with the bias (n >> 31) >>> (32-k)
//     (C semantics): q = (n + bias) >> k,  r = n - ((n + bias) & -d).
// Anything else (negative or zero divisors, signed 32-bit non-powers of two) stays a div/rem instruction.
// 64-bit operands: divRemByConstant64.
std::optional<Value> KernelLowering::divRemByConstant(BinaryOp op, const Value &a, int64_t divisor, Scalar s) {
  if (s == Scalar::I64) return divRemByConstant64(op, a, divisor);
  if (s != Scalar::I32 && s != Scalar::U32) return std::nullopt;
  if (divisor <= 1 || divisor >= (int64_t{1} << 31)) return std::nullopt;
  std::string n = reg(a);
  bool nonNeg = knownNonNegative(a);
  if (auto log2 = exactLog2(divisor))
    return divRemResult(op, a, divisor, s, divRemPowerOfTwo(op, n, *log2, 32, nonNeg || s == Scalar::U32));
  if (!nonNeg) return std::nullopt;
  DivisionMagic magic = divisionMagic31(divisor);
  std::string hi = out_.newReg(RegClass::B32), q = out_.newReg(RegClass::B32);
  out_.inst("mul.hi.u32 " + hi + ", " + n + ", " + std::to_string(magic.multiplier));
  out_.inst("shr.u32 " + q + ", " + hi + ", " + std::to_string(magic.shift));
  if (op == BinaryOp::Div) return divRemResult(op, a, divisor, s, q);
  std::string r = out_.newReg(RegClass::B32);
  out_.inst("mad.lo.s32 " + r + ", " + q + ", " + std::to_string(-divisor) + ", " + n);
  return divRemResult(op, a, divisor, s, r);
}

// i64 division and remainder by a constant d >= 2.  ptxas does not specialise a 64-bit div/rem by an
// immediate: each one is a call to its generic division routine (~70 instructions; a ring counter's
// `it % S` per pipeline stage costs more than the stage's tile work).  Strength-reduced here:
//   d = 2^k:    as the 32-bit case, in 64 bits (shifts and masks when the dividend is known >= 0, else the
//               rounding bias)
//   other d:    q = mul.hi.u64(|n|, m) >> l (divisionMagic63, exact for |n| <= 2^63), negated for a negative
//               n (skipped when n is known >= 0); remainder n - q * d (one mad).
std::optional<Value> KernelLowering::divRemByConstant64(BinaryOp op, const Value &a, int64_t divisor) {
  if (divisor <= 1) return std::nullopt;
  const Scalar s = Scalar::I64;
  std::string n = reg(a);
  bool nonNeg = knownNonNegative(a);
  if (auto log2 = exactLog2(divisor)) return divRemResult(op, a, divisor, s, divRemPowerOfTwo(op, n, *log2, 64, nonNeg));
  auto b64 = [&] { return out_.newReg(RegClass::B64); };
  DivisionMagic64 magic = divisionMagic63(divisor);
  std::string magnitude = n;
  if (!nonNeg) {
    magnitude = b64();
    out_.inst("abs.s64 " + magnitude + ", " + n);   // |INT64_MIN| reads as 2^63 unsigned
  }
  std::string hi = b64(), q = b64();
  out_.inst("mul.hi.u64 " + hi + ", " + magnitude + ", " + std::to_string(magic.multiplier) + "U");
  out_.inst("shr.u64 " + q + ", " + hi + ", " + std::to_string(magic.shift));
  if (!nonNeg) {
    std::string negative = out_.newReg(RegClass::Pred), negated = b64(), signedQ = b64();
    out_.inst("setp.lt.s64 " + negative + ", " + n + ", 0");
    out_.inst("neg.s64 " + negated + ", " + q);
    out_.inst("selp.b64 " + signedQ + ", " + negated + ", " + q + ", " + negative);
    q = signedQ;
  }
  if (op == BinaryOp::Div) return divRemResult(op, a, divisor, s, q);
  std::string r = b64();
  out_.inst("mad.lo.s64 " + r + ", " + q + ", " + std::to_string(-divisor) + ", " + n);
  return divRemResult(op, a, divisor, s, r);
}

// Division or remainder of register n by 2^log2 in `bits` (32 or 64) bits: a shift or a mask when the
// dividend reads as non-negative (`plain`: known >= 0, or unsigned), else the rounding bias
// (n + ((n >> bits-1) >>> (bits - log2))), which rounds toward zero (C semantics):
// q = (n + bias) >> log2, r = n - ((n + bias) & -2^log2).  Returns the result register.
std::string KernelLowering::divRemPowerOfTwo(BinaryOp op, const std::string &n, unsigned log2, unsigned bits,
                                             bool plain) {
  const RegClass cls = bits == 64 ? RegClass::B64 : RegClass::B32;
  const std::string w = std::to_string(bits);
  const int64_t divisor = int64_t{1} << log2;
  std::string d = out_.newReg(cls);
  if (plain) {
    if (op == BinaryOp::Div) out_.inst("shr.u" + w + " " + d + ", " + n + ", " + std::to_string(log2));
    else out_.inst("and.b" + w + " " + d + ", " + n + ", " + std::to_string(divisor - 1));
    return d;
  }
  std::string sign = out_.newReg(cls), bias = out_.newReg(cls), biased = out_.newReg(cls);
  out_.inst("shr.s" + w + " " + sign + ", " + n + ", " + std::to_string(bits - 1));
  out_.inst("shr.u" + w + " " + bias + ", " + sign + ", " + std::to_string(bits - log2));
  out_.inst("add.s" + w + " " + biased + ", " + n + ", " + bias);
  if (op == BinaryOp::Div) {
    out_.inst("shr.s" + w + " " + d + ", " + biased + ", " + std::to_string(log2));
  } else {
    std::string rounded = out_.newReg(cls);
    out_.inst("and.b" + w + " " + rounded + ", " + biased + ", " + std::to_string(-divisor));
    out_.inst("sub.s" + w + " " + d + ", " + n + ", " + rounded);
  }
  return d;
}

// The value of a strength-reduced `a op divisor` held in register r, with the bounds the operands give it.
Value KernelLowering::divRemResult(BinaryOp op, const Value &a, int64_t divisor, Scalar s, const std::string &r) {
  Value v = Value::ofRegs(ValueType::scalar(s), {r});
  if (knownNonNegative(a)) v.lowerBound = 0;
  v.upperBound = resultUpperBound(op, a, Value::ofInt(s, divisor));
  return v;
}

Value KernelLowering::toPred(const Value &v) {
  if (concreteScalar(v.type.elem) == Scalar::Pred) return v;
  return convert(v, ValueType::scalar(Scalar::Pred), out_.location());
}

// ------------------------------------------------------------------------------------------- vectors
std::vector<Value> KernelLowering::unpackVector(const Value &v) {
  std::vector<Value> out;
  ValueType et = ValueType::scalar(v.type.elem);
  auto st = storageOf(v.type);
  if (!st) return std::vector<Value>(elementCount(v.type), placeholder(et));
  if (st->elemsPerReg == 1) {
    for (size_t i = 0; i < v.regs.size(); ++i) {
      out.push_back(Value::ofRegs(et, {v.regs[i]}));
      if (i < v.elementAffine.size()) std::tie(out.back().affineBase, out.back().affineOffset) = v.elementAffine[i];
    }
    return out;
  }
  if (st->elemsPerReg != 2) {
    diags_.report(DiagKind::CodegenUnsupportedForm, out_.location(), "element access on 8-bit vectors");
    return std::vector<Value>(elementCount(v.type), placeholder(et));
  }
  for (const auto &r : v.regs) {
    std::string lo = out_.newReg(RegClass::B16), hi = out_.newReg(RegClass::B16);
    out_.inst("mov.b32 {" + lo + ", " + hi + "}, " + r);
    out.push_back(Value::ofRegs(et, {lo}));
    out.push_back(Value::ofRegs(et, {hi}));
  }
  return out;
}

Value KernelLowering::vectorElement(const Value &v, unsigned index) {
  ValueType et = ValueType::scalar(v.type.elem);
  auto st = storageOf(v.type);
  if (v.type.elem == Scalar::TF32) {   // a tf32 fragment element reads as the f32 it holds
    if (!st || index >= elementCount(v.type)) return placeholder(ValueType::scalar(Scalar::F32));
    std::string f = out_.newReg(RegClass::F32);
    out_.inst("mov.b32 " + f + ", " + v.regs[index]);
    return Value::ofRegs(ValueType::scalar(Scalar::F32), {f});
  }
  if (!st || index >= elementCount(v.type)) return placeholder(et);
  if (st->elemsPerReg == 1) return Value::ofRegs(et, {v.regs[index]});
  if (st->elemsPerReg != 2) {
    diags_.report(DiagKind::CodegenUnsupportedForm, out_.location(), "element access on 8-bit vectors");
    return placeholder(et);
  }
  std::string lo = out_.newReg(RegClass::B16), hi = out_.newReg(RegClass::B16);
  out_.inst("mov.b32 {" + lo + ", " + hi + "}, " + v.regs[index / 2]);
  return Value::ofRegs(et, {index % 2 ? hi : lo});
}

// dst = f rounded to tf32: to nearest with ties to even, or toward zero.  sm_90 and newer have cvt.rn / cvt.rz
// .tf32.f32 (one instruction); before, cvt.tf32.f32 rounds only with ties away (.rna), so the rounding is done on
// the bits: to nearest, add 0xfff plus the lowest kept bit; then clear the 13 dropped bits; NaN and infinity pass
// unchanged.
void KernelLowering::roundToTf32(const std::string &dst, const std::string &f, bool towardZero) {
  if (archIn(arch_, archsFrom(Arch::SM90))) {
    out_.inst(std::string("cvt.") + (towardZero ? "rz" : "rn") + ".tf32.f32 " + dst + ", " + f);
    return;
  }
  std::string bits = out_.newReg(RegClass::B32), cut = out_.newReg(RegClass::B32), exp = out_.newReg(RegClass::B32);
  std::string special = out_.newReg(RegClass::Pred);
  out_.inst("mov.b32 " + bits + ", " + f);
  std::string kept = bits;
  if (!towardZero) {
    out_.inst("shr.u32 " + cut + ", " + bits + ", 13");
    out_.inst("and.b32 " + cut + ", " + cut + ", 1");
    out_.inst("add.u32 " + cut + ", " + cut + ", 4095");
    out_.inst("add.u32 " + cut + ", " + bits + ", " + cut);
    kept = cut;
  }
  out_.inst("and.b32 " + cut + ", " + kept + ", -8192");
  out_.inst("and.b32 " + exp + ", " + bits + ", 2139095040");
  out_.inst("setp.eq.u32 " + special + ", " + exp + ", 2139095040");
  out_.inst("selp.b32 " + dst + ", " + bits + ", " + cut + ", " + special);
}

// tf32.rz(x) as a value: x rounded toward zero to tf32 (constants folded).
Value KernelLowering::tf32TowardZero(const Value &x0, SourceRange where) {
  const ValueType f32 = ValueType::scalar(Scalar::F32);
  Value x = x0.isConst() ? adapt(x0, f32) : (x0.type == f32 ? x0 : convert(x0, f32, where));
  if (x.isConst()) {
    const uint32_t bits = tf32TowardZeroBits(f32Bits(x.constant->f));
    float f;
    std::memcpy(&f, &bits, 4);
    return Value::ofConst(Scalar::F32, ConstScalar::ofFloat(f));
  }
  std::string bits = out_.newReg(RegClass::B32);   // cvt to tf32 writes a b32 register
  roundToTf32(bits, reg(x), true);
  Value d = freshValue(f32);
  out_.inst("mov.b32 " + d.regs[0] + ", " + bits);
  return d;
}

void KernelLowering::setVectorElement(Value &vec, unsigned index, const Value &element, bool truncate) {
  auto st = storageOf(vec.type);
  if (!st || index >= elementCount(vec.type)) return;
  if (vec.type.elem == Scalar::TF32) {   // a tf32 fragment element: the f32 value rounded to nearest, ties even
    const ValueType f32 = ValueType::scalar(Scalar::F32);
    Value f = element.isConst() ? adapt(element, f32) : element;
    if (f.isConst()) {
      const uint32_t bits = truncate ? tf32TowardZeroBits(f32Bits(f.constant->f)) : tf32Bits(f.constant->f);
      out_.inst("mov.b32 " + vec.regs[index] + ", " + std::to_string(bits));
      return;
    }
    if (!(f.type == f32)) f = convert(f, f32, out_.location());
    if (truncate) out_.inst("mov.b32 " + vec.regs[index] + ", " + reg(f));
    else roundToTf32(vec.regs[index], reg(f));
    return;
  }
  Value e = element;
  ValueType et = ValueType::scalar(vec.type.elem);
  if (!e.isConst() && !(e.type == et)) e = convert(e, et, out_.location());
  if (st->elemsPerReg == 1) {
    Value dst = Value::ofRegs(et, {vec.regs[index]});
    copyInto(e, dst);
    return;
  }
  if (st->elemsPerReg != 2) {
    diags_.report(DiagKind::CodegenUnsupportedForm, out_.location(), "element assignment on 8-bit vectors");
    return;
  }
  std::string lo = out_.newReg(RegClass::B16), hi = out_.newReg(RegClass::B16);
  const std::string &r = vec.regs[index / 2];
  out_.inst("mov.b32 {" + lo + ", " + hi + "}, " + r);
  std::string ne = reg(adapt(e, et));
  out_.inst("mov.b32 " + r + ", {" + (index % 2 ? lo : ne) + ", " + (index % 2 ? ne : hi) + "}");
}

Value KernelLowering::packVector(const ValueType &t, const std::vector<Value> &elements) {
  ValueType et = ValueType::scalar(t.elem);
  auto st = storageOf(t);
  const unsigned count = elementCount(t);
  if (st && st->elemsPerReg == 1 && elements.size() == count) {
    // Immutable registers of the element type are used as they are (no copies), keeping their affine parts.
    bool direct = true;
    for (const Value &e : elements)
      direct = direct && !e.isConst() && e.type == et && e.regs.size() == 1 && !mutableRegs_.count(e.regs[0]);
    if (direct) {
      Value v = Value::ofRegs(t, {});
      for (const Value &e : elements) {
        v.regs.push_back(e.regs[0]);
        v.elementAffine.push_back(affineParts(e));
      }
      return v;
    }
  }
  Value out = freshValue(t);
  if (!st || elements.size() != count) return out;
  if (st->elemsPerReg == 1) {
    for (unsigned i = 0; i < count; ++i) {
      Value dst = Value::ofRegs(et, {out.regs[i]});
      Value e = elements[i];
      if (!e.isConst() && !(e.type == et)) e = convert(e, et, out_.location());
      copyInto(e, dst);
    }
    return out;
  }
  if (st->elemsPerReg != 2) {
    diags_.report(DiagKind::CodegenUnsupportedForm, out_.location(), "building 8-bit vectors");
    return out;
  }
  for (unsigned i = 0; i < count; i += 2) {
    Value lo = elements[i], hi = elements[i + 1];
    if (!lo.isConst() && !(lo.type == et)) lo = convert(lo, et, out_.location());
    if (!hi.isConst() && !(hi.type == et)) hi = convert(hi, et, out_.location());
    out_.inst("mov.b32 " + out.regs[i / 2] + ", {" + reg(adapt(lo, et)) + ", " + reg(adapt(hi, et)) + "}");
  }
  return out;
}

Value KernelLowering::selectValue(const Value &p, const Value &a0, const Value &b0) {
  Value pr = toPred(p);
  if (pr.isConst()) return pr.constant->i ? a0 : b0;
  Scalar s = commonScalar(a0.type.elem, b0.type.elem);
  ValueType t = a0.type.isScalar() ? (b0.type.isScalar() ? ValueType::scalar(concreteScalar(s)) : b0.type) : a0.type;
  Value a = adapt(a0, t), b = adapt(b0, t);
  if (t.isScalar() && concreteScalar(t.elem) == Scalar::Pred) {
    // (p & a) | (!p & b)
    std::string np = out_.newReg(RegClass::Pred), x = out_.newReg(RegClass::Pred), y = out_.newReg(RegClass::Pred),
                d = out_.newReg(RegClass::Pred);
    out_.inst("not.pred " + np + ", " + reg(pr));
    out_.inst("and.pred " + x + ", " + reg(pr) + ", " + reg(a));
    out_.inst("and.pred " + y + ", " + np + ", " + reg(b));
    out_.inst("or.pred " + d + ", " + x + ", " + y);
    return Value::ofRegs(t, {d});
  }
  Value d = freshValue(t);
  auto st = storageOf(t);
  std::string ty = st ? std::string(regDeclType(st->cls)).substr(1) : "b32";
  if (ty == "f32") ty = "f32";
  for (size_t i = 0; i < d.regs.size(); ++i) {
    std::string ra = a.isConst() ? operand(a) : a.regs[i];
    std::string rb = b.isConst() ? operand(b) : b.regs[i];
    out_.inst("selp." + ty + " " + d.regs[i] + ", " + ra + ", " + rb + ", " + reg(pr));
  }
  return d;
}

// ------------------------------------------------------------------------------------------- conversions
Value KernelLowering::convert(const Value &v, const ValueType &to, SourceRange where) {
  if (v.type == to) return v;
  if (v.isConst() && to.isScalar()) {
    Scalar t = concreteScalar(to.elem);
    return Value::ofConst(t, convertConst(v.type.elem, t, *v.constant));
  }
  if (to.isFrag() && v.type.isFrag()) return fragmentConvert(v, to, where);
  if (to.isFrag() || v.type.isFrag()) {
    diags_.report(DiagKind::CodegenUnsupportedForm, where, "a conversion between a fragment and a non-fragment");
    return placeholder(to);
  }
  if (to.isVector() || v.type.isVector()) {
    if (v.type.isScalar() && to.isVector()) {   // splat
      Value e = convert(v, ValueType::scalar(to.elem), where);
      return packVector(to, std::vector<Value>(to.lanes, e));
    }
    if (v.type.lanes != to.lanes) {
      diags_.report(DiagKind::BadConversion, where, typeName(v.type), typeName(to));
      return placeholder(to);
    }
    Scalar from = v.type.elem, dst = to.elem;
    // bf16 pairs -> f32: exact bit placement.
    if (from == Scalar::BF16 && dst == Scalar::F32) {
      Value out = freshValue(to);
      for (size_t i = 0; i < v.regs.size(); ++i) {
        std::string lo = out_.newReg(RegClass::B32), hi = out_.newReg(RegClass::B32);
        out_.inst("shl.b32 " + lo + ", " + v.regs[i] + ", 16");
        out_.inst("and.b32 " + hi + ", " + v.regs[i] + ", -65536");
        out_.inst("mov.b32 " + out.regs[2 * i] + ", " + lo);
        out_.inst("mov.b32 " + out.regs[2 * i + 1] + ", " + hi);
      }
      return out;
    }
    // f32 pairs -> bf16x2 / f16x2: one cvt per pair (the high half is the first source operand).
    if (from == Scalar::F32 && (dst == Scalar::BF16 || dst == Scalar::F16)) {
      Value out = freshValue(to);
      std::string op = dst == Scalar::BF16 ? "cvt.rn.bf16x2.f32 " : "cvt.rn.f16x2.f32 ";
      for (size_t i = 0; i < out.regs.size(); ++i)
        out_.inst(op + out.regs[i] + ", " + v.regs[2 * i + 1] + ", " + v.regs[2 * i]);
      return out;
    }
    std::vector<Value> lanes = unpackVector(v);
    for (auto &l : lanes) l = convert(l, ValueType::scalar(dst), where);
    return packVector(to, lanes);
  }
  // scalar -> scalar
  Scalar from = concreteScalar(v.type.elem), dst = concreteScalar(to.elem);
  ValueType dt = ValueType::scalar(dst);
  if (from == dst) {
    Value same = Value::ofRegs(dt, v.regs);
    same.lowerBound = v.lowerBound;
    same.upperBound = v.upperBound;
    return same;
  }
  if (from == Scalar::F8E4M3 || from == Scalar::F8E5M2 || dst == Scalar::F8E4M3 || dst == Scalar::F8E5M2) {
    diags_.report(DiagKind::CodegenUnsupportedForm, where, "scalar f8 conversions");
    return placeholder(dt);
  }
  const std::string src = reg(v);
  if (from == Scalar::Pred) {
    Value d = freshValue(dt);
    if (isFloat(dst)) {
      if (dst != Scalar::F32) return convert(convert(v, ValueType::scalar(Scalar::F32), where), dt, where);
      out_.inst("selp.f32 " + d.regs[0] + ", 0f3F800000, 0f00000000, " + src);
    } else {
      out_.inst("selp." + std::string(ptxBitType(dst)) + " " + d.regs[0] + ", 1, 0, " + src);
    }
    return d;
  }
  if (dst == Scalar::Pred) {
    std::string p = out_.newReg(RegClass::Pred);
    if (isFloat(from) && from != Scalar::F32) {
      Value f = convert(v, ValueType::scalar(Scalar::F32), where);
      out_.inst("setp.neu.f32 " + p + ", " + reg(f) + ", 0f00000000");
    } else if (isFloat(from)) {
      out_.inst("setp.neu.f32 " + p + ", " + src + ", 0f00000000");
    } else {
      out_.inst("setp.ne." + std::string(ptxBitType(from)) + " " + p + ", " + src + ", 0");
    }
    return Value::ofRegs(dt, {p});
  }
  // 16-bit floats go through f32 unless converting to/from f32.
  bool from16 = isFloat(from) && scalarBits(from) == 16, dst16 = isFloat(dst) && scalarBits(dst) == 16;
  if ((from16 && dst != Scalar::F32) || (dst16 && from != Scalar::F32)) {
    return convert(convert(v, ValueType::scalar(Scalar::F32), where), dt, where);
  }
  Value d = freshValue(dt);
  const std::string &rd = d.regs[0];
  std::string ta(ptxArithType(from)), tb(ptxArithType(dst));
  if (isFloat(from) && isFloat(dst)) {
    out_.inst((dst16 ? "cvt.rn." : "cvt.") + tb + "." + ta + " " + rd + ", " + src);
  } else if (isFloat(dst)) {
    out_.inst("cvt.rn." + tb + "." + ta + " " + rd + ", " + src);
  } else if (isFloat(from)) {
    out_.inst("cvt.rzi." + tb + "." + ta + " " + rd + ", " + src);
  } else if (scalarBits(from) == scalarBits(dst)) {
    out_.inst("mov.b" + std::to_string(scalarBits(dst)) + " " + rd + ", " + src);
    if (knownNonNegative(v)) {   // in [0, 2^31): the same value in either signedness
      d.lowerBound = v.lowerBound;
      d.upperBound = v.upperBound;
    }
  } else if (scalarBits(dst) > scalarBits(from)) {
    out_.inst("cvt." + std::string(isSigned(from) ? "s64." : "u64.") + ta + " " + rd + ", " + src);
    d.lowerBound = v.lowerBound;
    if (knownNonNegative(v)) d.upperBound = v.upperBound;
  } else {
    out_.inst("cvt.u32.u64 " + rd + ", " + src);
  }
  return d;
}

Value KernelLowering::lowerConversionCall(const CallExpr &e, const ValueType &to) {
  if (e.args.size() == 1) {
    Value v = lowerExpr(*e.args[0]);
    if (v.type.isFrag() && to.isScalar()) return convert(v, liftedType(v.type, to.elem), e.range);
    if (v.isConst() && to.isScalar()) {
      Scalar t = concreteScalar(to.elem);
      return Value::ofConst(t, convertConst(v.type.elem, t, *v.constant));
    }
    return convert(v, to, e.range);
  }
  if (!to.isVector() || e.args.size() != to.lanes) {
    diags_.report(DiagKind::BadConversion, e.range, std::to_string(e.args.size()) + " values", typeName(to));
    return placeholder(to);
  }
  std::vector<Value> elems;
  for (const auto &a : e.args) elems.push_back(lowerExpr(*a));
  // f32 pairs into 16-bit floats: one cvt.rn.<t>x2.f32 per pair.
  auto st = storageOf(to);
  bool allF32 = true;
  for (const auto &v : elems) allF32 = allF32 && concreteScalar(v.type.elem) == Scalar::F32 && v.type.isScalar();
  if (st && st->elemsPerReg == 2 && allF32 && (to.elem == Scalar::BF16 || to.elem == Scalar::F16)) {
    Value out = freshValue(to);
    std::string op = to.elem == Scalar::BF16 ? "cvt.rn.bf16x2.f32 " : "cvt.rn.f16x2.f32 ";
    for (size_t i = 0; i < out.regs.size(); ++i)
      out_.inst(op + out.regs[i] + ", " + reg(elems[2 * i + 1]) + ", " + reg(elems[2 * i]));
    return out;
  }
  for (auto &v : elems) v = v.isConst() ? adapt(v, ValueType::scalar(to.elem)) : convert(v, ValueType::scalar(to.elem), e.range);
  return packVector(to, elems);
}

} // namespace cake::codegen

// Intrinsic calls: conversions named by a type, math (ex2 rcp rsqrt sqrt lg2 tanh abs max min fma and the .ftz
// forms), select, cdiv, shuffles and warp reductions (the latter two delegate to LowerShuffle.cpp); atomics and
// ordered / unordered delegate to LowerAtomics.cpp.
//
// Math maps to the single PTX instruction of the same name on f32: ex2.approx.f32, rcp.approx.f32,
// rsqrt.approx.f32, lg2.approx.f32 (MUFU; ex2.ftz etc. to the .ftz forms), sqrt.rn.f32, abs/max/min/fma.rn.
// f16/bf16 arguments are widened to f32 and the result rounded back once.  Constant arguments of max/min/abs/cdiv
// fold.  Calls with fragment arguments apply element-wise (LowerFragments.cpp); rowmax/rowmin/rowsum reduce a
// fragment's rows, colmax/colmin/colsum its columns.
#include "codegen/KernelLowering.h"

namespace cake::codegen {

namespace {

// The PTX instruction of a float math intrinsic (FloatMath.def) or abs on f32.  The .ftz forms are one MUFU
// instruction; the others add the subnormal handling ptxas expands them to (docs/codegen.md).
std::string_view floatUnaryInstruction(std::string_view name) {
  const FloatMathInfo *math = floatMathOf(name);
  return math ? math->ptx : "abs.f32";
}

} // namespace

Value KernelLowering::floatUnaryIntrinsic(std::string_view name, const Value &x0, SourceRange where) {
  Scalar s = concreteScalar(x0.type.elem);
  if (x0.type.isVector()) {
    std::vector<Value> lanes = unpackVector(x0);
    for (auto &l : lanes) l = floatUnaryIntrinsic(name, l, where);
    return packVector(x0.type, lanes);
  }
  if (s != Scalar::F32) {
    Value r = floatUnaryIntrinsic(name, convert(x0, ValueType::scalar(Scalar::F32), where), where);
    return convert(r, ValueType::scalar(s), where);
  }
  Value x = adapt(x0, ValueType::scalar(Scalar::F32));
  Value d = freshValue(ValueType::scalar(Scalar::F32));
  out_.inst(std::string(floatUnaryInstruction(name)) + " " + d.regs[0] + ", " + reg(x));
  return d;
}

Value KernelLowering::lowerCall(const CallExpr &e) {
  const std::string &c = e.callee;
  // Conversions named by a type: f32(x), bf16x8(v), bf16x2(a, b).
  if (auto t = parseValueTypeName(c)) return lowerConversionCall(e, *t);
  // Memory atomics take their first argument as an address, not a value (LowerAtomics.cpp).
  if (const IntrinsicInfo *intr = lookupIntrinsic(c))
    if (auto op = atomicOpOf(intr->id)) return lowerAtomicCall(e, *op);

  std::vector<Value> args;
  // Arguments are lowered in order; every intrinsic evaluates all of them.
  for (const auto &a : e.args) args.push_back(lowerExpr(*a));
  if (isLineReduction(c)) {
    if (args.size() != 1 || !args[0].type.isFrag()) {
      diags_.report(DiagKind::CodegenUnsupportedForm, e.range, "this operand of " + c);
      return placeholder(ValueType::scalar(Scalar::F32));
    }
    return lineReduce(c, args[0], e.range);
  }
  for (const Value &a : args)
    if (a.type.isFrag()) return fragmentIntrinsic(c, args, e.range);
  return intrinsicOnValues(c, args, e.range);
}

// One intrinsic on lowered scalar or vector arguments (fragments are lifted element by element above).
Value KernelLowering::intrinsicOnValues(const std::string &c, const std::vector<Value> &args, SourceRange where) {
  auto need = [&](size_t n) {
    if (args.size() == n) return true;
    diags_.report(DiagKind::WrongArgumentCount, where, c, std::to_string(n), std::to_string(args.size()));
    return false;
  };

  if (c == "tf32.rz") {
    if (!need(1)) return placeholder(ValueType::scalar(Scalar::F32));
    return tf32TowardZero(args[0], where);
  }
  if (c == "ordered" || c == "unordered") {
    if (!need(1)) return placeholder(ValueType::scalar(c == "ordered" ? Scalar::U32 : Scalar::F32));
    return lowerOrderedEncoding(args[0], c == "ordered");
  }
  if (const IntrinsicInfo *info = lookupIntrinsic(c); info && info->rule == IntrinsicRule::FloatUnary) {
    if (!need(1)) return placeholder(ValueType::scalar(Scalar::F32));
    return floatUnaryIntrinsic(c, args[0], where);
  }
  if (c == "abs") {
    if (!need(1)) return placeholder(ValueType::scalar(Scalar::F32));
    Value x = args[0];
    if (x.isConst()) {
      ConstScalar k = *x.constant;
      if (isFloat(x.type.elem)) k.f = k.f < 0 ? -k.f : k.f;
      else k.i = normaliseInt(concreteScalar(x.type.elem), k.i < 0 ? -k.i : k.i);
      return Value::ofConst(x.type.elem, k);
    }
    if (isFloat(x.type.elem) || x.type.isVector()) return floatUnaryIntrinsic("abs", x, where);
    Value d = freshValue(ValueType::scalar(concreteScalar(x.type.elem)));
    out_.inst("abs." + std::string(ptxArithType(x.type.elem)) + " " + d.regs[0] + ", " + reg(x));
    return d;
  }
  if (c == "max" || c == "min") {
    if (!need(2)) return placeholder(ValueType::scalar(Scalar::F32));
    Value a = args[0], b = args[1];
    if (a.type.isVector() || b.type.isVector()) {
      ValueType vt = a.type.isVector() ? a.type : b.type;
      std::vector<Value> la = a.type.isVector() ? unpackVector(a) : std::vector<Value>(vt.lanes, a);
      std::vector<Value> lb = b.type.isVector() ? unpackVector(b) : std::vector<Value>(vt.lanes, b);
      std::vector<Value> r;
      for (size_t i = 0; i < la.size() && i < lb.size(); ++i) {
        Value p = binaryOp(c == "max" ? BinaryOp::Gt : BinaryOp::Lt, la[i], lb[i], where);
        r.push_back(selectValue(p, la[i], lb[i]));
      }
      return packVector(vt, r);
    }
    Scalar s = isUntyped(a.type.elem) ? b.type.elem : a.type.elem;
    if (a.isConst() && b.isConst()) {
      Value gt = binaryOp(BinaryOp::Gt, a, b, where);
      bool pickA = (c == "max") == (gt.constant && gt.constant->i != 0);
      return adapt(pickA ? a : b, ValueType::scalar(s));
    }
    Scalar cs = concreteScalar(s);
    if (isFloat(cs) && cs != Scalar::F32) {
      ValueType f32 = ValueType::scalar(Scalar::F32);
      Value fa = convert(adapt(a, f32), f32, where), fb = convert(adapt(b, f32), f32, where);
      Value d = freshValue(f32);
      out_.inst(c + ".f32 " + d.regs[0] + ", " + reg(fa) + ", " + operand(fb));
      return convert(d, ValueType::scalar(cs), where);
    }
    a = adapt(a, ValueType::scalar(cs));
    b = adapt(b, ValueType::scalar(cs));
    if (a.isConst()) std::swap(a, b);
    Value d = freshValue(ValueType::scalar(cs));
    out_.inst(c + "." + std::string(ptxArithType(cs)) + " " + d.regs[0] + ", " + reg(a) + ", " + operand(b));
    return d;
  }
  if (c == "fma") {
    if (!need(3)) return placeholder(ValueType::scalar(Scalar::F32));
    Scalar s = Scalar::F32;
    for (const auto &a : args)
      if (!isUntyped(a.type.elem)) s = concreteScalar(a.type.elem);
    if (args[0].type.isVector() || args[1].type.isVector() || args[2].type.isVector()) {
      diags_.report(DiagKind::CodegenUnsupportedForm, where, "fma on vectors (write it per lane)");
      return placeholder(args[0].type);
    }
    ValueType f32 = ValueType::scalar(Scalar::F32);
    std::vector<std::string> ops;
    for (auto &a : args) ops.push_back(reg(convert(adapt(a, ValueType::scalar(s)), f32, where)));
    if (s != Scalar::F32 && (!isFloat(s) || scalarBits(s) != 16)) {
      diags_.report(DiagKind::CodegenUnsupportedForm, where, "fma on this type");
      return placeholder(ValueType::scalar(s));
    }
    Value d = freshValue(f32);
    out_.inst("fma.rn.f32 " + d.regs[0] + ", " + ops[0] + ", " + ops[1] + ", " + ops[2]);
    return s == Scalar::F32 ? d : convert(d, ValueType::scalar(s), where);
  }
  if (c == "select") {
    if (!need(3)) return placeholder(ValueType::scalar(Scalar::F32));
    return selectValue(args[0], args[1], args[2]);
  }
  if (c == "cdiv") {
    if (!need(2)) return placeholder(ValueType::scalar(Scalar::I32));
    // a / b + (a % b > 0), for b > 0: the rounded-up quotient without the a + b - 1 that wraps near 2^31
    // (constant arguments fold).
    if (auto a = constInt(args[0]), b = constInt(args[1]); a && b && *b > 0) {
      int64_t q = *a / *b + (*a % *b > 0 ? 1 : 0);
      return Value::ofConst(Scalar::IntLit, ConstScalar::ofInt(q));
    }
    Value zero = Value::ofConst(Scalar::IntLit, ConstScalar::ofInt(0));
    Value q = binaryOp(BinaryOp::Div, args[0], args[1], where);
    Value r = binaryOp(BinaryOp::Rem, args[0], args[1], where);
    Value up = selectValue(binaryOp(BinaryOp::Gt, r, zero, where), Value::ofConst(Scalar::IntLit, ConstScalar::ofInt(1)), zero);
    return binaryOp(BinaryOp::Add, q, up, where);
  }
  if (c == "shfl.xor" || c == "shfl.down" || c == "shfl.up" || c == "shfl.idx") {
    if (!need(2)) return placeholder(ValueType::scalar(Scalar::F32));
    static const std::pair<std::string_view, std::string_view> modes[] = {
        {"shfl.xor", "bfly"}, {"shfl.down", "down"}, {"shfl.up", "up"}, {"shfl.idx", "idx"}};
    std::string_view mode;
    for (auto &[n, m] : modes)
      if (c == n) mode = m;
    return shuffle(mode, args[0], args[1], where);
  }
  if (c == "warp.sum" || c == "warp.max" || c == "warp.min") {
    if (!need(1)) return placeholder(ValueType::scalar(Scalar::F32));
    if (c == "warp.sum") return warpReduce(BinaryOp::Add, "", args[0], where);
    return warpReduce(BinaryOp::Add, c == "warp.max" ? "max" : "min", args[0], where);
  }
  if (c == "warp.any" || c == "warp.all") {
    if (!need(1)) return placeholder(ValueType::scalar(Scalar::Pred));
    return warpVote(c == "warp.any" ? "any" : "all", args[0]);
  }
  diags_.report(DiagKind::CodegenUnsupportedForm, where, "the function '" + c + "'");
  return placeholder(ValueType::scalar(Scalar::F32));
}

} // namespace cake::codegen

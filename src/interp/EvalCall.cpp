// Calls: conversions named by a type, math intrinsics, shuffles, warp reductions and votes, atomics
// (see WarpExecutor.h; the precision of each intrinsic is listed in docs/interpreter.md).
//
// Math is computed in f32 (f16/bf16 operands are widened, the result rounded back once): ex2 is exp2f,
// lg2 log2f, rcp 1/x, rsqrt 1/sqrtf, tanh tanhf; the .ftz forms first read a subnormal argument as zero of its
// sign, and ex2.ftz / rcp.ftz write a subnormal result as zero (lg2 and rsqrt have none).  The GPU's .approx
// instructions differ from these by a few ulp (ex2.approx.f32: max relative error 2^-22; rcp/rsqrt.approx:
// 1 ulp), so tests compare them with a tolerance.  warp.sum/max/min use the same 5-step xor butterfly
// (distances 16 8 4 2 1) as the generated code, so f32 sums round exactly as on the GPU.
#include "frontend/Intrinsics.h"
#include "interp/WarpExecutor.h"
#include "support/Tf32.h"

#include <cmath>
#include <cstring>

namespace cake::interp {

void WarpExecutor::requireFullWarp(const char *what, SourceRange where, LaneMask mask) {
  if (mask != kAllLanes)
    fail(DiagKind::InterpPartialCollective, where, {what, std::to_string(laneCount(mask)), std::to_string(warp), blockText()},
         "execute the collective in all 32 lanes (outside lane-dependent control flow)");
}

WarpValue WarpExecutor::evalCall(const CallExpr &c, LaneMask mask) {
  const IntrinsicInfo *info = lookupIntrinsic(c.callee);
  if (!info) return evalConversion(c, mask);
  switch (info->rule) {
  case IntrinsicRule::Shuffle: return evalShuffle(c, mask);
  case IntrinsicRule::WarpReduce: case IntrinsicRule::WarpVote: return evalWarpReduce(c, mask);
  case IntrinsicRule::Atomic: return evalAtomic(c, mask);
  case IntrinsicRule::RowReduce: case IntrinsicRule::ColReduce: return lineReduce(c, mask);
  default: return evalMath(c, mask);
  }
}

WarpValue WarpExecutor::evalConversion(const CallExpr &c, LaneMask mask) {
  if (!c.type || !(c.type->isScalar() || c.type->isVector() || c.type->isFragment()))
    fail(DiagKind::InterpUnsupported, c.range, {"the conversion '" + c.callee + "' of fragments"});
  ScalarKind to = c.type->elementScalar();
  if (isF8Scalar(to)) fail(DiagKind::InterpUnsupported, c.range, {"f8 types"});
  unsigned width = widthOf(c.type);
  WarpValue r(ValueKind::of(to), width);
  // One argument: element-wise (or a scalar broadcast); several: packing, one element each.
  std::vector<WarpValue> args;
  for (const Ptr<Expr> &a : c.args) args.push_back(eval(*a, mask));
  for (int l : lanesOf(mask))
    for (unsigned e = 0; e < width; ++e) {
      const WarpValue &src = args.size() == 1 ? args[0] : args[std::min<size_t>(e, args.size() - 1)];
      const Scalar &s = src.at(l, args.size() == 1 && src.width > 1 ? e : 0);
      ScalarKind from = src.kind.tag == ValueKind::IntLit ? ScalarKind::I64
                        : src.kind.tag == ValueKind::FloatLit ? ScalarKind::F32 : src.kind.scalar;
      if (isF8Scalar(from)) fail(DiagKind::InterpUnsupported, c.range, {"f8 types"});
      r.at(l, e) = convertScalar(s, from, to);
    }
  return r;
}

namespace {

// A subnormal f32 as the .ftz instructions read and write it: zero of the same sign.
float flushSubnormal(float f) { return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f; }

double mathOf(IntrinsicId id, double x) {
  float f = static_cast<float>(x);
  switch (id) {
  case IntrinsicId::Ex2: return std::exp2(f);
  case IntrinsicId::Lg2: return std::log2(f);
  case IntrinsicId::Rcp: return 1.0f / f;
  case IntrinsicId::Rsqrt: return 1.0f / std::sqrt(f);
  case IntrinsicId::Ex2Ftz: return flushSubnormal(std::exp2(flushSubnormal(f)));
  case IntrinsicId::Lg2Ftz: return std::log2(flushSubnormal(f));
  case IntrinsicId::RcpFtz: return flushSubnormal(1.0f / flushSubnormal(f));
  case IntrinsicId::RsqrtFtz: return 1.0f / std::sqrt(flushSubnormal(f));
  case IntrinsicId::Sqrt: return std::sqrt(f);
  case IntrinsicId::Tanh: return std::tanh(f);
  default: return std::fabs(x);
  }
}

uint32_t floatBits(double x) {
  float f = static_cast<float>(x);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

} // namespace

WarpValue WarpExecutor::evalMath(const CallExpr &c, LaneMask mask) {
  const IntrinsicInfo *info = lookupIntrinsic(c.callee);
  ValueKind k = kindOf(c.type);
  std::vector<WarpValue> a;
  for (size_t i = 0; i < c.args.size(); ++i) {
    bool isCondition = info->id == IntrinsicId::Select && i == 0;
    bool keepsOwnType = info->id == IntrinsicId::Ordered || info->id == IntrinsicId::Unordered;
    WarpValue v = eval(*c.args[i], mask);
    if (c.type && c.type->isFragment()) v = broadcastFragment(std::move(v), c.args[i]->type, c.type, mask);
    a.push_back(isCondition || keepsOwnType ? std::move(v) : adapt(std::move(v), k, mask));
  }
  unsigned width = 1;   // element-wise over vectors and fragments
  for (const WarpValue &v : a) width = std::max(width, v.width);
  WarpValue r(k, width);
  const bool isFloat = k.isFloat();
  auto round = [&](double v) { return k.isUntyped() ? v : roundToFloat(v, k.scalar); };
  auto wrap = [&](int64_t v) { return k.isUntyped() ? v : wrapToInt(v, k.scalar); };
  for (int l : lanesOf(mask))
  for (unsigned e = 0; e < width; ++e) {
    auto arg = [&](size_t i) -> const Scalar & { return a[i].at(l, a[i].width == 1 ? 0 : e); };
    Scalar &out = r.at(l, e);
    switch (info->id) {
    case IntrinsicId::Ex2: case IntrinsicId::Lg2: case IntrinsicId::Rcp: case IntrinsicId::Rsqrt:
    case IntrinsicId::Sqrt: case IntrinsicId::Tanh: case IntrinsicId::Ex2Ftz: case IntrinsicId::Lg2Ftz:
    case IntrinsicId::RcpFtz: case IntrinsicId::RsqrtFtz:
      out.f = round(mathOf(info->id, arg(0).f));
      break;
    case IntrinsicId::Tf32Rz: {
      uint32_t b = floatBits(static_cast<float>(arg(0).f));
      b = tf32TowardZeroBits(b);
      float f;
      std::memcpy(&f, &b, 4);
      out.f = f;
      break;
    }
    case IntrinsicId::Abs:
      if (isFloat) out.f = std::fabs(arg(0).f);
      else out.i = wrap(arg(0).i < 0 ? int64_t(0ull - uint64_t(arg(0).i)) : arg(0).i);
      break;
    case IntrinsicId::Max: case IntrinsicId::Min: {
      bool mx = info->id == IntrinsicId::Max;
      if (isFloat) out.f = mx ? std::fmax(arg(0).f, arg(1).f) : std::fmin(arg(0).f, arg(1).f);
      else out.i = mx ? std::max(arg(0).i, arg(1).i) : std::min(arg(0).i, arg(1).i);
      break;
    }
    case IntrinsicId::Fma:
      if (!k.isUntyped() && k.scalar == ScalarKind::F32)
        out.f = std::fma(static_cast<float>(arg(0).f), static_cast<float>(arg(1).f), static_cast<float>(arg(2).f));
      else out.f = round(std::fma(arg(0).f, arg(1).f, arg(2).f));
      break;
    case IntrinsicId::Select: out = arg(0).i ? arg(1) : arg(2); break;
    case IntrinsicId::Cdiv: {
      int64_t x = arg(0).i, y = arg(1).i;
      if (y == 0) fail(DiagKind::InterpDivisionByZero, c.range, {"cdiv", whereText(l)});
      out.i = wrap(int64_t(uint64_t(x) + uint64_t(y) - 1) / y);
      break;
    }
    case IntrinsicId::Ordered: {
      uint32_t b = floatBits(arg(0).f);
      uint32_t sign = uint32_t(int32_t(b) >> 31);
      out.i = b ^ (sign | 0x80000000u);
      r.kind = ValueKind::of(ScalarKind::U32);
      break;
    }
    case IntrinsicId::Unordered: {
      uint32_t u = uint32_t(arg(0).i);
      uint32_t sign = uint32_t(int32_t(~u) >> 31);
      uint32_t b = u ^ (sign | 0x80000000u);
      float f;
      std::memcpy(&f, &b, 4);
      out.f = f;
      r.kind = ValueKind::of(ScalarKind::F32);
      break;
    }
    default: fail(DiagKind::InterpUnsupported, c.calleeRange, {"the intrinsic '" + c.callee + "'"});
    }
  }
  return r;
}

WarpValue WarpExecutor::evalShuffle(const CallExpr &c, LaneMask mask) {
  requireFullWarp(c.callee.c_str(), c.range, mask);
  const IntrinsicInfo *info = lookupIntrinsic(c.callee);
  WarpValue v = eval(*c.args[0], mask), n = eval(*c.args[1], mask);
  WarpValue r(v.kind, v.width);
  for (int l = 0; l < kLanes; ++l) {
    int64_t b = n.at(l).i, j = l;
    switch (info->id) {
    case IntrinsicId::ShflXor: j = l ^ (b & 31); break;
    case IntrinsicId::ShflDown: j = l + b; break;
    case IntrinsicId::ShflUp: j = l - b; break;
    default: j = b & 31; break;
    }
    if (j < 0 || j >= kLanes) j = l;   // out of the warp: the lane keeps its own value (PTX shfl.sync)
    for (unsigned e = 0; e < v.width; ++e) r.at(l, e) = v.at(int(j), e);
  }
  return r;
}

WarpValue WarpExecutor::evalWarpReduce(const CallExpr &c, LaneMask mask) {
  requireFullWarp(c.callee.c_str(), c.range, mask);
  const IntrinsicInfo *info = lookupIntrinsic(c.callee);
  WarpValue v = evalAs(*c.args[0], mask, kindOf(c.type));
  if (info->rule == IntrinsicRule::WarpVote) {
    bool any = false, all = true;
    for (int l = 0; l < kLanes; ++l) {
      any = any || v.at(l).i;
      all = all && v.at(l).i;
    }
    return WarpValue::uniformInt(ValueKind::of(ScalarKind::Pred), info->id == IntrinsicId::WarpAny ? any : all);
  }
  const bool isFloat = v.kind.isFloat();
  for (int dist = 16; dist >= 1; dist /= 2) {
    WarpValue next = v;
    for (int l = 0; l < kLanes; ++l) {
      const Scalar &p = v.at(l), &q = v.at(l ^ dist);
      Scalar &out = next.at(l);
      switch (info->id) {
      case IntrinsicId::WarpSum:
        if (isFloat) out.f = roundToFloat(p.f + q.f, v.kind.scalar);
        else out.i = wrapToInt(int64_t(uint64_t(p.i) + uint64_t(q.i)), v.kind.scalar);
        break;
      case IntrinsicId::WarpMax:
        if (isFloat) out.f = std::fmax(p.f, q.f);
        else out.i = std::max(p.i, q.i);
        break;
      default:
        if (isFloat) out.f = std::fmin(p.f, q.f);
        else out.i = std::min(p.i, q.i);
        break;
      }
    }
    v = std::move(next);
  }
  return v;
}

WarpValue WarpExecutor::evalAtomic(const CallExpr &c, LaneMask mask) {
  const IntrinsicInfo *info = lookupIntrinsic(c.callee);
  Place p = place(*c.args[0], mask, "atomic");
  if (p.length != 1 || p.kind == Place::Register)
    fail(DiagKind::InterpUnsupported, c.range, {"atomics on packed 16-bit pairs"});
  ValueKind k = p.elem;
  WarpValue v = evalAs(*c.args[1], mask, k);
  WarpValue cmp = info->id == IntrinsicId::AtomCas ? v : WarpValue();
  if (info->id == IntrinsicId::AtomCas) v = evalAs(*c.args[2], mask, k);
  WarpValue old(k, 1);
  // Lanes in ascending order, each read-modify-write whole: the order the hardware picks is unspecified,
  // and only the warp holding the baton runs, so every atomic is indivisible.
  for (int l : lanesOf(mask)) {
    Place one = p;
    atomicAccess = true;
    WarpValue cur = load(one, LaneMask(1) << l, k);
    atomicAccess = false;
    old.at(l) = cur.at(l);
    Scalar nv = cur.at(l);
    const Scalar &x = v.at(l);
    bool isFloat = k.isFloat();
    switch (info->id) {
    case IntrinsicId::AtomAdd:
      if (isFloat) nv.f = roundToFloat(nv.f + x.f, k.scalar);
      else nv.i = wrapToInt(int64_t(uint64_t(nv.i) + uint64_t(x.i)), k.scalar);
      break;
    case IntrinsicId::AtomMin:
      if (isFloat) nv.f = std::fmin(nv.f, x.f); else nv.i = std::min(nv.i, x.i);
      break;
    case IntrinsicId::AtomMax:
      if (isFloat) nv.f = std::fmax(nv.f, x.f); else nv.i = std::max(nv.i, x.i);
      break;
    case IntrinsicId::AtomExch: nv = x; break;
    case IntrinsicId::AtomCas:
      if (isFloat ? cur.at(l).f == cmp.at(l).f : cur.at(l).i == cmp.at(l).i) nv = x;
      break;
    case IntrinsicId::AtomAnd: nv.i = nv.i & x.i; break;
    case IntrinsicId::AtomOr: nv.i = nv.i | x.i; break;
    case IntrinsicId::AtomXor: nv.i = wrapToInt(nv.i ^ x.i, k.scalar); break;
    default: CAKE_INTERNAL_ERROR("interpreter: unexpected atomic");
    }
    WarpValue w(k, 1);
    w.at(l) = nv;
    atomicAccess = true;
    store(one, w, LaneMask(1) << l);
    atomicAccess = false;
  }
  return old;
}

} // namespace cake::interp

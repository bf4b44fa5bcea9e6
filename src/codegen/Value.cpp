// Constant folding of CAKE scalars with the GPU's semantics (see Value.h).
#include "codegen/Value.h"
#include "support/Tf32.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

namespace cake::codegen {

Value Value::ofInt(Scalar s, int64_t v) { return ofConst(s, ConstScalar::ofInt(normaliseInt(s, v))); }

int64_t normaliseInt(Scalar s, int64_t v) {
  switch (s) {
  case Scalar::Pred: return v != 0;
  case Scalar::I32: return static_cast<int32_t>(static_cast<uint32_t>(v));
  case Scalar::U32: return static_cast<int64_t>(static_cast<uint32_t>(v));
  default: return v;
  }
}

uint32_t f32Bits(double v) { return std::bit_cast<uint32_t>(static_cast<float>(v)); }
uint32_t tf32Bits(double v) { return tf32RoundBits(f32Bits(v)); }

namespace {
// Rounds the f32 pattern to a 16-bit format with `mant` mantissa bits and `expBits` exponent bits, nearest
// even, with overflow to infinity and gradual underflow.  Computed from the double directly.
uint16_t toHalfLike(double v, int expBits, int mantBits) {
  uint16_t sign = std::signbit(v) ? 1 : 0;
  uint16_t signBit = static_cast<uint16_t>(sign << 15);
  int bias = (1 << (expBits - 1)) - 1;
  uint16_t expMask = static_cast<uint16_t>((1 << expBits) - 1);
  if (std::isnan(v)) return static_cast<uint16_t>(signBit | (expMask << mantBits) | (1 << (mantBits - 1)));
  double a = std::fabs(v);
  if (std::isinf(a)) return static_cast<uint16_t>(signBit | (expMask << mantBits));
  if (a == 0) return signBit;
  int e = 0;
  double m = std::frexp(a, &e);   // a = m * 2^e, m in [0.5, 1)
  int exp = e - 1 + bias;         // biased exponent for 1.xxx form
  double scaled;
  uint32_t bits;
  if (exp <= 0) {
    // Subnormal: value = mant * 2^(1 - bias - mantBits)
    scaled = std::ldexp(a, bias - 1 + mantBits);
    double r = std::nearbyint(scaled);   // default rounding mode: nearest even
    bits = static_cast<uint32_t>(r);     // may round up into the smallest normal: still right
  } else {
    scaled = std::ldexp(m * 2, mantBits);   // 1.xxx * 2^mant, in [2^mant, 2^(mant+1))
    double r = std::nearbyint(scaled);
    uint32_t mant = static_cast<uint32_t>(r);
    if (mant == (1u << (mantBits + 1))) {   // rounded up to the next binade
      mant >>= 1;
      ++exp;
    }
    if (exp >= expMask) return static_cast<uint16_t>(signBit | (expMask << mantBits));
    bits = (static_cast<uint32_t>(exp) << mantBits) | (mant & ((1u << mantBits) - 1));
  }
  return static_cast<uint16_t>(signBit | bits);
}

double fromHalfLike(uint16_t bits, int expBits, int mantBits) {
  int bias = (1 << (expBits - 1)) - 1;
  bool neg = bits >> 15;
  int exp = (bits >> mantBits) & ((1 << expBits) - 1);
  uint32_t mant = bits & ((1u << mantBits) - 1);
  double v;
  if (exp == (1 << expBits) - 1) v = mant ? std::numeric_limits<double>::quiet_NaN() : INFINITY;
  else if (exp == 0) v = std::ldexp(static_cast<double>(mant), 1 - bias - mantBits);
  else v = std::ldexp(static_cast<double>(mant | (1u << mantBits)), exp - bias - mantBits);
  return neg ? -v : v;
}
} // namespace

uint16_t f16Bits(double v) { return toHalfLike(v, 5, 10); }
uint16_t bf16Bits(double v) { return toHalfLike(static_cast<float>(v), 8, 7); }
double f16Value(uint16_t bits) { return fromHalfLike(bits, 5, 10); }
double bf16Value(uint16_t bits) { return fromHalfLike(bits, 8, 7); }

double roundFloat(Scalar s, double v) {
  switch (s) {
  case Scalar::F32: return static_cast<float>(v);
  case Scalar::F16: return f16Value(f16Bits(v));
  case Scalar::BF16: return bf16Value(bf16Bits(v));
  default: return v;
  }
}

std::optional<unsigned> exactLog2(int64_t v) {
  if (v <= 0 || (v & (v - 1)) != 0) return std::nullopt;
  return static_cast<unsigned>(std::countr_zero(static_cast<uint64_t>(v)));
}

DivisionMagic divisionMagic31(int64_t divisor) {
  // Exact for every n < 2^31: with m = 2^(32+l)/d + e (0 <= e < 1), n*m / 2^(32+l) = n/d + n*e/2^(32+l)
  // and n*e/2^(32+l) < 2^31/2^(32+l) = 2^(-1-l) < 1/d because d < 2^(l+1), so the floor does not change.
  unsigned l = 0;
  while ((int64_t{2} << l) <= divisor) ++l;   // l = floor(log2 d) <= 30
  const uint64_t num = uint64_t{1} << (32 + l);
  const uint64_t m = (num + static_cast<uint64_t>(divisor) - 1) / static_cast<uint64_t>(divisor);
  return {static_cast<uint32_t>(m), l};
}

DivisionMagic64 divisionMagic63(int64_t divisor) {
  // As divisionMagic31 one size up: with m = 2^(64+l)/d + e/d (0 <= e < d <= 2^(l+1)), n*m / 2^(64+l) =
  // n/d + n*e / (d 2^(64+l)), and n*e <= 2^63 (2^(l+1) - 1) < 2^(64+l): the excess stays below 1/d, so the
  // floor does not change for any n <= 2^63.
  unsigned l = 0;
  while ((int64_t{2} << l) <= divisor && l < 62) ++l;   // l = floor(log2 d) <= 62
  __extension__ typedef unsigned __int128 U128;
  const U128 num = U128{1} << (64 + l);
  const U128 d = static_cast<U128>(divisor);
  return {static_cast<uint64_t>((num + d - 1) / d), l};
}

std::optional<ConstScalar> foldBinary(BinaryOp op, Scalar s, ConstScalar a, ConstScalar b) {
  bool cmp = op == BinaryOp::Eq || op == BinaryOp::Ne || op == BinaryOp::Lt || op == BinaryOp::Le ||
             op == BinaryOp::Gt || op == BinaryOp::Ge;
  if (isFloat(s)) {
    Scalar t = concreteScalar(s);
    double x = a.f, y = b.f;
    if (cmp) {
      bool r = false;
      switch (op) {
      case BinaryOp::Eq: r = x == y; break;
      case BinaryOp::Ne: r = x != y; break;
      case BinaryOp::Lt: r = x < y; break;
      case BinaryOp::Le: r = x <= y; break;
      case BinaryOp::Gt: r = x > y; break;
      default: r = x >= y; break;
      }
      return ConstScalar::ofInt(r);
    }
    double r;
    switch (op) {
    case BinaryOp::Add: r = x + y; break;
    case BinaryOp::Sub: r = x - y; break;
    case BinaryOp::Mul: r = x * y; break;
    case BinaryOp::Div: return std::nullopt;   // div.rn with f32 and approx forms differ: leave to PTX
    default: return std::nullopt;
    }
    // Untyped literal arithmetic stays in double until it meets a type.
    return ConstScalar::ofFloat(s == Scalar::FloatLit ? r : roundFloat(t, r));
  }
  Scalar t = s == Scalar::IntLit ? Scalar::I64 : s;
  bool sign = isSigned(t) || t == Scalar::Pred;
  int64_t x = a.i, y = b.i;
  uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
  unsigned width = t == Scalar::Pred ? 1 : scalarBits(t);
  int64_t r = 0;
  switch (op) {
  case BinaryOp::Add: r = static_cast<int64_t>(ux + uy); break;
  case BinaryOp::Sub: r = static_cast<int64_t>(ux - uy); break;
  case BinaryOp::Mul: r = static_cast<int64_t>(ux * uy); break;
  case BinaryOp::Div:
  case BinaryOp::Rem:
    if (y == 0) return std::nullopt;
    if (sign && x == std::numeric_limits<int64_t>::min() && y == -1) return std::nullopt;
    if (sign) r = op == BinaryOp::Div ? x / y : x % y;
    else r = static_cast<int64_t>(op == BinaryOp::Div ? ux / uy : ux % uy);
    break;
  case BinaryOp::Shl:
    if (y < 0 || y >= static_cast<int64_t>(width)) return std::nullopt;
    r = static_cast<int64_t>(ux << y);
    break;
  case BinaryOp::Shr:
    if (y < 0 || y >= static_cast<int64_t>(width)) return std::nullopt;
    r = sign ? (x >> y) : static_cast<int64_t>(ux >> y);
    break;
  case BinaryOp::BitAnd: case BinaryOp::LogAnd: r = x & y; break;
  case BinaryOp::BitOr: case BinaryOp::LogOr: r = x | y; break;
  case BinaryOp::BitXor: r = x ^ y; break;
  case BinaryOp::Eq: return ConstScalar::ofInt(x == y);
  case BinaryOp::Ne: return ConstScalar::ofInt(x != y);
  case BinaryOp::Lt: return ConstScalar::ofInt(sign ? x < y : ux < uy);
  case BinaryOp::Le: return ConstScalar::ofInt(sign ? x <= y : ux <= uy);
  case BinaryOp::Gt: return ConstScalar::ofInt(sign ? x > y : ux > uy);
  case BinaryOp::Ge: return ConstScalar::ofInt(sign ? x >= y : ux >= uy);
  }
  return ConstScalar::ofInt(normaliseInt(t, r));
}

std::optional<ConstScalar> foldUnary(UnaryOp op, Scalar s, ConstScalar a) {
  if (isFloat(s)) {
    if (op != UnaryOp::Neg) return std::nullopt;
    return ConstScalar::ofFloat(-a.f);
  }
  Scalar t = s == Scalar::IntLit ? Scalar::I64 : s;
  switch (op) {
  case UnaryOp::Neg: return ConstScalar::ofInt(normaliseInt(t, static_cast<int64_t>(0 - static_cast<uint64_t>(a.i))));
  case UnaryOp::Not: return ConstScalar::ofInt(a.i == 0);
  case UnaryOp::BitNot: return ConstScalar::ofInt(normaliseInt(t, ~a.i));
  }
  return std::nullopt;
}

ConstScalar convertConst(Scalar from, Scalar to, ConstScalar c) {
  bool fromF = isFloat(from), toF = isFloat(to);
  if (fromF && toF) return ConstScalar::ofFloat(roundFloat(concreteScalar(to), c.f));
  if (!fromF && toF) {
    double v = isSigned(from) || from == Scalar::Pred ? static_cast<double>(c.i)
                                                      : static_cast<double>(static_cast<uint64_t>(c.i));
    return ConstScalar::ofFloat(roundFloat(concreteScalar(to), v));
  }
  if (fromF && !toF) {
    Scalar t = concreteScalar(to);
    if (std::isnan(c.f)) return ConstScalar::ofInt(0);
    double lo, hi;
    if (t == Scalar::I32) { lo = -2147483648.0; hi = 2147483647.0; }
    else if (t == Scalar::U32) { lo = 0; hi = 4294967295.0; }
    else if (t == Scalar::Pred) return ConstScalar::ofInt(c.f != 0);
    else { lo = -9223372036854775808.0; hi = 9223372036854775807.0; }
    double v = std::trunc(c.f);
    if (v <= lo) return ConstScalar::ofInt(static_cast<int64_t>(lo));
    if (v >= hi) return ConstScalar::ofInt(t == Scalar::I64 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(hi));
    return ConstScalar::ofInt(static_cast<int64_t>(v));
  }
  return ConstScalar::ofInt(normaliseInt(concreteScalar(to), c.i));
}

std::string ptxImmediate(Scalar s, ConstScalar c) {
  char buf[32];
  switch (concreteScalar(s)) {
  case Scalar::F32:
    std::snprintf(buf, sizeof buf, "0f%08X", f32Bits(c.f));
    return buf;
  case Scalar::F16:
    std::snprintf(buf, sizeof buf, "0x%04X", f16Bits(c.f));
    return buf;
  case Scalar::BF16:
    std::snprintf(buf, sizeof buf, "0x%04X", bf16Bits(c.f));
    return buf;
  case Scalar::U32:
    return std::to_string(static_cast<uint32_t>(c.i));
  case Scalar::Pred:
    return c.i ? "1" : "0";
  default:
    return std::to_string(c.i);
  }
}

} // namespace cake::codegen

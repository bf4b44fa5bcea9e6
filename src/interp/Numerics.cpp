// Numerics: bit-exact conversions and memory images of scalars (see Numerics.h).
#include "interp/Numerics.h"
#include "support/Tf32.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace cake::interp {

uint16_t floatToBf16Bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);   // quiet NaN
  uint32_t lsb = (u >> 16) & 1;
  u += 0x7fffu + lsb;   // round to nearest even; a carry into the exponent rounds up to inf correctly
  return static_cast<uint16_t>(u >> 16);
}

float bf16BitsToFloat(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

uint16_t floatToF16Bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return sign | 0x7e00;                  // NaN
  if (a >= 0x477ff000u) return sign | 0x7c00;                 // rounds to >= 65520: inf
  if (a < 0x33000001u) return sign;                           // below half the smallest subnormal: 0
  int exp = int(a >> 23) - 127;
  uint32_t mant = (a & 0x7fffff) | 0x800000;                  // 24-bit significand
  int shift = exp >= -14 ? 13 : 13 + (-14 - exp);             // bits dropped (normal: 13; subnormal: more)
  uint32_t kept = mant >> shift;
  uint32_t rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
  if (rest > half || (rest == half && (kept & 1))) ++kept;
  if (exp >= -14) {
    // kept holds 11 bits (implicit 1 included); a carry to 12 bits bumps the exponent.
    uint32_t e = uint32_t(exp + 15);
    if (kept & 0x800) { kept >>= 1; ++e; }
    return static_cast<uint16_t>(sign | (e << 10) | (kept & 0x3ff));
  }
  return static_cast<uint16_t>(sign | kept);                  // subnormal (a carry makes the smallest normal)
}

float f16BitsToFloat(uint16_t b) {
  uint32_t sign = uint32_t(b & 0x8000) << 16, e = (b >> 10) & 0x1f, m = b & 0x3ff;
  float mag;
  if (e == 0) mag = std::ldexp(float(m), -24);
  else if (e == 31) mag = m ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else mag = std::ldexp(float(m | 0x400), int(e) - 25);
  uint32_t u;
  std::memcpy(&u, &mag, 4);
  u |= sign;
  std::memcpy(&mag, &u, 4);
  return mag;
}

float tf32Round(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u = tf32RoundBits(u);
  std::memcpy(&f, &u, 4);
  return f;
}

double roundToFloat(double x, ScalarKind k) {
  float f = static_cast<float>(x);   // the double -> float rounding is to nearest even
  switch (k) {
  case ScalarKind::BF16: return bf16BitsToFloat(floatToBf16Bits(f));
  case ScalarKind::F16: return f16BitsToFloat(floatToF16Bits(f));
  case ScalarKind::TF32: return tf32Round(f);
  default: return f;
  }
}

int64_t wrapToInt(int64_t x, ScalarKind k) {
  switch (k) {
  case ScalarKind::I32: return static_cast<int32_t>(static_cast<uint32_t>(x));
  case ScalarKind::U32: return static_cast<uint32_t>(x);
  case ScalarKind::Pred: return x != 0;
  default: return x;
  }
}

namespace {

int64_t saturatingTruncate(double x, ScalarKind to) {
  if (std::isnan(x)) return 0;
  double t = std::trunc(x);
  double lo, hi;
  switch (to) {
  case ScalarKind::I32: lo = -2147483648.0; hi = 2147483647.0; break;
  case ScalarKind::U32: lo = 0; hi = 4294967295.0; break;
  default: lo = -9223372036854775808.0; hi = 9223372036854775807.0; break;
  }
  if (t <= lo) return static_cast<int64_t>(lo);
  if (t >= hi) return to == ScalarKind::I64 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(hi);
  return static_cast<int64_t>(t);
}

} // namespace

Scalar convertScalar(const Scalar &v, ScalarKind from, ScalarKind to) {
  Scalar r;
  bool fromFloat = isFloatScalar(from), toFloat = isFloatScalar(to);
  if (fromFloat && toFloat) r.f = roundToFloat(v.f, to);
  else if (fromFloat) r.i = to == ScalarKind::Pred ? v.f != 0 : saturatingTruncate(v.f, to);
  else if (toFloat) {
    // Integer -> float rounds once: u32/i32 are exact in double, i64 goes through one rounding to float.
    double d = from == ScalarKind::I64 ? double(static_cast<float>(v.i)) : double(v.i);
    r.f = roundToFloat(d, to);
  } else r.i = wrapToInt(v.i, to);
  return r;
}

unsigned scalarBytes(ScalarKind k) {
  switch (k) {
  case ScalarKind::Pred: case ScalarKind::F8E4M3: case ScalarKind::F8E5M2: return 1;
  case ScalarKind::F16: case ScalarKind::BF16: return 2;
  case ScalarKind::I64: return 8;
  default: return 4;
  }
}

Scalar loadScalar(const uint8_t *p, ScalarKind k) {
  Scalar s;
  switch (k) {
  case ScalarKind::Pred: s.i = p[0] != 0; break;
  case ScalarKind::I32: { int32_t v; std::memcpy(&v, p, 4); s.i = v; break; }
  case ScalarKind::U32: { uint32_t v; std::memcpy(&v, p, 4); s.i = v; break; }
  case ScalarKind::I64: { int64_t v; std::memcpy(&v, p, 8); s.i = v; break; }
  case ScalarKind::F32: { float v; std::memcpy(&v, p, 4); s.f = v; break; }
  case ScalarKind::F16: { uint16_t v; std::memcpy(&v, p, 2); s.f = f16BitsToFloat(v); break; }
  case ScalarKind::BF16: { uint16_t v; std::memcpy(&v, p, 2); s.f = bf16BitsToFloat(v); break; }
  default: break;   // f8: refused before any access (E0903)
  }
  return s;
}

void storeScalar(uint8_t *p, ScalarKind k, const Scalar &s) {
  switch (k) {
  case ScalarKind::Pred: p[0] = s.i != 0; break;
  case ScalarKind::I32: case ScalarKind::U32: { uint32_t v = static_cast<uint32_t>(s.i); std::memcpy(p, &v, 4); break; }
  case ScalarKind::I64: std::memcpy(p, &s.i, 8); break;
  case ScalarKind::F32: { float v = static_cast<float>(s.f); std::memcpy(p, &v, 4); break; }
  case ScalarKind::F16: { uint16_t v = floatToF16Bits(static_cast<float>(s.f)); std::memcpy(p, &v, 2); break; }
  case ScalarKind::BF16: { uint16_t v = floatToBf16Bits(static_cast<float>(s.f)); std::memcpy(p, &v, 2); break; }
  default: break;
  }
}

} // namespace cake::interp

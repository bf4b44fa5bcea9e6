// Value: what a CAKE expression lowers to - either a compile-time constant (scalars only) or a list of
// typed PTX registers (vectors and fragments use several, see ValueType.h for the storage layout).
//
// Constant folding lives here as pure functions (unit-tested in tests/unit/test_codegen_values.cpp):
// integers are folded with the wrap-around of their PTX type, floats with the rounding of theirs (f32 via
// float, f16/bf16 via round-to-nearest-even on the bit pattern), so a folded result equals what the GPU
// would have computed.  Anything that cannot be folded exactly (division by zero, ex2) is left to PTX.
#pragma once
#include "codegen/ValueType.h"
#include "frontend/AST.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cake::codegen {

// One constant scalar.  Integers and preds use `i` (normalised to their type: i32 sign-extended, u32
// zero-extended); floats use `f` (already rounded to their type).
struct ConstScalar {
  int64_t i = 0;
  double f = 0;
  static ConstScalar ofInt(int64_t v) { return {v, 0}; }
  static ConstScalar ofFloat(double v) { return {0, v}; }
};

struct Value {
  ValueType type;
  std::optional<ConstScalar> constant;   // set: a compile-time constant (then regs is empty)
  std::vector<std::string> regs;         // otherwise: the registers, in storage order
  // Integer scalars known to equal affineBase + affineOffset (affineBase an immutable register): lets
  // address computation move the constant into the instruction's immediate offset.
  std::string affineBase;
  int64_t affineOffset = 0;
  // A known lower bound of an integer scalar; a bound >= 0 also means the value is below 2^31.  Sources:
  // thread/block indices, shape variables, loop counters (their start); propagated through + - * / % >> &
  // with constants and other bounded values (index arithmetic is assumed not to overflow, as for
  // affineBase).  Set only on immutable results and loop variables, never on a var's registers.  Lets
  // division and remainder by a constant become shifts, masks and multiply-high (LowerArith.cpp).
  std::optional<int64_t> lowerBound;
  // A known upper bound, under the same rules: from tid.x (threads - 1), the lane (31) and the warp index,
  // through + - * / % >> & with constants and bounded values.  With the lower bound it decides comparisons
  // at compile time (a copy loop's `if v * 256 + t < 1024` guard when every thread passes it).
  std::optional<int64_t> upperBound;
  // Fragments and vectors of 32-bit integers built from affine elements (coordinates such as acc.col):
  // each element's affineBase / affineOffset, so that unpacking restores them (empty when unknown).
  std::vector<std::pair<std::string, int64_t>> elementAffine;

  bool isConst() const { return constant.has_value(); }
  bool valid() const { return isConst() || !regs.empty(); }
  static Value ofConst(Scalar s, ConstScalar c) {
    Value v;
    v.type = ValueType::scalar(s);
    v.constant = c;
    return v;
  }
  static Value ofInt(Scalar s, int64_t v);
  static Value ofRegs(ValueType t, std::vector<std::string> regs) {
    Value v;
    v.type = t;
    v.regs = std::move(regs);
    return v;
  }
};

// Wraps an integer to the width and signedness of `s` (pred -> 0/1).
int64_t normaliseInt(Scalar s, int64_t v);
// Rounds a double to the precision of float type `s`.
double roundFloat(Scalar s, double v);
uint32_t f32Bits(double v);
// The f32 nearest v rounded to tf32 (support/Tf32.h): 10 mantissa bits, to nearest with ties to even, the 13
// low bits zero (NaN and infinity unchanged).
uint32_t tf32Bits(double v);
uint16_t f16Bits(double v);    // round to nearest even
uint16_t bf16Bits(double v);   // round to nearest even
double f16Value(uint16_t bits);
double bf16Value(uint16_t bits);

// Folds `a op b` in type `s` (the operands' common type; comparison results are pred 0/1).  nullopt when
// the result is not defined at compile time (integer division by zero, shift out of range).
std::optional<ConstScalar> foldBinary(BinaryOp op, Scalar s, ConstScalar a, ConstScalar b);
std::optional<ConstScalar> foldUnary(UnaryOp op, Scalar s, ConstScalar a);
// Converts a constant between scalar types (float->int truncates toward zero, saturating like cvt.rzi.sat).
ConstScalar convertConst(Scalar from, Scalar to, ConstScalar c);

// PTX immediate for a constant of type `s`: "42", "-3", "0f3F800000"; 16-bit floats give their bit pattern
// ("0x3C00") which only mov.b16 accepts.
std::string ptxImmediate(Scalar s, ConstScalar c);
// log2 of v if v is a positive power of two.
std::optional<unsigned> exactLog2(int64_t v);

// Multiply-high constants for dividing a dividend in [0, 2^31) by a constant d in [3, 2^31) that is not a
// power of two: n / d == (n * multiplier) >> (32 + shift), with shift = floor(log2 d) and
// multiplier = ceil(2^(32+shift) / d) < 2^32 (Hacker's Delight 10-9 for 31-bit dividends).
struct DivisionMagic {
  uint32_t multiplier = 0;
  unsigned shift = 0;
};
DivisionMagic divisionMagic31(int64_t divisor);

// Multiply-high constants for dividing a dividend in [0, 2^63] by a constant d in [3, 2^63) that is not a
// power of two: n / d == mul.hi.u64(n, multiplier) >> shift, with shift = floor(log2 d) and
// multiplier = ceil(2^(64+shift) / d) < 2^64.  Also covers |n| of every i64 (|INT64_MIN| = 2^63).
struct DivisionMagic64 {
  uint64_t multiplier = 0;
  unsigned shift = 0;
};
DivisionMagic64 divisionMagic63(int64_t divisor);

} // namespace cake::codegen

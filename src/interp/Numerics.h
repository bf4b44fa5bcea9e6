// Numerics of the interpreter: the bit-exact conversions between CAKE's scalar types, and the reading and
// writing of scalars in the byte images of global and shared memory.
//
// Register values are held as `Scalar` (Value.h): integers and pred in `i` (i32 sign-extended, u32
// zero-extended, pred 0/1), floats in `f` as a double holding a value exactly representable in the
// scalar's own format (an f32 value is a float widened; an f16/bf16 value is one rounded to 16 bits).
// Every operation rounds its result to the format of its type, so arithmetic is that of the hardware:
//   - float -> f16/bf16/f32: round to nearest even (cvt.rn), overflow to +-inf, NaN kept;
//   - float -> integer: truncate toward zero and saturate, NaN -> 0 (cvt.rzi.sat);
//   - integer -> float: round to nearest (cvt.rn);  integer -> integer: wrap (truncate or extend).
// f8 types are not supported yet (callers report E0903).
#pragma once
#include "frontend/Types.h"

#include <cstdint>

namespace cake::interp {

// A value of one lane: integers and pred in `i`, floats in `f` (see above).
struct Scalar {
  int64_t i = 0;
  double f = 0;
};

uint16_t floatToBf16Bits(float x);   // round to nearest even
float bf16BitsToFloat(uint16_t b);
uint16_t floatToF16Bits(float x);    // round to nearest even, subnormals included
float f16BitsToFloat(uint16_t b);

float tf32Round(float f);            // cvt.rn.tf32.f32: 10 mantissa bits, nearest, ties to even

// Rounds a double to the nearest value of float kind k (f32, f16, bf16; tf32: to f32, then tf32Round).
double roundToFloat(double x, ScalarKind k);
// Wraps an integer to integer kind k (i32 sign-extends, u32 zero-extends, pred to 0/1).
int64_t wrapToInt(int64_t x, ScalarKind k);
// Converts a value of kind `from` to kind `to` by the rules above.
Scalar convertScalar(const Scalar &v, ScalarKind from, ScalarKind to);

// Bytes of one element of kind k in memory (pred: 1).
unsigned scalarBytes(ScalarKind k);
// Reads / writes one scalar of kind k at p (little-endian, as on the GPU).  Storing rounds f16/bf16.
Scalar loadScalar(const uint8_t *p, ScalarKind k);
void storeScalar(uint8_t *p, ScalarKind k, const Scalar &v);

} // namespace cake::interp

// Rounding an f32 to tf32 (10 mantissa bits), as a tf32 fragment element write does on the GPU
// (cvt.rn.tf32.f32, or its emulation before sm_90): to nearest, ties to even; NaN and infinity unchanged.
// Shared by the code generator (constants) and the interpreter (every element write, and tf32.rz).
#pragma once
#include <cstdint>

namespace cake {

// Adds just under half of the 13 dropped bits' weight plus the lowest kept bit, then clears the dropped bits.
inline uint32_t tf32RoundBits(uint32_t f32Bits) {
  if ((f32Bits & 0x7f800000u) == 0x7f800000u) return f32Bits;   // NaN, infinity
  return (f32Bits + 0xfffu + ((f32Bits >> 13) & 1u)) & 0xffffe000u;
}

// Rounding toward zero to tf32: the 13 dropped bits cleared.  What a tensor core makes of an f32 register
// read as a tf32 operand (it uses only the tf32 bits); NaN and infinity keep their class.
inline uint32_t tf32TowardZeroBits(uint32_t f32Bits) {
  if ((f32Bits & 0x7f800000u) == 0x7f800000u) return f32Bits;   // NaN, infinity
  return f32Bits & 0xffffe000u;
}

} // namespace cake

// The intrinsic table (Intrinsics.def) as data: sema types calls with it, codegen lowers by IntrinsicId.
#pragma once
#include "support/Arch.h"

#include <string_view>

namespace cake {

enum class IntrinsicId : uint8_t {
#define INTRINSIC(Id, Spelling, ArgCount, Rule, Archs, Summary) Id,
#include "frontend/Intrinsics.def"
#undef INTRINSIC
  Count_
};

enum class IntrinsicRule : uint8_t { FloatUnary, NumericUnary, SameType2, Fma, Select, IntBinary, Shuffle, WarpReduce, WarpVote, RowReduce, ColReduce,
                                     Atomic, OrderedEncode, OrderedDecode, Tf32Round };

struct IntrinsicInfo {
  IntrinsicId id;
  std::string_view spelling;
  unsigned argCount;
  IntrinsicRule rule;
  ArchSet archs;
  std::string_view summary;
};

inline constexpr IntrinsicInfo kIntrinsics[] = {
#define INTRINSIC(Id, Spelling, ArgCount, Rule, Archs, Summary) \
  {IntrinsicId::Id, Spelling, ArgCount, IntrinsicRule::Rule, Archs, Summary},
#include "frontend/Intrinsics.def"
#undef INTRINSIC
};

inline const IntrinsicInfo *lookupIntrinsic(std::string_view spelling) {
  for (const IntrinsicInfo &i : kIntrinsics)
    if (i.spelling == spelling) return &i;
  return nullptr;
}

// The float math intrinsics (rule FloatUnary) as instructions (FloatMath.def).
struct FloatMathInfo {
  IntrinsicId id;
  std::string_view ptx;        // the instruction on one f32 element
  unsigned sassInstructions;   // what ptxas makes of it
};

inline constexpr FloatMathInfo kFloatMath[] = {
#define FLOAT_MATH(Id, Ptx, SassInstructions) {IntrinsicId::Id, Ptx, SassInstructions},
#include "frontend/FloatMath.def"
#undef FLOAT_MATH
};

inline const FloatMathInfo *floatMathOf(std::string_view spelling) {
  const IntrinsicInfo *intrinsic = lookupIntrinsic(spelling);
  if (!intrinsic) return nullptr;
  for (const FloatMathInfo &f : kFloatMath)
    if (f.id == intrinsic->id) return &f;
  return nullptr;
}

// rowmax / rowmin / rowsum / colmax / colmin / colsum: a fragment reduced to a row or column vector.
inline bool isLineReduction(std::string_view spelling) {
  const IntrinsicInfo *i = lookupIntrinsic(spelling);
  return i && (i->rule == IntrinsicRule::RowReduce || i->rule == IntrinsicRule::ColReduce);
}

} // namespace cake

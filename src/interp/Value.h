// Warp-wide register values of the interpreter.
//
// A warp executes in lock-step over its 32 lanes (Interpreter.cpp), so every value an expression produces
// is a `WarpValue`: for each lane, `width` scalars of one kind (1 for a scalar, the lane count of a vector,
// all elements of a register array), stored lane-major (lane l's element e at l * width + e).  Lanes
// outside the active mask of the statement that computed a value hold unspecified contents; nothing reads
// them.  Untyped constants (integer and float literals, compile-time parameters) keep their exact value
// (`IntLit`: i, `FloatLit`: f) until an operation with a typed operand, a declaration or a store gives
// them a type, as sema's typing rules say (docs/language.md 6.2).
#pragma once
#include "interp/Numerics.h"

#include <array>
#include <cstdint>
#include <vector>

namespace cake::interp {

constexpr int kLanes = 32;
using LaneMask = uint32_t;   // bit l: lane l takes part
constexpr LaneMask kAllLanes = 0xffffffffu;

// The kind of a value's elements: a scalar kind, or an untyped constant.
struct ValueKind {
  enum Tag : uint8_t { Typed, IntLit, FloatLit } tag = Typed;
  ScalarKind scalar = ScalarKind::I32;
  bool isFloat() const { return tag == FloatLit || (tag == Typed && isFloatScalar(scalar)); }
  bool isUntyped() const { return tag != Typed; }
  static ValueKind of(ScalarKind k) { return {Typed, k}; }
};

struct WarpValue {
  ValueKind kind;
  unsigned width = 1;
  std::vector<Scalar> data;   // kLanes * width

  WarpValue() = default;
  WarpValue(ValueKind k, unsigned w) : kind(k), width(w), data(size_t(kLanes) * w) {}
  Scalar &at(int lane, unsigned e = 0) { return data[size_t(lane) * width + e]; }
  const Scalar &at(int lane, unsigned e = 0) const { return data[size_t(lane) * width + e]; }

  static WarpValue uniformInt(ValueKind k, int64_t v) {
    WarpValue r(k, 1);
    for (Scalar &s : r.data) s.i = v;
    return r;
  }
  static WarpValue uniformFloat(ValueKind k, double v) {
    WarpValue r(k, 1);
    for (Scalar &s : r.data) s.f = v;
    return r;
  }
};

// Lanes of a mask, in order: for (int l : lanesOf(mask)).
struct LaneRange {
  LaneMask mask;
  struct It {
    LaneMask m;
    int operator*() const { return __builtin_ctz(m); }
    It &operator++() { m &= m - 1; return *this; }
    bool operator!=(const It &o) const { return m != o.m; }
  };
  It begin() const { return {mask}; }
  It end() const { return {0}; }
};
inline LaneRange lanesOf(LaneMask m) { return {m}; }
inline int laneCount(LaneMask m) { return __builtin_popcount(m); }

} // namespace cake::interp

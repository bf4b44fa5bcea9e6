// LaneValue: the integer value of one CAKE expression across the 32 lanes of a warp, as the cost model's
// warp-level interpreter (WorkCounter) computes it.
//
// A value is Unknown (floats, memory contents, anything the model does not track), Uniform (one int64 for
// every lane) or Varying (one int64 per lane: tid.x, lane, addresses).  Arithmetic is lane-wise in wrapping
// 64-bit arithmetic (never UB; a wrapped value is merely a wrong estimate), and division by zero yields
// Unknown; `a && b` / `a || b` with one side uniformly false / true is that side, value and deps (the result
// does not depend on the other side).  Every value also carries `deps`, a bit set of what it was computed
// from (the warp index, each block coordinate, runtime scalars, each enclosing loop variable); the
// interpreter ORs the deps of every branch condition and loop bound it reads, which tells it when a loop
// body or a warp or a block is representative of its siblings (see WorkCounter.h).
#pragma once
#include "frontend/AST.h"

#include <array>
#include <cstdint>
#include <optional>

namespace cake::cost {

// Dependence bits.
enum : uint32_t {
  kDepWarp = 1u << 0,      // warp index (warp, tid.x / 32, ROLE.index, ...)
  kDepBlockX = 1u << 1,
  kDepBlockY = 1u << 2,
  kDepBlockZ = 1u << 3,
  kDepRuntime = 1u << 4,   // shape variables and scalar params: known here, but not compile-time constants
  kDepUnknown = 1u << 5,   // a value the model could not follow
  kDepLoopShift = 6,       // bit kDepLoopShift + d: the loop variable at loop nesting depth d
};
constexpr uint32_t kDepBlockAny = kDepBlockX | kDepBlockY | kDepBlockZ;
constexpr unsigned kMaxTrackedLoopDepth = 25;
inline uint32_t loopDepBit(unsigned depth) {
  return depth < kMaxTrackedLoopDepth ? 1u << (kDepLoopShift + depth) : 0u;
}

struct LaneValue {
  enum class Kind : uint8_t { Unknown, Uniform, Varying };
  Kind kind = Kind::Unknown;
  uint32_t deps = kDepUnknown;
  int64_t scalar = 0;                 // Uniform
  std::array<int64_t, 32> lanes;      // Varying only: left unset (and not copied) for the other kinds

  LaneValue() = default;
  LaneValue(const LaneValue &o) : kind(o.kind), deps(o.deps), scalar(o.scalar) {
    if (kind == Kind::Varying) lanes = o.lanes;
  }
  LaneValue &operator=(const LaneValue &o) {
    kind = o.kind;
    deps = o.deps;
    scalar = o.scalar;
    if (kind == Kind::Varying) lanes = o.lanes;
    return *this;
  }

  static LaneValue unknown(uint32_t deps = 0) {
    LaneValue v;
    v.deps = deps | kDepUnknown;
    return v;
  }
  static LaneValue uniform(int64_t x, uint32_t deps = 0) {
    LaneValue v;
    v.kind = Kind::Uniform;
    v.scalar = x;
    v.deps = deps;
    return v;
  }
  static LaneValue laneIndex(int64_t offset, uint32_t deps);   // offset + lane

  bool known() const { return kind != Kind::Unknown; }
  bool isUniform() const { return kind == Kind::Uniform; }
  // A compile-time constant: uniform and computed from literals / ct params only (codegen folds it).
  bool isConstant() const { return kind == Kind::Uniform && deps == 0; }
  int64_t at(unsigned lane) const { return kind == Kind::Varying ? lanes[lane] : scalar; }
  // Lanes (of `mask`) where the value is non-zero; requires known().
  uint32_t truthMask(uint32_t mask) const;
};

enum class IntOp : uint8_t { Add, Sub, Mul, Div, Rem, Shl, Shr, And, Or, Xor, Eq, Ne, Lt, Le, Gt, Ge, LAnd, LOr, Min, Max };

LaneValue applyIntOp(IntOp op, const LaneValue &a, const LaneValue &b);
// The IntOp computing a CAKE binary operator on integers (every BinaryOp has one).
std::optional<IntOp> intOpOf(BinaryOp op);
LaneValue negate(const LaneValue &a);
LaneValue logicalNot(const LaneValue &a);
LaneValue bitNot(const LaneValue &a);
// select(p, a, b) lane-wise.
LaneValue selectValue(const LaneValue &p, const LaneValue &a, const LaneValue &b);
// Lanes of `mask` take `value`, the others keep `old` (assignment under a partial mask).
LaneValue mergeUnderMask(const LaneValue &old, const LaneValue &value, uint32_t mask);

} // namespace cake::cost

// LaneValue arithmetic: lane-wise, wrapping, never undefined (see LaneValue.h).
#include "cost/LaneValue.h"

#include <algorithm>

namespace cake::cost {

namespace {

int64_t wrapAdd(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
int64_t wrapSub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
int64_t wrapMul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

// One lane; false when the result is undefined (division by zero, INT64_MIN / -1).
bool scalarOp(IntOp op, int64_t a, int64_t b, int64_t &out) {
  switch (op) {
  case IntOp::Add: out = wrapAdd(a, b); return true;
  case IntOp::Sub: out = wrapSub(a, b); return true;
  case IntOp::Mul: out = wrapMul(a, b); return true;
  case IntOp::Div:
    if (b == 0 || (a == INT64_MIN && b == -1)) return false;
    out = a / b;
    return true;
  case IntOp::Rem:
    if (b == 0 || (a == INT64_MIN && b == -1)) return false;
    out = a % b;
    return true;
  case IntOp::Shl: out = (b < 0 || b >= 64) ? 0 : static_cast<int64_t>(static_cast<uint64_t>(a) << b); return true;
  case IntOp::Shr: out = (b < 0 || b >= 64) ? (a < 0 ? -1 : 0) : (a >> b); return true;
  case IntOp::And: out = a & b; return true;
  case IntOp::Or: out = a | b; return true;
  case IntOp::Xor: out = a ^ b; return true;
  case IntOp::Eq: out = a == b; return true;
  case IntOp::Ne: out = a != b; return true;
  case IntOp::Lt: out = a < b; return true;
  case IntOp::Le: out = a <= b; return true;
  case IntOp::Gt: out = a > b; return true;
  case IntOp::Ge: out = a >= b; return true;
  case IntOp::LAnd: out = (a != 0) && (b != 0); return true;
  case IntOp::LOr: out = (a != 0) || (b != 0); return true;
  case IntOp::Min: out = std::min(a, b); return true;
  case IntOp::Max: out = std::max(a, b); return true;
  }
  return false;
}

// Lane-wise `op` into r.lanes; false when some lane is undefined.  The operation is chosen once, outside
// the lane loop, so that each loop is a plain vectorisable one.
template <class F> bool forLanes(const LaneValue &a, const LaneValue &b, LaneValue &r, F f) {
  for (unsigned l = 0; l < 32; ++l) r.lanes[l] = f(a.at(l), b.at(l));
  return true;
}

bool lanesOp(IntOp op, const LaneValue &a, const LaneValue &b, LaneValue &r) {
  switch (op) {
  case IntOp::Add: return forLanes(a, b, r, wrapAdd);
  case IntOp::Sub: return forLanes(a, b, r, wrapSub);
  case IntOp::Mul: return forLanes(a, b, r, wrapMul);
  case IntOp::And: return forLanes(a, b, r, [](int64_t x, int64_t y) { return x & y; });
  case IntOp::Or: return forLanes(a, b, r, [](int64_t x, int64_t y) { return x | y; });
  case IntOp::Xor: return forLanes(a, b, r, [](int64_t x, int64_t y) { return x ^ y; });
  case IntOp::Eq: return forLanes(a, b, r, [](int64_t x, int64_t y) -> int64_t { return x == y; });
  case IntOp::Ne: return forLanes(a, b, r, [](int64_t x, int64_t y) -> int64_t { return x != y; });
  case IntOp::Lt: return forLanes(a, b, r, [](int64_t x, int64_t y) -> int64_t { return x < y; });
  case IntOp::Le: return forLanes(a, b, r, [](int64_t x, int64_t y) -> int64_t { return x <= y; });
  case IntOp::Gt: return forLanes(a, b, r, [](int64_t x, int64_t y) -> int64_t { return x > y; });
  case IntOp::Ge: return forLanes(a, b, r, [](int64_t x, int64_t y) -> int64_t { return x >= y; });
  case IntOp::LAnd: return forLanes(a, b, r, [](int64_t x, int64_t y) -> int64_t { return x != 0 && y != 0; });
  case IntOp::LOr: return forLanes(a, b, r, [](int64_t x, int64_t y) -> int64_t { return x != 0 || y != 0; });
  case IntOp::Min: return forLanes(a, b, r, [](int64_t x, int64_t y) { return std::min(x, y); });
  case IntOp::Max: return forLanes(a, b, r, [](int64_t x, int64_t y) { return std::max(x, y); });
  case IntOp::Div: case IntOp::Rem: case IntOp::Shl: case IntOp::Shr:
    for (unsigned l = 0; l < 32; ++l)
      if (!scalarOp(op, a.at(l), b.at(l), r.lanes[l])) return false;
    return true;
  }
  return false;
}

} // namespace

LaneValue LaneValue::laneIndex(int64_t offset, uint32_t deps) {
  LaneValue v;
  v.kind = Kind::Varying;
  v.deps = deps;
  for (unsigned l = 0; l < 32; ++l) v.lanes[l] = offset + l;
  return v;
}

uint32_t LaneValue::truthMask(uint32_t mask) const {
  if (kind == Kind::Uniform) return scalar != 0 ? mask : 0u;
  uint32_t out = 0;
  for (unsigned l = 0; l < 32; ++l)
    if ((mask >> l & 1u) && lanes[l] != 0) out |= 1u << l;
  return out;
}

LaneValue applyIntOp(IntOp op, const LaneValue &a, const LaneValue &b) {
  // an operand that decides a logical operation on its own: the result does not depend on the other one
  if (op == IntOp::LAnd || op == IntOp::LOr) {
    int64_t decisive = op == IntOp::LOr ? 1 : 0;
    for (const LaneValue *x : {&a, &b})
      if (x->isUniform() && (x->scalar != 0) == (decisive != 0)) return LaneValue::uniform(decisive, x->deps);
  }
  uint32_t deps = a.deps | b.deps;
  if (!a.known() || !b.known()) return LaneValue::unknown(deps);
  if (a.isUniform() && b.isUniform()) {
    int64_t out = 0;
    if (!scalarOp(op, a.scalar, b.scalar, out)) return LaneValue::unknown(deps);
    return LaneValue::uniform(out, deps);
  }
  LaneValue r;
  r.kind = LaneValue::Kind::Varying;
  r.deps = deps;
  if (!lanesOp(op, a, b, r)) return LaneValue::unknown(deps);
  return r;
}

LaneValue negate(const LaneValue &a) { return applyIntOp(IntOp::Sub, LaneValue::uniform(0), a); }
LaneValue logicalNot(const LaneValue &a) { return applyIntOp(IntOp::Eq, a, LaneValue::uniform(0)); }
LaneValue bitNot(const LaneValue &a) { return applyIntOp(IntOp::Xor, a, LaneValue::uniform(-1)); }

LaneValue selectValue(const LaneValue &p, const LaneValue &a, const LaneValue &b) {
  uint32_t deps = p.deps | a.deps | b.deps;
  if (!p.known() || !a.known() || !b.known()) return LaneValue::unknown(deps);
  if (p.isUniform()) {
    LaneValue r = p.scalar != 0 ? a : b;
    r.deps = deps;
    return r;
  }
  LaneValue r;
  r.kind = LaneValue::Kind::Varying;
  r.deps = deps;
  for (unsigned l = 0; l < 32; ++l) r.lanes[l] = p.lanes[l] != 0 ? a.at(l) : b.at(l);
  return r;
}

LaneValue mergeUnderMask(const LaneValue &old, const LaneValue &value, uint32_t mask) {
  if (mask == 0xffffffffu) return value;
  if (mask == 0) return old;
  uint32_t deps = old.deps | value.deps;
  if (!old.known() || !value.known()) return LaneValue::unknown(deps);
  LaneValue r;
  r.kind = LaneValue::Kind::Varying;
  r.deps = deps;
  for (unsigned l = 0; l < 32; ++l) r.lanes[l] = (mask >> l & 1u) ? value.at(l) : old.at(l);
  return r;
}

std::optional<IntOp> intOpOf(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return IntOp::Add;
  case BinaryOp::Sub: return IntOp::Sub;
  case BinaryOp::Mul: return IntOp::Mul;
  case BinaryOp::Div: return IntOp::Div;
  case BinaryOp::Rem: return IntOp::Rem;
  case BinaryOp::Shl: return IntOp::Shl;
  case BinaryOp::Shr: return IntOp::Shr;
  case BinaryOp::BitAnd: return IntOp::And;
  case BinaryOp::BitOr: return IntOp::Or;
  case BinaryOp::BitXor: return IntOp::Xor;
  case BinaryOp::Eq: return IntOp::Eq;
  case BinaryOp::Ne: return IntOp::Ne;
  case BinaryOp::Lt: return IntOp::Lt;
  case BinaryOp::Le: return IntOp::Le;
  case BinaryOp::Gt: return IntOp::Gt;
  case BinaryOp::Ge: return IntOp::Ge;
  case BinaryOp::LogAnd: return IntOp::LAnd;
  case BinaryOp::LogOr: return IntOp::LOr;
  }
  return std::nullopt;
}

} // namespace cake::cost

// IntervalBounds: interval arithmetic over integer Z3 terms (see IntervalBounds.h).
#include "frontend/Limits.h"
#include "verify/IntervalBounds.h"

#include <algorithm>
#include <initializer_list>

namespace cake {
namespace {

__extension__ typedef __int128 Wide;   // exact for every product of two endpoints below 2^62
constexpr Wide kLimit = kRangeUnbounded;   // endpoints past this have no range (no overflow in products)
constexpr unsigned kMaxDepth = kMaxExprDepth;

std::optional<IntRange> fromWide(Wide lo, Wide hi) {
  if (lo < -kLimit || hi > kLimit) return std::nullopt;
  return IntRange{static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
}

std::optional<IntRange> spanOf(std::initializer_list<Wide> corners) {
  return fromWide(std::min(corners), std::max(corners));
}

// floor(a / b) for b > 0.
Wide floorDiv(Wide a, Wide b) {
  Wide q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// Z3's integer div (Euclidean: a = b q + r, 0 <= r < |b|) for b != 0.
Wide euclidDiv(Wide a, Wide b) { return b > 0 ? floorDiv(a, b) : -floorDiv(a, -b); }

} // namespace

std::optional<IntRange> IntervalBounds::rangeOf(const z3::expr &e) { return eval(e, 0); }

std::optional<IntRange> IntervalBounds::eval(const z3::expr &e, unsigned depth) {
  if (depth > kMaxDepth || !e.is_int()) return std::nullopt;
  int64_t c = 0;
  if (e.is_numeral_i64(c)) return IntRange{c, c};
  if (!e.is_app()) return std::nullopt;
  const unsigned id = e.id();
  const unsigned n = e.num_args();
  // A free constant's range is read afresh (ExprToZ3::assumeBounds may narrow it later); compound terms are
  // memoised.
  if (n == 0 && e.decl().decl_kind() == Z3_OP_UNINTERPRETED) {
    if (auto it = ranges_.find(id); it != ranges_.end()) return it->second;
    return std::nullopt;
  }
  if (auto it = memo_.find(id); it != memo_.end()) return it->second.range;

  std::optional<IntRange> r;
  auto arg = [&](unsigned i) { return eval(e.arg(i), depth + 1); };
  switch (e.decl().decl_kind()) {
  case Z3_OP_UNINTERPRETED:
    if (n == 0)
      if (auto it = ranges_.find(id); it != ranges_.end()) r = it->second;
    break;
  case Z3_OP_ADD:
  case Z3_OP_SUB: {
    const bool sub = e.decl().decl_kind() == Z3_OP_SUB;
    Wide lo = 0, hi = 0;
    bool ok = n > 0;
    for (unsigned i = 0; ok && i < n; ++i) {
      auto a = arg(i);
      if (!a) ok = false;
      else if (i > 0 && sub) lo -= a->hi, hi -= a->lo;
      else lo += a->lo, hi += a->hi;
      ok = ok && lo >= -kLimit && hi <= kLimit;
    }
    if (ok) r = fromWide(lo, hi);
    break;
  }
  case Z3_OP_UMINUS:
    if (auto a = arg(0)) r = fromWide(-Wide(a->hi), -Wide(a->lo));
    break;
  case Z3_OP_MUL: {
    std::optional<IntRange> acc = n > 0 ? arg(0) : std::nullopt;
    for (unsigned i = 1; acc && i < n; ++i) {
      auto b = arg(i);
      if (!b) acc.reset();
      else
        acc = spanOf({Wide(acc->lo) * b->lo, Wide(acc->lo) * b->hi, Wide(acc->hi) * b->lo, Wide(acc->hi) * b->hi});
    }
    r = acc;
    break;
  }
  case Z3_OP_IDIV: {
    auto a = arg(0), b = n == 2 ? arg(1) : std::nullopt;
    if (a && b && (b->lo > 0 || b->hi < 0))   // one sign: div is monotone in each operand, corners bound it
      r = spanOf({euclidDiv(a->lo, b->lo), euclidDiv(a->lo, b->hi), euclidDiv(a->hi, b->lo), euclidDiv(a->hi, b->hi)});
    break;
  }
  case Z3_OP_MOD: {
    auto a = arg(0), b = n == 2 ? arg(1) : std::nullopt;
    if (a && b && (b->lo > 0 || b->hi < 0)) {
      const Wide smallest = b->lo > 0 ? b->lo : -Wide(b->hi), largest = b->lo > 0 ? b->hi : -Wide(b->lo);
      if (a->lo >= 0 && a->hi < smallest) r = a;   // already a remainder
      else r = fromWide(0, largest - 1);
    }
    break;
  }
  case Z3_OP_ITE: {
    Truth t = decide(e.arg(0), depth + 1);
    if (t == Truth::True) r = arg(1);
    else if (t == Truth::False) r = arg(2);
    else if (auto a = arg(1))
      if (auto b = arg(2)) r = IntRange{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
    break;
  }
  default: break;
  }
  memo_.emplace(id, Memo{e, r});
  return r;
}

IntervalBounds::Truth IntervalBounds::decide(const z3::expr &e, unsigned depth) {
  if (depth > kMaxDepth || !e.is_app()) return Truth::Unknown;
  auto known = [](bool b) { return b ? Truth::True : Truth::False; };
  const unsigned n = e.num_args();
  switch (e.decl().decl_kind()) {
  case Z3_OP_TRUE: return Truth::True;
  case Z3_OP_FALSE: return Truth::False;
  case Z3_OP_NOT: {
    Truth t = decide(e.arg(0), depth + 1);
    return t == Truth::Unknown ? t : known(t == Truth::False);
  }
  case Z3_OP_AND:
  case Z3_OP_OR: {
    const bool isAnd = e.decl().decl_kind() == Z3_OP_AND;
    Truth all = known(isAnd);
    for (unsigned i = 0; i < n; ++i) {
      Truth t = decide(e.arg(i), depth + 1);
      if (t == known(!isAnd)) return t;   // a false conjunct / a true disjunct decides
      if (t == Truth::Unknown) all = Truth::Unknown;
    }
    return all;
  }
  case Z3_OP_LE: case Z3_OP_LT: case Z3_OP_GE: case Z3_OP_GT: {
    if (n != 2) return Truth::Unknown;
    auto a = eval(e.arg(0), depth + 1), b = eval(e.arg(1), depth + 1);
    if (!a || !b) return Truth::Unknown;
    switch (e.decl().decl_kind()) {
    case Z3_OP_LE: if (a->hi <= b->lo) return Truth::True; if (a->lo > b->hi) return Truth::False; break;
    case Z3_OP_LT: if (a->hi < b->lo) return Truth::True; if (a->lo >= b->hi) return Truth::False; break;
    case Z3_OP_GE: if (a->lo >= b->hi) return Truth::True; if (a->hi < b->lo) return Truth::False; break;
    default: if (a->lo > b->hi) return Truth::True; if (a->hi <= b->lo) return Truth::False; break;
    }
    return Truth::Unknown;
  }
  case Z3_OP_EQ: {
    if (n != 2) return Truth::Unknown;
    if (e.arg(0).is_bool()) {
      Truth a = decide(e.arg(0), depth + 1), b = decide(e.arg(1), depth + 1);
      return a == Truth::Unknown || b == Truth::Unknown ? Truth::Unknown : known(a == b);
    }
    auto a = eval(e.arg(0), depth + 1), b = eval(e.arg(1), depth + 1);
    if (!a || !b) return Truth::Unknown;
    if (a->lo == a->hi && b->lo == b->hi && a->lo == b->lo) return Truth::True;
    if (a->hi < b->lo || b->hi < a->lo) return Truth::False;
    return Truth::Unknown;
  }
  default: return Truth::Unknown;
  }
}

} // namespace cake

// IntervalBounds: a sound range for an integer Z3 term without asking the solver.
//
// Interval arithmetic over the term's tree: numerals are exact, free constants take the range they were
// created with (ExprToZ3::newVar: builtins, loop variables, shape variables), + - * and Euclidean div / mod
// combine their operands' ranges, and ite takes the branch its condition's ranges decide (both joined
// otherwise; comparisons, and / or / not are decided the same way).  Anything else - bit-vector
// conversions, unbounded constants, endpoints past 2^62 - has no range.  Path conditions are not used, so
// a range is an over-approximation: "inside [lo, hi]" is a proof, "outside" proves nothing.
//
// The wrap-around checks (SimtBounds) ask it first: an index like (kk % 4) * 16 + (lane / 16) * 8 is
// in range by its operands' bounds alone and needs no solver call.
#pragma once
#include <z3++.h>

#include <cstdint>
#include <optional>
#include <unordered_map>

namespace cake {

struct IntRange {
  int64_t lo, hi;   // inclusive
};
// The upper end of a constant without one (a grid index): no range built from it stays below this.
constexpr int64_t kRangeUnbounded = int64_t(1) << 62;

class IntervalBounds {
public:
  // ranges: the inclusive range of each free constant, by the Z3 id of its term (read at each query: a
  // constant's range is recorded when it is created, before any term can contain it).
  explicit IntervalBounds(const std::unordered_map<unsigned, IntRange> &ranges) : ranges_(ranges) {}

  std::optional<IntRange> rangeOf(const z3::expr &e);

private:
  enum class Truth : uint8_t { False, True, Unknown };
  std::optional<IntRange> eval(const z3::expr &e, unsigned depth);
  Truth decide(const z3::expr &e, unsigned depth);

  const std::unordered_map<unsigned, IntRange> &ranges_;
  struct Memo {
    z3::expr term;   // keeps the term alive, so that its id is not reused by another term
    std::optional<IntRange> range;
  };
  std::unordered_map<unsigned, Memo> memo_;   // by term id: terms are shared DAGs
};

} // namespace cake

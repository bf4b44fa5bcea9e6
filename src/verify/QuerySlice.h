// QuerySlice: the part of a proof query's facts that can matter to its goal (the cone of influence).
//
// A query is facts /\ goal, unsatisfiable when the goal's negation cannot hold.  Facts about constants the goal
// never meets (warp = tid.x / 32 when the goal speaks of block.x and N) only cost the solver time; the slice
// keeps the facts connected to the goal through shared constants, transitively, and the ground ones.  Dropping
// facts can only make a query easier to satisfy, so an unsat slice proves the whole query; a sat or unknown
// slice proves nothing (VerifyContext then asks the whole query).
#pragma once
#include <z3++.h>

#include <unordered_map>
#include <vector>

namespace cake {

class QuerySlicer {
public:
  // The conjunction of the facts' conjuncts (nested ands flattened) that share constants with `goal`,
  // directly or through other kept facts, plus the goal.
  z3::expr slice(const z3::expr &facts, const z3::expr &goal);
  // The narrower slice tried first: only the facts about the goal's own constants (and the ground ones).  The
  // definitions of constants the goal does not mention (warp = tid.x / 32, lane = tid.x % 32 when the goal
  // speaks of tid.x) cost a plain solver more than the goal itself and seldom matter.
  z3::expr goalSlice(const z3::expr &facts, const z3::expr &goal);

private:
  const std::vector<unsigned> &constantsOf(const z3::expr &e);

  struct Memo {
    z3::expr term;                    // keeps the term alive, so that its id is not reused
    std::vector<unsigned> constants;  // ids of the uninterpreted constants it contains, sorted
  };
  std::unordered_map<unsigned, Memo> memo_;
};

} // namespace cake

// QuerySlicer (src/verify/QuerySlice.h): the cone of influence keeps the facts connected to the goal through
// shared constants; the goal slice only the facts about the goal's own constants.  Both drop facts, never add
// any, so an unsat slice proves the whole query.
#include "verify/QuerySlice.h"

#include <doctest/doctest.h>

#include <string>

using namespace cake;

namespace {

bool mentions(const z3::expr &conjunction, const z3::expr &fact) {
  for (unsigned i = 0; i < conjunction.num_args(); ++i)
    if (z3::eq(conjunction.arg(i), fact)) return true;
  return false;
}

} // namespace

TEST_CASE("QuerySlicer: the cone follows shared constants; the goal slice keeps the goal's own facts") {
  z3::context c;
  z3::expr tid = c.int_const("tid.x"), warp = c.int_const("warp"), lane = c.int_const("lane"),
           bx = c.int_const("block.x"), n = c.int_const("N"), m = c.int_const("M");
  z3::expr tidBound = tid >= 0 && tid < 64;   // flattened: two facts
  z3::expr warpDef = warp == tid / 32, warpBound = warp < 2, laneDef = lane == z3::mod(tid, 32);
  z3::expr gridFact = bx < (n + 63) / 64, other = m >= 7, ground = c.int_val(1) < c.int_val(2);
  z3::expr facts = tidBound && warpDef && warpBound && laneDef && gridFact && other && ground;
  z3::expr goal = !(bx * 64 + tid < n + 63);
  QuerySlicer slicer;

  z3::expr cone = slicer.slice(facts, goal);
  CHECK(mentions(cone, tid < 64));
  CHECK(mentions(cone, warpDef));     // through tid.x
  CHECK(mentions(cone, warpBound));   // through warp
  CHECK(mentions(cone, laneDef));
  CHECK(mentions(cone, gridFact));
  CHECK(mentions(cone, ground));
  CHECK_FALSE(mentions(cone, other));   // M is not connected

  z3::expr narrow = slicer.goalSlice(facts, goal);
  CHECK(mentions(narrow, tid >= 0));
  CHECK(mentions(narrow, tid < 64));
  CHECK(mentions(narrow, gridFact));
  CHECK(mentions(narrow, ground));
  CHECK(mentions(narrow, goal));
  CHECK_FALSE(mentions(narrow, warpDef));
  CHECK_FALSE(mentions(narrow, warpBound));
  CHECK_FALSE(mentions(narrow, laneDef));
  CHECK_FALSE(mentions(narrow, other));

  // Both are implied by the whole query: neither adds a fact.
  z3::solver s(c);
  s.add(facts && goal && !narrow);
  CHECK(s.check() == z3::unsat);
  s.reset();
  s.add(facts && goal && !cone);
  CHECK(s.check() == z3::unsat);
}

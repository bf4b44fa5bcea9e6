// TwoAdicFacts (src/verify/Z3Terms.h): lower bounds on the power of two dividing an integer term, from its
// structure and the facts' divisibility statements.  Every answer must be a valid lower bound: each case is
// also evaluated at every small shape the facts allow (the claimed power divides the value).  (Not with the
// solver: these products of constants are the non-linear queries it cannot settle in time.)
#include "verify/Z3Terms.h"

#include <doctest/doctest.h>

using namespace cake;

namespace {

// 2^e divides t at every (M, N, K, z) in a small grid that satisfies N % 2 == 0 and K % 24 == 0.
bool dividesOnGrid(z3::context &c, z3::expr t, unsigned e) {
  z3::expr_vector from(c), to(c);
  for (const char *name : {"M", "N", "K", "z"}) from.push_back(c.int_const(name));
  for (int m = 1; m <= 5; ++m)
    for (int n = -4; n <= 6; n += 2)
      for (int k = -24; k <= 48; k += 24)
        for (int z = -3; z <= 3; ++z) {
          to.resize(0);
          for (int v : {m, n, k, z}) to.push_back(c.int_val(v));
          int64_t value = 0;
          if (!t.substitute(from, to).simplify().is_numeral_i64(value) || value % (int64_t(1) << e) != 0) return false;
        }
  return true;
}

} // namespace

TEST_CASE("TwoAdicFacts: numerals, products, sums, negation, ite and stated divisibility") {
  z3::context c;
  z3::expr m = c.int_const("M"), n = c.int_const("N"), k = c.int_const("K"), z = c.int_const("z");
  z3::expr facts = z3::mod(n, 2) == 0 && (z3::mod(k, 24) == 0 && m >= 1);
  TwoAdicFacts two({facts});

  CHECK(two.exponent(c.int_val(4)) == 2);
  CHECK(two.exponent(c.int_val(-12)) == 2);
  CHECK(two.exponent(c.int_val(0)) == TwoAdicFacts::kMax);
  CHECK(two.exponent(m) == 0);    // nothing stated
  CHECK(two.exponent(n) == 1);    // N % 2 == 0
  CHECK(two.exponent(k) == 3);    // K % 24 == 0: 8 divides K
  CHECK(two.exponent(z * m * n * 4) == 3);
  CHECK(two.exponent(m * n * 4 + z * 8) == 3);
  CHECK(two.exponent(m * n * 4 + z * 2) == 1);     // the sum's weakest term
  CHECK(two.exponent(-(n * k)) == 4);
  CHECK(two.exponent(z3::ite(z > 0, n * 2, k)) == 2);
  CHECK(two.exponent(n / 2) == 0);   // division: nothing claimed

  for (const z3::expr &t : {z * m * n * 4, m * n * 4 + z * 8, -(n * k), z3::ite(z > 0, n * 2, k)})
    CHECK(dividesOnGrid(c, t, two.exponent(t)));
}

TEST_CASE("TwoAdicFacts: a constant equal to a numeral, and facts it must not misread") {
  z3::context c;
  z3::expr x = c.int_const("X"), y = c.int_const("Y");
  TwoAdicFacts two({x == 48 || y == 8, z3::mod(y, 4) == 1, y == x + 16});
  CHECK(two.exponent(x) == 0);   // under a disjunction: not a fact
  CHECK(two.exponent(y) == 0);   // remainder 1, and an equation with a non-numeral
  TwoAdicFacts fixed({x == 48});
  CHECK(fixed.exponent(x * y) == 4);
}

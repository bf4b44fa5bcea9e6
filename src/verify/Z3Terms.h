// Questions about the constants a Z3 term is built from, answered by one walk over the term's DAG (each shared
// sub-term once, iteratively: no recursion depth, linear in the DAG however deep or shared the term).
#pragma once
#include <z3++.h>

#include <map>
#include <vector>

namespace cake {

// The free constants (uninterpreted, no arguments: shape variables, thread indices, loop variables) of the
// terms, each once, in the order first met.
std::vector<z3::expr> freeConstants(const std::vector<z3::expr> &terms);

// Is constant `c` among the sub-terms of `e`?
bool mentionsConstant(const z3::expr &e, const z3::expr &c);

// Appends to `vars` those of `more` not in it yet.
void appendNewConstants(std::vector<z3::expr> &vars, const std::vector<z3::expr> &more);

// Powers of two known to divide integer terms, by structure alone (no solver): a numeral's trailing zero bits,
// the sum over a product's factors, the minimum over a sum's terms and an ite's branches, and for a constant the
// divisibility the facts state (`mod(x, c) == 0` or `x == c` among their top-level conjuncts; `requires(N % 2
// == 0)` says 2 divides N).  Every answer is a lower bound (0 when nothing is known), so a claim "2^e divides t"
// with e <= the answer is proven; a product of shape variables (the pitch of a 3-d tensor) is settled here
// where the solver's non-linear arithmetic can run many times its limit.
class TwoAdicFacts {
public:
  explicit TwoAdicFacts(const std::vector<z3::expr> &facts);
  // The largest e (at most kMax) such that 2^e is known to divide `term`.
  unsigned exponent(const z3::expr &term) const;
  static constexpr unsigned kMax = 62;

private:
  unsigned walk(const z3::expr &term, unsigned depth, std::map<unsigned, unsigned> &memo) const;
  std::map<unsigned, unsigned> constants_;   // constant's term id -> exponent
};

} // namespace cake

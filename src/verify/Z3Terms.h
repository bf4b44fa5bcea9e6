// Questions about the constants a Z3 term is built from, answered by one walk over the term's DAG (each shared
// sub-term once, iteratively: no recursion depth, linear in the DAG however deep or shared the term).
#pragma once
#include <z3++.h>

#include <vector>

namespace cake {

// The free constants (uninterpreted, no arguments: shape variables, thread indices, loop variables) of the
// terms, each once, in the order first met.
std::vector<z3::expr> freeConstants(const std::vector<z3::expr> &terms);

// Is constant `c` among the sub-terms of `e`?
bool mentionsConstant(const z3::expr &e, const z3::expr &c);

// Appends to `vars` those of `more` not in it yet.
void appendNewConstants(std::vector<z3::expr> &vars, const std::vector<z3::expr> &more);

} // namespace cake

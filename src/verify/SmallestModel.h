// SmallestModel: the lexicographically least model of a query, by bounded solver checks.
//
// Counterexamples and the shapes the verifier simulates are reported canonically - the least threads,
// iterations and shape - so that they do not depend on the solver's search.  Z3's optimizer does not honour
// the resource limit in every phase (a lexicographic minimisation over a race query ran for minutes), so
// the minimisation is done here with plain checks, each under VerifyContext's limit: for each objective in
// order, gallop down from the current model's value until a bound is infeasible, binary-search between the
// two, then fix the objective at its least value.  A check the solver cannot decide ends the minimisation
// with the best model found so far; the number of checks is bounded.
#pragma once
#include <z3++.h>

#include <optional>
#include <string>
#include <vector>

namespace cake {

class VerifyContext;

// A model of `query` minimising `objectives` lexicographically (integer terms), or nullopt when the query
// is unsatisfiable or undecided; then `undecided` (when given) receives the solver's reason for an undecided
// query, and stays empty for an unsatisfiable one.
std::optional<z3::model> smallestModel(VerifyContext &ctx, const z3::expr &query, const std::vector<z3::expr> &objectives,
                                       std::string *undecided = nullptr);

} // namespace cake

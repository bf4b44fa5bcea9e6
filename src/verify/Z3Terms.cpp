// freeConstants / mentionsConstant: a depth-first walk with an explicit stack and a set of visited term ids.
#include "verify/Z3Terms.h"

#include <algorithm>
#include <unordered_set>

namespace cake {

namespace {

bool contains(const std::vector<z3::expr> &vars, const z3::expr &x) {
  return std::any_of(vars.begin(), vars.end(), [&](const z3::expr &v) { return z3::eq(v, x); });
}

// Calls visit(x) on each application node of the terms once; stops when it returns true (and returns true).
template <class Visit> bool walkTerms(const std::vector<z3::expr> &terms, Visit visit) {
  std::vector<z3::expr> todo = terms;
  std::unordered_set<unsigned> seen;
  while (!todo.empty()) {
    z3::expr x = todo.back();
    todo.pop_back();
    if (!x.is_app() || !seen.insert(x.id()).second) continue;
    if (visit(x)) return true;
    for (unsigned i = 0; i < x.num_args(); ++i) todo.push_back(x.arg(i));
  }
  return false;
}

} // namespace

std::vector<z3::expr> freeConstants(const std::vector<z3::expr> &terms) {
  std::vector<z3::expr> out;
  walkTerms(terms, [&](const z3::expr &x) {
    if (x.num_args() == 0 && x.decl().decl_kind() == Z3_OP_UNINTERPRETED && !contains(out, x)) out.push_back(x);
    return false;
  });
  return out;
}

bool mentionsConstant(const z3::expr &e, const z3::expr &c) {
  return walkTerms({e}, [&](const z3::expr &x) { return x.num_args() == 0 && z3::eq(x, c); });
}

void appendNewConstants(std::vector<z3::expr> &vars, const std::vector<z3::expr> &more) {
  for (const z3::expr &x : more)
    if (!contains(vars, x)) vars.push_back(x);
}

} // namespace cake

// freeConstants / mentionsConstant: a depth-first walk with an explicit stack and a set of visited term ids.
// TwoAdicFacts: a memoised walk of the term's arithmetic nodes (sums, products, negations, ite), depth-capped:
// below the cap a sub-term counts as 0, which is always a valid lower bound.
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

namespace {

unsigned trailingZeros(const z3::expr &numeral) {
  int64_t v = 0;
  if (!numeral.is_numeral_i64(v)) return 0;   // beyond 64 bits: nothing claimed
  if (v == 0) return TwoAdicFacts::kMax;
  unsigned e = 0;
  for (uint64_t u = v < 0 ? 0 - uint64_t(v) : uint64_t(v); (u & 1) == 0 && e < TwoAdicFacts::kMax; u >>= 1) ++e;
  return e;
}

bool isConstant(const z3::expr &x) {
  return x.is_app() && x.num_args() == 0 && x.decl().decl_kind() == Z3_OP_UNINTERPRETED;
}

constexpr unsigned kTwoAdicDepth = 64;

} // namespace

TwoAdicFacts::TwoAdicFacts(const std::vector<z3::expr> &facts) {
  std::vector<z3::expr> todo = facts;
  auto learn = [&](const z3::expr &x, unsigned e) {
    unsigned &known = constants_[x.id()];
    known = std::max(known, e);
  };
  while (!todo.empty()) {
    z3::expr f = todo.back();
    todo.pop_back();
    if (!f.is_app()) continue;
    Z3_decl_kind k = f.decl().decl_kind();
    if (k == Z3_OP_AND) {
      for (unsigned i = 0; i < f.num_args(); ++i) todo.push_back(f.arg(i));
      continue;
    }
    if (k != Z3_OP_EQ || f.num_args() != 2) continue;
    for (int side = 0; side < 2; ++side) {
      z3::expr lhs = f.arg(side), rhs = f.arg(1 - side);
      int64_t value = 0;
      if (isConstant(lhs) && rhs.is_numeral_i64(value)) learn(lhs, trailingZeros(rhs));   // x == c
      if (lhs.is_app() && lhs.decl().decl_kind() == Z3_OP_MOD && rhs.is_numeral_i64(value) && value == 0 &&
          isConstant(lhs.arg(0)) && lhs.arg(1).is_numeral_i64(value) && value > 0)
        learn(lhs.arg(0), trailingZeros(lhs.arg(1)));                                       // mod(x, c) == 0
    }
  }
}

unsigned TwoAdicFacts::exponent(const z3::expr &term) const {
  std::map<unsigned, unsigned> memo;
  return walk(term, 0, memo);
}

unsigned TwoAdicFacts::walk(const z3::expr &t, unsigned depth, std::map<unsigned, unsigned> &memo) const {
  if (!t.is_app() || depth > kTwoAdicDepth) return 0;
  if (t.is_numeral()) return trailingZeros(t);
  if (auto it = memo.find(t.id()); it != memo.end()) return it->second;
  unsigned e = 0;
  switch (t.decl().decl_kind()) {
  case Z3_OP_UNINTERPRETED:
    if (auto c = constants_.find(t.id()); c != constants_.end()) e = c->second;
    break;
  case Z3_OP_MUL:
    for (unsigned i = 0; i < t.num_args(); ++i) e = std::min(kMax, e + walk(t.arg(i), depth + 1, memo));
    break;
  case Z3_OP_ADD:
  case Z3_OP_SUB:
    e = kMax;
    for (unsigned i = 0; i < t.num_args(); ++i) e = std::min(e, walk(t.arg(i), depth + 1, memo));
    break;
  case Z3_OP_UMINUS:
    e = walk(t.arg(0), depth + 1, memo);
    break;
  case Z3_OP_ITE:
    e = std::min(walk(t.arg(1), depth + 1, memo), walk(t.arg(2), depth + 1, memo));
    break;
  default:
    break;
  }
  memo.emplace(t.id(), e);
  return e;
}

void appendNewConstants(std::vector<z3::expr> &vars, const std::vector<z3::expr> &more) {
  for (const z3::expr &x : more)
    if (!contains(vars, x)) vars.push_back(x);
}

} // namespace cake

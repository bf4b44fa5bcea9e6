// QuerySlice: cone-of-influence slicing of a proof query's facts (see QuerySlice.h).
//
// Each conjunct's constants are collected once (a walk of its DAG, memoised by term id for the session: the
// same requirement and launch facts recur in every query of a kernel).  The slice starts from the goal's
// constants and adds every fact that mentions one of the constants reached so far, until nothing changes; the
// goal slice keeps only the facts whose constants the goal mentions itself.
#include "verify/QuerySlice.h"

#include <algorithm>
#include <unordered_set>

namespace cake {

namespace {

void flattenAnd(const z3::expr &e, std::vector<z3::expr> &out) {
  if (e.is_app() && e.decl().decl_kind() == Z3_OP_AND) {
    for (unsigned i = 0; i < e.num_args(); ++i) flattenAnd(e.arg(i), out);
    return;
  }
  if (e.is_true()) return;
  out.push_back(e);
}

} // namespace

const std::vector<unsigned> &QuerySlicer::constantsOf(const z3::expr &root) {
  if (auto it = memo_.find(root.id()); it != memo_.end()) return it->second.constants;
  std::vector<unsigned> found;
  std::unordered_set<unsigned> seen;
  std::vector<z3::expr> stack{root};
  while (!stack.empty()) {
    z3::expr e = stack.back();
    stack.pop_back();
    if (!seen.insert(e.id()).second) continue;
    if (e.is_app()) {
      if (e.num_args() == 0 && e.decl().decl_kind() == Z3_OP_UNINTERPRETED) found.push_back(e.id());
      for (unsigned i = 0; i < e.num_args(); ++i) stack.push_back(e.arg(i));
    } else if (e.is_quantifier()) {
      stack.push_back(e.body());
    }
  }
  std::sort(found.begin(), found.end());
  return memo_.emplace(root.id(), Memo{root, std::move(found)}).first->second.constants;
}

z3::expr QuerySlicer::slice(const z3::expr &facts, const z3::expr &goal) {
  std::vector<z3::expr> parts;
  flattenAnd(facts, parts);
  std::unordered_set<unsigned> reached(constantsOf(goal).begin(), constantsOf(goal).end());
  std::vector<bool> kept(parts.size(), false);
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (kept[i]) continue;
      const std::vector<unsigned> &cs = constantsOf(parts[i]);
      bool connected = cs.empty() || std::any_of(cs.begin(), cs.end(), [&](unsigned c) { return reached.count(c); });
      if (!connected) continue;
      kept[i] = true;
      grew = true;
      reached.insert(cs.begin(), cs.end());
    }
  }
  z3::expr_vector keep(goal.ctx());
  for (size_t i = 0; i < parts.size(); ++i)
    if (kept[i]) keep.push_back(parts[i]);
  keep.push_back(goal);
  return z3::mk_and(keep);
}

z3::expr QuerySlicer::goalSlice(const z3::expr &facts, const z3::expr &goal) {
  std::vector<z3::expr> parts;
  flattenAnd(facts, parts);
  const std::vector<unsigned> &own = constantsOf(goal);
  z3::expr_vector keep(goal.ctx());
  for (const z3::expr &part : parts) {
    const std::vector<unsigned> &cs = constantsOf(part);
    if (std::includes(own.begin(), own.end(), cs.begin(), cs.end())) keep.push_back(part);   // both sorted
  }
  keep.push_back(goal);
  return z3::mk_and(keep);
}

} // namespace cake

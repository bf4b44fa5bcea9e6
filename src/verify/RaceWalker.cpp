// RaceWalker: the statement walk and pair-query helpers shared by SharedRaces.cpp and AsyncProxyRaces.cpp
// (see RaceWalker.h for what is shared and what stays in the families).
#include "verify/RaceWalker.h"

#include "frontend/Atomics.h"

#include "frontend/Builtins.h"
#include "frontend/Types.h"
#include "verify/SourceText.h"

#include <set>

namespace cake {

RaceWalker::RaceWalker(VerifyContext &ctx, bool roleRangeAsOneTerm)
    : ctx_(ctx), z3_(ctx.z3()), tr_(ctx.z3(), ctx.info()), path_(ctx.z3(), tr_, ctx.info()),
      roleRangeAsOneTerm_(roleRangeAsOneTerm) {}

void RaceWalker::beginWalk() {
  threadVars_.push_back(tr_.builtinVar(BuiltinValue::TidX));
  threadVars_.push_back(tr_.builtinVar(BuiltinValue::Warp));
  threadVars_.push_back(tr_.builtinVar(BuiltinValue::Lane));
  path_.linkThreadBuiltins(nullptr, &threadVars_, roleRangeAsOneTerm_);
  for (const Expr *r : ctx_.info().requirements)
    if (r)
      if (auto c = tr_.translate(*r); c && c->is_bool()) requirements_.push_back(*c);
}

// ---- walk

void RaceWalker::walkBlock(const BlockStmt &b) {
  path_.walkBlock(b, [this](const Stmt &s) { walkStmt(s); });
}

void RaceWalker::walkStmt(const Stmt &s) {
  switch (s.kind) {
  case StmtKind::Block: walkBlock(*cast<BlockStmt>(&s)); break;
  case StmtKind::Let: if (auto &e = cast<LetStmt>(&s)->init) scan(*e, false, s); break;
  case StmtKind::Var: if (auto &e = cast<VarStmt>(&s)->init) scan(*e, false, s); break;
  case StmtKind::Assign: {
    auto &a = *cast<AssignStmt>(&s);
    if (a.value) scan(*a.value, false, s);
    if (a.target) {
      if (a.op != AssignOp::Set) scan(*a.target, false, s);
      scan(*a.target, true, s);
    }
    break;
  }
  case StmtKind::Op: walkOp(*cast<OpStmt>(&s)); break;
  case StmtKind::Role: walkRole(*cast<RoleStmt>(&s)); break;
  case StmtKind::For: walkFor(*cast<ForStmt>(&s)); break;
  case StmtKind::If: walkIf(*cast<IfStmt>(&s)); break;
  case StmtKind::Elect: {
    auto &e = *cast<ElectStmt>(&s);
    if (!e.body) break;
    path_.push(tr_.builtinVar(BuiltinValue::Lane) == 0);   // the elected lane (the lowest active one)
    walkBlock(*e.body);
    path_.pop();
    break;
  }
  default: break;
  }
}

void RaceWalker::walkRoleBody(const RoleStmt &r) {
  PathCondition::Mark mark = path_.mark();
  const RoleStmt *saved = role_;
  role_ = &r;
  path_.linkThreadBuiltins(&r, &threadVars_, roleRangeAsOneTerm_);
  if (r.body) walkBlock(*r.body);
  role_ = saved;
  path_.restore(mark);
}

bool RaceWalker::loopPrologue(const ForStmt &f, size_t depth) {
  for (const Expr *e : {f.lower.get(), f.upper.get(), f.step.get()})
    if (e) scan(*e, false, f);
  if (!f.body) return false;
  if (depth >= kMaxLoopDepth) {
    epochProblem(f.range, "loops are nested more than " + std::to_string(kMaxLoopDepth) + " deep");
    return false;
  }
  return true;
}

RaceWalker::LoopBounds RaceWalker::translateBounds(const ForStmt &f) {
  LoopBounds b;
  b.lower = f.lower ? tr_.translate(*f.lower) : std::nullopt;
  b.upper = f.upper ? tr_.translate(*f.upper) : std::nullopt;
  b.step = f.step ? tr_.translate(*f.step) : std::optional<z3::expr>(z3_.int_val(1));
  return b;
}

std::optional<z3::expr> RaceWalker::scanCondition(const IfStmt &i) {
  if (!i.cond) return std::nullopt;
  scan(*i.cond, false, i);
  return path_.translateCondition(*i.cond);
}

// ---- accesses

void RaceWalker::scan(const Expr &e, bool write, const Stmt &at) {
  switch (e.kind) {
  case ExprKind::Unary: scan(*cast<UnaryExpr>(&e)->operand, false, at); break;
  case ExprKind::Binary:
    scan(*cast<BinaryExpr>(&e)->lhs, false, at);
    scan(*cast<BinaryExpr>(&e)->rhs, false, at);
    break;
  case ExprKind::Member: scan(*cast<MemberExpr>(&e)->base, write, at); break;
  case ExprKind::Call: {
    auto &c = *cast<CallExpr>(&e);
    bool atomic = c.callee.rfind("atom.", 0) == 0;
    for (size_t i = 0; i < c.args.size(); ++i) {
      if (!c.args[i]) continue;
      if (atomic && i == 0) {
        const Expr *saved = atomicTarget_;
        atomicTarget_ = c.args[0].get();
        scan(*c.args[0], true, at);
        atomicTarget_ = saved;
      } else {
        scan(*c.args[i], false, at);
      }
    }
    break;
  }
  case ExprKind::Index: scanIndex(*cast<IndexExpr>(&e), write, at); break;
  default: break;
  }
}

void RaceWalker::scanIndexOperands(const IndexExpr &ix, const Stmt &at) {
  for (const Expr *cur = &ix; auto *i = dynCast<IndexExpr>(cur); cur = i->base.get()) {
    for (const IndexItem &it : i->items) {
      if (it.start) scan(*it.start, false, at);
      if (it.length) scan(*it.length, false, at);
    }
    if (!i->base) break;
  }
}

void RaceWalker::scanStoreDestination(const OpStmt &op) {
  if (op.dsts.empty() || !op.dsts[0]) return;
  const Type *ft = op.srcs.empty() || !op.srcs[0] ? nullptr : op.srcs[0]->type;
  auto *ix = dynCast<IndexExpr>(op.dsts[0].get());
  if (ix && ft && ft->isRowOrColVector() && !ix->items.empty()) {
    const bool band = ft->frag == FragKind::WgmmaRow;
    warpBandRows_ = band ? 16 : 0;
    recordFragmentStore(*ix, {ft->isColVector() ? ft->n : band ? 16 : ft->m}, op);
    warpBandRows_ = 0;
    return;
  }
  if (ix && ft && ft->isFragment() && ix->items.size() == 2) {
    recordFragmentStore(*ix, {ft->m, ft->n}, op);
    return;
  }
  scan(*op.dsts[0], true, op);
}

void RaceWalker::scanReduction(const OpStmt &op) {
  if (op.arrow == OpArrow::Move) {
    for (auto &e : op.srcs) if (e) scan(*e, false, op);
    const Expr *saved = atomicTarget_;
    atomicTarget_ = op.dsts.empty() ? nullptr : op.dsts[0].get();
    scanStoreDestination(op);
    atomicTarget_ = saved;
    return;
  }
  for (size_t i = 1; i < op.dsts.size(); ++i) if (op.dsts[i]) scan(*op.dsts[i], false, op);
  if (op.dsts.empty() || !op.dsts[0]) return;
  const Expr *saved = atomicTarget_;
  atomicTarget_ = op.dsts[0].get();
  scan(*op.dsts[0], true, op);
  atomicTarget_ = saved;
}

void RaceWalker::scanOpOperands(const OpStmt &op) {
  if (op.op && atomicOpOf(op.op->id)) {
    scanReduction(op);
    return;
  }
  for (auto &e : op.srcs) if (e) scan(*e, false, op);
  for (auto &c : op.clauses) for (auto &e : c.args) if (e) scan(*e, false, op);
  for (auto &e : op.dsts) if (e) scan(*e, true, op);
}

bool RaceWalker::regionOf(const Decl &array, const Expr &e, const std::vector<int64_t> &tileExtent,
                          std::vector<Region> &region, std::string &problem) {
  // Flatten a[s][r, c] (outer bracket groups first) and the array's dimensions.
  std::vector<const IndexExpr *> chain;
  const Expr *cur = &e;
  while (cur && (isa<IndexExpr>(cur) || isa<MemberExpr>(cur))) {
    if (auto *m = dynCast<MemberExpr>(cur)) { cur = m->base.get(); continue; }
    auto *i = cast<IndexExpr>(cur);
    chain.insert(chain.begin(), i);
    cur = i->base.get();
  }
  std::vector<const IndexItem *> items;
  for (const IndexExpr *i : chain) for (const IndexItem &it : i->items) items.push_back(&it);
  std::vector<const TensorDim *> dims;
  for (const DimGroup &g : array.type->groups) for (const TensorDim &d : g) dims.push_back(&d);
  if (items.size() > dims.size()) return false;
  size_t tileFirst = items.size() >= tileExtent.size() ? items.size() - tileExtent.size() : 0;
  for (size_t d = 0; d < dims.size(); ++d) {
    TranslateFailure failure;
    std::optional<z3::expr> dim;
    if (dims[d]->value) dim = z3_.int_val(*dims[d]->value);
    else if (dims[d]->expr) dim = tr_.translate(*dims[d]->expr, &failure);
    if (d >= items.size() || items[d]->kind == IndexItem::Full) {
      if (!dim) { problem = "dimension '" + dims[d]->text + "' cannot be modelled"; return true; }
      region.push_back({z3_.int_val(0), *dim});
      continue;
    }
    const IndexItem &it = *items[d];
    std::optional<z3::expr> start = it.start ? tr_.translate(*it.start, &failure) : std::nullopt;
    if (!start) {
      problem = "index '" + (it.start ? sourceText(ctx_.diags(), it.start->range) : std::string("?")) + "': " + failure.reason;
      return true;
    }
    z3::expr len = z3_.int_val(1);
    if (warpBandRows_ && d + 1 == items.size())
      start = *start + z3_.int_val(warpBandRows_) * z3::mod(tr_.builtinVar(BuiltinValue::Warp), z3_.int_val(4));
    if (!tileExtent.empty() && d >= tileFirst) len = z3_.int_val(tileExtent[d - tileFirst]);
    else if (it.kind == IndexItem::Slice && it.length) {
      auto l = tr_.translate(*it.length, &failure);
      if (!l) { problem = "slice length '" + sourceText(ctx_.diags(), it.length->range) + "': " + failure.reason; return true; }
      len = *l;
    }
    region.push_back({*start, len});
  }
  return true;
}

void RaceWalker::epochProblem(SourceRange r, const std::string &why) {
  if (epochProblem_.empty()) {
    epochProblem_ = why;
    epochProblemRange_ = r;
  }
}

// ---- pairs

RaceWalker::Renaming RaceWalker::secondThread() {
  Renaming r{z3::expr_vector(z3_), z3::expr_vector(z3_)};
  std::set<std::string> seen;
  for (const std::vector<z3::expr> *vs : {&threadVars_, &loopConsts_})
    for (const z3::expr &v : *vs) {
      std::string name = v.decl().name().str();
      if (!seen.insert(name).second) continue;
      r.from.push_back(v);
      r.to.push_back(z3_.int_const((name + "'").c_str()));
    }
  return r;
}

z3::expr RaceWalker::assumptions(const std::vector<z3::expr> &extra) {
  std::vector<z3::expr> base = requirements_;
  for (const z3::expr &c : tr_.sideConditions()) base.push_back(c);
  for (const z3::expr &c : extra) base.push_back(c);
  return z3::mk_and(toVector(base));
}

z3::expr_vector RaceWalker::toVector(const std::vector<z3::expr> &v) {
  z3::expr_vector out(z3_);
  for (const z3::expr &e : v) out.push_back(e);
  return out;
}

z3::expr RaceWalker::rename(const z3::expr &e, const z3::expr_vector &from, const z3::expr_vector &to) {
  z3::expr copy = e;
  return copy.substitute(from, to);
}

z3::expr RaceWalker::overlap(const std::vector<Region> &a, const std::vector<Region> &b, const Renaming &r) {
  z3::expr out = z3_.bool_val(true);
  for (size_t d = 0; d < a.size() && d < b.size(); ++d) {
    z3::expr s2 = rename(b[d].start, r.from, r.to), l2 = rename(b[d].length, r.from, r.to);
    out = out && a[d].start < s2 + l2 && s2 < a[d].start + a[d].length;
  }
  return out;
}

// ---- counterexample text

std::string RaceWalker::value(const z3::model &m, const z3::expr &e) {
  int64_t v = 0;
  z3::expr r = m.eval(e, true);
  if (r.is_numeral_i64(v)) return std::to_string(v);
  return r.to_string();
}

std::string RaceWalker::threadPrefix(const z3::model &m, const z3::expr_vector *from, const z3::expr_vector *to) {
  z3::expr tid = tr_.builtinVar(BuiltinValue::TidX);
  if (from) tid = rename(tid, *from, *to);
  int64_t t = 0;
  std::string out = "thread " + value(m, tid);
  if (m.eval(tid, true).is_numeral_i64(t)) out += " (warp " + std::to_string(t / 32) + ", lane " + std::to_string(t % 32) + ")";
  return out;
}

std::string RaceWalker::elementText(const std::string &array, const std::vector<Region> &region, const z3::model &m,
                                    const z3::expr_vector *from, const z3::expr_vector *to) {
  auto r = [&](const z3::expr &e) { return from ? rename(e, *from, *to) : e; };
  std::string out = array + "[";
  for (size_t d = 0; d < region.size(); ++d) {
    if (d) out += ", ";
    out += value(m, r(region[d].start));
    int64_t len = 0;
    if (!r(region[d].length).simplify().is_numeral_i64(len) || len != 1) out += " +: " + value(m, r(region[d].length));
  }
  return out + "]";
}

std::string RaceWalker::shapeText(const z3::model &m, std::initializer_list<const char *> hiddenPrefixes) {
  std::string shape;
  for (auto &[name, var] : tr_.freeVars()) {
    bool hidden = false;
    for (const z3::expr &t : threadVars_) hidden |= z3::eq(t, var);
    for (const char *p : hiddenPrefixes) hidden = hidden || name.rfind(p, 0) == 0;
    if (hidden) continue;
    shape += (shape.empty() ? "" : ", ") + name + " = " + value(m, var);
  }
  return shape;
}

} // namespace cake

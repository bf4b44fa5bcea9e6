// SyncExprFacts: walks of the typed AST (each let read once per query, so chains of lets stay linear) for the
// facts SyncAnalysis starts from; see SyncExprFacts.h.
#include "verify/SyncExprFacts.h"

#include "frontend/Builtins.h"
#include "verify/SyncModel.h"

#include <numeric>
#include <unordered_map>
#include <unordered_set>

namespace cake {


namespace {

// Does some node of e, or of the lets it reads, satisfy `hit`?  `seen`: the lets already searched in this
// query (each once, so chains of lets stay linear).
template <typename Hit>
bool anyNodeIn(const Expr *e, const Hit &hit, unsigned depth, std::unordered_set<const Decl *> &seen) {
  if (!e || depth > 64) return false;
  if (hit(*e)) return true;
  switch (e->kind) {
  case ExprKind::Name: {
    const Decl *d = cast<NameExpr>(e)->decl;
    if (d && d->declKind == DeclKind::Let)
      return seen.insert(d).second && anyNodeIn(static_cast<const LetStmt *>(d)->init.get(), hit, depth + 1, seen);
    return false;
  }
  case ExprKind::Unary: return anyNodeIn(cast<UnaryExpr>(e)->operand.get(), hit, depth + 1, seen);
  case ExprKind::Binary:
    return anyNodeIn(cast<BinaryExpr>(e)->lhs.get(), hit, depth + 1, seen) || anyNodeIn(cast<BinaryExpr>(e)->rhs.get(), hit, depth + 1, seen);
  case ExprKind::Call:
    for (const Ptr<Expr> &a : cast<CallExpr>(e)->args)
      if (anyNodeIn(a.get(), hit, depth + 1, seen)) return true;
    return false;
  case ExprKind::Member: return anyNodeIn(cast<MemberExpr>(e)->base.get(), hit, depth + 1, seen);
  case ExprKind::Index: {
    auto *ix = cast<IndexExpr>(e);
    if (anyNodeIn(ix->base.get(), hit, depth + 1, seen)) return true;
    for (const IndexItem &it : ix->items)
      if (anyNodeIn(it.start.get(), hit, depth + 1, seen)) return true;
    return false;
  }
  default: return false;
  }
}

} // namespace

bool mentions(const Expr *e, DeclKind kind) {
  std::unordered_set<const Decl *> seen;
  return anyNodeIn(e, [&](const Expr &x) {
    auto *n = dynCast<NameExpr>(&x);
    return n && n->decl && n->decl->declKind == kind;
  }, 0, seen);
}

// Does e read which CTA runs it: its position in the grid or the SM count (block.x/y/z, num_sms)?
bool readsBlockPosition(const Expr *e) {
  std::unordered_set<const Decl *> seen;
  return anyNodeIn(e, [](const Expr &x) {
    std::optional<BuiltinValue> v = builtinValueOf(x);
    return v && (*v == BuiltinValue::BlockX || *v == BuiltinValue::BlockY || *v == BuiltinValue::BlockZ ||
                 *v == BuiltinValue::NumSms);
  }, 0, seen);
}

namespace {

std::optional<int64_t> literalValue(const Expr *e) {
  if (auto *lit = dynCast<IntLitExpr>(e)) return static_cast<int64_t>(lit->value);
  if (auto *n = dynCast<NameExpr>(e); n && n->decl && n->decl->declKind == DeclKind::CtParam) {
    auto *p = static_cast<const CtParam *>(n->decl);
    if (p->value) return *p->value;
  }
  return std::nullopt;
}
using ShapePeriodMemo = std::unordered_map<const Decl *, std::optional<ShapePeriod>>;   // per let, per query
std::optional<ShapePeriod> shapePeriodIn(const Expr *e, unsigned depth, ShapePeriodMemo &memo) {
  if (!e || depth > 64) return std::nullopt;
  switch (e->kind) {
  case ExprKind::IntLit: return ShapePeriod{};
  case ExprKind::Name: {
    const Decl *d = cast<NameExpr>(e)->decl;
    if (!d) return std::nullopt;
    if (d->declKind == DeclKind::Let) {
      if (auto it = memo.find(d); it != memo.end()) return it->second;
      std::optional<ShapePeriod> p = shapePeriodIn(static_cast<const LetStmt *>(d)->init.get(), depth + 1, memo);
      memo.emplace(d, p);
      return p;
    }
    if (d->declKind == DeclKind::LoopVar || d->declKind == DeclKind::Var) return ShapePeriod{ShapePeriod::Linear, 1};
    return ShapePeriod{};
  }
  case ExprKind::Unary: return shapePeriodIn(cast<UnaryExpr>(e)->operand.get(), depth + 1, memo);
  case ExprKind::Call: {
    auto *c = cast<CallExpr>(e);
    if (c->args.size() != 1) return std::nullopt;   // conversions pass through; min / max / select: unknown
    return shapePeriodIn(c->args[0].get(), depth + 1, memo);
  }
  case ExprKind::Binary: {
    auto *b = cast<BinaryExpr>(e);
    std::optional<ShapePeriod> l = shapePeriodIn(b->lhs.get(), depth + 1, memo), r = shapePeriodIn(b->rhs.get(), depth + 1, memo);
    if (!l || !r) return std::nullopt;
    std::optional<int64_t> rv = literalValue(b->rhs.get());
    auto wrap = [&](int64_t m) -> std::optional<ShapePeriod> {   // x mod m
      if (m <= 0 || m > kMaxPeriod) return std::nullopt;
      if (l->kind == ShapePeriod::Periodic) return l;
      return ShapePeriod{ShapePeriod::Periodic, l->period * m};
    };
    switch (b->op) {
    case BinaryOp::Rem: return rv ? wrap(*rv) : std::nullopt;
    case BinaryOp::BitAnd: return rv && *rv >= 0 && ((*rv + 1) & *rv) == 0 ? wrap(*rv + 1) : std::nullopt;
    case BinaryOp::Div:
      if (!rv || *rv <= 0 || *rv > kMaxPeriod) return std::nullopt;
      if (l->kind == ShapePeriod::Periodic) return l;
      return ShapePeriod{ShapePeriod::Linear, l->period * *rv};
    case BinaryOp::Add: case BinaryOp::Sub: case BinaryOp::Mul: case BinaryOp::BitXor:
      if (l->kind == ShapePeriod::Periodic && r->kind == ShapePeriod::Periodic)
        return ShapePeriod{ShapePeriod::Periodic, std::lcm(l->period, r->period)};
      if (b->op == BinaryOp::BitXor) return std::nullopt;
      if (l->kind == ShapePeriod::Linear && r->kind == ShapePeriod::Linear)
        return l->period == 1 && r->period == 1 ? std::optional<ShapePeriod>(ShapePeriod{ShapePeriod::Linear, 1}) : std::nullopt;
      if (b->op == BinaryOp::Mul) return std::nullopt;   // linear * periodic: no shape
      return l->kind == ShapePeriod::Linear ? l : r;      // linear + periodic (a constant in the hint)
    case BinaryOp::Eq: case BinaryOp::Ne: case BinaryOp::Lt: case BinaryOp::Le: case BinaryOp::Gt:
    case BinaryOp::Ge: case BinaryOp::LogAnd: case BinaryOp::LogOr:
      if (l->kind == ShapePeriod::Periodic && r->kind == ShapePeriod::Periodic)
        return ShapePeriod{ShapePeriod::Periodic, std::lcm(l->period, r->period)};
      // `k > 0`: a linear value against a constant settles after a prefix (the proofs' h).
      if ((l->kind == ShapePeriod::Linear) != (r->kind == ShapePeriod::Linear) &&
          (l->kind == ShapePeriod::Periodic ? l->period : r->period) == 1 && b->op != BinaryOp::LogAnd &&
          b->op != BinaryOp::LogOr)
        return ShapePeriod{};
      return std::nullopt;
    default: return std::nullopt;
    }
  }
  default: return std::nullopt;
  }
}

} // namespace

std::optional<ShapePeriod> shapePeriod(const Expr *e, unsigned depth) {
  ShapePeriodMemo memo;
  return shapePeriodIn(e, depth, memo);
}

bool isSymbolic(const Expr *e) {
  return mentions(e, DeclKind::ShapeVar) || mentions(e, DeclKind::Param);
}

namespace {

// Does e take other values in other iterations of the symbolic loops (or at other counter values)?  It does
// when it reads a counter or a loop variable whose range is not fixed: a loop with constant bounds (an
// unrolled `for kb in 0..HD / 64` inside the pipeline loop) runs through the same values in every
// iteration, so a modulus applied to its variable alone (`kb % 4`) makes no period of the pipeline.
bool variesIn(const Expr *e, unsigned depth, std::unordered_set<const Decl *> &seen) {
  if (!e || depth > 64) return false;
  switch (e->kind) {
  case ExprKind::Name: {
    const Decl *d = cast<NameExpr>(e)->decl;
    if (!d || !seen.insert(d).second) return false;
    if (d->declKind == DeclKind::Var) return true;
    if (d->declKind == DeclKind::Let) return variesIn(static_cast<const LetStmt *>(d)->init.get(), depth + 1, seen);
    if (d->declKind != DeclKind::LoopVar) return false;
    auto *f = static_cast<const ForStmt *>(d);
    for (const Expr *bound : {f->lower.get(), f->upper.get(), f->step.get()})
      if (bound && (isSymbolic(bound) || mentions(bound, DeclKind::LoopVar) || mentions(bound, DeclKind::Var)))
        return true;
    return false;
  }
  case ExprKind::Unary: return variesIn(cast<UnaryExpr>(e)->operand.get(), depth + 1, seen);
  case ExprKind::Binary:
    return variesIn(cast<BinaryExpr>(e)->lhs.get(), depth + 1, seen) || variesIn(cast<BinaryExpr>(e)->rhs.get(), depth + 1, seen);
  case ExprKind::Call:
    for (const Ptr<Expr> &a : cast<CallExpr>(e)->args)
      if (variesIn(a.get(), depth + 1, seen)) return true;
    return false;
  case ExprKind::Member: return variesIn(cast<MemberExpr>(e)->base.get(), depth + 1, seen);
  case ExprKind::Index: {
    auto *ix = cast<IndexExpr>(e);
    if (variesIn(ix->base.get(), depth + 1, seen)) return true;
    for (const IndexItem &it : ix->items)
      if (variesIn(it.start.get(), depth + 1, seen)) return true;
    return false;
  }
  default: return false;
  }
}

bool varies(const Expr *e) {
  std::unordered_set<const Decl *> seen;
  return variesIn(e, 0, seen);
}

// Constant divisors, moduli and (mask + 1) applied to loop variables and counters in an expression,
// through lets.
void collectModuliIn(const Expr *e, std::vector<int64_t> &out, unsigned depth, std::unordered_set<const Decl *> &seen) {
  if (!e || depth > 64) return;
  switch (e->kind) {
  case ExprKind::Name: {
    const Decl *d = cast<NameExpr>(e)->decl;
    if (d && d->declKind == DeclKind::Let && seen.insert(d).second)   // each let once
      collectModuliIn(static_cast<const LetStmt *>(d)->init.get(), out, depth + 1, seen);
    return;
  }
  case ExprKind::Unary: collectModuliIn(cast<UnaryExpr>(e)->operand.get(), out, depth + 1, seen); return;
  case ExprKind::Binary: {
    auto *b = cast<BinaryExpr>(e);
    collectModuliIn(b->lhs.get(), out, depth + 1, seen);
    collectModuliIn(b->rhs.get(), out, depth + 1, seen);
    // Only an operation on a value that changes from iteration to iteration can make a period:
    // `HD / 64` in `xb * (HD / 64) + kb` and `kk % 4` over an unrolled `kk in 0..8` are the same in every
    // iteration.
    if (!varies(b->lhs.get())) return;
    if (auto *lit = dynCast<IntLitExpr>(b->rhs.get()); lit && (b->op == BinaryOp::BitAnd))
      out.push_back(static_cast<int64_t>(lit->value) + 1);
    if (b->op == BinaryOp::BitXor) out.push_back(2);
    if (b->op == BinaryOp::Div || b->op == BinaryOp::Rem) {
      // The divisor's value: a literal or a compile-time parameter.
      const Expr *r = b->rhs.get();
      if (auto *lit = dynCast<IntLitExpr>(r)) out.push_back(static_cast<int64_t>(lit->value));
      else if (auto *n = dynCast<NameExpr>(r); n && n->decl && n->decl->declKind == DeclKind::CtParam) {
        auto *p = static_cast<const CtParam *>(n->decl);
        if (p->value) out.push_back(*p->value);
      }
    }
    return;
  }
  case ExprKind::Call:
    for (const Ptr<Expr> &a : cast<CallExpr>(e)->args) collectModuliIn(a.get(), out, depth + 1, seen);
    return;
  default: return;
  }
}

} // namespace

void collectModuli(const Expr *e, std::vector<int64_t> &out) {
  std::unordered_set<const Decl *> seen;
  collectModuliIn(e, out, 0, seen);
}

// The lcm of the moduli up to the longest period the analysis considers (1 for none).
int64_t lcmOf(const std::vector<int64_t> &moduli) {
  int64_t lcm = 1;
  for (int64_t m : moduli)
    if (m > 0 && m <= kMaxPeriod) lcm = std::lcm(lcm, m);
  return lcm;
}

namespace {

const Expr *firstIndex(const Expr *operand) {
  const Expr *e = operand;
  const IndexExpr *outer = nullptr;
  while (e) {
    if (auto *m = dynCast<MemberExpr>(e)) e = m->base.get();
    else if (auto *i = dynCast<IndexExpr>(e)) {
      outer = i;
      e = i->base.get();
    } else break;
  }
  return outer && !outer->items.empty() ? outer->items[0].start.get() : nullptr;
}

// Does the operand name shared memory or an mbarrier (whose first index is a stage / barrier index)?
bool isOnChip(const Expr *operand) {
  const Expr *e = operand;
  while (e) {
    if (auto *m = dynCast<MemberExpr>(e)) e = m->base.get();
    else if (auto *i = dynCast<IndexExpr>(e)) e = i->base.get();
    else break;
  }
  auto *n = dynCast<NameExpr>(e);
  return n && n->decl && (n->decl->declKind == DeclKind::Shared || n->decl->declKind == DeclKind::MBarrier);
}

} // namespace

// The expressions that decide the sync events of a statement: branch conditions and loop bounds around
// events, barrier and stage indices, parities, byte counts, target CTAs, multicast masks.
void collectSyncExprs(const Stmt &s, std::vector<const Expr *> &out) {
  if (!containsSyncEvents(s)) return;
  switch (s.kind) {
  case StmtKind::Block:
    for (const Ptr<Stmt> &c : cast<BlockStmt>(&s)->stmts) collectSyncExprs(*c, out);
    return;
  case StmtKind::Role: collectSyncExprs(*cast<RoleStmt>(&s)->body, out); return;
  case StmtKind::Elect: collectSyncExprs(*cast<ElectStmt>(&s)->body, out); return;
  case StmtKind::If: {
    auto *i = cast<IfStmt>(&s);
    out.push_back(i->cond.get());
    if (i->thenBody) collectSyncExprs(*i->thenBody, out);
    if (i->elseBody) collectSyncExprs(*i->elseBody, out);
    return;
  }
  case StmtKind::For: {
    auto *f = cast<ForStmt>(&s);
    out.push_back(f->lower.get());
    out.push_back(f->upper.get());
    if (f->step) out.push_back(f->step.get());
    collectSyncExprs(*f->body, out);
    return;
  }
  case StmtKind::Op: {
    auto *o = cast<OpStmt>(&s);
    for (const Clause &c : o->clauses)
      for (const Ptr<Expr> &a : c.args) {
        if (c.name == "signal") out.push_back(firstIndex(a.get()));
        else out.push_back(a.get());
      }
    // Stage / barrier indices only: coordinates into global tensors do not decide any event.
    for (const Ptr<Expr> &d : o->dsts)
      if (isOnChip(d.get())) out.push_back(firstIndex(d.get()));
    for (const Ptr<Expr> &d : o->srcs)
      if (isOnChip(d.get())) out.push_back(firstIndex(d.get()));
    return;
  }
  default: return;
  }
}

void findSyncLoops(const Stmt &s, std::vector<SyncLoop> &out, int parent) {
  if (!containsSyncEvents(s)) return;
  switch (s.kind) {
  case StmtKind::Block:
    for (const Ptr<Stmt> &c : cast<BlockStmt>(&s)->stmts) findSyncLoops(*c, out, parent);
    return;
  case StmtKind::Role: findSyncLoops(*cast<RoleStmt>(&s)->body, out, parent); return;
  case StmtKind::Elect: findSyncLoops(*cast<ElectStmt>(&s)->body, out, parent); return;
  case StmtKind::If: {
    auto *i = cast<IfStmt>(&s);
    if (i->thenBody) findSyncLoops(*i->thenBody, out, parent);
    if (i->elseBody) findSyncLoops(*i->elseBody, out, parent);
    return;
  }
  case StmtKind::For: {
    auto *f = cast<ForStmt>(&s);
    SyncLoop l;
    l.loop = f;
    l.parent = parent;
    l.symbolic = isSymbolic(f->lower.get()) || isSymbolic(f->upper.get()) || isSymbolic(f->step.get());
    collectSyncExprs(*f->body, l.exprs);
    out.push_back(std::move(l));
    int self = static_cast<int>(out.size()) - 1;
    findSyncLoops(*f->body, out, self);
    // A symbolic loop around another symbolic sync loop is a tile loop: driven by its trip count.
    for (size_t i = static_cast<size_t>(self) + 1; i < out.size(); ++i)
      if (out[i].symbolic && out[self].symbolic) out[static_cast<size_t>(self)].driven = true;
    return;
  }
  default: return;
  }
}

} // namespace cake

// Uniformity of expressions across a block's threads (see Uniformity.h).
//
// Expressions: a recursive join over the operands, with leaves classified by what they name.  Vars:
// an iterative fixpoint - start every var at Block, walk the kernel once per round raising each var to the
// join of what is assigned to it and the uniformity of the control around the assignment (enclosing if
// conditions, loop bounds, elect = Thread); stop when a round changes nothing (at most 3 raises per var,
// so at most 3 * vars + 1 rounds; in practice two).
#include "verify/Uniformity.h"

#include "frontend/Builtins.h"

namespace cake {

namespace {
constexpr unsigned kMaxDepth = 256;

Uniformity ofPlainBuiltin(BuiltinValue v) {
  switch (v) {
  case BuiltinValue::TidX: case BuiltinValue::TidY: case BuiltinValue::TidZ:
  case BuiltinValue::Lane: case BuiltinValue::RoleThread:
    return Uniformity::Thread;
  case BuiltinValue::Warp: case BuiltinValue::RoleWarp: case BuiltinValue::RoleIndex:
    return Uniformity::Warp;
  default:
    return Uniformity::Block;
  }
}

// The declaration an assignment target ultimately writes: x, x[i], x[i][j] -> x.
const Decl *rootDecl(const Expr *e) {
  while (e) {
    if (auto *n = dynCast<NameExpr>(e)) return n->decl;
    if (auto *ix = dynCast<IndexExpr>(e)) { e = ix->base.get(); continue; }
    return nullptr;
  }
  return nullptr;
}
} // namespace

const char *uniformityName(Uniformity u) {
  switch (u) {
  case Uniformity::Block: return "block-uniform";
  case Uniformity::Warpgroup: return "warpgroup-uniform";
  case Uniformity::Warp: return "warp-uniform";
  case Uniformity::Thread: return "thread-varying";
  }
  return "?";
}

UniformityAnalysis::UniformityAnalysis(const Kernel &k, const KernelInfo &info) : info_(&info) { solveVars(k); }

// ROLE.index of a role whose instances are whole aligned warpgroups is the same in each warpgroup.
Uniformity UniformityAnalysis::ofBuiltin(const Expr &e, BuiltinValue v) const {
  if (v == BuiltinValue::RoleIndex)
    if (auto *m = dynCast<MemberExpr>(&e))
      if (auto *n = dynCast<NameExpr>(m->base.get()); n && n->decl && n->decl->declKind == DeclKind::Role)
        if (const RoleInfo *r = info_->roleOf(static_cast<const RoleStmt *>(n->decl)); r && r->warpgroupAligned())
          return Uniformity::Warpgroup;
  return ofPlainBuiltin(v);
}

Uniformity UniformityAnalysis::ofDecl(const Decl &d, unsigned depth) const {
  switch (d.declKind) {
  case DeclKind::Let: {
    auto &let = static_cast<const LetStmt &>(d);
    if (auto it = lets_.find(&d); it != lets_.end()) return it->second;   // chains of lets stay linear
    Uniformity u = let.init ? eval(*let.init, depth + 1) : Uniformity::Block;
    lets_.emplace(&d, u);
    return u;
  }
  case DeclKind::LoopVar: {
    auto &f = static_cast<const ForStmt &>(d);
    Uniformity u = Uniformity::Block;
    if (f.lower) u = join(u, eval(*f.lower, depth + 1));
    if (f.upper) u = join(u, eval(*f.upper, depth + 1));
    if (f.step) u = join(u, eval(*f.step, depth + 1));
    return u;
  }
  case DeclKind::Var: {
    auto it = vars_.find(&d);
    return it == vars_.end() ? Uniformity::Block : it->second;
  }
  case DeclKind::Builtin: {
    auto &b = static_cast<const BuiltinDecl &>(d);
    return b.value ? ofPlainBuiltin(*b.value) : Uniformity::Block;
  }
  default:
    return Uniformity::Block;   // ct params, shape vars, params, shared arrays, barriers, roles
  }
}

Uniformity UniformityAnalysis::eval(const Expr &e, unsigned depth) const {
  if (depth > kMaxDepth) return Uniformity::Thread;
  switch (e.kind) {
  case ExprKind::IntLit: case ExprKind::FloatLit: case ExprKind::BoolLit: case ExprKind::List:
    return Uniformity::Block;
  case ExprKind::Name: {
    auto &n = *cast<NameExpr>(&e);
    return n.decl ? ofDecl(*n.decl, depth) : Uniformity::Thread;
  }
  case ExprKind::Unary: return eval(*cast<UnaryExpr>(&e)->operand, depth + 1);
  case ExprKind::Binary: {
    auto &b = *cast<BinaryExpr>(&e);
    return join(eval(*b.lhs, depth + 1), eval(*b.rhs, depth + 1));
  }
  case ExprKind::Member: {
    if (auto v = builtinValueOf(e)) return ofBuiltin(e, *v);
    return eval(*cast<MemberExpr>(&e)->base, depth + 1);
  }
  case ExprKind::Index: {
    auto &ix = *cast<IndexExpr>(&e);
    Uniformity u = eval(*ix.base, depth + 1);
    for (const IndexItem &it : ix.items) {
      if (it.start) u = join(u, eval(*it.start, depth + 1));
      if (it.length) u = join(u, eval(*it.length, depth + 1));
    }
    return u;
  }
  case ExprKind::Call: {
    auto &c = *cast<CallExpr>(&e);
    Uniformity u = Uniformity::Block;
    for (auto &a : c.args)
      if (a) u = join(u, eval(*a, depth + 1));
    if (c.callee.rfind("atom.", 0) == 0) return Uniformity::Thread;   // each thread sees its own old value
    bool warpWide = c.callee.rfind("warp.", 0) == 0;   // warp.sum/max/min/any/all
    if (warpWide && u == Uniformity::Thread) u = Uniformity::Warp;   // same result in every lane
    return u;
  }
  }
  return Uniformity::Thread;
}

const Expr *UniformityAnalysis::culprit(const Expr &e, Uniformity level) const {
  if (of(e) < level) return nullptr;
  switch (e.kind) {
  case ExprKind::Name: {
    auto &n = *cast<NameExpr>(&e);
    if (n.decl && n.decl->declKind == DeclKind::Let) {
      auto &let = static_cast<const LetStmt &>(*n.decl);
      if (let.init)
        if (const Expr *c = culprit(*let.init, level)) return c;
    }
    return &e;
  }
  case ExprKind::Unary: return culprit(*cast<UnaryExpr>(&e)->operand, level);
  case ExprKind::Binary: {
    auto &b = *cast<BinaryExpr>(&e);
    if (const Expr *c = culprit(*b.lhs, level)) return c;
    return culprit(*b.rhs, level);
  }
  case ExprKind::Member:
    if (builtinValueOf(e)) return &e;
    return culprit(*cast<MemberExpr>(&e)->base, level);
  case ExprKind::Index: {
    auto &ix = *cast<IndexExpr>(&e);
    for (const IndexItem &it : ix.items)
      if (it.start)
        if (const Expr *c = culprit(*it.start, level)) return c;
    return culprit(*ix.base, level);
  }
  case ExprKind::Call:
    for (auto &a : cast<CallExpr>(&e)->args)
      if (a)
        if (const Expr *c = culprit(*a, level)) return c;
    return &e;
  default:
    return &e;
  }
}

void UniformityAnalysis::visit(const Stmt &s, Uniformity control, bool &changed) {
  auto raise = [&](const Decl *d, Uniformity u) {
    if (!d || d->declKind != DeclKind::Var) return;
    Uniformity &slot = vars_[d];
    if (u > slot) {
      slot = u;
      changed = true;
      lets_.clear();   // memoised lets may read d
    }
  };
  switch (s.kind) {
  case StmtKind::Block:
    for (auto &c : cast<BlockStmt>(&s)->stmts)
      if (c) visit(*c, control, changed);
    break;
  case StmtKind::Var: {
    auto &v = *cast<VarStmt>(&s);
    raise(static_cast<const Decl *>(&v), join(control, v.init ? of(*v.init) : Uniformity::Block));
    break;
  }
  case StmtKind::Assign: {
    auto &a = *cast<AssignStmt>(&s);
    Uniformity u = control;
    if (a.value) u = join(u, of(*a.value));
    if (auto *ix = dynCast<IndexExpr>(a.target.get()))   // acc[i] = v with a varying i varies acc
      for (const IndexItem &it : ix->items)
        if (it.start) u = join(u, of(*it.start));
    raise(rootDecl(a.target.get()), u);
    break;
  }
  case StmtKind::Op: {
    // Operations that write registers (ldmatrix, mma.sync, wgmma) make their destinations vary like the
    // data: Thread (each lane holds its own part).
    auto &op = *cast<OpStmt>(&s);
    for (auto &d : op.dsts) raise(rootDecl(d.get()), Uniformity::Thread);
    break;
  }
  case StmtKind::Role:
    // A role's warps run its body; inside it, values are as uniform as what computes them.
    if (auto &b = cast<RoleStmt>(&s)->body) visit(*b, control, changed);
    break;
  case StmtKind::For: {
    auto &f = *cast<ForStmt>(&s);
    Uniformity u = join(control, ofDecl(f, 0));
    if (f.body) visit(*f.body, u, changed);
    break;
  }
  case StmtKind::If: {
    auto &i = *cast<IfStmt>(&s);
    Uniformity u = join(control, i.cond ? of(*i.cond) : Uniformity::Thread);
    if (i.thenBody) visit(*i.thenBody, u, changed);
    if (i.elseBody) visit(*i.elseBody, u, changed);
    break;
  }
  case StmtKind::Elect:
    if (auto &b = cast<ElectStmt>(&s)->body) visit(*b, Uniformity::Thread, changed);
    break;
  default:
    break;
  }
}

void UniformityAnalysis::solveVars(const Kernel &k) {
  if (!k.body) return;
  for (int round = 0; round < 64; ++round) {
    bool changed = false;
    visit(*k.body, Uniformity::Block, changed);
    if (!changed) break;
  }
}

} // namespace cake

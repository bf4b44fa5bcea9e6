// ASTClone: one recursive copy function per node family.  Recursion depth is the tree's depth, which the
// parser bounds (kMaxNesting) and inlining bounds by its call nesting limit (Inline.cpp).
#include "frontend/ASTClone.h"

#include "support/Diagnostics.h"

namespace cake {

namespace {

class Cloner {
public:
  explicit Cloner(const RangeMap &mapRange) : map_(mapRange) {}

  SourceRange r(SourceRange range) const { return map_ && range.valid() ? map_(range) : range; }

  Ptr<Expr> opt(const Expr *e) { return e ? expr(*e) : nullptr; }

  Ptr<Expr> expr(const Expr &e) {
    switch (e.kind) {
    case ExprKind::IntLit: {
      const auto &x = *cast<IntLitExpr>(&e);
      return std::make_unique<IntLitExpr>(r(x.range), x.value, x.isBytes);
    }
    case ExprKind::FloatLit: {
      const auto &x = *cast<FloatLitExpr>(&e);
      return std::make_unique<FloatLitExpr>(r(x.range), x.value, x.spelling);
    }
    case ExprKind::BoolLit: return std::make_unique<BoolLitExpr>(r(e.range), cast<BoolLitExpr>(&e)->value);
    case ExprKind::Name: return std::make_unique<NameExpr>(r(e.range), cast<NameExpr>(&e)->name);
    case ExprKind::Unary: {
      const auto &x = *cast<UnaryExpr>(&e);
      return std::make_unique<UnaryExpr>(r(x.range), x.op, opt(x.operand.get()));
    }
    case ExprKind::Binary: {
      const auto &x = *cast<BinaryExpr>(&e);
      return std::make_unique<BinaryExpr>(r(x.range), x.op, opt(x.lhs.get()), opt(x.rhs.get()));
    }
    case ExprKind::Member: {
      const auto &x = *cast<MemberExpr>(&e);
      return std::make_unique<MemberExpr>(r(x.range), opt(x.base.get()), x.member, r(x.memberRange));
    }
    case ExprKind::Index: {
      const auto &x = *cast<IndexExpr>(&e);
      auto copy = std::make_unique<IndexExpr>(r(x.range), opt(x.base.get()));
      for (const IndexItem &item : x.items) {
        IndexItem c;
        c.kind = item.kind;
        c.start = opt(item.start.get());
        c.length = opt(item.length.get());
        c.range = r(item.range);
        copy->items.push_back(std::move(c));
      }
      return copy;
    }
    case ExprKind::Call: {
      const auto &x = *cast<CallExpr>(&e);
      auto copy = std::make_unique<CallExpr>(r(x.range), x.callee, r(x.calleeRange));
      for (const auto &a : x.args) copy->args.push_back(opt(a.get()));
      return copy;
    }
    case ExprKind::List: {
      const auto &x = *cast<ListExpr>(&e);
      auto copy = std::make_unique<ListExpr>(r(x.range));
      for (const auto &a : x.elements) copy->elements.push_back(opt(a.get()));
      return copy;
    }
    }
    CAKE_INTERNAL_ERROR("unknown expression kind");
  }

  Ptr<TypeExpr> type(const TypeExpr &t) {
    auto c = std::make_unique<TypeExpr>();
    c->range = r(t.range);
    c->baseName = t.baseName;
    c->baseRange = r(t.baseRange);
    c->fragKind = t.fragKind;
    c->fragKindRange = r(t.fragKindRange);
    c->fragDtype = t.fragDtype;
    c->fragDtypeRange = r(t.fragDtypeRange);
    c->fragM = opt(t.fragM.get());
    c->fragN = opt(t.fragN.get());
    c->fragK = opt(t.fragK.get());
    for (const auto &group : t.dimGroups) {
      std::vector<Ptr<Expr>> g;
      for (const auto &d : group) g.push_back(opt(d.get()));
      c->dimGroups.push_back(std::move(g));
    }
    return c;
  }
  Ptr<TypeExpr> optType(const TypeExpr *t) { return t ? type(*t) : nullptr; }

  std::vector<Attr> attrs(const std::vector<Attr> &list) {
    std::vector<Attr> out;
    for (const Attr &a : list) {
      Attr c;
      c.name = a.name;
      c.range = r(a.range);
      c.nameRange = r(a.nameRange);
      for (const AttrArg &arg : a.args) c.args.push_back({arg.key, r(arg.keyRange), opt(arg.value.get())});
      out.push_back(std::move(c));
    }
    return out;
  }

  Ptr<BlockStmt> block(const BlockStmt &b) {
    auto c = std::make_unique<BlockStmt>(r(b.range));
    for (const auto &s : b.stmts) c->stmts.push_back(stmt(*s));
    return c;
  }
  Ptr<BlockStmt> optBlock(const BlockStmt *b) { return b ? block(*b) : nullptr; }

  Ptr<Stmt> stmt(const Stmt &s) {
    switch (s.kind) {
    case StmtKind::Block: return block(*cast<BlockStmt>(&s));
    case StmtKind::Let: {
      const auto &x = *cast<LetStmt>(&s);
      auto c = std::make_unique<LetStmt>(r(x.range), x.name, r(x.nameRange));
      c->declaredType = optType(x.declaredType.get());
      c->init = opt(x.init.get());
      return c;
    }
    case StmtKind::Var: {
      const auto &x = *cast<VarStmt>(&s);
      auto c = std::make_unique<VarStmt>(r(x.range), x.name, r(x.nameRange));
      c->declaredType = optType(x.declaredType.get());
      c->init = opt(x.init.get());
      return c;
    }
    case StmtKind::Shared: {
      const auto &x = *cast<SharedStmt>(&s);
      auto c = std::make_unique<SharedStmt>(r(x.range), x.name, r(x.nameRange));
      c->declaredType = optType(x.declaredType.get());
      c->attrs = attrs(x.attrs);
      c->tensorMemory = x.tensorMemory;
      c->declKind = x.declKind;
      return c;
    }
    case StmtKind::MBarrier: {
      const auto &x = *cast<MBarrierStmt>(&s);
      auto c = std::make_unique<MBarrierStmt>(r(x.range), x.name, r(x.nameRange));
      c->count = opt(x.count.get());
      c->attrs = attrs(x.attrs);
      return c;
    }
    case StmtKind::Barrier: {
      const auto &x = *cast<BarrierStmt>(&s);
      auto c = std::make_unique<BarrierStmt>(r(x.range), x.name, r(x.nameRange));
      c->count = opt(x.count.get());
      c->attrs = attrs(x.attrs);
      return c;
    }
    case StmtKind::Role: {
      const auto &x = *cast<RoleStmt>(&s);
      auto c = std::make_unique<RoleStmt>(r(x.range), x.name, r(x.nameRange));
      c->instances = opt(x.instances.get());
      c->unit = x.unit;
      c->pluralSpelling = x.pluralSpelling;
      c->first = opt(x.first.get());
      c->last = opt(x.last.get());
      c->attrs = attrs(x.attrs);
      c->body = optBlock(x.body.get());
      return c;
    }
    case StmtKind::For: {
      const auto &x = *cast<ForStmt>(&s);
      auto c = std::make_unique<ForStmt>(r(x.range), x.name, r(x.nameRange));
      c->lower = opt(x.lower.get());
      c->upper = opt(x.upper.get());
      c->step = opt(x.step.get());
      c->unroll = x.unroll;
      c->unrollFactor = opt(x.unrollFactor.get());
      c->body = optBlock(x.body.get());
      return c;
    }
    case StmtKind::If: {
      const auto &x = *cast<IfStmt>(&s);
      auto c = std::make_unique<IfStmt>(r(x.range));
      c->cond = opt(x.cond.get());
      c->thenBody = optBlock(x.thenBody.get());
      if (x.elseBody) c->elseBody = stmt(*x.elseBody);
      return c;
    }
    case StmtKind::Elect: {
      auto c = std::make_unique<ElectStmt>(r(s.range));
      c->body = optBlock(cast<ElectStmt>(&s)->body.get());
      return c;
    }
    case StmtKind::Return: {
      auto c = std::make_unique<ReturnStmt>(r(s.range));
      c->value = opt(cast<ReturnStmt>(&s)->value.get());
      return c;
    }
    case StmtKind::Assign: {
      const auto &x = *cast<AssignStmt>(&s);
      auto c = std::make_unique<AssignStmt>(r(x.range));
      c->target = opt(x.target.get());
      c->op = x.op;
      c->value = opt(x.value.get());
      return c;
    }
    case StmtKind::Op: {
      const auto &x = *cast<OpStmt>(&s);
      auto c = std::make_unique<OpStmt>(r(x.range));
      c->name = x.name;
      c->nameRange = r(x.nameRange);
      c->op = x.op;
      for (const auto &d : x.dsts) c->dsts.push_back(opt(d.get()));
      c->arrow = x.arrow;
      for (const auto &d : x.srcs) c->srcs.push_back(opt(d.get()));
      for (const Clause &cl : x.clauses) {
        Clause k;
        k.name = cl.name;
        k.range = r(cl.range);
        k.nameRange = r(cl.nameRange);
        for (const auto &a : cl.args) k.args.push_back(opt(a.get()));
        c->clauses.push_back(std::move(k));
      }
      return c;
    }
    case StmtKind::Call: {
      const auto &x = *cast<CallStmt>(&s);
      auto c = std::make_unique<CallStmt>(r(x.range));
      if (x.call) {
        Ptr<Expr> call = expr(*x.call);
        c->call.reset(cast<CallExpr>(call.release()));
      }
      return c;
    }
    }
    CAKE_INTERNAL_ERROR("unknown statement kind");
  }

private:
  const RangeMap &map_;
};

} // namespace

Ptr<Expr> cloneExpr(const Expr &e, const RangeMap &mapRange) { return Cloner(mapRange).expr(e); }
Ptr<TypeExpr> cloneType(const TypeExpr &t, const RangeMap &mapRange) { return Cloner(mapRange).type(t); }
Ptr<Stmt> cloneStmt(const Stmt &s, const RangeMap &mapRange) { return Cloner(mapRange).stmt(s); }
Ptr<BlockStmt> cloneBlock(const BlockStmt &b, const RangeMap &mapRange) { return Cloner(mapRange).block(b); }

} // namespace cake

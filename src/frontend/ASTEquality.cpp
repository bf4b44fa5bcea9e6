// ASTEquality: structural comparison of two ASTs (see ASTEquality.h for what is ignored).
//
// How it works: a Comparer walks both trees in lockstep.  Statements, kernels and types recurse (their
// depth is bounded by the parser's nesting cap) and keep the current path as a stack of segments.
// Expressions are compared with an explicit worklist instead of recursion, because the parser builds
// binary and postfix chains with loops and their depth is unbounded; each worklist entry remembers its
// parent and the label of the edge, so the path to a mismatch is rebuilt only when one is found.
#include "frontend/ASTEquality.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

namespace cake {
namespace {

std::string_view exprKindName(ExprKind k) {
  switch (k) {
  case ExprKind::IntLit: return "int literal";
  case ExprKind::FloatLit: return "float literal";
  case ExprKind::BoolLit: return "bool literal";
  case ExprKind::Name: return "name";
  case ExprKind::Unary: return "unary";
  case ExprKind::Binary: return "binary";
  case ExprKind::Member: return "member";
  case ExprKind::Index: return "index";
  case ExprKind::Call: return "call";
  case ExprKind::List: return "list";
  }
  return "?";
}

std::string_view stmtKindName(StmtKind k) {
  switch (k) {
  case StmtKind::Block: return "block";
  case StmtKind::Let: return "let";
  case StmtKind::Var: return "var";
  case StmtKind::Shared: return "shared";
  case StmtKind::MBarrier: return "mbarrier";
  case StmtKind::Barrier: return "barrier";
  case StmtKind::Role: return "role";
  case StmtKind::For: return "for";
  case StmtKind::If: return "if";
  case StmtKind::Elect: return "elect";
  case StmtKind::Return: return "return";
  case StmtKind::Assign: return "assign";
  case StmtKind::Op: return "op";
  case StmtKind::Call: return "call";
  }
  return "?";
}

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

class Comparer {
public:
  std::optional<std::string> difference;

  bool module(const Module &a, const Module &b) {
    if (!same("target", a.target, b.target)) return false;
    if (!sameCount("fns", a.fns.size(), b.fns.size())) return false;
    for (size_t i = 0; i < a.fns.size(); ++i) {
      Segment seg(*this, "fns[" + std::to_string(i) + "]");
      if (!fn(*a.fns[i], *b.fns[i])) return false;
    }
    if (!sameCount("kernels", a.kernels.size(), b.kernels.size())) return false;
    for (size_t i = 0; i < a.kernels.size(); ++i) {
      Segment seg(*this, "kernels[" + std::to_string(i) + "]");
      if (!kernel(*a.kernels[i], *b.kernels[i])) return false;
    }
    return true;
  }

  // Expressions: explicit worklist (see the file comment).  Either pointer may be null (optional parts).
  bool expr(const Expr *rootA, const Expr *rootB) {
    struct Item {
      const Expr *a, *b;
      size_t parent;       // index into `items`, SIZE_MAX for the root
      std::string label;   // edge label from the parent
    };
    std::vector<Item> items{{rootA, rootB, SIZE_MAX, ""}};
    std::vector<size_t> todo{0};
    auto fail = [&](size_t at, std::string what) {
      std::vector<const std::string *> labels;
      for (size_t i = at; i != SIZE_MAX; i = items[i].parent)
        if (!items[i].label.empty()) labels.push_back(&items[i].label);
      std::string path = currentPath();
      for (auto it = labels.rbegin(); it != labels.rend(); ++it) path += (path.empty() ? "" : ".") + **it;
      difference = (path.empty() ? std::string("<root>") : path) + ": " + what;
      return false;
    };
    while (!todo.empty()) {
      size_t cur = todo.back();
      todo.pop_back();
      const Expr *a = items[cur].a, *b = items[cur].b;
      if (!a || !b) {
        if (a != b) return fail(cur, std::string(a ? "present" : "absent") + " vs " + (b ? "present" : "absent"));
        continue;
      }
      if (a->kind != b->kind)
        return fail(cur, std::string(exprKindName(a->kind)) + " vs " + std::string(exprKindName(b->kind)));
      // Children are pushed in reverse so that they pop in source order (first difference = leftmost).
      std::vector<Item> children;
      auto child = [&](const Expr *x, const Expr *y, std::string label) {
        children.push_back({x, y, cur, std::move(label)});
      };
      switch (a->kind) {
      case ExprKind::IntLit: {
        const auto *x = cast<IntLitExpr>(a), *y = cast<IntLitExpr>(b);
        if (x->value != y->value || x->isBytes != y->isBytes)
          return fail(cur, "int literal " + std::to_string(x->value) + (x->isBytes ? "B" : "") + " vs " +
                               std::to_string(y->value) + (y->isBytes ? "B" : ""));
        break;
      }
      case ExprKind::FloatLit: {
        const auto *x = cast<FloatLitExpr>(a), *y = cast<FloatLitExpr>(b);
        bool sameValue = x->value == y->value || (std::isnan(x->value) && std::isnan(y->value));
        if (x->spelling != y->spelling || !sameValue)
          return fail(cur, "float literal " + quoted(x->spelling) + " vs " + quoted(y->spelling));
        break;
      }
      case ExprKind::BoolLit:
        if (cast<BoolLitExpr>(a)->value != cast<BoolLitExpr>(b)->value) return fail(cur, "bool literal differs");
        break;
      case ExprKind::Name:
        if (cast<NameExpr>(a)->name != cast<NameExpr>(b)->name)
          return fail(cur, "name " + quoted(cast<NameExpr>(a)->name) + " vs " + quoted(cast<NameExpr>(b)->name));
        break;
      case ExprKind::Unary: {
        const auto *x = cast<UnaryExpr>(a), *y = cast<UnaryExpr>(b);
        if (x->op != y->op) return fail(cur, "unary operator differs");
        child(x->operand.get(), y->operand.get(), "operand");
        break;
      }
      case ExprKind::Binary: {
        const auto *x = cast<BinaryExpr>(a), *y = cast<BinaryExpr>(b);
        if (x->op != y->op)
          return fail(cur, "binary operator " + std::to_string(int(x->op)) + " vs " + std::to_string(int(y->op)));
        child(x->lhs.get(), y->lhs.get(), "lhs");
        child(x->rhs.get(), y->rhs.get(), "rhs");
        break;
      }
      case ExprKind::Member: {
        const auto *x = cast<MemberExpr>(a), *y = cast<MemberExpr>(b);
        if (x->member != y->member) return fail(cur, "member " + quoted(x->member) + " vs " + quoted(y->member));
        child(x->base.get(), y->base.get(), "base");
        break;
      }
      case ExprKind::Index: {
        const auto *x = cast<IndexExpr>(a), *y = cast<IndexExpr>(b);
        child(x->base.get(), y->base.get(), "base");
        if (x->items.size() != y->items.size())
          return fail(cur, "index count " + std::to_string(x->items.size()) + " vs " + std::to_string(y->items.size()));
        for (size_t i = 0; i < x->items.size(); ++i) {
          const IndexItem &p = x->items[i], &q = y->items[i];
          std::string label = "index[" + std::to_string(i) + "]";
          if (p.kind != q.kind) return fail(cur, label + " kind " + std::to_string(int(p.kind)) + " vs " + std::to_string(int(q.kind)));
          child(p.start.get(), q.start.get(), label + ".start");
          child(p.length.get(), q.length.get(), label + ".length");
        }
        break;
      }
      case ExprKind::Call: {
        const auto *x = cast<CallExpr>(a), *y = cast<CallExpr>(b);
        if (x->callee != y->callee) return fail(cur, "callee " + quoted(x->callee) + " vs " + quoted(y->callee));
        if (x->args.size() != y->args.size())
          return fail(cur, "argument count " + std::to_string(x->args.size()) + " vs " + std::to_string(y->args.size()));
        for (size_t i = 0; i < x->args.size(); ++i) child(x->args[i].get(), y->args[i].get(), "args[" + std::to_string(i) + "]");
        break;
      }
      case ExprKind::List: {
        const auto *x = cast<ListExpr>(a), *y = cast<ListExpr>(b);
        if (x->elements.size() != y->elements.size())
          return fail(cur, "list length " + std::to_string(x->elements.size()) + " vs " + std::to_string(y->elements.size()));
        for (size_t i = 0; i < x->elements.size(); ++i)
          child(x->elements[i].get(), y->elements[i].get(), "elements[" + std::to_string(i) + "]");
        break;
      }
      }
      for (auto it = children.rbegin(); it != children.rend(); ++it) {
        todo.push_back(items.size());
        items.push_back(std::move(*it));
      }
    }
    return true;
  }

private:
  std::vector<std::string> path_;

  // RAII path segment.
  struct Segment {
    Comparer &c;
    Segment(Comparer &cmp, std::string s) : c(cmp) { c.path_.push_back(std::move(s)); }
    ~Segment() { c.path_.pop_back(); }
  };

  std::string currentPath() const {
    std::string p;
    for (const auto &s : path_) p += (p.empty() ? "" : ".") + s;
    return p;
  }

  bool fail(std::string what) {
    std::string p = currentPath();
    difference = (p.empty() ? std::string("<root>") : p) + ": " + what;
    return false;
  }
  bool same(std::string_view field, std::string_view a, std::string_view b) {
    return a == b || fail(std::string(field) + " " + quoted(a) + " vs " + quoted(b));
  }
  bool sameFlag(std::string_view field, bool a, bool b) {
    return a == b || fail(std::string(field) + " " + (a ? "true" : "false") + " vs " + (b ? "true" : "false"));
  }
  bool sameCount(std::string_view field, size_t a, size_t b) {
    return a == b || fail(std::string(field) + " count " + std::to_string(a) + " vs " + std::to_string(b));
  }
  bool expr(std::string label, const Expr *a, const Expr *b) {
    Segment seg(*this, std::move(label));
    return expr(a, b);
  }
  bool exprs(std::string_view label, const std::vector<Ptr<Expr>> &a, const std::vector<Ptr<Expr>> &b) {
    if (!sameCount(label, a.size(), b.size())) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!expr(std::string(label) + "[" + std::to_string(i) + "]", a[i].get(), b[i].get())) return false;
    return true;
  }

  bool kernel(const Kernel &a, const Kernel &b) {
    if (!same("name", a.name, b.name)) return false;
    if (!sameCount("ctParams", a.ctParams.size(), b.ctParams.size())) return false;
    for (size_t i = 0; i < a.ctParams.size(); ++i) {
      Segment seg(*this, "ctParams[" + std::to_string(i) + "]");
      if (!same("name", a.ctParams[i]->name, b.ctParams[i]->name)) return false;
      if (!sameFlag("isType", a.ctParams[i]->isType, b.ctParams[i]->isType)) return false;
      if (!expr("default", a.ctParams[i]->defaultValue.get(), b.ctParams[i]->defaultValue.get())) return false;
    }
    if (!sameCount("params", a.params.size(), b.params.size())) return false;
    for (size_t i = 0; i < a.params.size(); ++i) {
      Segment seg(*this, "params[" + std::to_string(i) + "]");
      const Param &p = *a.params[i], &q = *b.params[i];
      if (!same("name", p.name, q.name) || !type("type", p.declaredType.get(), q.declaredType.get()) ||
          !attrs(p.attrs, q.attrs))
        return false;
    }
    if (!attrs(a.attrs, b.attrs)) return false;
    Segment seg(*this, "body");
    return block(a.body.get(), b.body.get());
  }

  bool fn(const FnDecl &a, const FnDecl &b) {
    if (!same("name", a.name, b.name) || !sameCount("params", a.params.size(), b.params.size())) return false;
    for (size_t i = 0; i < a.params.size(); ++i) {
      Segment seg(*this, "params[" + std::to_string(i) + "]");
      const FnParam &p = a.params[i], &q = b.params[i];
      if (p.mode != q.mode) return fail("parameter mode differs");
      if (!same("name", p.name, q.name) || !type("type", p.declaredType.get(), q.declaredType.get())) return false;
    }
    if (!type("result", a.resultType.get(), b.resultType.get())) return false;
    Segment seg(*this, "body");
    return block(a.body.get(), b.body.get());
  }

  bool type(std::string label, const TypeExpr *a, const TypeExpr *b) {
    Segment seg(*this, std::move(label));
    if (!a || !b) return a == b || fail(std::string(a ? "present" : "absent") + " vs " + (b ? "present" : "absent"));
    if (!same("base", a->baseName, b->baseName) || !same("fragKind", a->fragKind, b->fragKind) ||
        !same("fragDtype", a->fragDtype, b->fragDtype) || !expr("fragM", a->fragM.get(), b->fragM.get()) ||
        !expr("fragN", a->fragN.get(), b->fragN.get()) || !expr("fragK", a->fragK.get(), b->fragK.get()))
      return false;
    if (!sameCount("dimGroups", a->dimGroups.size(), b->dimGroups.size())) return false;
    for (size_t i = 0; i < a->dimGroups.size(); ++i)
      if (!exprs("dims[" + std::to_string(i) + "]", a->dimGroups[i], b->dimGroups[i])) return false;
    return true;
  }

  bool attrs(const std::vector<Attr> &a, const std::vector<Attr> &b) {
    if (!sameCount("attrs", a.size(), b.size())) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      Segment seg(*this, "attrs[" + std::to_string(i) + "](" + a[i].name + ")");
      if (!same("name", a[i].name, b[i].name) || !sameCount("args", a[i].args.size(), b[i].args.size())) return false;
      for (size_t j = 0; j < a[i].args.size(); ++j) {
        Segment argSeg(*this, "args[" + std::to_string(j) + "]");
        if (!same("key", a[i].args[j].key, b[i].args[j].key) ||
            !expr("value", a[i].args[j].value.get(), b[i].args[j].value.get()))
          return false;
      }
    }
    return true;
  }

  bool block(const BlockStmt *a, const BlockStmt *b) {
    if (!a || !b) return a == b || fail(std::string("block ") + (a ? "present" : "absent") + " vs " + (b ? "present" : "absent"));
    if (!sameCount("stmts", a->stmts.size(), b->stmts.size())) {
      // Name the first statement that differs in kind, which is usually more useful than the counts.
      for (size_t i = 0; i < std::min(a->stmts.size(), b->stmts.size()); ++i)
        if (a->stmts[i]->kind != b->stmts[i]->kind) {
          *difference += "; first kind mismatch at stmts[" + std::to_string(i) + "]";
          break;
        }
      return false;
    }
    for (size_t i = 0; i < a->stmts.size(); ++i) {
      std::string label = "stmts[" + std::to_string(i) + "](" + std::string(stmtKindName(a->stmts[i]->kind));
      if (const auto *o = dynCast<OpStmt>(a->stmts[i].get())) label += " " + o->name;
      Segment seg(*this, label + ")");
      if (!stmt(*a->stmts[i], *b->stmts[i])) return false;
    }
    return true;
  }

  bool blockField(std::string label, const BlockStmt *a, const BlockStmt *b) {
    Segment seg(*this, std::move(label));
    return block(a, b);
  }

  bool stmt(const Stmt &a, const Stmt &b) {
    if (a.kind != b.kind)
      return fail(std::string("statement kind ") + std::string(stmtKindName(a.kind)) + " vs " +
                  std::string(stmtKindName(b.kind)));
    switch (a.kind) {
    case StmtKind::Block: return block(cast<BlockStmt>(&a), cast<BlockStmt>(&b));
    case StmtKind::Let: {
      const auto &x = *cast<LetStmt>(&a), &y = *cast<LetStmt>(&b);
      return same("name", x.name, y.name) && type("type", x.declaredType.get(), y.declaredType.get()) &&
             expr("init", x.init.get(), y.init.get());
    }
    case StmtKind::Var: {
      const auto &x = *cast<VarStmt>(&a), &y = *cast<VarStmt>(&b);
      return same("name", x.name, y.name) && type("type", x.declaredType.get(), y.declaredType.get()) &&
             expr("init", x.init.get(), y.init.get());
    }
    case StmtKind::Shared: {
      const auto &x = *cast<SharedStmt>(&a), &y = *cast<SharedStmt>(&b);
      return same("name", x.name, y.name) && sameFlag("tmem", x.tensorMemory, y.tensorMemory) &&
             type("type", x.declaredType.get(), y.declaredType.get()) && attrs(x.attrs, y.attrs);
    }
    case StmtKind::MBarrier: {
      const auto &x = *cast<MBarrierStmt>(&a), &y = *cast<MBarrierStmt>(&b);
      return same("name", x.name, y.name) && expr("count", x.count.get(), y.count.get()) && attrs(x.attrs, y.attrs);
    }
    case StmtKind::Barrier: {
      const auto &x = *cast<BarrierStmt>(&a), &y = *cast<BarrierStmt>(&b);
      return same("name", x.name, y.name) && expr("count", x.count.get(), y.count.get()) && attrs(x.attrs, y.attrs);
    }
    case StmtKind::Role: {
      const auto &x = *cast<RoleStmt>(&a), &y = *cast<RoleStmt>(&b);
      if (x.unit != y.unit) return fail("role unit differs");
      return same("name", x.name, y.name) && expr("instances", x.instances.get(), y.instances.get()) &&
             sameFlag("plural", x.pluralSpelling, y.pluralSpelling) && expr("first", x.first.get(), y.first.get()) &&
             expr("last", x.last.get(), y.last.get()) && attrs(x.attrs, y.attrs) &&
             blockField("body", x.body.get(), y.body.get());
    }
    case StmtKind::For: {
      const auto &x = *cast<ForStmt>(&a), &y = *cast<ForStmt>(&b);
      return same("var", x.name, y.name) && expr("lower", x.lower.get(), y.lower.get()) &&
             expr("upper", x.upper.get(), y.upper.get()) && expr("step", x.step.get(), y.step.get()) &&
             sameFlag("unroll", x.unroll, y.unroll) && expr("unrollFactor", x.unrollFactor.get(), y.unrollFactor.get()) &&
             blockField("body", x.body.get(), y.body.get());
    }
    case StmtKind::If: {
      const auto &x = *cast<IfStmt>(&a), &y = *cast<IfStmt>(&b);
      if (!expr("cond", x.cond.get(), y.cond.get()) || !blockField("then", x.thenBody.get(), y.thenBody.get()))
        return false;
      Segment seg(*this, "else");
      if (!x.elseBody || !y.elseBody)
        return x.elseBody == y.elseBody || fail(std::string(x.elseBody ? "present" : "absent") + " vs " +
                                                (y.elseBody ? "present" : "absent"));
      return stmt(*x.elseBody, *y.elseBody);
    }
    case StmtKind::Elect:
      return blockField("body", cast<ElectStmt>(&a)->body.get(), cast<ElectStmt>(&b)->body.get());
    case StmtKind::Return: return expr("value", cast<ReturnStmt>(&a)->value.get(), cast<ReturnStmt>(&b)->value.get());
    case StmtKind::Call: return expr("call", cast<CallStmt>(&a)->call.get(), cast<CallStmt>(&b)->call.get());
    case StmtKind::Assign: {
      const auto &x = *cast<AssignStmt>(&a), &y = *cast<AssignStmt>(&b);
      if (x.op != y.op) return fail("assignment operator differs");
      return expr("target", x.target.get(), y.target.get()) && expr("value", x.value.get(), y.value.get());
    }
    case StmtKind::Op: {
      const auto &x = *cast<OpStmt>(&a), &y = *cast<OpStmt>(&b);
      if (!same("op", x.name, y.name) || !exprs("dsts", x.dsts, y.dsts)) return false;
      if (x.arrow != y.arrow) return fail("arrow differs");
      if (!exprs("srcs", x.srcs, y.srcs) || !sameCount("clauses", x.clauses.size(), y.clauses.size())) return false;
      for (size_t i = 0; i < x.clauses.size(); ++i) {
        Segment seg(*this, "clauses[" + std::to_string(i) + "]");
        if (!same("name", x.clauses[i].name, y.clauses[i].name) || !exprs("args", x.clauses[i].args, y.clauses[i].args))
          return false;
      }
      return true;
    }
    }
    return fail("unknown statement kind");
  }
};

} // namespace

std::optional<std::string> firstDifference(const Module &a, const Module &b) {
  Comparer c;
  c.module(a, b);
  return c.difference;
}

std::optional<std::string> firstDifference(const Expr &a, const Expr &b) {
  Comparer c;
  c.expr(&a, &b);
  return c.difference;
}

} // namespace cake

// InductionCounters: recognition of loop-iteration counters among a kernel's `var`s (InductionCounters.h).
//
// One walk over the kernel records, for every `var` and every write of it (assignment or operation
// destination), the chain of enclosing statements.  A var qualifies when its initialiser folds to a
// constant, it has exactly one write, that write is `x += c` / `x -= c` with a constant non-zero c, and the
// chain from the declaration's block to the write consists of `for` loops and their body blocks only, the
// write being a direct statement of the innermost loop's body.
#include "verify/InductionCounters.h"
#include "verify/RootDecl.h"

#include "frontend/ConstEval.h"
#include "frontend/Limits.h"
#include "frontend/Types.h"
#include "verify/SyncModel.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace cake {

namespace {

// The value of a constant initialiser or step: literals, ct parameters, + - * / and the integer casts.  As deep
// as anything the parser accepts (a flat chain of 1,024 operators, kMaxExprDepth); nullopt on overflow.
std::optional<int64_t> constantValue(const Expr *e, const KernelInfo &info, unsigned depth = 0) {
  if (!e || depth > kMaxExprDepth) return std::nullopt;
  switch (e->kind) {
  case ExprKind::IntLit: return static_cast<int64_t>(cast<IntLitExpr>(e)->value);
  case ExprKind::Name: {
    const Decl *d = cast<NameExpr>(e)->decl;
    if (!d || d->declKind != DeclKind::CtParam) return std::nullopt;
    auto *p = static_cast<const CtParam *>(d);
    if (p->value) return *p->value;
    if (auto it = info.ctValues.find(p->name); it != info.ctValues.end()) return it->second;
    return std::nullopt;
  }
  case ExprKind::Unary: {
    auto *u = cast<UnaryExpr>(e);
    auto v = constantValue(u->operand.get(), info, depth + 1);
    if (!v || u->op != UnaryOp::Neg || *v == INT64_MIN) return std::nullopt;
    return -*v;
  }
  case ExprKind::Binary: {
    auto *b = cast<BinaryExpr>(e);
    auto l = constantValue(b->lhs.get(), info, depth + 1);
    auto r = constantValue(b->rhs.get(), info, depth + 1);
    if (!l || !r) return std::nullopt;
    int64_t out = 0;
    switch (b->op) {
    case BinaryOp::Add: return checkedAdd(*l, *r, out) ? std::optional<int64_t>(out) : std::nullopt;
    case BinaryOp::Sub: return __builtin_sub_overflow(*l, *r, &out) ? std::nullopt : std::optional<int64_t>(out);
    case BinaryOp::Mul: return checkedMul(*l, *r, out) ? std::optional<int64_t>(out) : std::nullopt;
    case BinaryOp::Div:
      return *r && !(*l == INT64_MIN && *r == -1) ? std::optional<int64_t>(*l / *r) : std::nullopt;
    default: return std::nullopt;
    }
  }
  case ExprKind::Call: {
    auto *c = cast<CallExpr>(e);
    if ((c->callee == "i32" || c->callee == "u32" || c->callee == "i64") && c->args.size() == 1)
      return constantValue(c->args[0].get(), info, depth + 1);
    return std::nullopt;
  }
  default: return std::nullopt;
  }
}

struct Write {
  const Stmt *stmt = nullptr;
  std::vector<const Stmt *> path;   // enclosing statements, outermost first (the write excluded)
};

struct VarRecord {
  const VarStmt *decl = nullptr;
  std::vector<const Stmt *> path;
  std::vector<Write> writes;
};

class Collector {
public:
  DeclMap<VarRecord> vars;

  void walk(const Stmt *s) {
    if (!s) return;
    switch (s->kind) {
    case StmtKind::Block:
      path_.push_back(s);
      for (const Ptr<Stmt> &c : cast<BlockStmt>(s)->stmts) walk(c.get());
      path_.pop_back();
      return;
    case StmtKind::Var: {
      auto *v = cast<VarStmt>(s);
      vars[v] = VarRecord{v, path_, {}};
      return;
    }
    case StmtKind::Assign: {
      auto *a = cast<AssignStmt>(s);
      write(rootDecl(a->target.get()), s);
      return;
    }
    case StmtKind::Op: {
      for (const Ptr<Expr> &d : cast<OpStmt>(s)->dsts) write(rootDecl(d.get()), s);
      return;
    }
    case StmtKind::Role: nested(s, cast<RoleStmt>(s)->body.get()); return;
    case StmtKind::For: nested(s, cast<ForStmt>(s)->body.get()); return;
    case StmtKind::Elect: nested(s, cast<ElectStmt>(s)->body.get()); return;
    case StmtKind::If: {
      auto *i = cast<IfStmt>(s);
      path_.push_back(s);
      walk(i->thenBody.get());
      walk(i->elseBody.get());
      path_.pop_back();
      return;
    }
    default: return;
    }
  }

private:
  void nested(const Stmt *s, const Stmt *body) {
    path_.push_back(s);
    walk(body);
    path_.pop_back();
  }
  void write(const Decl *d, const Stmt *s) {
    if (!d || d->declKind != DeclKind::Var) return;
    auto it = vars.find(d);
    if (it != vars.end()) it->second.writes.push_back({s, path_});
  }
  std::vector<const Stmt *> path_;
};

std::string constructName(const Stmt *s) {
  switch (s->kind) {
  case StmtKind::If: return "an 'if'";
  case StmtKind::Elect: return "an 'elect'";
  case StmtKind::Role: return "a role";
  default: return "a nested construct";
  }
}

} // namespace

InductionCounters findInductionCounters(const Kernel &kernel, const KernelInfo &info) {
  InductionCounters out;
  if (!kernel.body) return out;
  Collector c;
  c.walk(kernel.body.get());
  for (const auto &[decl, rec] : c.vars) {
    auto no = [&, d = decl](std::string why) { out.notCounters[d] = std::move(why); };
    if (!rec.decl->type || !rec.decl->type->isInteger()) {
      no("it is not an integer");
      continue;
    }
    std::optional<int64_t> init = constantValue(rec.decl->init.get(), info);
    if (!init) {
      no(rec.decl->init ? "its initial value is not a compile-time constant" : "it has no initial value");
      continue;
    }
    if (rec.writes.empty()) {   // never written: a constant (a counter with increment 0)
      out.counters[decl] = InductionCounter{rec.decl, *init, 0, nullptr, nullptr};
      continue;
    }
    if (rec.writes.size() != 1) {
      no(rec.writes.empty() ? "it is never incremented" : "it is assigned " + std::to_string(rec.writes.size()) +
                                                              " times (an induction counter has exactly one `+= c`)");
      continue;
    }
    const Write &w = rec.writes[0];
    auto *assign = dynCast<AssignStmt>(w.stmt);
    if (!assign || rootDecl(assign->target.get()) != decl || assign->target->kind != ExprKind::Name) {
      no("it is written by an operation, not by `+= c`");
      continue;
    }
    if (assign->op != AssignOp::Add && assign->op != AssignOp::Sub) {
      no("it is not updated by `+= c` (an induction counter changes by a constant per iteration)");
      continue;
    }
    std::optional<int64_t> step = constantValue(assign->value.get(), info);
    if (!step || *step == 0) {
      no("its increment is not a non-zero compile-time constant");
      continue;
    }
    if (assign->op == AssignOp::Sub) step = -*step;
    // The path from the declaration's block to the write: (for, body block)* only, at least one loop.
    const std::vector<const Stmt *> &dp = rec.path, &wp = w.path;
    bool prefix = wp.size() >= dp.size() && std::equal(dp.begin(), dp.end(), wp.begin());
    if (!prefix) {
      no("it is incremented outside the block that declares it");
      continue;
    }
    const ForStmt *loop = nullptr;
    std::string bad;
    for (size_t i = dp.size(); i < wp.size() && bad.empty(); ++i) {
      const Stmt *s = wp[i];
      if (s->kind == StmtKind::Block) {
        // Only the body block of the loop just above may appear (no nested plain blocks: they would be
        // harmless, but the grammar does not produce them inside loop bodies).
        if (i == dp.size() || wp[i - 1]->kind != StmtKind::For) bad = "it is incremented inside a nested block";
        continue;
      }
      if (s->kind != StmtKind::For) {
        bad = "it is incremented under " + constructName(s) + ", not once per loop iteration";
        continue;
      }
      loop = cast<ForStmt>(s);
    }
    if (bad.empty() && (!loop || wp.back()->kind != StmtKind::Block || wp.size() < 2 || wp[wp.size() - 2] != loop))
      bad = "it is not incremented directly in a loop body";
    // Every loop it counts must be unrolled by the sync model, i.e. contain synchronisation.
    for (size_t i = dp.size(); i < wp.size() && bad.empty(); ++i)
      if (auto *f = dynCast<ForStmt>(wp[i]); f && (!f->body || !containsSyncEvents(*f->body)))
        bad = "it counts the iterations of loop '" + f->name + "', which has no synchronisation";
    if (!bad.empty()) {
      no(bad);
      continue;
    }
    out.counters[decl] = InductionCounter{rec.decl, *init, *step, loop, assign};
  }
  return out;
}

} // namespace cake

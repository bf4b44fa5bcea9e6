// Inline: expands every call of an fn in the kernels (see Inline.h for what it reports).
//
// The algorithm:
// 1. The fn table.  A duplicate name is E0302; a name that is an intrinsic, type, builtin, operation,
//    clause or kernel is E0213.  Each fn's returns are checked (E0214): an fn with a result type ends with
//    `return EXPR;` and has no other return, an fn without one has no return.
// 2. The call graph: for each fn, the calls of fns in its body.  A depth-first search finds the cycles;
//    the call that closes a cycle gets E0345 with a note at every other call of the cycle.  An fn on a
//    cycle, or with a bad return, is never expanded (its calls are errors already reported).
// 3. Expansion, per kernel, block by block (Inliner::block).  Each statement's expressions are searched
//    for calls of fns, innermost and leftmost first; each call's expansion is placed before the statement,
//    in the same block, and the call is replaced by the name of its result - so calls are evaluated before
//    the statement that contains them, left to right.  A call in an `else if` condition has its expansion
//    inside the else branch.  A call statement is replaced by its expansion.  The expansion of
//    f(a1, .., an) is, in order:
//      let p@f.K: T = a;           one per value parameter p: T (the argument is evaluated once)
//      <copy of f's body>          with the final `return EXPR;` removed
//      let result@f.K: R = EXPR;   when f has a result type R; the call expression becomes `result@f.K`
//    In the copy, every name f declares (parameters and locals) is renamed NAME@f.K, where K numbers the
//    expansions of the module: copies never clash with each other or with the caller (whose names cannot
//    contain '@').  Each use of a var or shared parameter is replaced by a copy of its argument, so the body
//    reads and writes the caller's storage in place.  Names f does not declare are left as written and
//    resolve at the call site (builtins such as lane, the calling kernel's compile-time parameters).
//    Calls inside the copy are expanded the same way; nesting is capped at 64 calls and the statements
//    inlining creates at 100,000 (E0216).
//    Every source range of the copy is moved into a fresh expansion of the fn's file whose site is the
//    call (SourceManager.h): diagnostics inside the copy point at the body and note the call.
// 4. Each var or shared argument is recorded as an InlineArgCheck, which sema checks at the call site
//    (the argument's type must be the parameter's type: storage is aliased, never converted).
#include "frontend/Inline.h"

#include "frontend/ASTClone.h"
#include "frontend/Builtins.h"
#include "frontend/Intrinsics.h"
#include "frontend/Ops.h"
#include "frontend/StmtSlots.h"
#include "frontend/Types.h"
#include "support/EditDistance.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace cake {

namespace {

constexpr unsigned kMaxCallDepth = 64;
constexpr size_t kMaxStatements = 100000;

std::string quote(std::string_view s) { return "'" + std::string(s) + "'"; }

// Calls f(BlockStmt&) for each block directly nested in `s` (the else branch when it is a block).
template <class F> void childBlocks(Stmt &s, F &&f) {
  switch (s.kind) {
  case StmtKind::Block: f(*cast<BlockStmt>(&s)); break;
  case StmtKind::Role: if (auto &b = cast<RoleStmt>(&s)->body) f(*b); break;
  case StmtKind::For: if (auto &b = cast<ForStmt>(&s)->body) f(*b); break;
  case StmtKind::Elect: if (auto &b = cast<ElectStmt>(&s)->body) f(*b); break;
  case StmtKind::If: {
    auto &i = *cast<IfStmt>(&s);
    if (i.thenBody) f(*i.thenBody);
    if (auto *b = dynCast<BlockStmt>(i.elseBody.get())) f(*b);
    break;
  }
  default: break;
  }
}

// Pre-order walk of expression children.
template <class F> void forEachSubExpr(Expr &e, F &&f) {
  f(e);
  auto opt = [&](Ptr<Expr> &x) { if (x) forEachSubExpr(*x, f); };
  switch (e.kind) {
  case ExprKind::Unary: opt(cast<UnaryExpr>(&e)->operand); break;
  case ExprKind::Binary: opt(cast<BinaryExpr>(&e)->lhs); opt(cast<BinaryExpr>(&e)->rhs); break;
  case ExprKind::Member: opt(cast<MemberExpr>(&e)->base); break;
  case ExprKind::Index: {
    auto &x = *cast<IndexExpr>(&e);
    opt(x.base);
    for (auto &item : x.items) {
      opt(item.start);
      opt(item.length);
    }
    break;
  }
  case ExprKind::Call: for (auto &a : cast<CallExpr>(&e)->args) opt(a); break;
  case ExprKind::List: for (auto &a : cast<ListExpr>(&e)->elements) opt(a); break;
  default: break;
  }
}

// Every statement of a block, nested ones included (else-if chains too), in source order.
template <class F> void forEachStmt(BlockStmt &b, F &&f) {
  for (auto &s : b.stmts) {
    Stmt *cur = s.get();
    while (cur) {
      f(*cur);
      childBlocks(*cur, [&](BlockStmt &inner) { forEachStmt(inner, f); });
      auto *i = dynCast<IfStmt>(cur);
      cur = i ? dynCast<IfStmt>(i->elseBody.get()) : nullptr;
    }
  }
}

size_t countStmts(BlockStmt &b) {
  size_t n = 0;
  forEachStmt(b, [&](Stmt &) { ++n; });
  return n;
}

// A var or shared argument must name storage: NAME, or NAME[...] / NAME[...][...].
bool isStoragePath(const Expr &e) {
  const Expr *cur = &e;
  while (const auto *ix = dynCast<IndexExpr>(cur)) {
    if (!ix->base) return false;
    cur = ix->base.get();
  }
  return isa<NameExpr>(cur);
}

// ------------------------------------------------------------------ renaming inside a copy of a body

class Renamer {
public:
  explicit Renamer(std::string suffix) : suffix_(std::move(suffix)) { scopes_.emplace_back(); }

  void bindRename(const std::string &name, std::string to) { scopes_.back()[name] = {std::move(to), nullptr}; }
  void bindSubstitute(const std::string &name, const Expr *arg) { scopes_.back()[name] = {"", arg}; }

  void stmts(std::vector<Ptr<Stmt>> &list) {
    for (auto &s : list)
      if (s) stmt(*s);
  }

private:
  struct Binding {
    std::string to;          // renamed
    const Expr *arg;         // or substituted by a copy of this argument
  };

  const Binding *lookup(const std::string &name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end()) return &found->second;
    }
    return nullptr;
  }

  void declare(Decl &d) {
    std::string fresh = d.name + suffix_;
    bindRename(d.name, fresh);
    d.name = std::move(fresh);
  }

  void block(BlockStmt &b) {
    scopes_.emplace_back();
    stmts(b.stmts);
    scopes_.pop_back();
  }

  void expr(Ptr<Expr> &e) {
    if (!e) return;
    switch (e->kind) {
    case ExprKind::Name: {
      auto &n = *cast<NameExpr>(e.get());
      if (const Binding *b = lookup(n.name)) {
        if (b->arg) e = cloneExpr(*b->arg);
        else n.name = b->to;
      }
      return;
    }
    case ExprKind::Unary: expr(cast<UnaryExpr>(e.get())->operand); return;
    case ExprKind::Binary: {
      auto &b = *cast<BinaryExpr>(e.get());
      expr(b.lhs);
      expr(b.rhs);
      return;
    }
    case ExprKind::Member: expr(cast<MemberExpr>(e.get())->base); return;
    case ExprKind::Index: {
      auto &x = *cast<IndexExpr>(e.get());
      expr(x.base);
      for (auto &item : x.items) {
        expr(item.start);
        expr(item.length);
      }
      return;
    }
    case ExprKind::Call:
      for (auto &a : cast<CallExpr>(e.get())->args) expr(a);
      return;
    case ExprKind::List:
      for (auto &a : cast<ListExpr>(e.get())->elements) expr(a);
      return;
    default: return;
    }
  }

  void type(Ptr<TypeExpr> &t) {
    if (!t) return;
    expr(t->fragM);
    expr(t->fragN);
    expr(t->fragK);
    for (auto &group : t->dimGroups)
      for (auto &d : group) expr(d);
  }

  void attrs(std::vector<Attr> &list) {
    for (Attr &a : list)
      for (AttrArg &arg : a.args) expr(arg.value);
  }

  // Initialisers and bounds are renamed before the declared name is bound (`let x = x + 1` reads the
  // outer x), as sema resolves them.
  void stmt(Stmt &s) {
    forEachExprSlot(s, [&](Ptr<Expr> &e) { expr(e); });
    switch (s.kind) {
    case StmtKind::Block: block(*cast<BlockStmt>(&s)); return;
    case StmtKind::Let: {
      auto &l = *cast<LetStmt>(&s);
      type(l.declaredType);
      declare(l);
      return;
    }
    case StmtKind::Var: {
      auto &v = *cast<VarStmt>(&s);
      type(v.declaredType);
      declare(v);
      return;
    }
    case StmtKind::Shared: {
      auto &d = *cast<SharedStmt>(&s);
      type(d.declaredType);
      attrs(d.attrs);
      declare(d);
      return;
    }
    case StmtKind::MBarrier: {
      auto &d = *cast<MBarrierStmt>(&s);
      attrs(d.attrs);
      declare(d);
      return;
    }
    case StmtKind::Barrier: {
      auto &d = *cast<BarrierStmt>(&s);
      attrs(d.attrs);
      declare(d);
      return;
    }
    case StmtKind::Role: {
      auto &r = *cast<RoleStmt>(&s);
      attrs(r.attrs);
      declare(r);
      if (r.body) block(*r.body);
      return;
    }
    case StmtKind::For: {
      auto &l = *cast<ForStmt>(&s);
      scopes_.emplace_back();   // the loop variable shares its body's scope
      declare(l);
      if (l.body) stmts(l.body->stmts);
      scopes_.pop_back();
      return;
    }
    case StmtKind::If: {
      auto &i = *cast<IfStmt>(&s);
      if (i.thenBody) block(*i.thenBody);
      if (i.elseBody) stmt(*i.elseBody);
      return;
    }
    case StmtKind::Elect:
      if (auto &b = cast<ElectStmt>(&s)->body) block(*b);
      return;
    case StmtKind::Return: case StmtKind::Assign: case StmtKind::Op: case StmtKind::Call: return;
    }
  }

  std::string suffix_;
  std::vector<std::map<std::string, Binding>> scopes_;
};

// ------------------------------------------------------------------ the pass

class Inliner {
public:
  Inliner(Module &m, SourceManager &sm, DiagnosticEngine &diags) : m_(m), sm_(sm), diags_(diags) {}

  bool run() {
    buildTable();
    for (auto &f : m_.fns) checkReturns(*f);
    findCycles();
    for (auto &k : m_.kernels)
      if (k->body && !diags_.limitReached()) block(*k->body, 0);
    m_.fnsInlined = true;
    return ok_;
  }

private:
  void error() { ok_ = false; }

  const FnDecl *find(const std::string &name) const {
    auto it = fns_.find(name);
    return it == fns_.end() ? nullptr : it->second;
  }

  // The declared fn whose name is nearest to `name` (at most a third of its letters differ), or "".
  std::string closestFn(const std::string &name) const {
    std::string best;
    size_t bestDistance = name.size() / 3 + 1;
    for (const auto &[fnName, decl] : fns_) {
      size_t d = editDistance(name, fnName);
      if (d < bestDistance) {
        bestDistance = d;
        best = fnName;
      }
    }
    return best;
  }

  // ---- 1. the table
  void buildTable() {
    BuiltinTable builtins;
    TypeContext types;
    std::set<std::string> kernels;
    for (auto &k : m_.kernels) kernels.insert(k->name);
    for (auto &f : m_.fns) {
      std::string why;
      if (builtins.find(f->name)) why = quote(f->name) + " is a builtin name";
      else if (lookupOp(f->name) || isOpNamespace(f->name)) why = quote(f->name) + " names an operation";
      else if (isClauseName(f->name)) why = quote(f->name) + " is a clause name";
      else if (lookupIntrinsic(f->name)) why = quote(f->name) + " is an intrinsic function";
      else if (types.scalarOrVectorByName(f->name) || f->name == "frag") why = quote(f->name) + " is a type name";
      else if (f->name == "sizeof") why = "'sizeof' is the size of a type (sizeof(T))";
      else if (kernels.count(f->name)) why = "a kernel has that name";
      if (!why.empty()) {
        diags_.report(DiagKind::FnNameReserved, f->nameRange, f->name, why).hint("rename the fn");
        broken_.insert(f.get());
        error();
        continue;
      }
      auto [it, inserted] = fns_.emplace(f->name, f.get());
      if (!inserted) {
        diags_.report(DiagKind::Redefinition, f->nameRange, f->name)
            .note(it->second->nameRange, "previous declaration of fn " + quote(f->name) + " is here");
        broken_.insert(f.get());
        error();
      }
      std::map<std::string, const FnParam *> seen;
      for (const FnParam &p : f->params) {
        auto [prev, fresh] = seen.emplace(p.name, &p);
        if (!fresh) {
          diags_.report(DiagKind::Redefinition, p.nameRange, p.name)
              .note(prev->second->nameRange, "previous parameter " + quote(p.name) + " is here");
          broken_.insert(f.get());
          error();
        }
      }
    }
  }

  void checkReturns(FnDecl &f) {
    if (!f.body) return;
    bool hasResult = f.resultType != nullptr;
    const Stmt *last = f.body->stmts.empty() ? nullptr : f.body->stmts.back().get();
    bool bad = false;
    forEachStmt(*f.body, [&](Stmt &s) {
      auto *r = dynCast<ReturnStmt>(&s);
      if (!r) return;
      std::string what;
      if (hasResult && !r->value) what = quote(f.name) + " returns a value: write 'return EXPR;'";
      else if (hasResult && r != last) what = "'return' must be the last statement of " + quote(f.name);
      else if (!hasResult && r->value)
        what = quote(f.name) + " has no result type; declare it 'fn " + f.name + "(...) -> TYPE' to return a value";
      else if (!hasResult) what = "'return;' in an fn would end the thread; an fn ends at its closing '}'";
      if (what.empty()) return;
      diags_.report(DiagKind::FnReturnPlacement, r->range, what)
          .hint("an fn with a result ends with exactly one 'return EXPR;'; there is no early return");
      bad = true;
    });
    if (hasResult && !(last && isa<ReturnStmt>(last))) {
      diags_.report(DiagKind::FnReturnPlacement, f.nameRange,
                    quote(f.name) + " has a result type but does not end with 'return EXPR;'")
          .note(f.resultType->range, "the result type is declared here");
      bad = true;
    }
    if (bad) {
      broken_.insert(&f);
      error();
    }
  }

  // ---- 2. the call graph
  struct Edge {
    const FnDecl *callee;
    SourceRange range;
  };

  void findCycles() {
    for (auto &f : m_.fns) {
      std::vector<Edge> &out = calls_[f.get()];
      if (!f->body) continue;
      forEachStmt(*f->body, [&](Stmt &s) {
        auto visit = [&](Expr &e) {
          if (auto *c = dynCast<CallExpr>(&e))
            if (const FnDecl *callee = find(c->callee)) out.push_back({callee, c->range});
        };
        if (auto *cs = dynCast<CallStmt>(&s); cs && cs->call) visit(*cs->call);
        forEachExprSlot(s, [&](Ptr<Expr> &e) { forEachSubExpr(*e, visit); });
      });
    }
    for (auto &f : m_.fns)
      if (!color_[f.get()]) dfs(f.get());
  }

  void dfs(const FnDecl *f) {
    color_[f] = 1;
    path_.push_back(f);
    for (const Edge &e : calls_[f]) {
      int c = color_[e.callee];
      if (c == 1) reportCycle(e);
      else if (c == 0) {
        edges_.push_back(e);
        dfs(e.callee);
        edges_.pop_back();
      }
    }
    path_.pop_back();
    color_[f] = 2;
  }

  // path_ ends with the caller of `closing`; the cycle starts where path_ holds closing.callee.
  void reportCycle(const Edge &closing) {
    size_t start = 0;
    while (path_[start] != closing.callee) ++start;
    std::string through;
    for (size_t i = start + 1; i < path_.size(); ++i)
      through += (through.empty() ? " through " : ", ") + quote(path_[i]->name);
    DiagBuilder d = diags_.report(DiagKind::FnRecursion, closing.range, closing.callee->name, through);
    for (size_t i = start; i + 1 < path_.size(); ++i)
      d.note(edges_[i].range, quote(path_[i]->name) + " calls " + quote(path_[i + 1]->name) + " here");
    d.hint("fns are inlined, so a call cycle would expand forever; write the repetition as a for loop");
    for (size_t i = start; i < path_.size(); ++i) broken_.insert(path_[i]);
    error();
  }

  // ---- 3. expansion
  void block(BlockStmt &b, unsigned depth) {
    std::vector<Ptr<Stmt>> out;
    for (auto &s : b.stmts)
      if (s) stmt(std::move(s), out, depth);
    b.stmts = std::move(out);
  }

  void stmt(Ptr<Stmt> s, std::vector<Ptr<Stmt>> &out, unsigned depth) {
    if (diags_.limitReached()) return;
    if (auto *cs = dynCast<CallStmt>(s.get())) {
      if (!cs->call) return;
      for (auto &a : cs->call->args)
        if (a) expr(a, out, depth);
      if (const FnDecl *fn = find(cs->call->callee)) {
        call(*cs->call, *fn, out, depth);
      } else {
        const std::string &c = cs->call->callee;
        if (c.rfind("atom.", 0) != 0 && !lookupIntrinsic(c)) {   // no fn, no intrinsic: a misspelt fn?
          auto d = diags_.report(DiagKind::UnknownFunction, cs->range, c);
          if (std::string near = closestFn(c); !near.empty()) d.hint("did you mean the fn '" + near + "'?");
          error();
          return;
        }
        auto d = diags_.report(DiagKind::NotAnAssignment, cs->range);
        if (c.rfind("atom.", 0) == 0 && c != "atom.exch" && c != "atom.cas")
          d.hint("without a result, write the reduction 'red." + c.substr(5) + " T[i], v;'");
        else if (c.rfind("atom.", 0) == 0)
          d.hint("bind the old value: let old = " + c + "(...);");
        else
          d.hint(quote(c) + " is not an fn; use its value (let x = " + c + "(...);)");
        error();
      }
      return;
    }
    forEachExprSlot(*s, [&](Ptr<Expr> &e) { expr(e, out, depth); });
    childBlocks(*s, [&](BlockStmt &inner) { block(inner, depth); });
    if (auto *i = dynCast<IfStmt>(s.get()); i && i->elseBody && isa<IfStmt>(i->elseBody.get())) {
      std::vector<Ptr<Stmt>> branch;
      SourceRange range = i->elseBody->range;
      stmt(std::move(i->elseBody), branch, depth);
      if (branch.size() == 1) {
        i->elseBody = std::move(branch.front());
      } else {
        auto wrapped = std::make_unique<BlockStmt>(range);
        wrapped->stmts = std::move(branch);
        i->elseBody = std::move(wrapped);
      }
    }
    out.push_back(std::move(s));
  }

  // Expands the calls of fns in `e` (arguments first), replacing each by its result's name.
  void expr(Ptr<Expr> &e, std::vector<Ptr<Stmt>> &out, unsigned depth) {
    if (!e) return;
    switch (e->kind) {
    case ExprKind::Unary: expr(cast<UnaryExpr>(e.get())->operand, out, depth); break;
    case ExprKind::Binary: {
      auto &b = *cast<BinaryExpr>(e.get());
      expr(b.lhs, out, depth);
      expr(b.rhs, out, depth);
      break;
    }
    case ExprKind::Member: expr(cast<MemberExpr>(e.get())->base, out, depth); break;
    case ExprKind::Index: {
      auto &x = *cast<IndexExpr>(e.get());
      expr(x.base, out, depth);
      for (auto &item : x.items) {
        expr(item.start, out, depth);
        expr(item.length, out, depth);
      }
      break;
    }
    case ExprKind::Call:
      for (auto &a : cast<CallExpr>(e.get())->args) expr(a, out, depth);
      break;
    case ExprKind::List:
      for (auto &a : cast<ListExpr>(e.get())->elements) expr(a, out, depth);
      break;
    default: break;
    }
    auto *c = dynCast<CallExpr>(e.get());
    const FnDecl *fn = c ? find(c->callee) : nullptr;
    if (!fn) return;
    if (!fn->resultType) {
      diags_.report(DiagKind::FnHasNoResult, c->range, fn->name)
          .note(fn->nameRange, quote(fn->name) + " is declared here")
          .hint("call it as a statement (" + fn->name + "(...);), or give it a result type (-> TYPE)");
      error();
      return;
    }
    std::string result = call(*c, *fn, out, depth);
    if (!result.empty()) e = std::make_unique<NameExpr>(c->range, result);
  }

  // Appends the expansion of `c` (a call of `fn`) to `out`; returns the result's name ("" on error or
  // when fn has no result).
  std::string call(CallExpr &c, const FnDecl &fn, std::vector<Ptr<Stmt>> &out, unsigned depth) {
    if (broken_.count(&fn) || !fn.body) {
      error();   // reported at the fn
      return "";
    }
    if (c.args.size() != fn.params.size()) {
      size_t n = fn.params.size(), given = c.args.size();
      diags_.report(DiagKind::FnArgCount, c.range, fn.name, n, n == 1 ? "" : "s", given, given == 1 ? "was" : "were")
          .note(fn.nameRange, quote(fn.name) + " is declared here");
      error();
      return "";
    }
    if (depth == 0) topCall_ = {&fn, c.range};
    if (depth >= kMaxCallDepth) {
      diags_.report(DiagKind::FnExpansionTooLarge, topCall_.range, topCall_.callee->name,
                    std::to_string(kMaxCallDepth) + " nested calls")
          .note(c.range, "the call " + std::to_string(kMaxCallDepth + 1) + " levels deep, of " + quote(fn.name));
      error();
      return "";
    }
    bool argsOk = true;
    for (size_t i = 0; i < fn.params.size(); ++i) {
      const FnParam &p = fn.params[i];
      if (p.mode == FnParamMode::Value || !c.args[i] || isStoragePath(*c.args[i])) continue;
      bool isVar = p.mode == FnParamMode::Var;
      diags_.report(DiagKind::FnArgNotAssignable, c.args[i]->range, isVar ? "var" : "shared", p.name, fn.name,
                    isVar ? "a var local or an element of one" : "a shared array or a stage of one")
          .note(p.range, "the parameter is declared here");
      argsOk = false;
    }
    if (!argsOk) {
      error();
      return "";
    }
    size_t created = countStmts(*fn.body) + fn.params.size() + 1;
    if (statements_ + created > kMaxStatements) {
      if (!budgetReported_)
        diags_.report(DiagKind::FnExpansionTooLarge, topCall_.range, topCall_.callee->name,
                      std::to_string(kMaxStatements) + " inlined statements")
            .hint("a chain of fns that each call the next several times grows exponentially");
      budgetReported_ = true;
      error();
      return "";
    }
    statements_ += created;

    unsigned k = nextInstance_++;
    uint32_t expansion = sm_.addExpansion(fn.range.begin.file, c.range, quote(fn.name) + " inlined from here");
    RangeMap into = [expansion](SourceRange r) {
      r.begin.file = expansion;
      return r;
    };
    std::string suffix = "@" + fn.name + "." + std::to_string(k);
    Renamer renamer(suffix);
    size_t first = out.size();
    for (size_t i = 0; i < fn.params.size(); ++i) {
      const FnParam &p = fn.params[i];
      if (p.mode != FnParamMode::Value) {
        renamer.bindSubstitute(p.name, c.args[i].get());
        continue;
      }
      auto let = std::make_unique<LetStmt>(into(p.range), p.name + suffix, into(p.nameRange));
      if (p.declaredType) let->declaredType = cloneType(*p.declaredType, into);
      let->init = std::move(c.args[i]);
      renamer.bindRename(p.name, p.name + suffix);
      out.push_back(std::move(let));
    }
    Ptr<BlockStmt> body = cloneBlock(*fn.body, into);
    renamer.stmts(body->stmts);
    Ptr<Expr> resultValue;
    SourceRange resultRange;
    if (fn.resultType && !body->stmts.empty()) {
      auto *ret = cast<ReturnStmt>(body->stmts.back().get());   // checkReturns made sure of it
      resultValue = std::move(ret->value);
      resultRange = ret->range;
      body->stmts.pop_back();
    }
    block(*body, depth + 1);
    for (auto &s : body->stmts) out.push_back(std::move(s));
    if (resultValue) expr(resultValue, out, depth + 1);   // calls in the returned expression
    std::string result;
    if (resultValue) {
      result = "result" + suffix;
      auto let = std::make_unique<LetStmt>(resultRange, result, resultRange);
      let->declaredType = cloneType(*fn.resultType, into);
      let->init = std::move(resultValue);
      out.push_back(std::move(let));
    }
    // Storage arguments: sema checks them just before the expansion's first statement.
    bool anyStorage = false;
    for (const FnParam &p : fn.params) anyStorage |= p.mode != FnParamMode::Value;
    if (anyStorage) {
      if (out.size() == first) out.push_back(std::make_unique<BlockStmt>(c.range));
      for (size_t i = 0; i < fn.params.size(); ++i) {
        const FnParam &p = fn.params[i];
        if (p.mode == FnParamMode::Value || !p.declaredType) continue;
        InlineArgCheck check;
        check.before = out[first].get();
        check.argument = cloneExpr(*c.args[i]);
        check.paramType = cloneType(*p.declaredType, into);
        check.mode = p.mode;
        check.fn = fn.name;
        check.param = p.name;
        check.paramRange = into(p.range);
        m_.inlineArgChecks.push_back(std::move(check));
      }
    }
    return result;
  }

  Module &m_;
  SourceManager &sm_;
  DiagnosticEngine &diags_;
  bool ok_ = true;
  std::map<std::string, const FnDecl *> fns_;
  std::set<const FnDecl *> broken_;   // reported: never expanded
  std::map<const FnDecl *, std::vector<Edge>> calls_;
  std::map<const FnDecl *, int> color_;   // 0 unvisited, 1 on the path, 2 done
  std::vector<const FnDecl *> path_;
  std::vector<Edge> edges_;                // edges_[i]: the call from path_[i] to path_[i + 1]
  Edge topCall_{nullptr, {}};             // the call in the kernel whose expansion is under way
  unsigned nextInstance_ = 1;
  size_t statements_ = 0;
  bool budgetReported_ = false;
};

} // namespace

bool inlineFunctions(Module &m, SourceManager &sm, DiagnosticEngine &diags) {
  return Inliner(m, sm, diags).run();
}

} // namespace cake

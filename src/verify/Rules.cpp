// Rules family: evaluates the --rules file's ordering obligations (RuleSet.h, docs/rules.md) on a kernel.
//
// What: for every rule and every *agent* - each role (its body, after the kernel-level statements that precede
// the role) and "block" (the kernel-level statements, roles skipped) - every operation of the rule's `op`
// kinds must be preceded, on every path (paths: "all") or on some path (paths: "some") through the agent's
// program, by an operation of an `after` kind on the same buffer, with no `reset` operation on it in between.
//
// How: the structured body is mapped to operations of the RuleOpKinds.def vocabulary (shared reads in
// expressions first, then the statement's own operation) and a forward dataflow analysis runs over it, like
// WgmmaProxies.cpp's: the state is one bit per shared array plus one "any buffer" slot ("an `after` has been
// seen since the last `reset`"); a buffered operation sets / clears its array's bit and the any-buffer slot, an
// unbuffered one (fence, barrier, wait) every bit.  Paths join with AND (all) or OR (some): both branches of an
// `if` (conditions are not evaluated), an `elect` or its skip, a loop's body taken zero or more times (the
// head state is iterated to a fixpoint, then the body is walked once more to report), and `return` ends a
// path.  An `op` operation on array T is checked against T's bit (an unbuffered `op` against the any-buffer
// slot) before its own effect applies.  One diagnostic (E0625) per rule and operation site; a rule that holds
// on a kernel counts as one proven obligation.
//
// "scope": "kernel" walks one agent through every role body in source order (a producer role written before
// its consumer role counts as preceding it).
//
// Limits (docs/rules.md): per role (or the kernel's text order), in program order - no cross-role or cross-thread ordering; indices,
// stages and conditions are not evaluated (a[0] and a[1] are one buffer); fn bodies are seen inlined.
#include "verify/Families.h"
#include "verify/RootDecl.h"
#include "verify/RuleSet.h"
#include "verify/Verifier.h"
#include "verify/VerifyContext.h"

#include "frontend/Ops.h"

#include <algorithm>
#include <map>
#include <set>

namespace cake {

namespace {

struct RuleEvent {
  RuleOp kind;
  int slot;           // buffer slot (>= 1), or 0: unbuffered
  SourceRange range;
};

struct State {
  bool reachable = true;
  std::vector<bool> ok;   // [0]: any buffer; [i]: shared array i
  bool operator==(const State &o) const { return reachable == o.reachable && ok == o.ok; }
};

class RuleChecker {
public:
  RuleChecker(VerifyContext &ctx, const Rule &rule) : ctx_(ctx), rule_(rule) {
    collectBuffers(*ctx.kernel().body);
  }

  // Returns the number of violations reported.
  unsigned run() {
    // The agents: "block" (kernel-level code), then each role in source order.
    std::vector<const RoleStmt *> roles;
    for (const Ptr<Stmt> &s : ctx_.kernel().body->stmts)
      if (auto *r = dynCast<RoleStmt>(s.get())) roles.push_back(r);
    if (rule_.kernelScope) {
      allRoles_ = true;
      runAgent(nullptr, "kernel");
      return violations_;
    }
    runAgent(nullptr, "block");
    for (const RoleStmt *r : roles) runAgent(r, r->name);
    return violations_;
  }

private:
  bool has(const std::vector<RuleOp> &v, RuleOp k) const { return std::find(v.begin(), v.end(), k) != v.end(); }

  void collectBuffers(const Stmt &s) {
    if (auto *sh = dynCast<SharedStmt>(&s)) {
      if (!sh->tensorMemory) slots_.emplace(static_cast<const Decl *>(sh), static_cast<int>(slots_.size()) + 1),
                              names_.push_back(sh->name);
    } else if (auto *b = dynCast<BlockStmt>(&s)) {
      for (const Ptr<Stmt> &c : b->stmts) collectBuffers(*c);
    } else if (auto *r = dynCast<RoleStmt>(&s)) {
      if (r->body) collectBuffers(*r->body);
    } else if (auto *f = dynCast<ForStmt>(&s)) {
      if (f->body) collectBuffers(*f->body);
    } else if (auto *i = dynCast<IfStmt>(&s)) {
      if (i->thenBody) collectBuffers(*i->thenBody);
      if (i->elseBody) collectBuffers(*i->elseBody);
    } else if (auto *e = dynCast<ElectStmt>(&s)) {
      if (e->body) collectBuffers(*e->body);
    }
  }
  int slotOf(const Expr *e) const {
    auto it = slots_.find(rootDecl(e));
    return it == slots_.end() ? -1 : it->second;
  }

  void runAgent(const RoleStmt *role, const std::string &name) {
    if (!rule_.kernelScope && !rule_.roles.empty() && std::find(rule_.roles.begin(), rule_.roles.end(), name) == rule_.roles.end()) return;
    agent_ = role;
    agentName_ = name;
    State s;
    s.ok.assign(slots_.size() + 1, false);
    walkBlock(*ctx_.kernel().body, s, true);
  }

  // ---- paths
  State meet(const State &a, const State &b) const {
    if (!a.reachable) return b;
    if (!b.reachable) return a;
    State r = a;
    for (size_t i = 0; i < r.ok.size(); ++i) r.ok[i] = rule_.allPaths ? (a.ok[i] && b.ok[i]) : (a.ok[i] || b.ok[i]);
    return r;
  }

  void walkBlock(const BlockStmt &b, State &s, bool report) {
    for (const Ptr<Stmt> &c : b.stmts) walkStmt(*c, s, report);
  }

  void walkStmt(const Stmt &st, State &s, bool report) {
    switch (st.kind) {
    case StmtKind::Block: walkBlock(*cast<BlockStmt>(&st), s, report); return;
    case StmtKind::Role: {
      auto &r = *cast<RoleStmt>(&st);
      if ((allRoles_ || &r == agent_) && r.body) walkBlock(*r.body, s, report);
      return;
    }
    case StmtKind::Return: s.reachable = false; return;
    case StmtKind::If: {
      auto &i = *cast<IfStmt>(&st);
      if (i.cond) reads(*i.cond, s, report);
      State t = s, e = s;
      if (i.thenBody) walkBlock(*i.thenBody, t, report);
      if (i.elseBody) walkStmt(*i.elseBody, e, report);
      s = meet(t, e);
      return;
    }
    case StmtKind::Elect: {
      auto &e = *cast<ElectStmt>(&st);
      State t = s;
      if (e.body) walkBlock(*e.body, t, report);
      s = meet(t, s);
      return;
    }
    case StmtKind::For: {
      auto &f = *cast<ForStmt>(&st);
      if (f.lower) reads(*f.lower, s, report);
      if (f.upper) reads(*f.upper, s, report);
      if (f.step) reads(*f.step, s, report);
      if (!f.body) return;
      State head = s;
      for (int guard = 0; guard < 64; ++guard) {   // the lattice is finite: a few rounds suffice
        State out = head;
        walkBlock(*f.body, out, false);
        State next = meet(s, out);
        if (next == head) break;
        head = next;
      }
      State out = head;
      walkBlock(*f.body, out, report);
      s = head;   // the loop exits at its head: after zero or more iterations
      return;
    }
    case StmtKind::Let:
      if (auto *init = cast<LetStmt>(&st)->init.get()) reads(*init, s, report);
      return;
    case StmtKind::Var:
      if (auto *init = cast<VarStmt>(&st)->init.get()) reads(*init, s, report);
      return;
    case StmtKind::Assign: {
      auto &a = *cast<AssignStmt>(&st);
      if (a.value) reads(*a.value, s, report);
      if (!a.target) return;
      indexOperands(*a.target, s, report);
      int slot = slotOf(a.target.get());
      if (slot > 0) {
        if (a.op != AssignOp::Set) apply({RuleOp::SharedLoad, slot, a.target->range}, s, report);
        apply({RuleOp::SharedStore, slot, a.target->range}, s, report);
      }
      return;
    }
    case StmtKind::Op: walkOp(*cast<OpStmt>(&st), s, report); return;
    default: return;   // declarations
    }
  }

  // ---- operations of a statement
  void walkOp(const OpStmt &op, State &s, bool report) {
    if (!op.op) return;
    const SourceRange at = op.range;
    auto operand = [&](const std::vector<Ptr<Expr>> &v) -> const Expr * { return v.empty() ? nullptr : v[0].get(); };
    auto bufferOp = [&](RuleOp kind, const Expr *e) {
      int slot = slotOf(e);
      if (slot > 0) apply({kind, slot, at}, s, report);
    };
    // Shared reads inside the operands come first: for operands that name the operation's own buffer (or a
    // global tensor) only their indices are reads; value operands are scanned whole.
    auto scanAll = [&](const std::vector<Ptr<Expr>> &v, bool ownBuffer) {
      for (const Ptr<Expr> &e : v) {
        if (!e) continue;
        if (ownBuffer) indexOperands(*e, s, report);
        else reads(*e, s, report);
      }
    };
    switch (op.op->id) {
    case OpId::TmaLoad: scanAll(op.srcs, true); scanAll(op.dsts, true); bufferOp(RuleOp::TmaLoad, operand(op.dsts)); return;
    case OpId::TmaStore: scanAll(op.dsts, true); scanAll(op.srcs, true); bufferOp(RuleOp::TmaStore, operand(op.srcs)); return;
    case OpId::TmaStoreWait: apply({RuleOp::TmaStoreWait, 0, at}, s, report); return;
    case OpId::CpAsync: scanAll(op.srcs, true); scanAll(op.dsts, true); bufferOp(RuleOp::CpAsync, operand(op.dsts)); return;
    case OpId::CpAsyncWait: apply({RuleOp::CpAsyncWait, 0, at}, s, report); return;
    case OpId::Ldmatrix:
    case OpId::LdmatrixTrans: scanAll(op.srcs, true); bufferOp(RuleOp::Ldmatrix, operand(op.srcs)); return;
    case OpId::Stmatrix:
    case OpId::StmatrixTrans: scanAll(op.dsts, true); bufferOp(RuleOp::Stmatrix, operand(op.dsts)); return;
    case OpId::Store:
      scanAll(op.srcs, false);
      scanAll(op.dsts, true);
      bufferOp(RuleOp::SharedStore, operand(op.dsts));
      return;
    case OpId::Wgmma: {
      for (const Ptr<Expr> &src : op.srcs) {
        std::vector<const Expr *> sides;
        if (auto *mul = dynCast<BinaryExpr>(src.get()); mul && mul->op == BinaryOp::Mul) {
          sides = {mul->lhs.get(), mul->rhs.get()};
        } else {
          sides = {src.get()};
        }
        for (const Expr *e : sides) {
          // b[s]^T and the like: follow unary / member wrappers to the tile.
          while (auto *u = dynCast<UnaryExpr>(e)) e = u->operand.get();
          if (e) indexOperands(*e, s, report);
          bufferOp(RuleOp::Wgmma, e);
        }
      }
      return;
    }
    case OpId::Tcgen05Mma:   // shared operands read by the tensor core (async proxy): not SIMT loads
      scanAll(op.srcs, true);
      return;
    case OpId::WgmmaFence: apply({RuleOp::WgmmaFence, 0, at}, s, report); return;
    case OpId::WgmmaCommit: apply({RuleOp::WgmmaCommit, 0, at}, s, report); return;
    case OpId::WgmmaWait: apply({RuleOp::WgmmaWait, 0, at}, s, report); return;
    case OpId::FenceProxyAsync: apply({RuleOp::FenceProxyAsync, 0, at}, s, report); return;
    case OpId::Syncthreads: apply({RuleOp::Syncthreads, 0, at}, s, report); return;
    case OpId::Sync: apply({RuleOp::NamedSync, 0, at}, s, report); return;
    case OpId::ClusterSync:
    case OpId::ClusterWait: apply({RuleOp::ClusterSync, 0, at}, s, report); return;
    case OpId::Syncwarp: apply({RuleOp::Syncwarp, 0, at}, s, report); return;
    case OpId::MbarrierInit: apply({RuleOp::MbarrierInit, 0, at}, s, report); return;
    case OpId::MbarrierExpectTx: apply({RuleOp::MbarrierExpectTx, 0, at}, s, report); return;
    case OpId::Arrive: {
      bool tx = std::any_of(op.clauses.begin(), op.clauses.end(), [](const Clause &c) { return c.name == "expect_tx"; });
      if (tx) apply({RuleOp::MbarrierExpectTx, 0, at}, s, report);
      apply({RuleOp::MbarrierArrive, 0, at}, s, report);
      return;
    }
    case OpId::Wait: apply({RuleOp::MbarrierWait, 0, at}, s, report); return;
    default:
      scanAll(op.srcs, false);
      scanAll(op.dsts, true);
      return;
    }
  }

  // Shared reads in an expression: every index expression whose root is a shared array, then its indices.
  void reads(const Expr &e, State &s, bool report) {
    switch (e.kind) {
    case ExprKind::Unary: reads(*cast<UnaryExpr>(&e)->operand, s, report); return;
    case ExprKind::Binary:
      reads(*cast<BinaryExpr>(&e)->lhs, s, report);
      reads(*cast<BinaryExpr>(&e)->rhs, s, report);
      return;
    case ExprKind::Member: reads(*cast<MemberExpr>(&e)->base, s, report); return;
    case ExprKind::Call:
      for (const Ptr<Expr> &a : cast<CallExpr>(&e)->args)
        if (a) reads(*a, s, report);
      return;
    case ExprKind::List:
      for (const Ptr<Expr> &a : cast<ListExpr>(&e)->elements)
        if (a) reads(*a, s, report);
      return;
    case ExprKind::Index: {
      indexOperands(e, s, report);
      int slot = slotOf(&e);
      if (slot > 0) apply({RuleOp::SharedLoad, slot, e.range}, s, report);
      return;
    }
    default: return;
    }
  }
  void indexOperands(const Expr &e, State &s, bool report) {
    for (const Expr *cur = &e; cur;) {
      if (auto *ix = dynCast<IndexExpr>(cur)) {
        for (const IndexItem &it : ix->items) {
          if (it.start) reads(*it.start, s, report);
          if (it.length) reads(*it.length, s, report);
        }
        cur = ix->base.get();
      } else if (auto *m = dynCast<MemberExpr>(cur)) {
        cur = m->base.get();
      } else {
        break;
      }
    }
  }

  // ---- the transfer function of one operation
  void apply(const RuleEvent &ev, State &s, bool report) {
    if (!s.reachable) return;
    if (has(rule_.op, ev.kind) && inScope(ev.slot)) {
      if (!s.ok[ev.slot]) violation(ev, report);
    }
    auto set = [&](bool v) {
      if (ev.slot == 0) std::fill(s.ok.begin(), s.ok.end(), v);
      else s.ok[ev.slot] = v, s.ok[0] = v;
    };
    if (has(rule_.reset, ev.kind)) set(false);
    if (has(rule_.after, ev.kind)) set(true);
  }
  bool inScope(int slot) const {
    if (rule_.buffers.empty() || slot == 0) return true;
    const std::string &n = names_[static_cast<size_t>(slot) - 1];
    return std::find(rule_.buffers.begin(), rule_.buffers.end(), n) != rule_.buffers.end();
  }

  void violation(const RuleEvent &ev, bool report) {
    // One report per site of the source text (the copies of an inlined fn body share their spelling).
    uint32_t file = ctx_.diags().sources().spellingFile(ev.range.begin.file);
    if (!report || !reported_.insert({file, ev.range.begin.offset}).second) return;
    ++violations_;
    std::string what = std::string(ruleOpSpelling(ev.kind));
    if (ev.slot > 0) what += " of '" + names_[static_cast<size_t>(ev.slot) - 1] + "'";
    std::string after;
    for (RuleOp k : rule_.after) after += (after.empty() ? "" : " or ") + std::string(ruleOpSpelling(k));
    std::string why = rule_.message + " (" + what + " in " +
                      (allRoles_ ? std::string("the kernel")
                       : agentName_ == "block" && !agent_ ? std::string("the code outside roles")
                                                         : "role '" + agentName_ + "'") +
                      ": on " + (rule_.allPaths ? "some path" : "every path") + " no " + after + " precedes it";
    if (!rule_.reset.empty()) {
      std::string reset;
      for (RuleOp k : rule_.reset) reset += (reset.empty() ? "" : " or ") + std::string(ruleOpSpelling(k));
      why += " since the last " + reset;
    }
    why += ")";
    ctx_.reportFailure(DiagKind::RuleViolated, ev.range, rule_.name, why)
        .note(rule_.where, "rule '" + rule_.name + "' is defined here");
  }

  VerifyContext &ctx_;
  const Rule &rule_;
  std::map<const Decl *, int> slots_;
  std::vector<std::string> names_;
  const RoleStmt *agent_ = nullptr;
  bool allRoles_ = false;   // scope "kernel": every role body, in source order, on one path
  std::string agentName_;
  std::set<std::pair<uint32_t, uint32_t>> reported_;
  unsigned violations_ = 0;
};

} // namespace

void verifyRules(VerifyContext &ctx) {
  const RuleSet *rules = ctx.options().rules;
  if (!rules) return;
  for (const Rule &rule : rules->rules) {
    if (ctx.diags().limitReached()) return;
    if (RuleChecker(ctx, rule).run() == 0) ctx.recordProven();
  }
}

} // namespace cake

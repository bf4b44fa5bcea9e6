// Verifier family: wgmma fences, accumulator waits, warpgroup convergence and async-proxy fences
// (E0643, E0644, E0645, E0646).
//
// Algorithm: a forward may-analysis over the kernel body in program order (a dataflow walk over the
// structured AST; no CFG is needed).  The abstract state is
//   dirty      wgmma register operands (accumulators, wgmma_a fragments) written by ordinary register code
//              since the last wgmma.fence, each with the statement that wrote it.  Every such fragment starts
//              dirty at its `var` declaration, so "no fence before the first wgmma" is the same rule.
//   open       accumulators written by wgmma since the last wgmma.commit (the group being built)
//   pending    committed wgmma groups that may still run, oldest first; each maps an accumulator to the
//              wgmma and the commit of its group.  `wgmma.wait N` keeps the newest N.
//   generic    shared arrays written through the generic proxy (assignments, stmatrix, store to shared,
//              cp.async) since the last fence.proxy_async, each with the writing statement.
// Transfer: fence clears dirty; a wgmma checks its register operands are clean (E0643) and its shared
// operands are not generically dirty (E0646), then joins the open group (chained wgmma on an in-flight
// accumulator are fine); commit moves open to pending; any other access to an accumulator in open or
// pending - a read in an expression, a store, a conversion, an assignment - is E0644; tma.store of a
// generically dirty array is E0646; fence.proxy_async clears generic.
// E0646's fix-it puts the fence above the first block barrier after the write (every writer passes it), else
// above the async-proxy operation.
// Control: `if` joins both branches, `elect` joins its body with the entry (other lanes skip it), a role's
// body runs from the state before it and joins with it afterwards (other warps skip it), a loop iterates its
// body to a fixpoint joined with the entry (zero trips are possible).  Join = union of the sets, pending
// groups aligned at the newest; the queue is capped at 16 groups (older ones merge), so the lattice is
// finite and the fixpoint terminates.  Each (statement, diagnostic) is reported once.
//
// Warpgroup convergence (E0645): every wgmma / wgmma.fence / commit / wait must be reached by whole
// warpgroups, not under divergent control (ControlPath's reachingWarps).
#include "verify/ControlPath.h"
#include "verify/Families.h"
#include "verify/VerifyContext.h"
#include "verify/SourceText.h"
#include "verify/RootDecl.h"

#include "frontend/ConstEval.h"
#include "frontend/Ops.h"
#include "frontend/Types.h"

#include <deque>
#include <map>
#include <set>

namespace cake {

namespace {

constexpr size_t kMaxGroups = 16;

struct InFlight {
  const OpStmt *wgmma = nullptr;
  const OpStmt *commit = nullptr;   // null while in the open group
};

// The last generic-proxy write to a shared array, and the first block-level barrier after it: a fence belongs
// above that barrier, where every writer executes it.
struct GenericWrite {
  const Stmt *write = nullptr;
  const Stmt *barrierAfter = nullptr;
  bool operator==(const GenericWrite &o) const { return write == o.write && barrierAfter == o.barrierAfter; }
};

struct State {
  std::map<const Decl *, const Stmt *> dirty;
  std::map<const Decl *, InFlight> open;
  std::deque<std::map<const Decl *, InFlight>> pending;
  std::map<const Decl *, GenericWrite> generic;
  bool operator==(const State &o) const {
    return dirty == o.dirty && open == o.open && pending == o.pending && generic == o.generic;
  }
};

bool operator==(const InFlight &a, const InFlight &b) { return a.wgmma == b.wgmma && a.commit == b.commit; }

template <class M> void unite(M &into, const M &from) {
  for (auto &[k, v] : from) into.emplace(k, v);
}

State join(const State &a, const State &b) {
  State r = a;
  unite(r.dirty, b.dirty);
  unite(r.open, b.open);
  unite(r.generic, b.generic);
  // Align the group queues at the newest group.
  size_t n = std::max(a.pending.size(), b.pending.size());
  std::deque<std::map<const Decl *, InFlight>> q(n);
  for (size_t i = 0; i < a.pending.size(); ++i) unite(q[n - a.pending.size() + i], a.pending[i]);
  for (size_t i = 0; i < b.pending.size(); ++i) unite(q[n - b.pending.size() + i], b.pending[i]);
  r.pending = std::move(q);
  return r;
}

bool isWgmmaFragDecl(const Decl *d) {
  if (!d || d->declKind != DeclKind::Var || !d->type) return false;
  const Type *t = d->type;
  if (t->isTensor() && t->element) t = t->element;
  return t->isWgmmaFrag();
}

bool isAccumulator(const Decl *d) {
  if (!isWgmmaFragDecl(d)) return false;
  const Type *t = d->type->isTensor() ? d->type->element : d->type;
  return t->frag == FragKind::WgmmaAcc;
}

bool isShared(const Decl *d) { return d && d->declKind == DeclKind::Shared; }

class WgmmaProxyAnalysis {
public:
  explicit WgmmaProxyAnalysis(VerifyContext &ctx) : ctx_(ctx) {}

  void run() {
    if (!ctx_.kernel().body) return;
    State s;
    runBlock(*ctx_.kernel().body, s);
  }

private:
  VerifyContext &ctx_;
  std::set<std::pair<const Stmt *, int>> reported_;

  bool once(const Stmt &s, DiagKind k) { return reported_.insert({&s, static_cast<int>(k)}).second; }

  void runBlock(const BlockStmt &b, State &s) {
    for (auto &st : b.stmts)
      if (st) runStmt(*st, s);
  }

  // ---- accumulator accesses
  std::optional<std::pair<InFlight, size_t>> inFlight(const State &s, const Decl *d) const {
    if (auto it = s.open.find(d); it != s.open.end()) return std::make_pair(it->second, size_t(0));
    for (size_t i = s.pending.size(); i-- > 0;)
      if (auto it = s.pending[i].find(d); it != s.pending[i].end())
        return std::make_pair(it->second, s.pending.size() - 1 - i);   // groups committed after it
    return std::nullopt;
  }

  void checkAccess(const Stmt &at, const Decl *d, const char *how, const State &s) {
    if (!isAccumulator(d)) return;
    auto f = inFlight(s, d);
    if (!f || !once(at, DiagKind::WgmmaAccumulatorInFlight)) return;
    auto diag = ctx_.reportFailure(DiagKind::WgmmaAccumulatorInFlight, at.range, how, d->name);
    diag.note(f->first.wgmma->range, "this wgmma writes '" + d->name + "' asynchronously");
    if (f->first.commit) {
      diag.note(f->first.commit->range, "its group is committed here; " + std::to_string(f->second) +
                                            " group(s) were committed after it");
      diag.hint("insert 'wgmma.wait " + std::to_string(f->second) + ";'" + (f->second ? " (or 'wgmma.wait 0;')" : "") +
                " before the access")
          .fixit(insertStatementBefore(ctx_.diags(), at.range, "wgmma.wait " + std::to_string(f->second) + ";"));
    } else {
      diag.hint("close the group with 'wgmma.commit;' and wait for it ('wgmma.wait 0;') before the access");
    }
  }

  void scanExpr(const Stmt &at, const Expr *e, const char *how, const State &s) {
    if (!e) return;
    switch (e->kind) {
    case ExprKind::Name: checkAccess(at, cast<NameExpr>(e)->decl, how, s); break;
    case ExprKind::Unary: scanExpr(at, cast<UnaryExpr>(e)->operand.get(), how, s); break;
    case ExprKind::Binary:
      scanExpr(at, cast<BinaryExpr>(e)->lhs.get(), how, s);
      scanExpr(at, cast<BinaryExpr>(e)->rhs.get(), how, s);
      break;
    case ExprKind::Member: {
      // acc.row / acc.col read the layout, not the accumulator's values.
      auto *m = cast<MemberExpr>(e);
      bool coordinate = (m->member == "row" || m->member == "col") && m->base->type && m->base->type->isFragment();
      if (!coordinate) scanExpr(at, m->base.get(), how, s);
      break;
    }
    case ExprKind::Index: {
      auto *ix = cast<IndexExpr>(e);
      scanExpr(at, ix->base.get(), how, s);
      for (const IndexItem &it : ix->items) {
        scanExpr(at, it.start.get(), "read", s);
        scanExpr(at, it.length.get(), "read", s);
      }
      break;
    }
    case ExprKind::Call: {
      auto *c = cast<CallExpr>(e);
      bool conversion = c->type && (c->type->isFragment() || c->type->isScalar() || c->type->isVector()) &&
                        (parseScalarName(c->callee).has_value() || c->callee.find('x') != std::string::npos);
      for (auto &a : c->args) scanExpr(at, a.get(), conversion && std::string_view(how) == "read" ? "conversion" : how, s);
      break;
    }
    default: break;
    }
  }

  void registerWrite(const Stmt &at, const Expr *target, State &s) {
    const Decl *d = rootDecl(target);
    if (isWgmmaFragDecl(d)) {
      checkAccess(at, d, "write", s);
      s.dirty[d] = &at;
    }
    if (isShared(d)) s.generic[d] = {&at, nullptr};
  }

  // ---- warpgroup convergence is checked separately (walkControl), see verifyWgmmaAndProxies.

  void runOp(const OpStmt &op, State &s) {
    OpId id = op.op->id;
    switch (id) {
    case OpId::WgmmaFence: s.dirty.clear(); return;
    case OpId::WgmmaCommit: {
      std::map<const Decl *, InFlight> group;
      for (auto &[d, f] : s.open) group[d] = {f.wgmma, &op};
      s.open.clear();
      s.pending.push_back(std::move(group));
      if (s.pending.size() > kMaxGroups) {   // merge the two oldest
        unite(s.pending[1], s.pending[0]);
        s.pending.pop_front();
      }
      return;
    }
    case OpId::WgmmaWait: {
      std::optional<int64_t> n;
      if (!op.dsts.empty() && op.dsts[0]) n = ConstEvaluator().evaluate(*op.dsts[0]).optional();
      if (n && *n >= 0)
        while (static_cast<int64_t>(s.pending.size()) > *n) s.pending.pop_front();
      return;
    }
    case OpId::FenceProxyAsync: s.generic.clear(); return;
    case OpId::Syncthreads: case OpId::Sync:
      for (auto &[d, w] : s.generic)
        if (!w.barrierAfter) w.barrierAfter = &op;
      for (auto &e : op.dsts) scanExpr(op, e.get(), "read", s);
      for (auto &e : op.srcs) scanExpr(op, e.get(), "read", s);
      return;
    case OpId::Wgmma: {
      const Decl *acc = op.dsts.empty() ? nullptr : rootDecl(op.dsts[0].get());
      std::vector<const Decl *> regs;
      if (isWgmmaFragDecl(acc)) regs.push_back(acc);
      // The sources are written `A * B`: one Mul expression whose sides are the operands.
      std::vector<const Expr *> operands;
      for (auto &src : op.srcs) {
        if (auto *mul = dynCast<BinaryExpr>(src.get()); mul && mul->op == BinaryOp::Mul) {
          operands.push_back(mul->lhs.get());
          operands.push_back(mul->rhs.get());
        } else {
          operands.push_back(src.get());
        }
      }
      for (const Expr *src : operands) {
        const Decl *d = rootDecl(src);
        if (isWgmmaFragDecl(d)) regs.push_back(d);
        if (isShared(d)) checkProxy(op, d, s);
        // A converted accumulator (bf16(p)) is read into fresh registers right here; codegen fences them.
        if (!d) scanExpr(op, src, "conversion", s);
      }
      for (const Decl *d : regs) {
        auto it = s.dirty.find(d);
        if (it == s.dirty.end() || !once(op, DiagKind::WgmmaMissingFence)) continue;
        auto diag = ctx_.reportFailure(DiagKind::WgmmaMissingFence, op.range, d->name, describeWrite(*it->second, d));
        diag.note(it->second->range, isa<VarStmt>(it->second) ? "'" + d->name + "' is declared here"
                                                               : "'" + d->name + "' is written by registers here");
        diag.hint("insert 'wgmma.fence;' before this wgmma (after the last register write to '" + d->name + "')")
            .fixit(insertStatementBefore(ctx_.diags(), op.range, "wgmma.fence;"));
      }
      if (isWgmmaFragDecl(acc)) {
        s.dirty.erase(acc);
        s.open[acc] = {&op, nullptr};
      }
      return;
    }
    case OpId::TmaStore:
      for (auto &src : op.srcs)
        if (const Decl *d = rootDecl(src.get()); isShared(d)) checkProxy(op, d, s);
      return;
    case OpId::Stmatrix: case OpId::StmatrixTrans: case OpId::CpAsync:
      for (auto &src : op.srcs) scanExpr(op, src.get(), "read", s);
      for (auto &dst : op.dsts)
        if (const Decl *d = rootDecl(dst.get()); isShared(d)) s.generic[d] = {&op, nullptr};
      return;
    case OpId::Store:
      for (auto &src : op.srcs) scanExpr(op, src.get(), "store", s);
      for (auto &dst : op.dsts)
        if (const Decl *d = rootDecl(dst.get()); isShared(d)) s.generic[d] = {&op, nullptr};
      return;
    case OpId::Ldmatrix: case OpId::LdmatrixTrans: case OpId::MmaSync:
      for (auto &src : op.srcs) scanExpr(op, src.get(), "read", s);
      for (auto &dst : op.dsts) registerWrite(op, dst.get(), s);
      return;
    default:
      for (auto &e : op.dsts) scanExpr(op, e.get(), "read", s);
      for (auto &e : op.srcs) scanExpr(op, e.get(), "read", s);
      return;
    }
  }

  std::string describeWrite(const Stmt &w, const Decl *d) const {
    if (auto *v = dynCast<VarStmt>(&w))
      return v->init ? "its initialisation '" + sourceText(ctx_.diags(), v->range) + "'"
                     : "its declaration (no wgmma.fence before the first wgmma)";
    return "the register write '" + sourceText(ctx_.diags(), w.range) + "'";
  }

  void checkProxy(const OpStmt &op, const Decl *shared, const State &s) {
    auto it = s.generic.find(shared);
    if (it == s.generic.end() || !once(op, DiagKind::MissingProxyFence)) return;
    ctx_.reportFailure(DiagKind::MissingProxyFence, op.range, op.name, shared->name)
        .note(it->second.write->range, "generic-proxy write to '" + shared->name + "' here")
        .hint("insert 'fence.proxy_async;' after the writes to '" + shared->name + "' and before this '" + op.name + "'")
        .fixit(insertStatementBefore(ctx_.diags(), (it->second.barrierAfter ? it->second.barrierAfter : &op)->range,
                                     "fence.proxy_async;"));
  }

  void runStmt(const Stmt &st, State &s) {
    switch (st.kind) {
    case StmtKind::Block: runBlock(*cast<BlockStmt>(&st), s); break;
    case StmtKind::Let: scanExpr(st, cast<LetStmt>(&st)->init.get(), "read", s); break;
    case StmtKind::Var: {
      auto &v = *cast<VarStmt>(&st);
      scanExpr(st, v.init.get(), "read", s);
      if (isWgmmaFragDecl(&v)) s.dirty[&v] = &st;
      break;
    }
    case StmtKind::Assign: {
      auto &a = *cast<AssignStmt>(&st);
      scanExpr(st, a.value.get(), "read", s);
      if (a.op != AssignOp::Set) scanExpr(st, a.target.get(), "read", s);
      registerWrite(st, a.target.get(), s);
      break;
    }
    case StmtKind::Op: {
      auto &op = *cast<OpStmt>(&st);
      if (op.op) runOp(op, s);
      break;
    }
    case StmtKind::If: {
      auto &i = *cast<IfStmt>(&st);
      scanExpr(st, i.cond.get(), "read", s);
      State t = s, e = s;
      if (i.thenBody) runBlock(*i.thenBody, t);
      if (i.elseBody) runStmt(*i.elseBody, e);
      s = join(t, e);
      break;
    }
    case StmtKind::Elect: {
      State b = s;
      if (auto &body = cast<ElectStmt>(&st)->body) runBlock(*body, b);
      s = join(s, b);
      break;
    }
    case StmtKind::Role: {
      State b = s;
      if (auto &body = cast<RoleStmt>(&st)->body) runBlock(*body, b);
      s = join(s, b);
      break;
    }
    case StmtKind::For: {
      auto &f = *cast<ForStmt>(&st);
      State cur = s;
      for (int iter = 0; iter < 64 && f.body; ++iter) {
        State b = cur;
        runBlock(*f.body, b);
        State next = join(cur, b);
        if (next == cur) break;
        cur = std::move(next);
      }
      s = std::move(cur);
      break;
    }
    default: break;
    }
  }
};

bool isWarpgroupOp(OpId id) {
  return id == OpId::Wgmma || id == OpId::WgmmaFence || id == OpId::WgmmaCommit || id == OpId::WgmmaWait;
}

} // namespace

void verifyWgmmaAndProxies(VerifyContext &ctx) {
  WgmmaProxyAnalysis(ctx).run();

  UniformityAnalysis uniformity(ctx.kernel(), ctx.info());
  walkControl(ctx.kernel(), uniformity, [&](const Stmt &s, const ControlPath &path) {
    auto *op = dynCast<OpStmt>(&s);
    if (!op || !op->op || !isWarpgroupOp(op->op->id)) return;
    WarpReach r = reachingWarps(path, ctx.info(), uniformity, SyncScope::Warpgroup);
    if (r.divergent()) {
      auto d = ctx.reportFailure(DiagKind::WarpgroupDivergent, op->range, op->name, r.divergentWhy);
      if (auto *i = dynCast<IfStmt>(r.divergentAt)) d.note(i->cond->range, "condition '" + sourceText(ctx.diags(), i->cond->range) + "'");
      else d.note(headOf(r.divergentAt->range), "divergent construct here");
      d.hint("issue warpgroup instructions from every thread of the warpgroup, outside elect and thread-dependent ifs");
      return;
    }
    if (!r.known) {
      if (r.unknownCause)
        ctx.reportUnproven(op->range, "that whole warpgroups execute '" + op->name + "'",
                        "the condition '" + sourceText(ctx.diags(), r.unknownCause->range) + "' is not known per warp");
      return;
    }
    std::set<int64_t> reached(r.warps.begin(), r.warps.end());
    for (int64_t w : r.warps) {
      int64_t g = w / 4;
      for (int64_t x = 4 * g; x < 4 * g + 4; ++x)
        if (!reached.count(x)) {
          std::vector<int64_t> part;
          for (int64_t y = 4 * g; y < 4 * g + 4; ++y)
            if (reached.count(y)) part.push_back(y);
          auto d = ctx.reportFailure(DiagKind::WarpgroupDivergent, op->range, op->name,
                                   "only " + describeWarps(part) + " of warpgroup " + std::to_string(g) + " reach it");
          for (const ControlFrame &f : path.frames)
            if (f.cond && (uniformity.of(*f.cond) == Uniformity::Warp || uniformity.of(*f.cond) == Uniformity::Warpgroup))
              d.note(f.cond->range, "this condition selects warps");
          d.hint("select whole warpgroups (e.g. 'if warp / 4 == 1') or move the instruction out of the condition");
          return;
        }
    }
    ctx.recordProven();
  });
}

} // namespace cake

// Verifier family: Blackwell tensor memory and tcgen05 (E0680-E0684).
//
//   capacity (E0680)  the columns of every `tmem` array of the kernel, times the CTAs that the launch lets
//                     share an SM (shared memory, threads, the block limit of sm_100a), fit the 512 columns
//                     of an SM's tensor memory; otherwise a co-resident CTA stalls in tcgen05.alloc until
//                     another exits (the occupancy the launch counts on is not reached).
//   pairing (E0681)   each tmem array is allocated exactly once and deallocated exactly once; both are
//                     executed by whole warps (not under `elect` or a lane-dependent condition:
//                     `.sync.aligned`), and the dealloc by exactly the warps that allocated (PTX ISA: the
//                     allocating warp frees).  Warps are found with ControlPath's reachingWarps.  When the
//                     alloc is the only statement of an `if` at the body's top level, the fix-its reuse its
//                     condition: a missing dealloc is added under it at the end, a dealloc under another
//                     top-level `if` gets it.
//   commit (E0682)    a thread reads tensor memory (tcgen05.ld) only after it has waited, since the start of
//                     its role, on an mbarrier that a tcgen05.commit arrives on - the phase the MMAs'
//                     completion closes.  (Which phase is the mbarrier family's concern: its arrival counts
//                     include the commits.)
//   wait::ld (E0683)  the registers of a tcgen05.ld are not read before a tcgen05.wait.ld of the same thread.
//   fences (E0684)    between a thread synchronization that acquires (wait, syncthreads, sync, cluster.wait)
//                     and the thread's next tcgen05 operation on tensor memory (mma, ld, st, dealloc) there is
//                     a tcgen05.fence.after; between a tcgen05 operation (alloc, dealloc, ld, st, mma) and
//                     the thread's next releasing synchronization (arrive, syncthreads, sync, cluster.arrive)
//                     a tcgen05.fence.before (PTX ISA memory consistency model: tcgen05 operations are
//                     ordered with thread synchronization only through these fences).
//
// Algorithm for commit, wait::ld and fences: a forward may-analysis over the structured AST in program order,
// as WgmmaProxies.cpp: the state is the set of fragments with a pending tcgen05.ld (each with its ld), whether
// an acquiring sync / a tcgen05 operation happened since the last fence.after / fence.before (with the
// statement), and whether a commit-signalled wait has been seen.  `if` joins both branches (takes one only when
// its condition folds to a constant), `elect` joins its body with the entry, a role starts from the state
// before it (with no commit wait: the wait must be the role's own) and joins afterwards, a loop runs its body
// twice joined with the entry (enough for these finite flags and sets to reach their fixpoint).  Each
// (statement, code) is reported once.
#include "frontend/ConstEval.h"
#include "frontend/NameUses.h"
#include "verify/ControlPath.h"
#include "verify/Families.h"
#include "verify/RootDecl.h"
#include "verify/SourceText.h"
#include "verify/Uniformity.h"
#include "verify/VerifyContext.h"

#include "frontend/Ops.h"

#include <map>
#include <set>

namespace cake {

namespace {

// The `if COND { OP; }` at the kernel body's top level whose only statement is `op` (the usual form of an
// alloc / dealloc by one warp); null otherwise.
const IfStmt *soleStatementIf(const Kernel &kernel, const OpStmt &op) {
  if (!kernel.body) return nullptr;
  for (const auto &st : kernel.body->stmts) {
    if (st->kind != StmtKind::If) continue;
    const auto *ifs = cast<IfStmt>(st.get());
    if (!ifs->elseBody && ifs->cond && ifs->thenBody && ifs->thenBody->stmts.size() == 1 &&
        ifs->thenBody->stmts[0].get() == &op)
      return ifs;
  }
  return nullptr;
}

// Tensor memory an SM has, and the occupancy limits of sm_100a (public CUDA occupancy tables).
constexpr int64_t kTmemColumns = 512;
constexpr int64_t kSharedPerSm = 233472;
constexpr int64_t kSharedReservedPerBlock = 1024;
constexpr int64_t kThreadsPerSm = 2048;
constexpr int64_t kBlocksPerSm = 32;

struct State {
  std::map<const Decl *, const OpStmt *> pendingLd;   // fragments loaded and not yet waited for
  const Stmt *needAfter = nullptr;                    // an acquiring sync since the last fence.after
  const Stmt *needBefore = nullptr;                   // a tcgen05 operation since the last fence.before
  bool commitWaited = false;                          // a wait on a commit-signalled mbarrier (must: all paths)
  bool operator==(const State &o) const {
    return pendingLd == o.pendingLd && needAfter == o.needAfter && needBefore == o.needBefore && commitWaited == o.commitWaited;
  }
};

State join(const State &a, const State &b) {
  State r = a;
  for (const auto &[d, s] : b.pendingLd) r.pendingLd.emplace(d, s);
  if (!r.needAfter) r.needAfter = b.needAfter;
  if (!r.needBefore) r.needBefore = b.needBefore;
  r.commitWaited = a.commitWaited && b.commitWaited;
  return r;
}

void collectNames(const Expr *e, std::vector<const NameExpr *> &out) {
  forEachNameUse(e, [&](const NameExpr &n) { out.push_back(&n); });
}

bool isTmemOp(OpId id) {
  switch (id) {
  case OpId::Tcgen05Mma: case OpId::Tcgen05Ld: case OpId::Tcgen05St: case OpId::Tcgen05Dealloc: case OpId::Tcgen05Alloc:
    return true;
  default: return false;
  }
}

class TensorMemoryAnalysis {
public:
  explicit TensorMemoryAnalysis(VerifyContext &ctx) : ctx_(ctx) {}

  void run() {
    // mbarriers some tcgen05.commit arrives on.
    walkControl(ctx_.kernel(), uniformity_, [&](const Stmt &s, const ControlPath &) {
      if (auto *op = dynCast<OpStmt>(&s); op && op->op && op->op->id == OpId::Tcgen05Commit && !op->dsts.empty())
        if (const Decl *d = rootDecl(op->dsts[0].get())) commitBarriers_.insert(d);
    });
    State st;
    block(*ctx_.kernel().body, st);
  }

private:
  VerifyContext &ctx_;
  UniformityAnalysis uniformity_{ctx_.kernel(), ctx_.info()};
  std::set<const Decl *> commitBarriers_;
  std::set<std::pair<const Stmt *, int>> reported_;

  bool once(const Stmt *s, int code) { return reported_.insert({s, code}).second; }

  void block(const BlockStmt &b, State &st) {
    for (const auto &s : b.stmts)
      if (s) stmt(*s, st);
  }

  void readsOf(const Stmt &s, const Expr *e, State &st) {
    std::vector<const NameExpr *> names;
    collectNames(e, names);
    for (const NameExpr *n : names) {
      auto it = st.pendingLd.find(n->decl);
      if (it == st.pendingLd.end()) continue;
      if (once(&s, 683))
        ctx_.reportFailure(DiagKind::TmemLoadNotWaited, n->range, n->name)
            .note(it->second->range, "loaded here")
            .hint("add 'tcgen05.wait.ld;' between the tcgen05.ld and the first use of its registers")
            .fixit(insertStatementBefore(ctx_.diags(), s.range, "tcgen05.wait.ld;"));
    }
  }

  void stmt(const Stmt &s, State &st) {
    switch (s.kind) {
    case StmtKind::Block: block(*cast<BlockStmt>(&s), st); return;
    case StmtKind::Let: readsOf(s, cast<LetStmt>(&s)->init.get(), st); return;
    case StmtKind::Var: readsOf(s, cast<VarStmt>(&s)->init.get(), st); return;
    case StmtKind::Assign: {
      auto *a = cast<AssignStmt>(&s);
      readsOf(s, a->value.get(), st);
      readsOf(s, a->target.get(), st);
      return;
    }
    case StmtKind::If: {
      auto *i = cast<IfStmt>(&s);
      readsOf(s, i->cond.get(), st);
      // A condition that folds to a constant (compile-time parameters) takes one branch only.
      std::optional<int64_t> known = ConstEvaluator().evaluate(*i->cond).optional();
      State t = st, e = st;
      if (!known || *known) block(*i->thenBody, t);
      if (i->elseBody && (!known || !*known)) stmt(*i->elseBody, e);
      st = !known ? join(t, e) : *known ? t : e;
      return;
    }
    case StmtKind::Elect: {
      State t = st;
      block(*cast<ElectStmt>(&s)->body, t);
      st = join(t, st);
      return;
    }
    case StmtKind::Role: {
      State t = st;
      t.commitWaited = false;
      block(*cast<RoleStmt>(&s)->body, t);
      st = join(t, st);
      return;
    }
    case StmtKind::For: {
      auto *f = cast<ForStmt>(&s);
      State entry = st, cur = st;
      for (int pass = 0; pass < 2; ++pass) {
        State body = cur;
        block(*f->body, body);
        cur = join(entry, body);
      }
      cur.commitWaited = entry.commitWaited;   // zero trips are possible
      st = cur;
      return;
    }
    case StmtKind::Op: op(*cast<OpStmt>(&s), st); return;
    default: return;
    }
  }

  void op(const OpStmt &o, State &st) {
    if (!o.op) return;
    const OpId id = o.op->id;
    // Register reads: every operand except a tcgen05.ld destination.
    for (const auto &e : o.srcs) readsOf(o, e.get(), st);
    if (id != OpId::Tcgen05Ld)
      for (const auto &e : o.dsts) readsOf(o, e.get(), st);
    for (const Clause &c : o.clauses)
      for (const auto &a : c.args) readsOf(o, a.get(), st);

    const bool acquire = id == OpId::Wait || id == OpId::Syncthreads || id == OpId::Sync || id == OpId::ClusterWait ||
                         id == OpId::ClusterSync;
    const bool release = id == OpId::Arrive || id == OpId::Syncthreads || id == OpId::Sync || id == OpId::ClusterArrive ||
                         id == OpId::ClusterSync;
    if (release && st.needBefore) {
      if (once(&o, 684))
        ctx_.reportFailure(DiagKind::Tcgen05FenceMissing, o.range, "tcgen05.fence.before", "'" + o.name + "'",
                           "after the tcgen05 operation")
            .note(headOf(st.needBefore->range), "tcgen05 operation here")
            .hint("add 'tcgen05.fence.before;' just before '" + o.name + "'")
            .fixit(insertStatementBefore(ctx_.diags(), o.range, "tcgen05.fence.before;"));
      st.needBefore = nullptr;
    }
    if (acquire) st.needAfter = &o;
    if (id == OpId::Wait && !o.dsts.empty())
      if (const Decl *d = rootDecl(o.dsts[0].get()); d && commitBarriers_.count(d)) st.commitWaited = true;
    switch (id) {
    case OpId::Tcgen05FenceAfter: st.needAfter = nullptr; return;
    case OpId::Tcgen05FenceBefore: st.needBefore = nullptr; return;
    case OpId::Tcgen05WaitLd: st.pendingLd.clear(); return;
    default: break;
    }
    if (!isTmemOp(id)) return;
    if (st.needAfter && id != OpId::Tcgen05Alloc && once(&o, 684))
      ctx_.reportFailure(DiagKind::Tcgen05FenceMissing, o.range, "tcgen05.fence.after", "'" + o.name + "'",
                         "after the thread synchronization")
          .note(headOf(st.needAfter->range), "synchronization here")
          .hint("add 'tcgen05.fence.after;' between the synchronization and '" + o.name + "'")
          .fixit(insertStatementBefore(ctx_.diags(), o.range, "tcgen05.fence.after;"));
    st.needBefore = &o;
    if (id == OpId::Tcgen05Ld && !o.dsts.empty()) {
      if (!st.commitWaited && once(&o, 682)) {
        auto d = ctx_.reportFailure(DiagKind::TmemReadBeforeCommit, o.range, sourceText(ctx_.diags(), o.srcs.empty() ? o.range : o.srcs[0]->range));
        if (commitBarriers_.empty()) d.hint("signal an mbarrier with 'tcgen05.commit M;' after the MMAs and 'wait M parity(..);' before reading");
        else d.hint("wait on the mbarrier the MMAs' tcgen05.commit signals before the tcgen05.ld");
      }
      if (const Decl *f = rootDecl(o.dsts[0].get())) st.pendingLd[f] = &o;
    }
  }
};

void checkCapacityAndPairing(VerifyContext &ctx) {
  const KernelInfo &info = ctx.info();
  int64_t columns = 0;
  for (const SharedAllocation &a : info.shared) columns += a.tmemColumns;
  if (columns == 0) return;
  const int64_t bySmem = kSharedPerSm / std::max<int64_t>(1, info.sharedBytes + kSharedReservedPerBlock);
  const int64_t byThreads = kThreadsPerSm / std::max<int64_t>(1, info.threads);
  const int64_t ctas = std::max<int64_t>(1, std::min({bySmem, byThreads, kBlocksPerSm}));
  if (columns > kTmemColumns) {
    ctx.reportFailure(DiagKind::TmemCapacity, info.kernel->nameRange, info.kernel->name,
                      std::to_string(columns) + " columns of tensor memory, more than the 512 an SM has");
  } else if (columns * ctas > kTmemColumns) {
    ctx.reportFailure(DiagKind::TmemCapacity, info.kernel->nameRange, info.kernel->name,
                      std::to_string(ctas) + " co-resident CTAs (by shared memory and threads) x " + std::to_string(columns) +
                          " columns = " + std::to_string(columns * ctas) + ", more than the 512 an SM has")
        .hint("allocate fewer columns, or use enough shared memory that fewer CTAs share an SM");
  } else {
    ctx.recordProven();
  }

  // Pairing: the warps that execute each alloc / dealloc.
  UniformityAnalysis uniformity(ctx.kernel(), info);
  struct Site {
    const OpStmt *op;
    WarpReach reach;
  };
  std::map<const Decl *, std::vector<Site>> allocs, deallocs;
  walkControl(ctx.kernel(), uniformity, [&](const Stmt &s, const ControlPath &path) {
    auto *op = dynCast<OpStmt>(&s);
    if (!op || !op->op || op->dsts.empty() || (op->op->id != OpId::Tcgen05Alloc && op->op->id != OpId::Tcgen05Dealloc)) return;
    const Decl *d = rootDecl(op->dsts[0].get());
    if (!d) return;
    WarpReach r = reachingWarps(path, info, uniformity, SyncScope::Warp);
    if (r.divergent()) {
      auto diag = ctx.reportFailure(DiagKind::TmemAllocPairing, op->range, d->name,
                                    "'" + op->name + "' is executed by part of a warp (" + r.divergentWhy + ")");
      diag.note(headOf(r.divergentAt->range), "divergent construct here")
          .hint("tcgen05.alloc / dealloc are .sync.aligned: execute them with every lane of the warp (e.g. under 'if warp == 1')");
    }
    (op->op->id == OpId::Tcgen05Alloc ? allocs : deallocs)[d].push_back({op, r});
  });
  for (const SharedAllocation &a : info.shared) {
    if (!a.tmemColumns || !a.decl) continue;
    const Decl *d = a.decl;
    auto &al = allocs[d];
    auto &de = deallocs[d];
    if (al.size() != 1) {
      auto diag = ctx.reportFailure(DiagKind::TmemAllocPairing, al.empty() ? d->nameRange : al[1].op->range, d->name,
                                    al.empty() ? "it is never allocated (tcgen05.alloc)" : "it is allocated more than once");
      if (al.size() > 1) diag.note(al[0].op->range, "first allocation here");
      continue;
    }
    if (de.size() != 1) {
      auto diag = ctx.reportFailure(DiagKind::TmemAllocPairing, de.empty() ? al[0].op->range : de[1].op->range, d->name,
                                    de.empty() ? "it is never deallocated (tcgen05.dealloc) before the CTA exits"
                                               : "it is deallocated more than once");
      if (de.empty()) {
        diag.hint("the allocating warp must free the columns: add 'tcgen05.dealloc " + d->name + ";' at the end");
        const BlockStmt *body = ctx.kernel().body.get();
        if (const IfStmt *guard = soleStatementIf(ctx.kernel(), *al[0].op); guard && !body->stmts.empty())
          diag.fixit(insertStatementAfter(ctx.diags(), body->stmts.back()->range,
                                          "if " + sourceText(ctx.diags(), guard->cond->range) + " { tcgen05.dealloc " +
                                              d->name + "; }"));
      }
      continue;
    }
    const WarpReach &x = al[0].reach, &y = de[0].reach;
    if (x.divergent() || y.divergent()) continue;
    if (!x.known || !y.known) {
      ctx.reportUnproven(de[0].op->range, "that the warp that allocated '" + d->name + "' deallocates it",
                         "the warps that reach the allocation or the deallocation are not known");
      continue;
    }
    if (x.warps != y.warps) {
      auto diag = ctx.reportFailure(DiagKind::TmemAllocPairing, de[0].op->range, d->name,
                                    "it is allocated by " + describeWarps(x.warps) + " but deallocated by " +
                                        describeWarps(y.warps));
      diag.note(al[0].op->range, "allocated here").hint("deallocate under the same condition as the allocation");
      const IfStmt *allocGuard = soleStatementIf(ctx.kernel(), *al[0].op);
      const IfStmt *deallocGuard = soleStatementIf(ctx.kernel(), *de[0].op);
      if (allocGuard && deallocGuard)
        diag.fixit(deallocGuard->cond->range, sourceText(ctx.diags(), allocGuard->cond->range));
      continue;
    }
    if (x.warps.size() != 1) {
      ctx.reportFailure(DiagKind::TmemAllocPairing, al[0].op->range, d->name,
                        "it is allocated by " + std::to_string(x.warps.size()) + " warps (" + describeWarps(x.warps) +
                            "): each would allocate its own columns")
          .hint("allocate from one warp, e.g. under 'if warp == 0'");
      continue;
    }
    ctx.recordProven();
  }
}

} // namespace

void verifyTensorMemory(VerifyContext &ctx) {
  if (!ctx.info().usesTcgen05) return;
  checkCapacityAndPairing(ctx);
  TensorMemoryAnalysis(ctx).run();
}

} // namespace cake

// Verifier family: mbarrier initialisation order (E0656, E0657; E0601 when undecided).
//
// The sync simulation (SyncSimulator.cpp) already checks that every use of an mbarrier comes after an
// mbarrier.init published by a block / cluster barrier (E0607) and that the async proxy and remote CTAs see a
// fence.mbarrier_init after the init (E0608; a fence placed before the init does not count there).  Two ways
// to get the initialisation wrong are invisible to it, because it models one init event per agent:
//   E0656  an mbarrier.init executed by more than one thread of the CTA (a missing `if tid.x == 0`, an init
//          inside `elect` run by several warps): every thread re-initialises the barrier while threads that
//          already passed the publishing barrier arrive on it, so arrivals and phases get lost.
//   E0657  an mbarrier.init that runs again after the barrier was published (a block or cluster barrier
//          after an earlier init) or used (arrive / wait / expect_tx / TMA signal): re-initialising a barrier
//          that other threads may be waiting on or arriving at resets its phase under their feet.  This
//          includes an init inside a loop whose body also publishes or uses the barrier.  Two inits with
//          nothing between them are harmless (the second one rewrites the same state) and are not reported.
// Algorithm: one walk over the structured body in program order.  Each init site gets its path condition
// (enclosing if conditions, `lane == 0` in elect, the role's thread range, loop ranges - like SimtBounds.cpp)
// and Z3 looks for two distinct threads (tid.x, warp, lane, ROLE.* and the loop variables renamed for the
// second one) that both satisfy it under requires(...): none -> proven; a model -> E0656 with the two thread
// ids; unknown, or a model that relies on a condition that could not be translated -> E0601.  For E0657 the
// walk keeps, per barrier, the first init and the first publish / use after it; roles are walked in program
// order, which is also their order after the kernel-level code they follow.  The path condition and its
// early-return rule are PathCondition's (PathWalker.h).
#include "verify/Families.h"
#include "verify/PathWalker.h"
#include "verify/SourceText.h"
#include "verify/VerifyContext.h"

#include "frontend/Builtins.h"
#include "frontend/Ops.h"

#include <map>
#include <set>

namespace cake {

namespace {

struct BarrierOrderState {
  const OpStmt *firstInit = nullptr;
  SourceRange publishedAt;       // first publishing barrier or use after an init (invalid: none yet)
  std::string publishedHow;      // "published by syncthreads", "waited on"
};

class InitOrderChecker {
public:
  explicit InitOrderChecker(VerifyContext &ctx)
      : ctx_(ctx), z3_(ctx.z3()), tr_(ctx.z3(), ctx.info()), path_(ctx.z3(), tr_, ctx.info()) {}

  void run() {
    const Kernel &k = ctx_.kernel();
    if (!k.body || ctx_.info().mbarriers.empty()) return;
    threadVars_ = {tr_.builtinVar(BuiltinValue::TidX), tr_.builtinVar(BuiltinValue::Warp),
                   tr_.builtinVar(BuiltinValue::Lane)};
    path_.linkThreadBuiltins(nullptr, &threadVars_);
    for (const Expr *r : ctx_.info().requirements)
      if (r)
        if (auto c = tr_.translate(*r); c && c->is_bool()) requirements_.push_back(*c);
    walkBlock(*k.body);
  }

private:
  struct Loop {
    const ForStmt *loop;
    bool mayRepeat;              // can run more than one iteration
    std::set<const Decl *> published;   // barriers published / used somewhere in its body
  };

  VerifyContext &ctx_;
  z3::context &z3_;
  std::vector<const Stmt *> enclosing_;   // the ifs, elects, roles and loops around the statement walked
  ExprToZ3 tr_;
  PathCondition path_;
  std::vector<z3::expr> threadVars_, loopConsts_, requirements_;
  std::vector<Loop> loops_;
  DeclMap<BarrierOrderState> state_;
  unsigned loopCounter_ = 0;

  void walkBlock(const BlockStmt &b) {
    path_.walkBlock(b, [this](const Stmt &s) { walkStmt(s); });
  }

  void walkStmt(const Stmt &s) {
    if (s.kind != StmtKind::Block && s.kind != StmtKind::Op) enclosing_.push_back(&s);
    walkStmtIn(s);
    if (s.kind != StmtKind::Block && s.kind != StmtKind::Op) enclosing_.pop_back();
  }

  void walkStmtIn(const Stmt &s) {
    switch (s.kind) {
    case StmtKind::Block: walkBlock(*cast<BlockStmt>(&s)); break;
    case StmtKind::Op: walkOp(*cast<OpStmt>(&s)); break;
    case StmtKind::If: {
      auto &i = *cast<IfStmt>(&s);
      path_.withCondition(i.cond.get(), true, [&] { if (i.thenBody) walkBlock(*i.thenBody); });
      if (i.elseBody) path_.withCondition(i.cond.get(), false, [&] { walkStmt(*i.elseBody); });
      break;
    }
    case StmtKind::Elect: {
      auto &e = *cast<ElectStmt>(&s);
      if (!e.body) break;
      path_.push(tr_.builtinVar(BuiltinValue::Lane) == 0);
      walkBlock(*e.body);
      path_.pop();
      break;
    }
    case StmtKind::Role: {
      auto &r = *cast<RoleStmt>(&s);
      PathCondition::Mark mark = path_.mark();
      path_.linkThreadBuiltins(&r, &threadVars_);
      if (r.body) walkBlock(*r.body);
      path_.restore(mark);
      break;
    }
    case StmtKind::For: {
      auto &f = *cast<ForStmt>(&s);
      if (!f.body) break;
      z3::expr v = z3_.int_const(("init!" + f.name + "!" + std::to_string(loopCounter_++)).c_str());
      loopConsts_.push_back(v);
      tr_.bind(&f, v);
      auto lo = f.lower ? tr_.translate(*f.lower) : std::nullopt;
      auto hi = f.upper ? tr_.translate(*f.upper) : std::nullopt;
      z3::expr range = z3_.bool_val(true);
      if (lo) range = range && v >= *lo;
      if (hi) range = range && v < *hi;
      // May the loop run two iterations?  (Constant bounds decide it; otherwise assume it may.)
      bool mayRepeat = true;
      int64_t l = 0, h = 0;
      if (lo && hi && lo->simplify().is_numeral_i64(l) && hi->simplify().is_numeral_i64(h)) mayRepeat = h - l >= 2;
      loops_.push_back({&f, mayRepeat, {}});
      path_.push(range);
      if (!lo || !hi) path_.dropCondition();
      // Pre-scan: which barriers does the body publish or use?  (An init before them in the body runs again
      // after them in the next iteration.)
      collectPublished(*f.body, loops_.back().published);
      walkBlock(*f.body);
      if (!lo || !hi) path_.undropCondition();
      path_.pop();
      loops_.pop_back();
      tr_.unbind(&f);
      break;
    }
    default: break;
    }
  }

  // ---- operations
  static const Decl *mbarrierOf(const Expr *e) {
    while (e && isa<IndexExpr>(e)) e = cast<IndexExpr>(e)->base.get();
    auto *n = e ? dynCast<NameExpr>(e) : nullptr;
    if (!n || !n->decl || n->decl->declKind != DeclKind::MBarrier) return nullptr;
    return n->decl;
  }

  static std::vector<const Decl *> barriersUsedBy(const OpStmt &op) {
    std::vector<const Decl *> out;
    for (auto &e : op.dsts) if (auto *d = mbarrierOf(e.get())) out.push_back(d);
    for (auto &e : op.srcs) if (auto *d = mbarrierOf(e.get())) out.push_back(d);
    for (auto &c : op.clauses) for (auto &e : c.args) if (auto *d = mbarrierOf(e.get())) out.push_back(d);
    return out;
  }

  static bool isPublish(const OpStmt &op) {
    return op.op && (op.op->id == OpId::Syncthreads || op.op->id == OpId::ClusterSync ||
                     op.op->id == OpId::ClusterWait || op.op->id == OpId::Sync);
  }
  static bool isInit(const OpStmt &op) { return op.op && op.op->id == OpId::MbarrierInit; }
  static bool isFenceOrInit(const OpStmt &op) {
    return op.op && (op.op->id == OpId::MbarrierInit || op.op->id == OpId::FenceMbarrierInit);
  }

  // Barriers a statement list publishes (any block / cluster barrier publishes all) or uses.
  void collectPublished(const BlockStmt &b, std::set<const Decl *> &out) {
    std::function<void(const Stmt &)> visit = [&](const Stmt &s) {
      switch (s.kind) {
      case StmtKind::Block: for (auto &c : cast<BlockStmt>(&s)->stmts) if (c) visit(*c); break;
      case StmtKind::If: {
        auto &i = *cast<IfStmt>(&s);
        if (i.thenBody) visit(*i.thenBody);
        if (i.elseBody) visit(*i.elseBody);
        break;
      }
      case StmtKind::Elect: if (auto &bb = cast<ElectStmt>(&s)->body) visit(*bb); break;
      case StmtKind::Role: if (auto &bb = cast<RoleStmt>(&s)->body) visit(*bb); break;
      case StmtKind::For: if (auto &bb = cast<ForStmt>(&s)->body) visit(*bb); break;
      case StmtKind::Op: {
        auto &op = *cast<OpStmt>(&s);
        if (!op.op || isFenceOrInit(op)) break;
        if (isPublish(op)) for (const MBarrierInfo &m : ctx_.info().mbarriers) out.insert(m.decl);
        for (const Decl *d : barriersUsedBy(op)) out.insert(d);
        break;
      }
      default: break;
      }
    };
    visit(b);
  }

  void walkOp(const OpStmt &op) {
    if (!op.op) return;
    if (isInit(op)) {
      for (const Decl *d : barriersUsedBy(op)) checkInit(op, d);
      return;
    }
    if (op.op->id == OpId::FenceMbarrierInit) return;
    if (isPublish(op)) {
      for (auto &[d, st] : state_)
        if (st.firstInit && !st.publishedAt.valid()) {
          st.publishedAt = op.range;
          st.publishedHow = "published by '" + sourceText(ctx_.diags(), op.nameRange) + "'";
        }
      return;
    }
    for (const Decl *d : barriersUsedBy(op)) {
      BarrierOrderState &st = state_[d];
      if (st.firstInit && !st.publishedAt.valid()) {
        st.publishedAt = op.range;
        st.publishedHow = "used by '" + sourceText(ctx_.diags(), op.nameRange) + "'";
      }
    }
  }

  void checkInit(const OpStmt &op, const Decl *d) {
    checkSingleThread(op, d);
    BarrierOrderState &st = state_[d];
    bool reported = false;
    if (st.firstInit && st.publishedAt.valid()) {
      auto diag = ctx_.reportFailure(DiagKind::MbarrierReinitialized, op.range, d->name,
                                     "it was " + st.publishedHow);
      diag.note(st.firstInit->range, "first initialised here");
      diag.note(st.publishedAt, "the barrier is " + st.publishedHow + " here, so other threads may already be using it");
      diag.hint("initialise each mbarrier once, before the barrier that publishes it; to reuse it, keep counting "
                "phases (the parity) instead of re-initialising");
      reported = true;
    } else {
      for (const Loop &l : loops_) {
        if (!l.mayRepeat || !l.published.count(d)) continue;
        auto diag = ctx_.reportFailure(DiagKind::MbarrierReinitialized, op.range, d->name,
                                       "the previous iteration of loop '" + l.loop->name + "' published or used it");
        diag.note(headOf(l.loop->range), "the loop runs the init again in every iteration, after the barrier or "
                                         "use later in its body");
        diag.hint("move 'mbarrier.init' (with its fence and the publishing barrier) out of the loop");
        reported = true;
        break;
      }
    }
    if (!reported) ctx_.recordProven();
    if (!st.firstInit) st.firstInit = &op;
  }

  z3::expr_vector vec(const std::vector<z3::expr> &v) {
    z3::expr_vector out(z3_);
    for (const z3::expr &e : v) out.push_back(e);
    return out;
  }

  void checkSingleThread(const OpStmt &op, const Decl *d) {
    z3::expr_vector from(z3_), to(z3_);
    std::set<std::string> seen;
    for (const std::vector<z3::expr> *vs : {&threadVars_, &loopConsts_})
      for (const z3::expr &v : *vs) {
        std::string name = v.decl().name().str();
        if (!seen.insert(name).second) continue;
        from.push_back(v);
        to.push_back(z3_.int_const((name + "'").c_str()));
      }
    std::vector<z3::expr> base = requirements_;
    for (const z3::expr &c : tr_.sideConditions()) base.push_back(c);
    z3::expr assume = z3::mk_and(vec(base));
    z3::expr path = path_.conjunction();
    z3::expr tid = tr_.builtinVar(BuiltinValue::TidX);
    z3::expr assume2 = assume, path2 = path, tid2 = tid;
    assume2 = assume2.substitute(from, to);
    path2 = path2.substitute(from, to);
    tid2 = tid2.substitute(from, to);
    z3::solver s(z3_);
    ctx_.configureSolver(s);
    s.add(assume && assume2 && path && path2 && tid < tid2);   // symmetric: the smaller thread first
    z3::check_result r = z3::unknown;
    try {
      r = s.check();
    } catch (const z3::exception &) {
      r = z3::unknown;
    }
    std::string obligation = "that mbarrier '" + d->name + "' is initialised by a single thread";
    if (r == z3::unsat) { ctx_.recordProven(); return; }
    if (r == z3::unknown) {
      std::string why = s.reason_unknown();
      ctx_.reportUnproven(op.range, obligation, "the solver gave up (" + why + ")", VerifyContext::isLimitReason(why));
      return;
    }
    if (path_.inexact() > 0) {
      ctx_.reportUnproven(op.range, obligation, "an enclosing condition could not be modelled (it reads memory or "
                                                "a mutable variable)");
      return;
    }
    z3::model m = s.get_model();
    auto val = [&](const z3::expr &e) {
      int64_t v = 0;
      z3::expr r = m.eval(e, true);
      return r.is_numeral_i64(v) ? std::to_string(v) : r.to_string();
    };
    auto diag = ctx_.reportFailure(DiagKind::MbarrierInitMultipleThreads, op.range, d->name,
                                   "threads " + val(tid) + " and " + val(tid2) + " both execute it");
    diag.note(op.range, "counterexample: tid.x = " + val(tid) + " and tid.x = " + val(tid2));
    diag.hint("initialise under 'if tid.x == 0 { ... }' (one thread of the CTA), then 'fence.mbarrier_init;' and "
              "'syncthreads;'");
    // Mechanical where the init runs in every thread of the block: at the kernel body's top level (the init
    // wrapped) or in an `elect` there (the elect made the one thread's condition).
    if (enclosing_.empty())
      diag.fixit(op.range, "if tid.x == 0 { " + sourceText(ctx_.diags(), op.range) + " }");
    else if (enclosing_.size() == 1 && enclosing_[0]->kind == StmtKind::Elect)
      diag.fixit(SourceRange{enclosing_[0]->range.begin, enclosing_[0]->range.begin.offset + 5}, "if tid.x == 0");
  }
};

} // namespace

void verifyMBarrierInitOrder(VerifyContext &ctx) { InitOrderChecker(ctx).run(); }

} // namespace cake

// Verifier family: async groups - every shared read is covered by a cp.async.wait (E0647), and every
// tma.store is committed (E0653) and retired by a tma.store.wait before the block exits (E0654).
//
// Algorithm: a concrete simulation of one thread's cp.async group queue over a set of shapes.
//   1. Shapes: Z3 (smallestModel over requires(...)) enumerates the smallest shapes in increasing order of
//      the sum of the shape variables (each next one strictly larger), up to kShapes of them.  With the
//      compile-time values fixed, the loop trip counts of these shapes are 1, 2, 3, ... k-tiles, which covers
//      the prologue, the steady state for every stage residue (stage = k % S repeats with period S) and the
//      drain of a multi-stage pipeline.
//   2. Simulation: the kernel body runs with loop variables, shape variables, compile-time values and lets
//      evaluated concretely (ConstEvaluator, with the loop and shape variables bound through its hook).  `cp.async` adds (array, stage) to the open group - the stage is the first index
//      when the shared array has an outer stage dimension; thread-dependent stages are "any stage" -,
//      `cp.async.commit` closes it, `cp.async.wait N` retires all but the newest N groups.  Conditions that
//      cannot be evaluated (thread-dependent) run both branches; thread-dependent loops run their body once.
//   3. Publication: cp.async.wait only covers the executing thread's own copies; the data of a retired group
//      becomes visible to the other threads at the next barrier (syncthreads / sync).  Retired groups stay
//      "unpublished" until then, and a read of their stage is an error too (the classic wait-after-barrier
//      reordering).
//   4. Obligation: every shared read (loads in expressions, ldmatrix, wgmma operands) of an array with a
//      pending or open group writing the same stage (or any stage) is an error at the read, with the shape,
//      the loop iteration, the copy, its commit and the last wait as notes.  Otherwise each read is counted
//      as proven for the simulated shapes.  A shape whose simulation exceeds kMaxSteps is skipped and, when no
//      shape completed, the obligation is reported unproven (E0601).
//   5. Bulk async-groups (TMA stores) run through the same simulation with a second queue: `tma.store`
//      adds the shared tile it reads to the open bulk group, `tma.store.commit` closes it, `tma.store.wait N`
//      retires all but the newest N.  At the block's exit (end of the body or a 'return') a store in the
//      open group is E0653 and a pending group E0654.  Thread-dependent branches run one after the other,
//      so a commit or wait in one branch also covers a store in the other (a known gap).
//      A write to a tile that an uncommitted or pending tma.store still reads is E0609 of the ring-buffer
//      family (SyncModel models tma.store reads, commits and waits), so it is not checked again here.
#include "frontend/Limits.h"
#include "verify/Families.h"
#include "verify/SmallestModel.h"
#include "verify/SourceText.h"
#include "verify/VerifyContext.h"

#include "frontend/ConstEval.h"
#include "frontend/Ops.h"
#include "frontend/Types.h"

#include <deque>
#include <map>
#include <optional>
#include <set>

namespace cake {

namespace {

constexpr int kShapes = 10;
constexpr int64_t kMaxSteps = 200000;
constexpr int64_t kMaxTrips = 4096;

// A shared region an async group accesses: cp.async writes it, tma.store reads it.
struct Access {
  const SharedStmt *array;
  std::optional<int64_t> stage;   // nullopt = any stage
  const OpStmt *copy;
};
struct Group {
  std::vector<Access> accesses;
  const OpStmt *commit = nullptr;
  std::string when;               // "kt = 2"
  int64_t index = -1;             // how many groups this thread committed before it
};

class Simulation {
public:
  Simulation(VerifyContext &ctx, std::map<const Decl *, int64_t> shape, std::string shapeText,
             std::set<const Stmt *> &reported, unsigned &proven)
      : ctx_(ctx), env_(std::move(shape)), shapeText_(std::move(shapeText)), reported_(reported), proven_(proven) {}

  bool run() {
    const BlockStmt *body = ctx_.kernel().body.get();
    if (body) runBlock(*body);
    if (body && !aborted_) {
      SourceRange closingBrace = body->range;
      if (closingBrace.end > closingBrace.begin.offset) closingBrace.begin.offset = closingBrace.end - 1;
      exitBlock(*body, closingBrace, "the block exits", "the end of the kernel");
    }
    return !aborted_;
  }

private:
  VerifyContext &ctx_;
  std::map<const Decl *, int64_t> env_;
  std::string shapeText_;
  std::set<const Stmt *> &reported_;
  unsigned &proven_;
  Group open_;
  std::deque<Group> pending_;
  std::vector<Group> unpublished_;   // retired by this thread's wait, not yet behind a barrier
  const OpStmt *lastWait_ = nullptr;
  int64_t lastWaitN_ = 0;
  int64_t commitsAtLastWait_ = 0;
  const OpStmt *lastBarrier_ = nullptr;
  int64_t commitsAtLastBarrier_ = 0;
  int64_t commits_ = 0;              // groups this thread has committed so far
  Group bulkOpen_;                   // tma.store groups: the same queue discipline, shared reads
  std::deque<Group> bulkPending_;
  const OpStmt *lastBulkWait_ = nullptr;
  std::vector<std::pair<const ForStmt *, int64_t>> loops_;
  int64_t steps_ = 0;
  bool aborted_ = false;

  // Concrete value under the current loop and shape variables (env_), through the shared ConstEvaluator.
  std::optional<int64_t> eval(const Expr &e) const {
    ConstEvalOptions options;
    options.maxDepth = kMaxExprDepth;
    options.shortCircuitLogic = true;
    options.integerCasts = true;
    options.wrappingShiftLeft = true;
    options.cdiv = ConstEvalOptions::Cdiv::AddThenDivide;
    options.bind = [this](const Expr &x) -> std::optional<int64_t> {
      auto *n = dynCast<NameExpr>(&x);
      if (!n) return std::nullopt;
      if (auto it = env_.find(n->decl); it != env_.end()) return it->second;
      return std::nullopt;
    };
    return ConstEvaluator(std::move(options)).evaluate(e).optional();
  }

  // The shared array an operand addresses and, for staged arrays, the stage.
  std::optional<Access> target(const Expr *e, const OpStmt *copy) const {
    const Expr *stageExpr = nullptr;
    bool staged = false;
    while (e) {
      if (auto *n = dynCast<NameExpr>(e)) {
        if (!n->decl || n->decl->declKind != DeclKind::Shared) return std::nullopt;
        auto *sh = static_cast<const SharedStmt *>(n->decl);
        staged = sh->type && sh->type->isTensor() && sh->type->groups.size() >= 2 && sh->type->groups.front().size() == 1;
        Access w{sh, std::nullopt, copy};
        if (staged && stageExpr) w.stage = eval(*stageExpr);
        return w;
      }
      if (auto *ix = dynCast<IndexExpr>(e)) {
        if (ix->items.size() == 1 && ix->items[0].kind == IndexItem::Point) stageExpr = ix->items[0].start.get();
        e = ix->base.get();
        continue;
      }
      if (auto *m = dynCast<MemberExpr>(e)) { e = m->base.get(); continue; }
      return std::nullopt;
    }
    return std::nullopt;
  }

  std::string iterationText() const {
    std::string s;
    for (auto &[loop, v] : loops_) s += (s.empty() ? "" : ", ") + loop->name + " = " + std::to_string(v);
    return s.empty() ? "outside loops" : s;
  }

  void read(const Stmt &at, const Expr *e) {
    std::optional<Access> r = target(e, nullptr);
    if (!r) return;
    auto conflicts = [&](const Access &w) {
      return w.array == r->array && (!w.stage || !r->stage || *w.stage == *r->stage);
    };
    auto report = [&](const Access &w, const Group *g, size_t newer) {
      if (!reported_.insert(&at).second) return;
      std::string groupText = g ? "'cp.async.commit' (" + g->when + ")" : "(not yet committed)";
      auto d = ctx_.reportFailure(DiagKind::CpAsyncPendingRead, at.range, r->array->name, groupText);
      d.note(at.range, "with " + shapeText_ + ", at " + iterationText() + ": the read addresses " +
                           (r->stage ? "stage " + std::to_string(*r->stage) : std::string("a thread-dependent stage")));
      d.note(w.copy->range, "this cp.async writes " + (w.stage ? "stage " + std::to_string(*w.stage) : std::string("the array")));
      if (g && g->commit) d.note(g->commit->range, "its group is committed here (" + g->when + ")");
      if (lastWait_) d.note(lastWait_->range, "the last cp.async.wait lets " + std::to_string(lastWaitN_) +
                                                  " group(s) stay pending; " + std::to_string(pending_.size()) +
                                                  " are pending at the read");
      if (g) {
        d.hint("lower N in the preceding cp.async.wait so that it retires this group, or insert 'cp.async.wait " +
               std::to_string(newer) + ";' before this read");
        d.fixit(retiringEdit(at, *g));
      }
      else d.hint("commit the copies and wait for them ('cp.async.commit; cp.async.wait 0;') before reading");
    };
    for (const Access &w : open_.accesses)
      if (conflicts(w)) { report(w, nullptr, 0); return; }
    for (size_t i = 0; i < pending_.size(); ++i)
      for (const Access &w : pending_[i].accesses)
        if (conflicts(w)) { report(w, &pending_[i], pending_.size() - 1 - i); return; }
    for (const Group &g : unpublished_)
      for (const Access &w : g.accesses)
        if (conflicts(w)) {
          if (!reported_.insert(&at).second) return;
          auto d = ctx_.reportFailure(DiagKind::CpAsyncPendingRead, at.range, r->array->name,
                                      "'cp.async.commit' (" + g.when + ") of another thread");
          d.note(at.range, "with " + shapeText_ + ", at " + iterationText() + ": this thread's wait retired the group, "
                           "but no barrier since then makes the other threads' copies visible");
          d.note(w.copy->range, "this cp.async writes " + (w.stage ? "stage " + std::to_string(*w.stage) : std::string("the array")) +
                                    " (each thread copies its own part)");
          if (lastWait_) d.note(lastWait_->range, "the wait covers only the copies of the thread that executes it");
          d.hint("put a barrier (syncthreads, or sync on a named barrier) between the cp.async.wait and this read");
          return;
        }
    ++proven_;
  }

  // The edit that retires group g before the read at `at`, for every thread whose copies the read may see: the
  // wait that followed the group's commit and a barrier lowered to the group's count there; else a wait inserted
  // above the barrier that followed the commit; else (no barrier: the thread reads its own copies) a wait above
  // the read.
  FixIt retiringEdit(const Stmt &at, const Group &g) const {
    auto newerAt = [&](int64_t commits) { return commits - g.index - 1; };
    bool barrierAfterCommit = lastBarrier_ && commitsAtLastBarrier_ > g.index;
    if (barrierAfterCommit && lastWait_ && commitsAtLastWait_ > g.index && commitsAtLastWait_ <= commitsAtLastBarrier_ &&
        lastWaitN_ >= 0 && !lastWait_->dsts.empty() && lastWait_->dsts[0]) {
      const Expr &count = *lastWait_->dsts[0];
      int64_t lower = lastWaitN_ - newerAt(commitsAtLastWait_);
      std::string text = sourceText(ctx_.diags(), count.range);
      return {count.range, isa<IntLitExpr>(&count) ? std::to_string(newerAt(commitsAtLastWait_))
                                                   : "(" + text + ") - " + std::to_string(lower)};
    }
    if (barrierAfterCommit)
      return insertStatementBefore(ctx_.diags(), lastBarrier_->range,
                                   "cp.async.wait " + std::to_string(newerAt(commitsAtLastBarrier_)) + ";");
    return insertStatementBefore(ctx_.diags(), at.range, "cp.async.wait " + std::to_string(newerAt(commits_)) + ";");
  }

  std::string stageText(const Access &a) const {
    return a.stage ? "stage " + std::to_string(*a.stage) + " of '" + a.array->name + "'" : "'" + a.array->name + "'";
  }

  void noteBulkGroup(DiagBuilder &d, const Access &store, const Group *g) const {
    d.note(store.copy->range, "this tma.store reads " + stageText(store));
    if (g && g->commit) d.note(g->commit->range, "its bulk async-group is committed here (" + g->when + ")");
    if (lastBulkWait_) d.note(lastBulkWait_->range, "the last tma.store.wait leaves " + std::to_string(bulkPending_.size()) +
                                                        " group(s) pending");
  }

  // A statement that runs just before the thread leaves at `at`: above the 'return', or below the body's last
  // statement.
  std::optional<FixIt> insertBeforeExit(const Stmt &at, std::string_view statement) const {
    if (at.kind == StmtKind::Return) return insertStatementBefore(ctx_.diags(), at.range, statement);
    if (at.kind != StmtKind::Block) return std::nullopt;
    const auto *body = cast<BlockStmt>(&at);
    if (body->stmts.empty()) return std::nullopt;
    return insertStatementAfter(ctx_.diags(), body->stmts.back()->range, statement);
  }

  // The executing thread leaves the kernel at `at` (a 'return', or the body's closing brace).
  void exitBlock(const Stmt &at, SourceRange where, const std::string &how, const std::string &before) {
    bool failed = false;
    for (const Access &a : bulkOpen_.accesses) {
      failed = true;
      if (!reported_.insert(a.copy).second) continue;
      auto d = ctx_.reportFailure(DiagKind::TmaStoreNotCommitted, a.copy->range, a.array->name, how);
      d.note(where, "with " + shapeText_ + ", " + how + " here");
      d.hint("add 'tma.store.commit;' after this tma.store, and 'tma.store.wait 0;' before " + before);
      d.fixit(insertStatementAfter(ctx_.diags(), a.copy->range, "tma.store.commit;"));
    }
    if (failed) return;
    if (bulkPending_.empty()) { ++proven_; return; }
    const Group &g = bulkPending_.front();
    if (!g.accesses.empty() && reported_.insert(&at).second) {
      auto d = ctx_.reportFailure(DiagKind::TmaStoreReadPending, where, how, g.accesses.front().array->name);
      d.note(where, "with " + shapeText_ + ", " + std::to_string(bulkPending_.size()) + " bulk async-group(s) are pending here");
      noteBulkGroup(d, g.accesses.front(), &g);
      d.hint("add 'tma.store.wait 0;' before " + before);
      if (std::optional<FixIt> fix = insertBeforeExit(at, "tma.store.wait 0;")) d.fixit(*fix);
    }
  }

  void scanReads(const Stmt &at, const Expr *e) {
    if (!e) return;
    switch (e->kind) {
    case ExprKind::Unary: scanReads(at, cast<UnaryExpr>(e)->operand.get()); break;
    case ExprKind::Binary: scanReads(at, cast<BinaryExpr>(e)->lhs.get()); scanReads(at, cast<BinaryExpr>(e)->rhs.get()); break;
    case ExprKind::Call: for (auto &a : cast<CallExpr>(e)->args) scanReads(at, a.get()); break;
    case ExprKind::Member: scanReads(at, cast<MemberExpr>(e)->base.get()); break;
    case ExprKind::Index: {
      auto *ix = cast<IndexExpr>(e);
      for (const IndexItem &it : ix->items) { scanReads(at, it.start.get()); scanReads(at, it.length.get()); }
      if (e->type && !e->type->isTensor()) read(at, e);   // a value read from an array element / vector
      break;
    }
    default: break;
    }
  }

  void runBlock(const BlockStmt &b) {
    for (auto &s : b.stmts) {
      if (aborted_) return;
      if (s) runStmt(*s);
    }
  }

  void runStmt(const Stmt &s) {
    if (++steps_ > kMaxSteps) { aborted_ = true; return; }
    switch (s.kind) {
    case StmtKind::Block: runBlock(*cast<BlockStmt>(&s)); break;
    case StmtKind::Let: scanReads(s, cast<LetStmt>(&s)->init.get()); break;
    case StmtKind::Var: scanReads(s, cast<VarStmt>(&s)->init.get()); break;
    case StmtKind::Assign: scanReads(s, cast<AssignStmt>(&s)->value.get()); break;
    case StmtKind::Return: exitBlock(s, s.range, "the 'return' leaves the kernel", "this 'return'"); break;
    case StmtKind::Role: if (auto &b = cast<RoleStmt>(&s)->body) runBlock(*b); break;
    case StmtKind::Elect: if (auto &b = cast<ElectStmt>(&s)->body) runBlock(*b); break;
    case StmtKind::If: {
      auto &i = *cast<IfStmt>(&s);
      auto c = i.cond ? eval(*i.cond) : std::nullopt;
      if (!c || *c) if (i.thenBody) runBlock(*i.thenBody);
      if (!c || !*c) if (i.elseBody) runStmt(*i.elseBody);
      break;
    }
    case StmtKind::For: {
      auto &f = *cast<ForStmt>(&s);
      if (!f.body) break;
      auto lo = f.lower ? eval(*f.lower) : std::nullopt, hi = f.upper ? eval(*f.upper) : std::nullopt;
      auto st = f.step ? eval(*f.step) : std::optional<int64_t>(1);
      if (!lo || !hi || !st || *st <= 0) {   // thread-dependent: one representative trip
        runBlock(*f.body);
        break;
      }
      const int64_t first = lo.value(), end = hi.value(), step = st.value();
      int64_t trips = 0;
      for (int64_t v = first; v < end && !aborted_; v += step) {
        if (++trips > kMaxTrips) { aborted_ = true; break; }
        env_[&f] = v;
        loops_.push_back({&f, v});
        runBlock(*f.body);
        loops_.pop_back();
      }
      env_.erase(&f);
      break;
    }
    case StmtKind::Op: runOp(*cast<OpStmt>(&s)); break;
    default: break;
    }
  }

  void runOp(const OpStmt &op) {
    if (!op.op) return;
    switch (op.op->id) {
    case OpId::CpAsync:
      for (auto &src : op.srcs) scanReads(op, src.get());
      if (!op.dsts.empty())
        if (auto w = target(op.dsts[0].get(), &op)) open_.accesses.push_back(*w);
      return;
    case OpId::CpAsyncCommit:
      open_.commit = &op;
      open_.when = iterationText();
      open_.index = commits_++;
      pending_.push_back(std::move(open_));
      open_ = Group{};
      return;
    case OpId::CpAsyncWait: {
      lastWait_ = &op;
      auto n = op.dsts.empty() || !op.dsts[0] ? std::nullopt : eval(*op.dsts[0]);
      if (n && *n >= 0)
        while (static_cast<int64_t>(pending_.size()) > *n) {
          unpublished_.push_back(std::move(pending_.front()));
          pending_.pop_front();
        }
      lastWaitN_ = n.value_or(-1);
      commitsAtLastWait_ = commits_;
      return;
    }
    case OpId::TmaStore:
      if (!op.srcs.empty())
        if (auto a = target(op.srcs[0].get(), &op)) bulkOpen_.accesses.push_back(*a);
      return;
    case OpId::TmaStoreCommit:
      if (bulkOpen_.accesses.empty()) return;   // an empty group retires at once; it holds nothing to wait for
      bulkOpen_.commit = &op;
      bulkOpen_.when = iterationText();
      bulkPending_.push_back(std::move(bulkOpen_));
      bulkOpen_ = Group{};
      return;
    case OpId::TmaStoreWait: {
      lastBulkWait_ = &op;
      auto n = op.dsts.empty() || !op.dsts[0] ? std::nullopt : eval(*op.dsts[0]);
      if (n && *n >= 0)
        while (static_cast<int64_t>(bulkPending_.size()) > *n) bulkPending_.pop_front();
      return;
    }
    case OpId::Syncthreads: case OpId::Sync:
      unpublished_.clear();   // every thread's completed copies are now visible to the others
      lastBarrier_ = &op;
      commitsAtLastBarrier_ = commits_;
      return;
    case OpId::Ldmatrix: case OpId::LdmatrixTrans: case OpId::Wgmma:
      for (auto &src : op.srcs) read(op, src.get());
      return;
    default:
      for (auto &e : op.srcs) scanReads(op, e.get());
      return;
    }
  }
};

bool usesAsyncGroups(const Stmt *s) {
  if (!s) return false;
  switch (s->kind) {
  case StmtKind::Block: for (auto &c : cast<BlockStmt>(s)->stmts) if (usesAsyncGroups(c.get())) return true; return false;
  case StmtKind::Role: return usesAsyncGroups(cast<RoleStmt>(s)->body.get());
  case StmtKind::For: return usesAsyncGroups(cast<ForStmt>(s)->body.get());
  case StmtKind::If: return usesAsyncGroups(cast<IfStmt>(s)->thenBody.get()) || usesAsyncGroups(cast<IfStmt>(s)->elseBody.get());
  case StmtKind::Elect: return usesAsyncGroups(cast<ElectStmt>(s)->body.get());
  case StmtKind::Op: {
    const OpInfo *op = cast<OpStmt>(s)->op;
    return op && (op->id == OpId::CpAsync || op->id == OpId::TmaStore);
  }
  default: return false;
  }
}

} // namespace

void verifyCpAsyncGroups(VerifyContext &ctx) {
  const Kernel &k = ctx.kernel();
  if (!usesAsyncGroups(k.body.get())) return;

  // Shapes in increasing order of size.
  std::vector<std::pair<std::map<const Decl *, int64_t>, std::string>> shapes;
  std::vector<std::pair<const Decl *, z3::expr>> vars;
  bool solverLimit = false;   // the search for shapes ran out of its resource limit (not: none exists)
  for (auto &sv : k.shapeVars) vars.push_back({sv.get(), ctx.translator().declVar(sv.get())});
  if (vars.empty()) {
    shapes.push_back({{}, "the compile-time values"});
  } else {
    z3::expr sum = ctx.z3().int_val(0);
    for (auto &[d, v] : vars) sum = sum + v;
    std::optional<int64_t> previous;
    for (int i = 0; i < kShapes && !solverLimit; ++i) {
      try {
        // A shape: no loop variable's bounds (assumed, they would keep out the shapes where a loop does not run).
        z3::expr query = ctx.scopedAssumptions({}, ctx.z3().bool_val(true));
        for (auto &[d, v] : vars) query = query && v <= 1 << 20;
        if (previous) query = query && sum > ctx.z3().int_val(*previous);
        std::string undecided;
        std::optional<z3::model> found = smallestModel(ctx, query, {sum}, &undecided);
        if (!found) {   // none, or undecided (the solver's reason says whether it ran out of its limit)
          solverLimit = !undecided.empty() && VerifyContext::isLimitReason(undecided);
          break;
        }
        z3::model m = *found;
        std::map<const Decl *, int64_t> env;
        std::string text;
        bool ok = true;
        for (auto &[d, v] : vars) {
          int64_t x = 0;
          if (!m.eval(v, true).is_numeral_i64(x)) { ok = false; break; }
          env[d] = x;
          text += (text.empty() ? "" : ", ") + d->name + " = " + std::to_string(x);
        }
        int64_t s = 0;
        if (!ok || !m.eval(sum, true).is_numeral_i64(s)) break;
        previous = s;
        shapes.push_back({std::move(env), text});
      } catch (const z3::exception &e) {
        solverLimit = VerifyContext::isLimitReason(e.msg());
        break;
      }
    }
  }

  std::set<const Stmt *> reported;
  unsigned proven = 0;
  int completed = 0;
  for (auto &[env, text] : shapes) {
    Simulation sim(ctx, env, text, reported, proven);
    if (sim.run()) ++completed;
  }
  if (completed == 0) {
    ctx.reportUnproven(k.nameRange, "that every cp.async.wait and tma.store.wait covers the shared accesses after it",
                       shapes.empty() ? "no shape satisfying requires(...) could be found"
                                      : "the simulation of the smallest shapes exceeded its step limit",
                       shapes.empty() && solverLimit);
    return;
  }
  if (reported.empty() && proven > 0) ctx.recordProven();
}

} // namespace cake

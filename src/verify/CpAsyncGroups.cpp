// Verifier family: cp.async groups - every shared read is covered by a cp.async.wait (E0647).
//
// Algorithm: a concrete simulation of one thread's cp.async group queue over a set of shapes.
//   1. Shapes: Z3 (z3::optimize over requires(...)) enumerates the smallest shapes in increasing order of
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
#include "verify/Families.h"
#include "verify/SourceText.h"
#include "verify/VerifyContext.h"

#include "frontend/ConstEval.h"
#include "frontend/Ops.h"
#include "frontend/Types.h"

#include <deque>
#include <map>
#include <set>

namespace cake {

namespace {

constexpr int kShapes = 10;
constexpr int64_t kMaxSteps = 200000;
constexpr int64_t kMaxTrips = 4096;

struct Write {
  const SharedStmt *array;
  std::optional<int64_t> stage;   // nullopt = any stage
  const OpStmt *copy;
};
struct Group {
  std::vector<Write> writes;
  const OpStmt *commit = nullptr;
  std::string when;               // "kt = 2"
};

class Simulation {
public:
  Simulation(VerifyContext &ctx, std::map<const Decl *, int64_t> shape, std::string shapeText,
             std::set<const Stmt *> &reported, unsigned &proven)
      : ctx_(ctx), env_(std::move(shape)), shapeText_(std::move(shapeText)), reported_(reported), proven_(proven) {}

  bool run() {
    if (ctx_.kernel().body) runBlock(*ctx_.kernel().body);
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
  const OpStmt *lastBarrier_ = nullptr;
  std::vector<std::pair<const ForStmt *, int64_t>> loops_;
  int64_t steps_ = 0;
  bool aborted_ = false;

  // Concrete value under the current loop and shape variables (env_), through the shared ConstEvaluator.
  std::optional<int64_t> eval(const Expr &e) const {
    ConstEvalOptions options;
    options.maxDepth = 256;
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
  std::optional<Write> target(const Expr *e, const OpStmt *copy) const {
    const Expr *stageExpr = nullptr;
    bool staged = false;
    while (e) {
      if (auto *n = dynCast<NameExpr>(e)) {
        if (!n->decl || n->decl->declKind != DeclKind::Shared) return std::nullopt;
        auto *sh = static_cast<const SharedStmt *>(n->decl);
        staged = sh->type && sh->type->isTensor() && sh->type->groups.size() >= 2 && sh->type->groups.front().size() == 1;
        Write w{sh, std::nullopt, copy};
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
    std::optional<Write> r = target(e, nullptr);
    if (!r) return;
    auto conflicts = [&](const Write &w) {
      return w.array == r->array && (!w.stage || !r->stage || *w.stage == *r->stage);
    };
    auto report = [&](const Write &w, const Group *g, size_t newer) {
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
      if (g) d.hint("lower N in the preceding cp.async.wait so that it retires this group, or insert 'cp.async.wait " +
                    std::to_string(newer) + ";' before this read");
      else d.hint("commit the copies and wait for them ('cp.async.commit; cp.async.wait 0;') before reading");
    };
    for (const Write &w : open_.writes)
      if (conflicts(w)) { report(w, nullptr, 0); return; }
    for (size_t i = 0; i < pending_.size(); ++i)
      for (const Write &w : pending_[i].writes)
        if (conflicts(w)) { report(w, &pending_[i], pending_.size() - 1 - i); return; }
    for (const Group &g : unpublished_)
      for (const Write &w : g.writes)
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
        if (auto w = target(op.dsts[0].get(), &op)) open_.writes.push_back(*w);
      return;
    case OpId::CpAsyncCommit:
      open_.commit = &op;
      open_.when = iterationText();
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
      return;
    }
    case OpId::Syncthreads: case OpId::Sync:
      unpublished_.clear();   // every thread's completed copies are now visible to the others
      lastBarrier_ = &op;
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

bool usesCpAsync(const Stmt *s) {
  if (!s) return false;
  switch (s->kind) {
  case StmtKind::Block: for (auto &c : cast<BlockStmt>(s)->stmts) if (usesCpAsync(c.get())) return true; return false;
  case StmtKind::Role: return usesCpAsync(cast<RoleStmt>(s)->body.get());
  case StmtKind::For: return usesCpAsync(cast<ForStmt>(s)->body.get());
  case StmtKind::If: return usesCpAsync(cast<IfStmt>(s)->thenBody.get()) || usesCpAsync(cast<IfStmt>(s)->elseBody.get());
  case StmtKind::Elect: return usesCpAsync(cast<ElectStmt>(s)->body.get());
  case StmtKind::Op: return cast<OpStmt>(s)->op && cast<OpStmt>(s)->op->id == OpId::CpAsync;
  default: return false;
  }
}

} // namespace

void verifyCpAsyncGroups(VerifyContext &ctx) {
  const Kernel &k = ctx.kernel();
  if (!usesCpAsync(k.body.get())) return;

  // Shapes in increasing order of size.
  std::vector<std::pair<std::map<const Decl *, int64_t>, std::string>> shapes;
  std::vector<std::pair<const Decl *, z3::expr>> vars;
  for (auto &sv : k.shapeVars) vars.push_back({sv.get(), ctx.translator().declVar(sv.get())});
  if (vars.empty()) {
    shapes.push_back({{}, "the compile-time values"});
  } else {
    z3::expr sum = ctx.z3().int_val(0);
    for (auto &[d, v] : vars) sum = sum + v;
    std::optional<int64_t> previous;
    for (int i = 0; i < kShapes; ++i) {
      try {
        z3::optimize opt(ctx.z3());
        ctx.configureOptimize(opt);   // deterministic resource limit, not Z3's wall-clock timer
        opt.add(ctx.assumptions());
        for (auto &[d, v] : vars) opt.add(v <= 1 << 20);
        if (previous) opt.add(sum > ctx.z3().int_val(*previous));
        opt.minimize(sum);
        if (opt.check() != z3::sat) break;
        z3::model m = opt.get_model();
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
      } catch (const z3::exception &) {
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
    ctx.reportUnproven(k.nameRange, "that every cp.async.wait covers the shared reads after it",
                       shapes.empty() ? "no shape satisfying requires(...) could be found"
                                      : "the simulation of the smallest shapes exceeded its step limit");
    return;
  }
  if (reported.empty() && proven > 0) ctx.recordProven();
}

} // namespace cake

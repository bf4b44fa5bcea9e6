// Verifier family: block-level shared-memory races (E0655; E0601 when undecided).
//
// Obligation: between two consecutive block barriers (syncthreads, cluster.sync, or `sync` on a named barrier
// whose count is the whole block), a shared-memory element written by one thread is neither read nor written
// by a different thread.
//
// Algorithm (symbolic, on the structured body; no unrolling):
//   1. Barrier intervals as numbers.  Every block barrier is executed by every thread (E0642 checks that), so
//      the number of barriers a thread has passed when it reaches an access - its *epoch* - is the same
//      function of the loop indices for every thread, and two accesses are unordered exactly when their
//      epochs are equal.  The walker keeps the epoch as a Z3 term: a barrier adds 1; after `if c` it is
//      ite(c, epoch of then, epoch of else); a loop `for v in lo..hi step st` whose body passes B barriers
//      (B must not depend on v) starts iteration v at epoch E0 + ((v - lo) / st) * B and ends at
//      E0 + trip * B.  This covers the wrap-around from the end of a loop body into the next iteration and
//      rings whose stage index is symbolic (k % S): iterations are just values of the loop variable.
//   2. Accesses.  Plain shared loads / stores (also compound assignments, vector slices, conditions),
//      ldmatrix sources and stmatrix destinations (per thread: the row it supplies, `+: 8` columns),
//      fragment stores `store T[r, c] <- frag` (the whole M x N tile, by any lane of the warp), cp.async
//      destinations (a write by the issuing thread at the interval of the issue; that the copy has landed
//      before a read is E0647's obligation, see docs/verifier.md).  Each access records its region (start and
//      length per dimension, the stage dimension included), its path condition (enclosing if conditions, loop
//      ranges, `lane == 0` inside elect, the role's thread range), its epoch and its loop variables.
//   3. For each pair of accesses to one array with at least one write, Z3 looks for two threads t1 != t2
//      (and loop indices for each: the second access's thread builtins and loop variables are renamed) with
//      both path conditions true, equal epochs and overlapping regions, under requires(...).  No model: the
//      pair is race-free for every shape, thread and iteration.  A model: an error at the later access, a
//      note at the other one with the concrete threads, iterations and element, and a hint.  Unknown, an
//      untranslatable index, or a refutation that relied on dropping an untranslatable condition: E0601.
// Scope: kernels without mbarriers (their shared hand-offs are ordered by mbarrier phases, which the sync
// simulation checks as E0609 / E0610); accesses through the async proxy (TMA, wgmma) are not part of it:
// AsyncProxyRaces.cpp (E0658) orders them with other threads' generic accesses, in every kernel.
// Cost: one incremental solver per kernel (both threads' assumptions asserted once, a push/pop scope per pair);
// pairs whose epochs or regions simplify to disjoint constants need no query.
#include "verify/Families.h"
#include "verify/SourceText.h"
#include "verify/VerifyContext.h"

#include "frontend/Builtins.h"
#include "frontend/Ops.h"
#include "frontend/Types.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <set>

namespace cake {

namespace {

constexpr size_t kMaxLoopDepth = 10;

struct Region {
  z3::expr start, length;
};

struct LoopVar {
  const ForStmt *loop;
  z3::expr var;
};

struct SharedAccess {
  const Decl *array = nullptr;
  std::string what;              // "write 'sa[s][r, c +: 8]'"
  bool write = false;
  bool warpWide = false;         // a warp-collective tile access (fragment store): any lane, the whole tile
  SourceRange range;
  std::vector<Region> region;    // one per dimension, outermost first
  z3::expr cond;                 // path condition (includes loop ranges and thread links)
  z3::expr epoch;                // barriers passed before the access
  std::vector<LoopVar> loops;    // enclosing loops, outermost first
  bool inexact = false;          // an enclosing condition could not be translated (dropped)
  std::string problem;           // non-empty: the region could not be translated (the reason)
};

// Is constant `c` among the sub-terms of `e`?
bool mentions(const z3::expr &e, const z3::expr &c, unsigned depth = 0) {
  if (depth > 200) return true;
  if (e.is_const()) return z3::eq(e, c);
  if (!e.is_app()) return false;
  for (unsigned i = 0; i < e.num_args(); ++i)
    if (mentions(e.arg(i), c, depth + 1)) return true;
  return false;
}

class RaceChecker {
public:
  explicit RaceChecker(VerifyContext &ctx)
      : ctx_(ctx), z3_(ctx.z3()), tr_(ctx.z3(), ctx.info()), epoch_(ctx.z3().int_val(0)) {}

  void run() {
    const Kernel &k = ctx_.kernel();
    if (!k.body || !ctx_.info().mbarriers.empty()) return;
    if (!usesSharedArrays(*k.body)) return;
    threadVars_.push_back(tr_.builtinVar(BuiltinValue::TidX));
    threadVars_.push_back(tr_.builtinVar(BuiltinValue::Warp));
    threadVars_.push_back(tr_.builtinVar(BuiltinValue::Lane));
    linkThreadBuiltins(nullptr);
    for (const Expr *r : ctx_.info().requirements)
      if (r)
        if (auto c = tr_.translate(*r); c && c->is_bool()) requirements_.push_back(*c);
    walkBlock(*k.body);
    if (!epochProblem_.empty()) {
      ctx_.reportUnproven(epochProblemRange_, "that shared memory of kernel '" + k.name + "' is race-free",
                          epochProblem_);
      return;
    }
    checkPairs();
  }

private:
  VerifyContext &ctx_;
  z3::context &z3_;
  ExprToZ3 tr_;                       // own translator: its side conditions are exactly this family's
  z3::expr epoch_;
  std::vector<z3::expr> path_;
  unsigned inexact_ = 0;
  bool collect_ = true;
  unsigned loopCounter_ = 0;
  std::vector<LoopVar> loops_;
  std::vector<z3::expr> loopConsts_;  // every loop constant ever created (renamed for the second thread)
  std::vector<z3::expr> threadVars_;  // tid.x, warp, lane, ROLE.* (renamed for the second thread)
  std::vector<z3::expr> requirements_;
  std::vector<SharedAccess> accesses_;
  std::string epochProblem_;
  SourceRange epochProblemRange_;
  const RoleStmt *role_ = nullptr;

  // ---- scope
  static bool usesSharedArrays(const BlockStmt &b) {
    for (auto &s : b.stmts)
      if (s && s->kind == StmtKind::Shared) return true;
    return false;
  }

  void linkThreadBuiltins(const RoleStmt *role) {
    z3::expr tid = tr_.builtinVar(BuiltinValue::TidX);
    path_.push_back(tr_.builtinVar(BuiltinValue::Warp) == tid / 32);
    path_.push_back(tr_.builtinVar(BuiltinValue::Lane) == z3::mod(tid, 32));
    const RoleInfo *ri = role ? ctx_.info().roleOf(role) : nullptr;
    if (!ri || !ri->rangeKnown || ri->warpsPerInstance() <= 0) return;
    int64_t wpi = ri->warpsPerInstance();
    path_.push_back(tid >= z3_.int_val(ri->firstWarp * 32));
    path_.push_back(tid < z3_.int_val(ri->endWarp * 32));
    z3::expr rel = tid - z3_.int_val(ri->firstWarp * 32);
    z3::expr idx = tr_.builtinVar(BuiltinValue::RoleIndex, role);
    z3::expr thr = tr_.builtinVar(BuiltinValue::RoleThread, role);
    z3::expr wrp = tr_.builtinVar(BuiltinValue::RoleWarp, role);
    for (const z3::expr &v : {idx, thr, wrp}) threadVars_.push_back(v);
    path_.push_back(idx == rel / z3_.int_val(wpi * 32));
    path_.push_back(thr == z3::mod(rel, z3_.int_val(wpi * 32)));
    path_.push_back(wrp == z3::mod(rel, z3_.int_val(wpi * 32)) / 32);
  }

  void epochProblem(SourceRange r, const std::string &why) {
    if (epochProblem_.empty()) {
      epochProblem_ = why;
      epochProblemRange_ = r;
    }
  }

  // ---- walk
  static bool endsInReturn(const BlockStmt *b) {
    return b && !b->stmts.empty() && b->stmts.back() && isa<ReturnStmt>(b->stmts.back().get());
  }

  void walkBlock(const BlockStmt &b) {
    size_t mark = path_.size();
    unsigned dropped = inexact_;
    for (auto &s : b.stmts) {
      if (!s) continue;
      walkStmt(*s);
      auto *i = dynCast<IfStmt>(s.get());
      if (i && !i->elseBody && i->cond && endsInReturn(i->thenBody.get())) {
        if (auto c = tr_.translate(*i->cond); c && c->is_bool()) path_.push_back(!*c);
        else ++inexact_;
      }
    }
    path_.resize(mark, z3_.bool_val(true));
    inexact_ = dropped;
  }

  bool isBlockBarrier(const OpStmt &op) const {
    switch (op.op->id) {
    case OpId::Syncthreads: case OpId::ClusterSync: return true;
    case OpId::Sync: {
      if (op.dsts.empty() && op.srcs.empty()) return false;
      const Expr *e = !op.dsts.empty() ? op.dsts[0].get() : op.srcs[0].get();
      auto *n = e ? dynCast<NameExpr>(e) : nullptr;
      if (!n || !n->decl || n->decl->declKind != DeclKind::Barrier) return false;
      const NamedBarrierInfo *nb = ctx_.info().namedBarrierOf(static_cast<const BarrierStmt *>(n->decl));
      return nb && nb->threads == ctx_.info().threads && !role_;
    }
    default: return false;
    }
  }

  void walkStmt(const Stmt &s) {
    switch (s.kind) {
    case StmtKind::Block: walkBlock(*cast<BlockStmt>(&s)); break;
    case StmtKind::Let: if (auto &e = cast<LetStmt>(&s)->init) scan(*e, false, s.range); break;
    case StmtKind::Var: if (auto &e = cast<VarStmt>(&s)->init) scan(*e, false, s.range); break;
    case StmtKind::Assign: {
      auto &a = *cast<AssignStmt>(&s);
      if (a.value) scan(*a.value, false, s.range);
      if (a.target) {
        if (a.op != AssignOp::Set) scan(*a.target, false, s.range);
        scan(*a.target, true, s.range);
      }
      break;
    }
    case StmtKind::Op: walkOp(*cast<OpStmt>(&s)); break;
    case StmtKind::Role: {
      auto &r = *cast<RoleStmt>(&s);
      size_t mark = path_.size();
      const RoleStmt *saved = role_;
      z3::expr savedEpoch = epoch_;
      role_ = &r;
      linkThreadBuiltins(&r);
      if (r.body) walkBlock(*r.body);
      role_ = saved;
      epoch_ = savedEpoch;   // roles run side by side: each continues from the count at its start
      path_.resize(mark, z3_.bool_val(true));
      break;
    }
    case StmtKind::For: walkFor(*cast<ForStmt>(&s)); break;
    case StmtKind::If: walkIf(*cast<IfStmt>(&s)); break;
    case StmtKind::Elect: {
      auto &e = *cast<ElectStmt>(&s);
      if (!e.body) break;
      path_.push_back(tr_.builtinVar(BuiltinValue::Lane) == 0);   // the elected lane (the lowest active one)
      walkBlock(*e.body);
      path_.pop_back();
      break;
    }
    default: break;
    }
  }

  void walkIf(const IfStmt &i) {
    std::optional<z3::expr> c;
    if (i.cond) {
      scan(*i.cond, false, i.cond->range);
      c = tr_.translate(*i.cond);
      if (c && !c->is_bool()) c.reset();
    }
    z3::expr before = epoch_;
    if (c) path_.push_back(*c); else ++inexact_;
    if (i.thenBody) walkBlock(*i.thenBody);
    z3::expr afterThen = epoch_;
    if (c) path_.back() = !*c;
    epoch_ = before;
    if (i.elseBody) walkStmt(*i.elseBody);
    z3::expr afterElse = epoch_;
    if (c) path_.pop_back(); else --inexact_;
    if (z3::eq(afterThen, afterElse)) { epoch_ = afterThen; return; }
    if (!c) {
      epochProblem(i.range, "the number of block barriers depends on a condition that cannot be modelled ('" +
                                sourceText(ctx_.diags(), i.cond->range) + "')");
      epoch_ = afterThen;
      return;
    }
    epoch_ = z3::ite(*c, afterThen, afterElse).simplify();
  }

  // Barriers one iteration of `f`'s body passes, with the loop variable bound to `v`.
  z3::expr bodyBarriers(const ForStmt &f) {
    bool saved = collect_;
    z3::expr savedEpoch = epoch_;
    collect_ = false;
    epoch_ = z3_.int_val(0);
    walkBlock(*f.body);
    z3::expr b = epoch_.simplify();
    collect_ = saved;
    epoch_ = savedEpoch;
    return b;
  }

  void walkFor(const ForStmt &f) {
    for (const Expr *e : {f.lower.get(), f.upper.get(), f.step.get()})
      if (e) scan(*e, false, e->range);
    if (!f.body) return;
    if (loops_.size() >= kMaxLoopDepth) {   // bodyBarriers walks each level's body again: bound the work
      epochProblem(f.range, "loops are nested more than " + std::to_string(kMaxLoopDepth) + " deep");
      return;
    }
    z3::expr v = z3_.int_const(("race!" + f.name + "!" + std::to_string(loopCounter_++)).c_str());
    loopConsts_.push_back(v);
    tr_.bind(&f, v);
    std::optional<z3::expr> lo = f.lower ? tr_.translate(*f.lower) : std::nullopt;
    std::optional<z3::expr> hi = f.upper ? tr_.translate(*f.upper) : std::nullopt;
    std::optional<z3::expr> st = f.step ? tr_.translate(*f.step) : std::optional<z3::expr>(z3_.int_val(1));
    int64_t stepValue = 0;
    bool constStep = st && st->simplify().is_numeral_i64(stepValue) && stepValue > 0;
    z3::expr range = z3_.bool_val(true);
    bool rangeKnown = lo && hi;
    if (lo) range = range && v >= *lo;
    if (hi) range = range && v < *hi;
    if (lo && constStep && stepValue > 1) range = range && z3::mod(v - *lo, z3_.int_val(stepValue)) == 0;

    z3::expr b = bodyBarriers(f);
    int64_t bValue = -1;
    bool noBarriers = b.is_numeral_i64(bValue) && bValue == 0;
    z3::expr start = epoch_;
    if (!noBarriers) {
      if (mentions(b, v)) {
        epochProblem(f.range, "the number of block barriers in an iteration of loop '" + f.name +
                                  "' depends on the loop variable");
      } else if (!rangeKnown || !constStep) {
        epochProblem(f.range, "the bounds or the step of loop '" + f.name +
                                  "', which contains block barriers, cannot be modelled");
      } else {
        z3::expr stepZ = z3_.int_val(stepValue);
        start = epoch_ + ((v - *lo) / stepZ) * b;
      }
    }
    z3::expr savedEpoch = epoch_;
    epoch_ = start;
    path_.push_back(range);
    if (!rangeKnown) ++inexact_;
    loops_.push_back({&f, v});
    walkBlock(*f.body);
    loops_.pop_back();
    if (!rangeKnown) --inexact_;
    path_.pop_back();
    epoch_ = savedEpoch;
    if (!noBarriers && rangeKnown && constStep) {
      z3::expr stepZ = z3_.int_val(stepValue);
      z3::expr trip = z3::ite(*hi > *lo, (*hi - *lo + stepZ - 1) / stepZ, z3_.int_val(0));
      epoch_ = (epoch_ + trip * b).simplify();
    }
    tr_.unbind(&f);
  }

  void walkOp(const OpStmt &op) {
    if (!op.op) return;
    if (isBlockBarrier(op)) {
      epoch_ = (epoch_ + 1).simplify();
      return;
    }
    switch (op.op->id) {
    case OpId::TmaLoad: case OpId::TmaStore: case OpId::Wgmma:
      return;   // async proxy: ordered by mbarriers / bulk groups, not part of this family
    case OpId::Store: {
      for (auto &src : op.srcs) if (src) scan(*src, false, op.range);
      if (op.dsts.empty() || !op.dsts[0]) return;
      const Type *ft = op.srcs.empty() || !op.srcs[0] ? nullptr : op.srcs[0]->type;
      auto *ix = dynCast<IndexExpr>(op.dsts[0].get());
      if (ix && ft && ft->isFragment() && ix->items.size() == 2) {
        // The warp writes the fragment's M x N tile; any lane may write any element of it.
        scanIndexOperands(*ix);
        recordAccess(*ix, true, "fragment store", {ft->m, ft->n});
        if (collect_ && !accesses_.empty()) accesses_.back().warpWide = true;
        return;
      }
      scan(*op.dsts[0], true, op.range);
      return;
    }
    default:
      for (auto &e : op.srcs) if (e) scan(*e, false, op.range);
      for (auto &c : op.clauses) for (auto &e : c.args) if (e) scan(*e, false, op.range);
      for (auto &e : op.dsts) if (e) scan(*e, true, op.range);
      return;
    }
  }

  // ---- accesses
  void scanIndexOperands(const IndexExpr &ix) {
    const Expr *cur = &ix;
    while (auto *i = dynCast<IndexExpr>(cur)) {
      for (const IndexItem &it : i->items) {
        if (it.start) scan(*it.start, false, it.start->range);
        if (it.length) scan(*it.length, false, it.length->range);
      }
      cur = i->base.get();
      if (!cur) break;
    }
  }

  static const Decl *sharedRoot(const IndexExpr &ix) {
    const Expr *cur = &ix;
    while (auto *i = dynCast<IndexExpr>(cur)) cur = i->base.get();
    auto *n = cur ? dynCast<NameExpr>(cur) : nullptr;
    if (!n || !n->decl || n->decl->declKind != DeclKind::Shared) return nullptr;
    return n->decl;
  }

  void scan(const Expr &e, bool write, SourceRange) {
    switch (e.kind) {
    case ExprKind::Unary: scan(*cast<UnaryExpr>(&e)->operand, false, e.range); break;
    case ExprKind::Binary:
      scan(*cast<BinaryExpr>(&e)->lhs, false, e.range);
      scan(*cast<BinaryExpr>(&e)->rhs, false, e.range);
      break;
    case ExprKind::Member: scan(*cast<MemberExpr>(&e)->base, write, e.range); break;
    case ExprKind::Call: for (auto &a : cast<CallExpr>(&e)->args) if (a) scan(*a, false, e.range); break;
    case ExprKind::Index: {
      auto &ix = *cast<IndexExpr>(&e);
      scanIndexOperands(ix);
      if (sharedRoot(ix)) recordAccess(ix, write, write ? "write" : "read", {});
      else if (ix.base) scan(*ix.base, write, e.range);
      break;
    }
    default: break;
    }
  }

  void recordAccess(const IndexExpr &ix, bool write, const std::string &kind, const std::vector<int64_t> &tileExtent) {
    if (!collect_) return;
    const Decl *array = sharedRoot(ix);
    if (!array || !array->type || !array->type->isTensor()) return;
    // Flatten a[s][r, c] (outer bracket groups first) and the array's dimensions.
    std::vector<const IndexExpr *> chain;
    for (const Expr *cur = &ix; cur && isa<IndexExpr>(cur);) {
      auto *i = cast<IndexExpr>(cur);
      chain.insert(chain.begin(), i);
      cur = i->base.get();
    }
    std::vector<const IndexItem *> items;
    for (const IndexExpr *i : chain) for (const IndexItem &it : i->items) items.push_back(&it);
    std::vector<const TensorDim *> dims;
    for (const DimGroup &g : array->type->groups) for (const TensorDim &d : g) dims.push_back(&d);

    SharedAccess a{array, kind + " '" + sourceText(ctx_.diags(), ix.range) + "'", write, false, ix.range, {},
                   z3::mk_and(toVector(path_)), epoch_, loops_, inexact_ > 0, {}};
    if (items.size() > dims.size()) return;   // sema reports such indexing
    size_t tileFirst = items.size() >= tileExtent.size() ? items.size() - tileExtent.size() : 0;
    for (size_t d = 0; d < dims.size(); ++d) {
      TranslateFailure failure;
      std::optional<z3::expr> dim;
      if (dims[d]->value) dim = z3_.int_val(*dims[d]->value);
      else if (dims[d]->expr) dim = tr_.translate(*dims[d]->expr, &failure);
      if (d >= items.size() || items[d]->kind == IndexItem::Full) {
        if (!dim) { a.problem = "dimension '" + dims[d]->text + "' cannot be modelled"; break; }
        a.region.push_back({z3_.int_val(0), *dim});
        continue;
      }
      const IndexItem &it = *items[d];
      std::optional<z3::expr> start = it.start ? tr_.translate(*it.start, &failure) : std::nullopt;
      if (!start) { a.problem = "index '" + (it.start ? sourceText(ctx_.diags(), it.start->range) : std::string("?")) + "': " + failure.reason; break; }
      z3::expr len = z3_.int_val(1);
      if (!tileExtent.empty() && d >= tileFirst) len = z3_.int_val(tileExtent[d - tileFirst]);
      else if (it.kind == IndexItem::Slice && it.length) {
        auto l = tr_.translate(*it.length, &failure);
        if (!l) { a.problem = "slice length '" + sourceText(ctx_.diags(), it.length->range) + "': " + failure.reason; break; }
        len = *l;
      }
      a.region.push_back({*start, len});
    }
    accesses_.push_back(std::move(a));
  }

  static z3::expr_vector toVectorImpl(z3::context &c, const std::vector<z3::expr> &v) {
    z3::expr_vector out(c);
    for (const z3::expr &e : v) out.push_back(e);
    return out;
  }
  z3::expr_vector toVector(const std::vector<z3::expr> &v) { return toVectorImpl(z3_, v); }

  // ---- pairs
  z3::expr rename(const z3::expr &e, const z3::expr_vector &from, const z3::expr_vector &to) {
    z3::expr copy = e;
    return copy.substitute(from, to);
  }

  void checkPairs() {
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
    z3::expr assumptions = z3::mk_and(toVector(base));
    z3::expr assumptions2 = rename(assumptions, from, to);
    z3::expr tid = tr_.builtinVar(BuiltinValue::TidX);
    z3::expr tid2 = rename(tid, from, to);
    z3::expr warp = tr_.builtinVar(BuiltinValue::Warp);
    z3::expr warp2 = rename(warp, from, to);

    // One incremental solver: the assumptions of both threads are asserted once, each pair in a push/pop scope.
    z3::solver s(z3_);
    ctx_.configureSolver(s);
    s.add(assumptions && assumptions2);
    size_t queries = 0, pairs = 0;
    std::vector<bool> failed(accesses_.size(), false), unproven(accesses_.size(), false);
    for (size_t i = 0; i < accesses_.size(); ++i) {
      SharedAccess &a = accesses_[i];
      if (!a.problem.empty()) {
        ctx_.reportUnproven(a.range, "that the " + a.what + " is race-free", a.problem);
        unproven[i] = true;
      }
    }
    for (size_t i = 0; i < accesses_.size(); ++i) {
      for (size_t j = i; j < accesses_.size(); ++j) {
        const SharedAccess &a = accesses_[i], &b = accesses_[j];
        if (a.array != b.array || (!a.write && !b.write)) continue;
        if (!a.problem.empty() || !b.problem.empty()) continue;
        if (failed[i] || failed[j]) continue;   // one report per access
        if (diagsFull()) return;
        z3::expr bCond = rename(b.cond, from, to), bEpoch = rename(b.epoch, from, to);
        z3::expr overlap = z3_.bool_val(true);
        for (size_t d = 0; d < a.region.size() && d < b.region.size(); ++d) {
          z3::expr s2 = rename(b.region[d].start, from, to), l2 = rename(b.region[d].length, from, to);
          overlap = overlap && a.region[d].start < s2 + l2 && s2 < a.region[d].start + a.region[d].length;
        }
        z3::expr epochEq = (a.epoch == bEpoch).simplify();
        ++pairs;
        if (epochEq.is_false() || overlap.simplify().is_false()) continue;   // cheap: different intervals / disjoint constants
        z3::check_result r = z3::unknown;
        s.push();
        try {
          s.add(a.cond && bCond && (a.warpWide && b.warpWide ? warp != warp2 : tid != tid2) && epochEq && overlap);
          ++queries;
          r = s.check();
        } catch (const z3::exception &) {
          r = z3::unknown;
        }
        s.pop();
        if (r == z3::unsat) continue;
        // Not refuted incrementally: decide (and take the counterexample) with a fresh solver on the whole
        // query, so the reported model does not depend on the order in which pairs were checked.
        z3::solver fresh(z3_);
        ctx_.configureSolver(fresh);
        fresh.add(assumptions && assumptions2 && a.cond && bCond && (a.warpWide && b.warpWide ? warp != warp2 : tid != tid2) && a.epoch == bEpoch && overlap);
        try {
          ++queries;
          r = fresh.check();
        } catch (const z3::exception &) {
          r = z3::unknown;
        }
        if (r == z3::unsat) continue;
        z3::solver &s = fresh;
        if (r == z3::unknown) {
          std::string why = s.reason_unknown();
          const SharedAccess &later = laterOf(a, b);
          ctx_.reportUnproven(later.range, "that the " + later.what + " does not race with the " + otherOf(a, b, later).what,
                              "the solver gave up (" + why + ")", VerifyContext::isLimitReason(why));
          unproven[i] = unproven[j] = true;
          continue;
        }
        z3::model m = s.get_model();
        if (a.inexact || b.inexact) {
          const SharedAccess &later = laterOf(a, b);
          ctx_.reportUnproven(later.range, "that the " + later.what + " does not race with the " + otherOf(a, b, later).what,
                              "an enclosing condition or loop bound could not be modelled (it reads memory or a "
                              "mutable variable); without it two threads can collide");
          unproven[i] = unproven[j] = true;
          continue;
        }
        reportRace(a, b, m, from, to);
        failed[i] = failed[j] = true;
      }
    }
    for (size_t i = 0; i < accesses_.size(); ++i)
      if (!failed[i] && !unproven[i]) ctx_.recordProven();
    if (std::getenv("CAKE_VERIFY_TIMES"))
      std::fprintf(stderr, "cakec: verify %s: shared-memory races: %zu accesses, %zu pairs, %zu solver queries\n",
                   ctx_.kernel().name.c_str(), accesses_.size(), pairs, queries);
  }

  bool diagsFull() { return ctx_.diags().limitReached(); }

  static const SharedAccess &laterOf(const SharedAccess &a, const SharedAccess &b) {
    return b.range.begin.offset >= a.range.begin.offset ? b : a;
  }
  static const SharedAccess &otherOf(const SharedAccess &a, const SharedAccess &b, const SharedAccess &later) {
    return &later == &a ? b : a;
  }

  static std::string value(const z3::model &m, const z3::expr &e) {
    int64_t v = 0;
    z3::expr r = m.eval(e, true);
    if (r.is_numeral_i64(v)) return std::to_string(v);
    return r.to_string();
  }

  // "tid.x = 40 (warp 1, lane 8), kt = 2"
  std::string threadText(const SharedAccess &x, const z3::model &m, const z3::expr_vector *from, const z3::expr_vector *to) {
    auto r = [&](const z3::expr &e) { return from ? rename(e, *from, *to) : e; };
    z3::expr tid = tr_.builtinVar(BuiltinValue::TidX);
    int64_t t = 0;
    std::string out = "thread " + value(m, r(tid));
    if (m.eval(r(tid), true).is_numeral_i64(t)) out += " (warp " + std::to_string(t / 32) + ", lane " + std::to_string(t % 32) + ")";
    for (const LoopVar &l : x.loops) out += ", " + l.loop->name + " = " + value(m, r(l.var));
    return out;
  }

  std::string elementText(const SharedAccess &x, const z3::model &m, const z3::expr_vector *from, const z3::expr_vector *to) {
    auto r = [&](const z3::expr &e) { return from ? rename(e, *from, *to) : e; };
    std::string out = x.array->name + "[";
    for (size_t d = 0; d < x.region.size(); ++d) {
      if (d) out += ", ";
      out += value(m, r(x.region[d].start));
      int64_t len = 0;
      if (!r(x.region[d].length).simplify().is_numeral_i64(len) || len != 1) out += " +: " + value(m, r(x.region[d].length));
    }
    return out + "]";
  }

  void reportRace(const SharedAccess &a, const SharedAccess &b, const z3::model &m, const z3::expr_vector &from,
                  const z3::expr_vector &to) {
    bool bIsLater = &laterOf(a, b) == &b;
    const SharedAccess &later = bIsLater ? b : a, &earlier = bIsLater ? a : b;
    const z3::expr_vector *lf = bIsLater ? &from : nullptr, *lt = bIsLater ? &to : nullptr;
    const z3::expr_vector *ef = bIsLater ? nullptr : &from, *et = bIsLater ? nullptr : &to;
    std::string kindLater = later.write ? "write" : "read";
    std::string kindEarlier = earlier.write ? "write" : "read";
    auto d = ctx_.reportFailure(DiagKind::SharedMemoryRace, later.range, later.what, later.array->name,
                                earlier.what);
    d.note(earlier.range, "the other access: " + kindEarlier + " by " + threadText(earlier, m, ef, et));
    std::string shape;
    for (auto &[name, var] : tr_.freeVars()) {
      bool threadVar = false;
      for (const z3::expr &t : threadVars_) threadVar |= z3::eq(t, var);
      if (threadVar || name.rfind("block", 0) == 0) continue;
      shape += (shape.empty() ? "" : ", ") + name + " = " + value(m, var);
    }
    std::string trace = "counterexample: " + threadText(later, m, lf, lt) + " " + kindLater + "s " +
                        elementText(later, m, lf, lt) + " while " + threadText(earlier, m, ef, et) + " " +
                        kindEarlier + "s " + elementText(earlier, m, ef, et) + ", in the same barrier interval" +
                        (shape.empty() ? "" : " (" + shape + ")");
    d.note(later.range, trace);
    // Where the barrier is missing: across iterations of a loop (the wrap-around), or between the two accesses.
    const ForStmt *across = nullptr;
    for (size_t k = 0; k < later.loops.size() && k < earlier.loops.size(); ++k) {
      if (later.loops[k].loop != earlier.loops[k].loop) break;
      z3::expr lv = lf ? rename(later.loops[k].var, *lf, *lt) : later.loops[k].var;
      z3::expr ev = ef ? rename(earlier.loops[k].var, *ef, *et) : earlier.loops[k].var;
      if (value(m, lv) != value(m, ev)) { across = later.loops[k].loop; break; }
    }
    if (across) {
      d.note(headOf(across->range), "no block barrier separates them between one iteration of loop '" + across->name +
                                        "' and the next (the accesses are in different iterations)");
      d.hint("add 'syncthreads;' so that every thread has finished with '" + later.array->name +
             "' before the next iteration touches it (for a ring buffer: before the stage is refilled)");
    } else if (&a == &b || a.range.begin.offset == b.range.begin.offset) {
      d.hint("make every thread " + kindLater + " only elements no other thread touches before the next barrier "
             "(index by the thread), or reduce through warp shuffles");
    } else {
      d.note(headOf(earlier.range), "no block barrier between this access and the racing one");
      d.hint("put 'syncthreads;' between the " + kindEarlier + " and the " + kindLater +
             " (a warp-level shuffle or a barrier every thread reaches)");
    }
  }
};

} // namespace

void verifySharedRaces(VerifyContext &ctx) { RaceChecker(ctx).run(); }

} // namespace cake

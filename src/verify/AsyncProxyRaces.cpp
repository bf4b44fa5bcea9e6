// Verifier family: races between generic-proxy shared accesses and async-proxy operations issued by another
// thread (E0658; E0646 for a fence.proxy_async placed after the ordering barrier; E0601 when undecided).
//
// Obligations (every kernel, warp-specialized ones with mbarriers, roles and named barriers included):
//   (R) an async-proxy *read* of shared memory - `tma.store T[..] <- tile` (issued by one thread), a
//       `wgmma` shared operand (issued by every thread of the warpgroup) or a `tcgen05.mma` shared operand
//       (issued by one thread; never retired by a wait: its completion is a tcgen05.commit) - by thread t and a generic write
//       (plain store, stmatrix, fragment store, cp.async destination) of an overlapping element by another
//       thread t' are ordered: either the write happens before the issue, through a barrier both pass after
//       the write (t') and before the issue (t), or the async read has completed - the issuing thread's
//       `tma.store.wait 0` / `wgmma.wait 0` retiring it - before a barrier both pass, which t' passes before
//       the write.  The writer's fence.proxy_async must lie between its write and that barrier: when it lies
//       after the barrier, the write is reported as E0646 (a missing fence altogether is WgmmaProxies' E0646).
//       A write handed to the issuing role through an mbarrier (the writer's role arrives on one the issuer's
//       role waits on: a producer that fills a ring stage with plain stores, fences them and arrives on its
//       full barrier) is the sync simulation's, which orders every read of a stage after the write that fills
//       it (E0610) and every refill after the readers' release (E0609).
//   (W) an async-proxy *write* - `tma.load tile <- T[..]` - issued by t, and a generic read or write of an
//       overlapping element by another thread t' that precedes it (in an earlier iteration of a common loop,
//       or earlier in the same iteration) are ordered through a barrier both pass.  Hand-offs through
//       mbarriers are the sync simulation's (E0609 / E0610): a pair (of either obligation) is left to it when
//       the generic access's role arrives on an mbarrier (other than the one the copy signals) that the
//       issuing role waits on.
//
// Algorithm (symbolic, on the structured body, like SharedRaces.cpp but with one counter per barrier):
//   1. Barrier counters.  Barrier keys: 0 = the block barrier (syncthreads, cluster.sync, cluster.wait), then
//      one per named barrier.  For each key a thread keeps the number of passes so far as a Z3 term of the
//      loop indices (+1 per sync/arrive of that barrier; ite(c, then, else) after `if c`; for a loop with
//      iteration index i (v = lo + i * step, 0 <= i < trip) whose body passes B barriers of that key,
//      E0 + i * B in iteration i and E0 + trip * B after it; after a role, ite(thread in role, after, before)).
//      The k-th pass of a barrier by one participant and the k-th pass by another belong to one generation
//      (named barriers: E0640 / E0642 check counts and convergence), so "x passes barrier b after access X
//      and y passes it before access Y" is  part(b, x) && acquire(b, y) && cY_b >= cX_b + 1.  Participants
//      are the warps reaching its sync / arrive sites (ControlPath), a thread that only arrives does not
//      acquire.  Orderings that chain through a third thread are not used (a barrier both pass is required).
//   2. Completion of async reads: the first `tma.store.wait 0` / `wgmma.wait 0` after the issue in program
//      order - later in the same iteration, in the next iteration of the loop (a second walk of the body with
//      i -> i + 1, when i + 1 < trip), or after the loop - gives the counters at which the read is done.
//   3. Per pair (async op, generic access of the same array, another thread), Z3 searches two threads and
//      their loop indices with both path conditions, overlapping regions and neither ordering; a model is an
//      error at the async op with notes at the generic access, the counterexample (threads, iterations,
//      element) and the missing barrier position, and a hint.
// A wait retires a read where its path condition holds for the issuing thread; the read stays open for the
// waits after it.  Loops with compile-time bounds and a few iterations are walked once per
// value (walkUnrolled).
// Approximations (documented in docs/verifier.md): a retiring wait under a condition that cannot be modelled
// is taken as executed by the issuing thread; `tma.store.wait N` / `wgmma.wait N` with N > 0 retire nothing;
// a wait inside a loop nested in the body of the issuing loop is not used for the wrap-around; zero-trip
// loops are not considered for retirement.
// Shared with SharedRaces.cpp (RaceWalker.h): the statement walk and its path condition, loop prologue,
// expression scan, access regions, the second thread's renaming and the counterexample text.
#include "verify/ControlPath.h"
#include "verify/Families.h"
#include "verify/NamedBarrierOperand.h"
#include "verify/RaceWalker.h"
#include "verify/RootDecl.h"
#include "verify/SmallestModel.h"
#include "verify/EnclosingStatement.h"
#include "verify/SourceText.h"
#include "verify/VerifyContext.h"
#include "verify/Z3Terms.h"

#include "frontend/Builtins.h"
#include "frontend/ConstEval.h"
#include "frontend/Ops.h"
#include "frontend/Types.h"

#include <algorithm>
#include <map>
#include <set>

namespace cake {

namespace {

struct LoopCtx {
  const ForStmt *loop;
  z3::expr var;     // the loop variable's value
  z3::expr iter;    // iteration index i: var == lo + i * step
  z3::expr trip;    // number of iterations
  z3::expr step;
};

enum class AccessKind { GenericRead, GenericWrite, AsyncRead, AsyncWrite };

struct Access {
  AccessKind kind;
  const OpStmt *op = nullptr;       // async ops
  SourceRange range;
  std::string what;                 // "stmatrix write 'cs[math.index][0, 0]'" / "'tma.store' of 'cs[math.index]'"
  const Decl *array = nullptr;
  const RoleStmt *role = nullptr;
  std::vector<Region> region;
  std::string problem;
  z3::expr cond;
  std::vector<z3::expr> counters;
  std::vector<LoopCtx> loops;
  std::vector<std::pair<const ForStmt *, int64_t>> unrolled;   // compile-time loops around it, walked per value
  bool inexact = false;
  bool warpWide = false;            // a warp-collective fragment store: the pair must be in different warps
  // generic writes: fence.proxy_async placement
  bool crossedBarrier = false, fenceAfterBarrier = false;
  SourceRange barrierRange, fenceRange;
  // async reads: completion
  z3::expr retired;                 // the read is retired by a wait (condition over this thread's indices)
  std::vector<z3::expr> completion; // counters at the retiring wait
  const Stmt *retiredAt = nullptr;
  const Decl *signals = nullptr;    // tma.load: the mbarrier it signals
  bool generic() const { return kind == AccessKind::GenericRead || kind == AccessKind::GenericWrite; }
};

class AsyncRaceChecker : RaceWalker {
public:
  explicit AsyncRaceChecker(VerifyContext &ctx) : RaceWalker(ctx, /*roleRangeAsOneTerm=*/true) {}

  void run() {
    const Kernel &k = ctx_.kernel();
    if (!k.body || !hasAsyncSharedOps(*k.body)) return;
    collectBarriers();
    counters_.assign(keys_.size(), z3_.int_val(0));
    beginWalk();
    walkBlock(*k.body);
    checkPairs();
  }

private:
  // barrier keys: index 0 = block barrier, then named barriers (one per barrier of a named barrier array)
  using BarrierId = std::pair<const BarrierStmt *, int64_t>;
  std::vector<BarrierId> keys_{BarrierId{nullptr, 0}};
  std::vector<std::set<int64_t>> releaseWarps_, acquireWarps_;   // per key; empty + allWarps_ for key 0
  bool participationKnown_ = true;
  std::vector<z3::expr> counters_;
  bool retireSearch_ = false;            // second walk of a loop body looking for the retiring waits
  std::vector<size_t> searching_;        // accesses whose retirement the search looks for
  struct FoundWait {
    size_t access;
    std::vector<z3::expr> counters;   // at the wait
    z3::expr path;                    // the wait's path condition (it retires only where the wait runs)
  };
  std::vector<FoundWait> found_;
  std::vector<LoopCtx> loops_;
  std::vector<z3::expr> loopFacts_;      // trip-count definitions (asserted for both threads)
  std::vector<Access> accesses_;
  std::vector<size_t> pendingFence_;     // generic writes not yet followed by fence.proxy_async
  std::vector<size_t> open_;             // async reads (each wait after them adds where it retires them)
  std::vector<std::pair<const ForStmt *, int64_t>> unrolled_;   // the compile-time loops being walked per value
  std::map<const RoleStmt *, std::set<const Decl *>> arrivedBy_, waitedBy_;   // mbarriers, per role (null: kernel level)

  // ---- scope and barrier participation
  static bool hasAsyncSharedOps(const BlockStmt &b) {
    bool found = false;
    std::function<void(const Stmt &)> visit = [&](const Stmt &s) {
      if (found) return;
      if (auto *op = dynCast<OpStmt>(&s); op && op->op)
        found = op->op->id == OpId::TmaStore || op->op->id == OpId::TmaLoad || op->op->id == OpId::Wgmma ||
                op->op->id == OpId::Tcgen05Mma;
      if (auto *bl = dynCast<BlockStmt>(&s)) for (auto &c : bl->stmts) if (c) visit(*c);
      if (auto *f = dynCast<ForStmt>(&s); f && f->body) visit(*f->body);
      if (auto *i = dynCast<IfStmt>(&s)) {
        if (i->thenBody) visit(*i->thenBody);
        if (i->elseBody) visit(*i->elseBody);
      }
      if (auto *e = dynCast<ElectStmt>(&s); e && e->body) visit(*e->body);
      if (auto *r = dynCast<RoleStmt>(&s); r && r->body) visit(*r->body);
    };
    visit(b);
    return found;
  }

  size_t keyOf(const BarrierStmt *b, int64_t instance = 0) {
    for (size_t i = 0; i < keys_.size(); ++i) if (keys_[i] == BarrierId{b, instance}) return i;
    keys_.push_back({b, instance});
    return keys_.size() - 1;
  }
  std::optional<size_t> existingKey(const BarrierStmt *b, int64_t instance) const {
    for (size_t i = 0; i < keys_.size(); ++i) if (keys_[i] == BarrierId{b, instance}) return i;
    return std::nullopt;
  }

  void collectBarriers() {
    UniformityAnalysis uniformity(ctx_.kernel(), ctx_.info());
    std::map<BarrierId, std::pair<std::set<int64_t>, std::set<int64_t>>> warps;   // sync, arrive
    walkControl(ctx_.kernel(), uniformity, [&](const Stmt &s, const ControlPath &path) {
      auto *op = dynCast<OpStmt>(&s);
      if (!op || !op->op) return;
      if (op->op->id == OpId::Arrive || op->op->id == OpId::Wait) {
        const Decl *d = rootDecl(op->dsts.empty() ? nullptr : op->dsts[0].get());
        if (d && d->declKind == DeclKind::MBarrier)
          (op->op->id == OpId::Arrive ? arrivedBy_ : waitedBy_)[path.role].insert(d);
      }
      if (op->op->id != OpId::Sync && op->op->id != OpId::Arrive) return;
      const Expr *index = nullptr;
      const BarrierStmt *b = namedBarrierOperand(*op, &index);
      if (!b) return;
      WarpReach reach = reachingWarps(path, ctx_.info(), uniformity, SyncScope::Block);
      if (!reach.known || reach.divergent()) { participationKnown_ = false; return; }   // E0642 / E0601 elsewhere
      // A barrier array: each warp takes part in the barrier its index names (NamedBarriers.cpp checks it).
      const RoleInfo *ri = path.role ? ctx_.info().roleOf(path.role) : nullptr;
      for (int64_t warp : reach.warps) {
        int64_t instance = 0;
        if (index) {
          WarpPoint p = warpPointAt(warp, path.role, ri);
          std::optional<int64_t> v = evalAtWarp(*index, p);
          if (!v) { participationKnown_ = false; return; }   // E0669 elsewhere
          instance = *v;
        }
        BarrierId id{b, instance};
        (op->op->id == OpId::Sync ? warps[id].first : warps[id].second).insert(warp);
      }
    });
    releaseWarps_.assign(1, {});
    acquireWarps_.assign(1, {});
    for (auto &[id, w] : warps) {
      keyOf(id.first, id.second);
      std::set<int64_t> release = w.first;
      release.insert(w.second.begin(), w.second.end());
      std::set<int64_t> acquire;
      for (int64_t x : w.first) if (!w.second.count(x)) acquire.insert(x);
      releaseWarps_.push_back(release);
      acquireWarps_.push_back(acquire);
    }
  }

  // Does the thread whose warp is `warp` take part in barrier key k (release: arrive or sync; acquire: sync)?
  z3::expr participates(size_t k, const z3::expr &warp, bool acquire) {
    if (k == 0) return z3_.bool_val(true);
    const std::set<int64_t> &ws = acquire ? acquireWarps_[k] : releaseWarps_[k];
    z3::expr any = z3_.bool_val(false);
    for (int64_t w : ws) any = any || warp == z3_.int_val(w);
    return any;
  }

  // ---- walk
  void walkRole(const RoleStmt &r) override {
    std::vector<z3::expr> before = counters_;
    walkRoleBody(r);
    const RoleInfo *ri = ctx_.info().roleOf(&r);
    z3::expr in = ri && ri->rangeKnown ? path_.roleRange(*ri) : z3_.bool_val(false);
    for (size_t k = 0; k < counters_.size(); ++k)
      counters_[k] = z3::eq(counters_[k], before[k]) ? before[k] : z3::ite(in, counters_[k], before[k]);
  }

  void walkIf(const IfStmt &i) override {
    std::optional<z3::expr> c = scanCondition(i);
    std::vector<z3::expr> before = counters_;
    std::vector<size_t> pendingBefore = pendingFence_;
    if (c) path_.push(*c); else path_.dropCondition();
    if (i.thenBody) walkBlock(*i.thenBody);
    std::vector<z3::expr> afterThen = counters_;
    std::vector<size_t> pendingThen = pendingFence_;
    if (c) path_.back() = !*c;
    counters_ = before;
    pendingFence_ = pendingBefore;
    if (i.elseBody) walkStmt(*i.elseBody);
    if (c) path_.pop(); else path_.undropCondition();
    for (size_t x : pendingThen)
      if (std::find(pendingFence_.begin(), pendingFence_.end(), x) == pendingFence_.end()) pendingFence_.push_back(x);
    for (size_t k = 0; k < counters_.size(); ++k) {
      if (z3::eq(afterThen[k], counters_[k])) continue;
      if (!c) {
        epochProblem(i.range, "the number of barriers passed depends on a condition that cannot be modelled ('" +
                                  sourceText(ctx_.diags(), i.cond->range) + "')");
        counters_[k] = afterThen[k];
        continue;
      }
      counters_[k] = z3::ite(*c, afterThen[k], counters_[k]).simplify();
    }
  }

  // Barriers of each key one iteration of `f`'s body passes.
  std::vector<z3::expr> bodyBarriers(const ForStmt &f) {
    bool saved = collect_;
    std::vector<z3::expr> savedCounters = counters_;
    std::vector<size_t> savedPending = pendingFence_, savedOpen = open_;
    collect_ = false;
    for (auto &c : counters_) c = z3_.int_val(0);
    walkBlock(*f.body);
    std::vector<z3::expr> b;
    for (auto &c : counters_) b.push_back(c.simplify());
    collect_ = saved;
    counters_ = savedCounters;
    pendingFence_ = savedPending;
    open_ = savedOpen;
    return b;
  }

  void walkFor(const ForStmt &f) override {
    if (!loopPrologue(f, loops_.size())) return;   // each level walks its body again: bounded depth
    std::string base = "async!" + f.name + "!" + std::to_string(loopCounter_++);
    z3::expr v = z3_.int_const(base.c_str());
    z3::expr i = z3_.int_const((base + "!i").c_str());
    z3::expr trip = z3_.int_const((base + "!trip").c_str());
    for (const z3::expr &x : {v, i, trip}) loopConsts_.push_back(x);
    tr_.bind(&f, v);
    auto [lo, hi, st] = translateBounds(f);
    bool rangeKnown = lo && hi && st;
    z3::expr range = i >= 0 && i < trip;
    if (rangeKnown) {
      range = range && v == *lo + i * *st && v < *hi;
      // trip = number of iterations (step > 0): lo + (trip - 1) * step < hi <= lo + trip * step, or 0.
      loopFacts_.push_back(*st >= 1);
      loopFacts_.push_back(z3::ite(*hi > *lo, *lo + (trip - 1) * *st < *hi && *lo + trip * *st >= *hi, trip == 0));
    } else {
      loopFacts_.push_back(trip >= 0);
    }
    if (walkUnrolled(f, lo, hi, st)) {
      tr_.unbind(&f);
      return;
    }
    std::vector<z3::expr> b = bodyBarriers(f);
    std::vector<z3::expr> start = counters_;
    for (size_t k = 0; k < b.size(); ++k) {
      int64_t n = -1;
      if (b[k].is_numeral_i64(n) && n == 0) continue;
      if (mentionsConstant(b[k], v)) {
        epochProblem(f.range, "the number of barriers in an iteration of loop '" + f.name + "' depends on the loop variable");
        continue;
      }
      start[k] = counters_[k] + i * b[k];
    }
    std::vector<z3::expr> entry = counters_;
    size_t firstNew = accesses_.size();
    counters_ = start;
    path_.push(range);
    if (!rangeKnown) path_.dropCondition();
    loops_.push_back({&f, v, i, trip, st ? *st : z3_.int_val(1)});
    walkBlock(*f.body);
    // Async reads issued in this iteration: the next iteration's waits retire them too (the wrap-around).
    std::vector<size_t> wrapping;
    for (size_t x : open_) if (x >= firstNew) wrapping.push_back(x);
    if (!wrapping.empty() && collect_ && !retireSearch_) searchNextIteration(f, start, wrapping);
    loops_.pop_back();
    if (!rangeKnown) path_.undropCondition();
    path_.pop();
    for (size_t k = 0; k < b.size(); ++k) {
      int64_t n = -1;
      if (b[k].is_numeral_i64(n) && n == 0) { counters_[k] = entry[k]; continue; }
      counters_[k] = (entry[k] + trip * b[k]).simplify();
    }
    tr_.unbind(&f);
  }

  // A loop with compile-time bounds and a few iterations is walked once per value of its variable, in
  // order, instead of symbolically: its barrier count per iteration may depend on the variable (`for h in
  // 0..2 unroll { if h == math.index { sync epi[math.index]; .. } }`: role instances taking turns), and an
  // async read it issues (`for c in 0..BN / 64 unroll { tma.store .. }`) is then issued by the enclosing
  // loop's iteration, whose next iteration's wait retires it.
  bool walkUnrolled(const ForStmt &f, const std::optional<z3::expr> &lo, const std::optional<z3::expr> &hi,
                    const std::optional<z3::expr> &st) {
    int64_t first = 0, end = 0, step = 0;
    if (!lo || !hi || !st || !lo->simplify().is_numeral_i64(first) || !hi->simplify().is_numeral_i64(end) ||
        !st->simplify().is_numeral_i64(step) || step <= 0 || (end - first + step - 1) / step > kMaxUnrolledLoopTrips)
      return false;
    for (int64_t value = first; value < end; value += step) {
      tr_.unbind(&f);
      tr_.bind(&f, z3_.int_val(value));
      unrolled_.emplace_back(&f, value);
      walkBlock(*f.body);
      unrolled_.pop_back();
    }
    return true;
  }

  void searchNextIteration(const ForStmt &f, const std::vector<z3::expr> &start, const std::vector<size_t> &wrapping) {
    const LoopCtx &l = loops_.back();
    bool savedCollect = collect_;
    std::vector<z3::expr> savedCounters = counters_;
    std::vector<size_t> savedPending = pendingFence_, savedOpen = open_;
    collect_ = false;
    retireSearch_ = true;
    searching_ = wrapping;
    found_.clear();
    counters_ = start;
    walkBlock(*f.body);
    retireSearch_ = false;
    collect_ = savedCollect;
    counters_ = savedCounters;
    pendingFence_ = savedPending;
    open_ = savedOpen;
    z3::expr_vector from(z3_), to(z3_);
    from.push_back(l.iter);
    to.push_back(l.iter + 1);
    from.push_back(l.var);
    to.push_back(l.var + l.step);
    z3::expr hasNext = l.iter + 1 < l.trip;
    for (FoundWait &w : found_) {
      std::vector<z3::expr> next;
      for (auto &c : w.counters) { z3::expr cc = c; next.push_back(cc.substitute(from, to)); }
      retire(w.access, hasNext && w.path.substitute(from, to), next, nullptr);
    }
    searching_.clear();
    found_.clear();
  }

  void retire(size_t x, const z3::expr &when, const std::vector<z3::expr> &at, const Stmt *site) {
    Access &a = accesses_[x];
    z3::expr old = a.retired;
    if (a.completion.empty()) a.completion = at;
    else
      for (size_t k = 0; k < at.size(); ++k) a.completion[k] = z3::ite(old, a.completion[k], at[k]);
    a.retired = (old || when).simplify();
    if (!a.retiredAt && site) a.retiredAt = site;
  }

  void passBarrier(size_t key, const OpStmt &op) {
    counters_[key] = (counters_[key] + 1).simplify();
    markCrossedBarrier(op);
  }

  void markCrossedBarrier(const OpStmt &op) {
    if (!collect_) return;
    for (size_t x : pendingFence_)
      if (!accesses_[x].crossedBarrier) {
        accesses_[x].crossedBarrier = true;
        accesses_[x].barrierRange = op.range;
      }
  }

  void retiringWait(const OpStmt &op, OpId asyncKind) {
    std::optional<int64_t> n;
    if (!op.dsts.empty() && op.dsts[0]) n = ConstEvaluator().evaluate(*op.dsts[0]).optional();
    if (!n || *n != 0) return;
    if (retireSearch_) {
      // Every wait in order: the first whose path holds retires the read (a later one only where the
      // earlier ones do not run).
      for (size_t x : searching_)
        if (accesses_[x].op->op->id == asyncKind && loops_.size() == accesses_[x].loops.size())
          found_.push_back({x, counters_, path_.conjunction()});
      return;
    }
    if (!collect_) return;
    // Every wait adds where it retires each open read; the read stays open for the waits after it (the first
    // whose condition holds gives the completion, see retire), since a wait's path - loop ranges, `if
    // math.thread == 0`, `if h == math.index` - need not hold wherever the does.
    for (size_t x : open_) {
      Access &a = accesses_[x];
      if (a.op->op->id != asyncKind) continue;
      // Loops entered since the issue: the wait of their first iteration retires it.
      z3::expr when = z3_.bool_val(true);
      z3::expr_vector from(z3_), to(z3_);
      for (size_t d = a.loops.size(); d < loops_.size(); ++d) {
        from.push_back(loops_[d].iter);
        to.push_back(z3_.int_val(0));
        when = when && loops_[d].trip > 0;
      }
      // Loops left since the issue: a wait after them retires only the issue of their last iteration (the
      // others are retired in the next iteration, see searchNextIteration, or not at all).
      for (size_t d = loops_.size(); d < a.loops.size(); ++d) when = when && a.loops[d].iter + 1 >= a.loops[d].trip;
      // Only where the wait runs for the issuing thread (a wait under `if h == math.index` of an unrolled
      // turn loop retires nothing in the other turn).
      z3::expr here = path_.conjunction();
      when = when && (from.empty() ? here : here.substitute(from, to));
      std::vector<z3::expr> at;
      for (auto &c : counters_) { z3::expr cc = c; at.push_back(from.empty() ? cc : cc.substitute(from, to)); }
      retire(x, when, at, &op);
    }
  }

  void walkOp(const OpStmt &op) override {
    if (!op.op) return;
    switch (op.op->id) {
    case OpId::Syncthreads: case OpId::ClusterSync: case OpId::ClusterWait: passBarrier(0, op); return;
    case OpId::Sync: case OpId::Arrive: {
      const Expr *index = nullptr;
      if (const BarrierStmt *b = namedBarrierOperand(op, &index)) {
        // A barrier whose participants were not collected (divergent, reported by the named-barrier family)
        // has no counter: it orders nothing here.
        if (!index) {
          if (std::optional<size_t> k = existingKey(b, 0)) passBarrier(*k, op);
          return;
        }
        // An element of a barrier array: the thread passes the barrier its index names.  An index that
        // cannot be translated passes none (conservative: it orders nothing).
        std::optional<z3::expr> i = tr_.translate(*index);
        const NamedBarrierInfo *nb = ctx_.info().namedBarrierOf(b);
        if (!i || !nb) return;
        for (int64_t inst = 0; inst < nb->count; ++inst)
          if (std::optional<size_t> k = existingKey(b, inst))
            counters_[*k] = (counters_[*k] + z3::ite(*i == z3_.int_val(inst), z3_.int_val(1), z3_.int_val(0))).simplify();
        markCrossedBarrier(op);
        return;
      }
      for (auto &e : op.dsts) if (e) scan(*e, false, op);
      return;
    }
    case OpId::FenceProxyAsync:
      if (!collect_) return;
      for (size_t x : pendingFence_)
        if (accesses_[x].crossedBarrier && !accesses_[x].fenceAfterBarrier) {
          accesses_[x].fenceAfterBarrier = true;
          accesses_[x].fenceRange = op.range;
        }
      pendingFence_.clear();
      return;
    case OpId::TmaStoreWait: retiringWait(op, OpId::TmaStore); return;
    case OpId::WgmmaWait: retiringWait(op, OpId::Wgmma); return;
    case OpId::TmaStore:
      for (auto &src : op.srcs) if (src) recordAsync(op, *src, AccessKind::AsyncRead);
      return;
    case OpId::TmaLoad:
      for (auto &dst : op.dsts) if (dst) recordAsync(op, *dst, AccessKind::AsyncWrite);
      return;
    case OpId::Wgmma:
    case OpId::Tcgen05Mma:   // its shared operands are read by the tensor core (async proxy); tmem ones are not shared
      for (auto &src : op.srcs) {
        if (!src) continue;
        if (auto *mul = dynCast<BinaryExpr>(src.get()); mul && mul->op == BinaryOp::Mul) {
          if (mul->lhs) recordAsync(op, *mul->lhs, AccessKind::AsyncRead);
          if (mul->rhs) recordAsync(op, *mul->rhs, AccessKind::AsyncRead);
        } else {
          recordAsync(op, *src, AccessKind::AsyncRead);
        }
      }
      return;
    case OpId::Store: scanStoreDestination(op); return;
    default:
      scanOpOperands(op);
      return;
    }
  }

  // ---- accesses
  // The warp (warpgroup) writes the fragment's M x N tile: every participating thread is taken to write all of
  // it (the ordering obligation does not depend on which lane writes which element).
  void recordFragmentStore(const IndexExpr &ix, const std::vector<int64_t> &extent, const OpStmt &op) override {
    recordGeneric(ix, true, "fragment store", extent, op);
    if (collect_ && !accesses_.empty()) accesses_.back().warpWide = true;
  }

  static const Decl *sharedRoot(const Expr &e) {
    const Decl *d = rootDecl(&e);
    return d && d->declKind == DeclKind::Shared ? d : nullptr;
  }

  void scanIndex(const IndexExpr &ix, bool write, const Stmt &at) override {
    scanIndexOperands(ix, at);
    if (sharedRoot(ix)) recordGeneric(ix, write, write ? "write" : "read", {}, at);
  }

  Access newAccess(AccessKind kind, const Decl *array, SourceRange range, std::string what) {
    Access a{kind, nullptr, range, std::move(what), array, role_, {}, {}, path_.conjunction(), counters_,
             loops_, unrolled_, path_.inexact() > 0, false, false, false, {}, {}, z3_.bool_val(false), {},
             nullptr, nullptr};
    return a;
  }

  // The region of `e` (a[s][r, c +: n], a[s], a), the tile extent overriding the innermost lengths.
  void computeRegion(Access &a, const Expr &e, const std::vector<int64_t> &tileExtent) {
    if (!regionOf(*a.array, e, tileExtent, a.region, a.problem)) a.problem = "more indices than dimensions";
  }

  void recordGeneric(const IndexExpr &ix, bool write, const std::string &kind, const std::vector<int64_t> &tileExtent,
                     const Stmt &at) {
    if (!collect_) return;
    const Decl *array = sharedRoot(ix);
    if (!array || !array->type || !array->type->isTensor()) return;
    std::string opName = isa<OpStmt>(&at) ? cast<OpStmt>(&at)->name + " " : std::string();
    if (kind == "fragment store") opName.clear();
    Access a = newAccess(write ? AccessKind::GenericWrite : AccessKind::GenericRead, array, ix.range,
                         opName + kind + " '" + sourceText(ctx_.diags(), ix.range) + "'");
    computeRegion(a, ix, tileExtent);
    accesses_.push_back(std::move(a));
    if (write) pendingFence_.push_back(accesses_.size() - 1);
  }

  void recordAsync(const OpStmt &op, const Expr &operand, AccessKind kind) {
    const Decl *array = sharedRoot(operand);
    if (!collect_ || !array || !array->type || !array->type->isTensor()) return;
    Access a = newAccess(kind, array, op.range, "'" + op.name + "' of '" + sourceText(ctx_.diags(), operand.range) + "'");
    a.op = &op;
    for (const Clause &c : op.clauses)
      if (c.name == "signal" && !c.args.empty()) a.signals = rootDecl(c.args[0].get());
    computeRegion(a, operand, {});
    accesses_.push_back(std::move(a));
    if (kind == AccessKind::AsyncRead) open_.push_back(accesses_.size() - 1);
  }

  // ---- pairs
  // Some barrier orders "x after X" before "y at Y": x releases, y acquires, Y's count is past X's.
  z3::expr ordered(const std::vector<z3::expr> &cx, const z3::expr &warpX, const std::vector<z3::expr> &cy,
                   const z3::expr &warpY) {
    z3::expr any = z3_.bool_val(false);
    for (size_t k = 0; k < cx.size() && k < cy.size(); ++k)
      any = any || (participates(k, warpX, false) && participates(k, warpY, true) && cy[k] >= cx[k] + 1);
    return any;
  }

  // Logical order for (W) pairs: the generic access g (renamed) comes before the async op a.
  z3::expr precedes(const Access &g, const z3::expr_vector &from, const z3::expr_vector &to, const Access &a) {
    std::vector<std::pair<z3::expr, z3::expr>> common;   // (g's index, a's index)
    for (size_t k = 0; k < g.loops.size() && k < a.loops.size() && g.loops[k].loop == a.loops[k].loop; ++k)
      common.push_back({rename(g.loops[k].iter, from, to), a.loops[k].iter});
    bool earlierInBody = g.range.begin.offset < a.range.begin.offset;
    z3::expr result = z3_.bool_val(earlierInBody);
    for (size_t k = common.size(); k-- > 0;)
      result = common[k].first < common[k].second || (common[k].first == common[k].second && result);
    return result;
  }

  bool handedOffByMbarrier(const Access &g, const Access &a) {
    if (g.role == a.role) return false;
    auto arr = arrivedBy_.find(g.role);
    auto wt = waitedBy_.find(a.role);
    if (arr == arrivedBy_.end() || wt == waitedBy_.end()) return false;
    for (const Decl *m : arr->second)
      if (m != a.signals && wt->second.count(m)) return true;
    return false;
  }

  void checkPairs() {
    // Only arrays touched both ways matter.
    std::set<const Decl *> asyncArrays, genericArrays;
    for (auto &a : accesses_) (a.generic() ? genericArrays : asyncArrays).insert(a.array);
    bool any = false;
    for (const Decl *d : asyncArrays) any |= genericArrays.count(d) > 0;
    if (!any) return;
    if (!participationKnown_) {
      ctx_.reportUnproven(ctx_.kernel().nameRange, "that async-proxy operations of kernel '" + ctx_.kernel().name +
                          "' are ordered with the generic accesses of other threads",
                          "a named barrier is reached by warps that cannot be determined (see the named-barrier diagnostics)");
      return;
    }
    if (!epochProblem_.empty()) {
      ctx_.reportUnproven(epochProblemRange_, "that async-proxy operations of kernel '" + ctx_.kernel().name +
                          "' are ordered with the generic accesses of other threads", epochProblem_);
      return;
    }
    Renaming second = secondThread();
    const z3::expr_vector &from = second.from, &to = second.to;
    z3::expr assumptions = this->assumptions(loopFacts_);
    z3::solver s(z3_);
    ctx_.configureSolver(s);
    s.add(assumptions && rename(assumptions, from, to));
    z3::expr tid = tr_.builtinVar(BuiltinValue::TidX), tid2 = rename(tid, from, to);
    z3::expr warp = tr_.builtinVar(BuiltinValue::Warp), warp2 = rename(warp, from, to);

    std::set<const OpStmt *> reported;
    for (size_t i = 0; i < accesses_.size(); ++i) {
      const Access &a = accesses_[i];
      if (a.generic() || reported.count(a.op)) continue;
      for (size_t j = 0; j < accesses_.size(); ++j) {
        const Access &g = accesses_[j];
        if (!g.generic() || g.array != a.array || reported.count(a.op)) continue;
        if (a.kind == AccessKind::AsyncRead && g.kind != AccessKind::GenericWrite) continue;
        if (handedOffByMbarrier(g, a)) continue;
        if (ctx_.diags().limitReached()) return;
        if (!a.problem.empty() || !g.problem.empty()) {
          ctx_.reportUnproven(a.range, "that the " + a.what + " is ordered with the " + g.what,
                              !a.problem.empty() ? a.problem : g.problem);
          reported.insert(a.op);
          continue;
        }
        z3::expr overlap = this->overlap(a.region, g.region, second);
        std::vector<z3::expr> gc;
        for (auto &c : g.counters) gc.push_back(rename(c, from, to));
        z3::expr pair = a.cond && rename(g.cond, from, to) && (g.warpWide ? warp != warp2 : tid != tid2) && overlap;
        z3::expr unordered = !ordered(gc, warp2, a.counters, warp);
        if (a.kind == AccessKind::AsyncRead) {
          // A write after the issue while no wait has retired the read is the pending-read obligation of the
          // sync simulation / bulk groups (E0609, E0654); here: a retired read without the barrier after it.
          z3::expr after = !precedes(g, from, to, a);
          unordered = unordered && (!after || a.retired);
          if (!a.completion.empty()) unordered = unordered && !(a.retired && ordered(a.completion, warp, gc, warp2));
        } else {
          unordered = unordered && precedes(g, from, to, a);
        }
        z3::check_result r = check(s, pair && unordered);
        if (r == z3::unsat) {
          if (a.kind == AccessKind::AsyncRead && g.fenceAfterBarrier && check(s, pair) == z3::sat) {
            reported.insert(a.op);
            ctx_.reportFailure(DiagKind::MissingProxyFence, a.range, a.op->name, a.array->name)
                .note(g.range, "generic-proxy " + g.what + " by other threads, ordered before this by a barrier")
                .note(g.barrierRange, "the barrier that orders the write is passed before the writer's fence.proxy_async")
                .note(g.fenceRange, "the fence comes after the barrier: it does not order the write for the async proxy of another thread")
                .hint("put 'fence.proxy_async;' between the writes to '" + a.array->name + "' and the barrier")
                .fixit(insertStatementBefore(ctx_.diags(), g.barrierRange, "fence.proxy_async;"));
          }
          continue;
        }
        if (r == z3::unknown || a.inexact || g.inexact) {
          std::string why = r == z3::unknown ? s.reason_unknown() : "";
          ctx_.reportUnproven(a.range, "that the " + a.what + " is ordered with the " + g.what,
                              r == z3::unknown ? "the solver gave up (" + why + ")"
                                               : "an enclosing condition or loop bound could not be modelled",
                              r == z3::unknown && VerifyContext::isLimitReason(why));
          reported.insert(a.op);
          continue;
        }
        // The counterexample: the least threads, iterations and shape (lexicographically), so that it does
        // not depend on the pairs checked before or on other families' use of the Z3 context.
        std::optional<z3::model> model = canonicalModel(assumptions && rename(assumptions, from, to) && pair && unordered,
                                                        a, g, from, to);
        if (!model) continue;
        report(a, g, *model, from, to);
        reported.insert(a.op);
      }
    }
    for (const Access &a : accesses_)
      if (!a.generic() && !reported.count(a.op)) ctx_.recordProven();
  }

  std::optional<z3::model> canonicalModel(const z3::expr &query, const Access &a, const Access &g,
                                          const z3::expr_vector &from, const z3::expr_vector &to) {
    std::vector<z3::expr> objectives{tr_.builtinVar(BuiltinValue::TidX), rename(tr_.builtinVar(BuiltinValue::TidX), from, to)};
    for (const LoopCtx &l : a.loops) objectives.push_back(l.iter);
    for (const LoopCtx &l : g.loops) objectives.push_back(rename(l.iter, from, to));
    for (auto &[name, var] : tr_.freeVars()) {
      bool threadVar = false;
      for (const z3::expr &t : threadVars_) threadVar |= z3::eq(t, var);
      if (!threadVar && var.is_int()) objectives.push_back(var);
    }
    return smallestModel(ctx_, query, objectives);
  }

  z3::check_result check(z3::solver &s, const z3::expr &e) {
    z3::check_result r = z3::unknown;
    s.push();
    try {
      s.add(e);
      r = s.check();
    } catch (const z3::exception &) {
      r = z3::unknown;
    }
    s.pop();
    return r;
  }

  std::string threadText(const Access &x, const z3::model &m, const z3::expr_vector *from, const z3::expr_vector *to) {
    auto r = [&](const z3::expr &e) { return from ? rename(e, *from, *to) : e; };
    std::string out = threadPrefix(m, from, to);
    for (const LoopCtx &l : x.loops) {
      out += ", " + l.loop->name + (l.loop->step ? "# = " + value(m, r(l.iter)) : " = " + value(m, r(l.var)));
    }
    for (const auto &[loop, v] : x.unrolled) out += ", " + loop->name + " = " + std::to_string(v);
    return out;
  }

  std::string elementText(const Access &x, const z3::model &m, const z3::expr_vector *from, const z3::expr_vector *to) {
    return RaceWalker::elementText(x.array->name, x.region, m, from, to);
  }

  std::string barrierList() const {
    std::string out;
    for (size_t k = 0; k < keys_.size(); ++k) {
      if (!out.empty()) out += ", ";
      const NamedBarrierInfo *nb = keys_[k].first ? ctx_.info().namedBarrierOf(keys_[k].first) : nullptr;
      out += !keys_[k].first ? std::string("syncthreads")
             : nb && nb->isArray ? "'" + keys_[k].first->name + "[" + std::to_string(keys_[k].second) + "]'"
                                 : "'" + keys_[k].first->name + "'";
    }
    return out;
  }

  void report(const Access &a, const Access &g, const z3::model &m, const z3::expr_vector &from, const z3::expr_vector &to) {
    bool read = a.kind == AccessKind::AsyncRead;
    auto d = ctx_.reportFailure(DiagKind::AsyncProxyRace, a.range, a.op->name, read ? "reads" : "overwrites",
                                a.array->name, g.what);
    d.note(g.range, "the " + std::string(g.kind == AccessKind::GenericWrite ? "write" : "read") + " by " +
                        threadText(g, m, &from, &to));
    std::string shape = shapeText(m, {"block", "grid", "cluster"});
    std::string trace = "counterexample: " + threadText(a, m, nullptr, nullptr) + " issues the " + a.op->name +
                        (read ? " reading " : " writing ") + elementText(a, m, nullptr, nullptr) + " while " +
                        threadText(g, m, &from, &to) + (g.kind == AccessKind::GenericWrite ? " writes " : " reads ") +
                        elementText(g, m, &from, &to) + "; no barrier both threads pass orders them" +
                        (shape.empty() ? "" : " (" + shape + ")");
    d.note(a.range, trace);
    // Which way the order is missing: the write of the same or an earlier tile needs a barrier before the
    // issue; a write of a later tile needs one after the retiring wait.
    // g comes after a when it is in a later iteration of a common loop, or later in the same iteration.
    bool writeAfter = read && m.eval(precedes(g, from, to, a), true).is_false();
    if (read && writeAfter) {
      if (a.retiredAt)
        d.note(headOf(a.retiredAt->range), "the read is retired here, but no barrier (" + barrierList() +
                                               ") that both threads pass lies between this wait and the write");
      else
        d.note(a.range, "no tma.store.wait 0 / wgmma.wait 0 retires this read before the write");
      d.hint("after '" + std::string(a.op->op->id == OpId::Wgmma ? "wgmma.wait 0" : "tma.store.wait 0") +
             "', add a barrier that the issuing thread and the writers pass (a named barrier over both, or "
             "syncthreads) before '" + a.array->name + "' is written again");
      if (a.retiredAt) insertSyncthreadsAbove(d, g.range, a.range);
    } else {
      d.note(headOf(g.range), "no barrier (" + barrierList() + ") that both threads pass lies between this " +
                                  (g.kind == AccessKind::GenericWrite ? "write" : "read") + " and the " + a.op->name);
      if (read)
        d.hint("after the writes to '" + a.array->name + "' add 'fence.proxy_async;' and then a barrier that the "
               "writers and the issuing thread pass (e.g. 'sync B' on a named barrier over both) before the " + a.op->name);
      else
        d.hint("add a barrier that the readers and the issuing thread pass between the last read of '" + a.array->name +
               "' and the " + a.op->name + " (or hand the tile back through an mbarrier the issuer waits on)");
      insertSyncthreadsAbove(d, a.range, g.range);
    }
  }

  // The fix-it: 'syncthreads;' above the statement that holds the later access, in the block that holds both,
  // where every thread of the block runs that block (not in a role, an if or an elect: a named barrier over the
  // two parties is the user's to choose there).
  void insertSyncthreadsAbove(DiagBuilder &d, SourceRange later, SourceRange earlier) {
    bool selective = false;
    if (const BlockStmt *body = ctx_.kernel().body.get())
      if (std::optional<SourceRange> at = statementHoldingIn(*body, later, earlier, &selective); at && !selective)
        d.fixit(insertStatementBefore(ctx_.diags(), *at, "syncthreads;"));
  }
};

} // namespace

void verifyAsyncProxyRaces(VerifyContext &ctx) { AsyncRaceChecker(ctx).run(); }

} // namespace cake

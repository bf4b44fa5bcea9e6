// Verifier family: block-level shared-memory races (E0655; E0601 when undecided).
//
// Obligation: between two consecutive block barriers (syncthreads, cluster.sync, or `sync` on a named barrier
// whose count is the whole block), a shared-memory element written by one thread is neither read nor written
// by a different thread - unless both threads are lanes of one warp and a full-mask `syncwarp` lies between
// the two accesses (bar.warp.sync orders the memory accesses of the lanes it synchronises).
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
//      A second counter, the *warp epoch*, is kept the same way and counts full-mask syncwarps (WarpSync.cpp
//      proves all 32 lanes execute each one): two lanes of one warp are unordered only when both epochs are
//      equal.  A syncwarp(MASK) with a partial mask orders nothing here (conservative).
//   2. Accesses.  Plain shared loads / stores (also compound assignments, vector slices, conditions),
//      ldmatrix sources and stmatrix destinations (per thread: the row it supplies, `+: 8` columns),
//      fragment stores `store T[r, c] <- frag` (the whole M x N tile, by any lane of the warp), cp.async
//      destinations (a write by the issuing thread at the interval of the issue; that the copy has landed
//      before a read is E0647's obligation, see docs/verifier.md), and atomics (atom.* targets, red.*
//      destinations, the tile of a fragment red.add): read-modify-writes that never race each other but
//      race a plain access of another thread in the same interval (E0663).  Each access records its region (start and
//      length per dimension, the stage dimension included), its path condition (enclosing if conditions, loop
//      ranges, `lane == 0` inside elect, the role's thread range), its epoch and its loop variables.
//   3. For each pair of accesses to one array with at least one write and at most one atomic, Z3 looks for two threads t1 != t2
//      (and loop indices for each: the second access's thread builtins and loop variables are renamed) with
//      both path conditions true, equal epochs (and, when both are in one warp, equal warp epochs) and
//      overlapping regions, under requires(...).  No model: the
//      pair is race-free for every shape, thread and iteration.  A model: an error at the later access, a
//      note at the other one with the concrete threads, iterations and element, and a hint.  Unknown, an
//      untranslatable index, or a refutation that relied on dropping an untranslatable condition: E0601.
// Scope: kernels without mbarriers (their shared hand-offs are ordered by mbarrier phases, which the sync
// simulation checks as E0609 / E0610); in kernels that `arrive` on a named barrier (NamedHandoffs.h) a read
// and a write from two different roles are the simulation's too (named-barrier generations, E0614); accesses through the async proxy (TMA, wgmma) are not part of it:
// AsyncProxyRaces.cpp (E0658) orders them with other threads' generic accesses, in every kernel.
// Shared with AsyncProxyRaces.cpp (RaceWalker.h): the statement walk and its path condition, loop prologue,
// expression scan, access regions, the second thread's renaming and the counterexample text.
// Cost: one incremental solver per kernel (both threads' assumptions asserted once, a push/pop scope per pair);
// pairs whose epochs or regions simplify to disjoint constants need no query.  A pair that depends on the two
// threads alone gets a share of the limit; past it the threads are enumerated (threadOnlyRaceFree).
#include "verify/EnclosingStatement.h"
#include "verify/Families.h"
#include "verify/NamedHandoffs.h"
#include "verify/RaceWalker.h"
#include "verify/SmallestModel.h"
#include "verify/SourceText.h"
#include "verify/VerifyContext.h"
#include "verify/Z3Terms.h"

#include "frontend/Builtins.h"
#include "frontend/ConstEval.h"
#include "frontend/Ops.h"
#include "frontend/Types.h"

#include <climits>
#include <cstdio>
#include <map>
#include <optional>
#include <unordered_set>
#include <unordered_map>
#include <set>
#include <cstdlib>

namespace cake {

namespace {

struct LoopVar {
  const ForStmt *loop;
  z3::expr var;
};

struct SharedAccess {
  const Decl *array = nullptr;
  std::string what;              // "write 'sa[s][r, c +: 8]'"
  bool write = false;
  bool warpWide = false;         // a warp-collective tile access (fragment store): any lane, the whole tile
  bool atomic = false;           // an atomic read-modify-write (atom.*, red.*): atomics never race each other
  SourceRange range;
  std::vector<Region> region;    // one per dimension, outermost first
  z3::expr cond;                 // path condition (includes loop ranges and thread links)
  z3::expr epoch;                // barriers passed before the access
  z3::expr warpEpoch;            // full-mask syncwarps passed before the access
  std::vector<LoopVar> loops;    // enclosing loops, outermost first
  const RoleStmt *role = nullptr;   // the role whose body holds the access (null: kernel-level code)
  bool inexact = false;          // an enclosing condition could not be translated (dropped)
  std::string problem;           // non-empty: the region could not be translated (the reason)
};

class RaceChecker : RaceWalker {
public:
  explicit RaceChecker(VerifyContext &ctx)
      : RaceWalker(ctx, /*roleRangeAsOneTerm=*/false), epoch_(ctx.z3().int_val(0)), warpEpoch_(ctx.z3().int_val(0)) {}

  void run() {
    const Kernel &k = ctx_.kernel();
    if (!k.body || !ctx_.info().mbarriers.empty()) return;
    if (!usesSharedArrays(*k.body)) return;
    handoffs_ = usesNamedHandoffs(k);
    beginWalk();
    walkBlock(*k.body);
    if (!epochProblem_.empty()) {
      ctx_.reportUnproven(epochProblemRange_, "that shared memory of kernel '" + k.name + "' is race-free",
                          epochProblem_);
      return;
    }
    checkPairs();
  }

private:
  z3::expr epoch_;                    // block barriers passed so far
  z3::expr warpEpoch_;                // full-mask syncwarps passed so far
  bool warpEpochUnknown_ = false;     // a syncwarp count could not be modelled: syncwarp orders nothing
  std::vector<LoopVar> loops_;
  std::vector<SharedAccess> accesses_;
  bool handoffs_ = false;             // one-way named barriers: accesses of two roles are the sync simulation's

  // ---- scope
  static bool usesSharedArrays(const BlockStmt &b) {
    for (auto &s : b.stmts)
      if (s && s->kind == StmtKind::Shared) return true;
    return false;
  }

  // ---- walk
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

  // syncwarp / syncwarp(0xffffffff): WarpSync.cpp proves that all 32 lanes execute it.
  static bool isFullMaskSyncwarp(const OpStmt &op) {
    if (op.dsts.empty()) return true;
    if (!op.dsts[0]) return false;
    std::optional<int64_t> m = ConstEvaluator().evaluate(*op.dsts[0]).optional();
    return m && *m == 0xffffffffLL;
  }

  void walkRole(const RoleStmt &r) override {
    z3::expr savedEpoch = epoch_, savedWarpEpoch = warpEpoch_;
    walkRoleBody(r);
    epoch_ = savedEpoch;   // roles run side by side: each continues from the count at its start
    warpEpoch_ = savedWarpEpoch;
  }

  void walkIf(const IfStmt &i) override {
    std::optional<z3::expr> c = scanCondition(i);
    z3::expr before = epoch_, wBefore = warpEpoch_;
    if (c) path_.push(*c); else path_.dropCondition();
    if (i.thenBody) walkBlock(*i.thenBody);
    z3::expr afterThen = epoch_, wAfterThen = warpEpoch_;
    if (c) path_.back() = !*c;
    epoch_ = before;
    warpEpoch_ = wBefore;
    if (i.elseBody) walkStmt(*i.elseBody);
    z3::expr afterElse = epoch_, wAfterElse = warpEpoch_;
    if (c) path_.pop(); else path_.undropCondition();
    // Warp epochs: a condition that cannot be modelled leaves the count unknown; the lanes after it are then
    // treated as unordered by syncwarp (the block epoch alone decides).
    if (z3::eq(wAfterThen, wAfterElse)) warpEpoch_ = wAfterThen;
    else if (c) warpEpoch_ = z3::ite(*c, wAfterThen, wAfterElse).simplify();
    else { warpEpoch_ = z3_.int_val(0); warpEpochUnknown_ = true; }
    if (z3::eq(afterThen, afterElse)) { epoch_ = afterThen; return; }
    if (!c) {
      epochProblem(i.range, "the number of block barriers depends on a condition that cannot be modelled ('" +
                                sourceText(ctx_.diags(), i.cond->range) + "')");
      epoch_ = afterThen;
      return;
    }
    epoch_ = z3::ite(*c, afterThen, afterElse).simplify();
  }

  // Block barriers (and full-mask syncwarps, in `warpBarriers`) one iteration of `f`'s body passes, with the
  // loop variable bound to `v`.
  z3::expr bodyBarriers(const ForStmt &f, z3::expr &warpBarriers) {
    bool saved = collect_;
    z3::expr savedEpoch = epoch_, savedWarpEpoch = warpEpoch_;
    collect_ = false;
    epoch_ = z3_.int_val(0);
    warpEpoch_ = z3_.int_val(0);
    walkBlock(*f.body);
    z3::expr b = epoch_.simplify();
    warpBarriers = warpEpoch_.simplify();
    collect_ = saved;
    epoch_ = savedEpoch;
    warpEpoch_ = savedWarpEpoch;
    return b;
  }

  void walkFor(const ForStmt &f) override {
    if (!loopPrologue(f, loops_.size())) return;   // bodyBarriers walks each level's body again: bounded depth
    z3::expr v = z3_.int_const(("race!" + f.name + "!" + std::to_string(loopCounter_++)).c_str());
    loopConsts_.push_back(v);
    tr_.bind(&f, v);
    auto [lo, hi, st] = translateBounds(f);
    int64_t stepValue = 0;
    bool constStep = st && st->simplify().is_numeral_i64(stepValue) && stepValue > 0;
    z3::expr range = z3_.bool_val(true);
    bool rangeKnown = lo && hi;
    if (lo) range = range && v >= *lo;
    if (hi) range = range && v < *hi;
    if (lo && constStep && stepValue > 1) range = range && z3::mod(v - *lo, z3_.int_val(stepValue)) == 0;

    z3::expr wb = z3_.int_val(0);
    z3::expr b = bodyBarriers(f, wb);
    int64_t wbValue = -1;
    bool noWarpBarriers = wb.is_numeral_i64(wbValue) && wbValue == 0;
    bool warpLoopKnown = noWarpBarriers || (!mentionsConstant(wb, v) && rangeKnown && constStep);
    if (!warpLoopKnown) warpEpochUnknown_ = true;
    z3::expr wStart = warpEpoch_;
    if (!noWarpBarriers && warpLoopKnown) wStart = warpEpoch_ + ((v - *lo) / z3_.int_val(stepValue)) * wb;
    int64_t bValue = -1;
    bool noBarriers = b.is_numeral_i64(bValue) && bValue == 0;
    z3::expr start = epoch_;
    if (!noBarriers) {
      if (mentionsConstant(b, v)) {
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
    z3::expr savedEpoch = epoch_, savedWarpEpoch = warpEpoch_;
    epoch_ = start;
    warpEpoch_ = wStart;
    path_.push(range);
    if (!rangeKnown) path_.dropCondition();
    loops_.push_back({&f, v});
    walkBlock(*f.body);
    loops_.pop_back();
    if (!rangeKnown) path_.undropCondition();
    path_.pop();
    epoch_ = savedEpoch;
    warpEpoch_ = savedWarpEpoch;
    if (!noWarpBarriers && warpLoopKnown) {
      z3::expr stepZ = z3_.int_val(stepValue);
      z3::expr trip = z3::ite(*hi > *lo, (*hi - *lo + stepZ - 1) / stepZ, z3_.int_val(0));
      warpEpoch_ = (warpEpoch_ + trip * wb).simplify();
    }
    if (!noBarriers && rangeKnown && constStep) {
      z3::expr stepZ = z3_.int_val(stepValue);
      z3::expr trip = z3::ite(*hi > *lo, (*hi - *lo + stepZ - 1) / stepZ, z3_.int_val(0));
      epoch_ = (epoch_ + trip * b).simplify();
    }
    tr_.unbind(&f);
  }

  void walkOp(const OpStmt &op) override {
    if (!op.op) return;
    if (isBlockBarrier(op)) {
      epoch_ = (epoch_ + 1).simplify();
      return;
    }
    if (op.op->id == OpId::Syncwarp) {
      if (isFullMaskSyncwarp(op)) warpEpoch_ = (warpEpoch_ + 1).simplify();
      return;
    }
    switch (op.op->id) {
    case OpId::TmaLoad: case OpId::TmaStore: case OpId::Wgmma:
      return;   // async proxy: ordered by mbarriers / bulk groups, not part of this family
    case OpId::Store: {
      for (auto &src : op.srcs) if (src) scan(*src, false, op);
      scanStoreDestination(op);
      return;
    }
    default:
      scanOpOperands(op);
      return;
    }
  }

  // ---- accesses
  // The warp writes the fragment's M x N tile; any lane may write any element of it.
  void recordFragmentStore(const IndexExpr &ix, const std::vector<int64_t> &extent, const OpStmt &op) override {
    scanIndexOperands(ix, op);
    recordAccess(ix, true, atomicTarget_ == &ix ? "fragment red.add" : "fragment store", extent);
    if (collect_ && !accesses_.empty()) accesses_.back().warpWide = true;
  }

  static const Decl *sharedRoot(const IndexExpr &ix) {
    const Expr *cur = &ix;
    while (auto *i = dynCast<IndexExpr>(cur)) cur = i->base.get();
    auto *n = cur ? dynCast<NameExpr>(cur) : nullptr;
    if (!n || !n->decl || n->decl->declKind != DeclKind::Shared) return nullptr;
    return n->decl;
  }

  void scanIndex(const IndexExpr &ix, bool write, const Stmt &at) override {
    scanIndexOperands(ix, at);
    if (sharedRoot(ix)) recordAccess(ix, write, atomicTarget_ == &ix ? "atomic update" : write ? "write" : "read", {});
    else if (ix.base) scan(*ix.base, write, at);
  }

  void recordAccess(const IndexExpr &ix, bool write, const std::string &kind, const std::vector<int64_t> &tileExtent) {
    if (!collect_) return;
    const Decl *array = sharedRoot(ix);
    if (!array || !array->type || !array->type->isTensor()) return;
    SharedAccess a{array, kind + " '" + sourceText(ctx_.diags(), ix.range) + "'", write, false, atomicTarget_ == &ix,
                   ix.range, {}, path_.conjunction(), epoch_, warpEpoch_, loops_, role_, path_.inexact() > 0, {}};
    if (!regionOf(*array, ix, tileExtent, a.region, a.problem)) return;   // sema reports such indexing
    accesses_.push_back(std::move(a));
  }

  // ---- pairs
  void checkPairs() {
    Renaming second = secondThread();
    const z3::expr_vector &from = second.from, &to = second.to;
    z3::expr assumptions = this->assumptions();
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
        if (a.atomic && b.atomic) continue;   // the hardware applies atomics to one element one at a time
        if (!a.problem.empty() || !b.problem.empty()) continue;
        if (failed[i] || failed[j]) continue;   // one report per access
        // Named-barrier hand-offs order the roles per generation: the sync simulation checks a read and a
        // write of two roles (E0609 / E0610 / E0614); two writes stay here (the simulation orders a write
        // only after earlier reads).
        if (handoffs_ && a.role && b.role && a.role != b.role && !(a.write && b.write)) continue;
        if (diagsFull()) return;
        z3::expr bCond = rename(b.cond, from, to), bEpoch = rename(b.epoch, from, to);
        z3::expr overlap = this->overlap(a.region, b.region, second);
        z3::expr epochEq = (a.epoch == bEpoch).simplify();
        ++pairs;
        if (epochEq.is_false() || overlap.simplify().is_false()) continue;   // cheap: different intervals / disjoint constants
        z3::check_result r = z3::unknown;
        // A pair that depends on nothing but the two threads gets a share of the limit first: past it, the
        // threads are enumerated instead (threadOnlyRaceFree).
        const bool threadOnly = threadOnlyAccess(a) && threadOnlyAccess(b);
        if (threadOnly) ctx_.configureSolver(s, std::max(1u, ctx_.timeoutMs() / kThreadOnlyShare));
        s.push();
        try {
          s.add(a.cond && bCond && (a.warpWide && b.warpWide ? warp != warp2 : tid != tid2) && epochEq &&
                unorderedInWarp(a, b, second, warp, warp2) && overlap);
          ++queries;
          r = s.check();
        } catch (const z3::exception &) {
          r = z3::unknown;
        }
        s.pop();
        if (threadOnly) ctx_.configureSolver(s);
        if (r == z3::unsat) continue;
        if (threadOnly && r == z3::unknown && threadOnlyRaceFree(i, j)) continue;
        // Not refuted incrementally: decide (and take the counterexample) with a fresh solver on the whole
        // query, so the reported model does not depend on the order in which pairs were checked.
        z3::solver fresh(z3_);
        ctx_.configureSolver(fresh);
        z3::expr whole = assumptions && assumptions2 && a.cond && bCond &&
                         (a.warpWide && b.warpWide ? warp != warp2 : tid != tid2) && a.epoch == bEpoch &&
                         unorderedInWarp(a, b, second, warp, warp2) && overlap;
        fresh.add(whole);
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
        // The least threads, then iterations and shape (in the order the translator created them).
        std::vector<z3::expr> objectives{tid, tid2};
        for (const auto &[name, v] : tr_.freeVars())
          if (!z3::eq(v, tid)) objectives.push_back(v), objectives.push_back(rename(v, from, to));
        if (auto least = smallestModel(ctx_, whole, objectives)) m = *least;
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

  // ---- small-domain decision for accesses that depend on the executing thread alone
  // (a thread -> element map through divisions, remainders and selects - diagonal blocks of
  // kernels/kda/chunk_prep_tc2.cake, `fbuf[diag_row0(t) + t % 4, diag_col0(t) +: 4]` - took Z3 3.4 s to
  // prove injective; each thread's elements are computed once here and the pairs compared as integers).
  static constexpr unsigned kThreadOnlyShare = 20;   // of the limit, for the solver's first try at such a pair

  // Evaluates an integer / Boolean term for given values of its free constants, once per node of its DAG
  // (Z3's simplify expands shared sums: a chain of lets `a2 = a1 + a1 - a1` grows exponentially there).
  // Booleans are 0 / 1; nullopt for anything else (an unknown constant or operator, a division by 0, overflow).
  class TermEvaluator {
  public:
    explicit TermEvaluator(std::unordered_map<unsigned, int64_t> values) : memo_(std::move(values)) {}
    std::optional<int64_t> operator()(const z3::expr &e) {
      if (auto it = memo_.find(e.id()); it != memo_.end()) return it->second;
      if (failed_.count(e.id())) return std::nullopt;
      std::optional<int64_t> v = compute(e);
      if (v) memo_.emplace(e.id(), *v);
      else failed_.insert(e.id());
      return v;
    }

  private:
    std::optional<int64_t> compute(const z3::expr &e) {
      int64_t n = 0;
      if (e.is_numeral_i64(n)) return n;
      if (!e.is_app()) return std::nullopt;
      if (e.is_true()) return 1;
      if (e.is_false()) return 0;
      std::vector<int64_t> args;
      const Z3_decl_kind k = e.decl().decl_kind();
      if (k == Z3_OP_ITE) {   // only the branch taken
        std::optional<int64_t> c = (*this)(e.arg(0));
        if (!c) return std::nullopt;
        return (*this)(e.arg(*c ? 1 : 2));
      }
      for (unsigned i = 0; i < e.num_args(); ++i) {
        std::optional<int64_t> x = (*this)(e.arg(i));
        if (!x) return std::nullopt;
        args.push_back(*x);
      }
      int64_t acc = 0;
      switch (k) {
      case Z3_OP_ADD:
        for (int64_t x : args)
          if (__builtin_add_overflow(acc, x, &acc)) return std::nullopt;
        return acc;
      case Z3_OP_SUB:
        if (args.empty()) return std::nullopt;
        acc = args[0];
        for (size_t i = 1; i < args.size(); ++i)
          if (__builtin_sub_overflow(acc, args[i], &acc)) return std::nullopt;
        return acc;
      case Z3_OP_UMINUS:
        if (args.size() != 1 || __builtin_sub_overflow(int64_t(0), args[0], &acc)) return std::nullopt;
        return acc;
      case Z3_OP_MUL:
        acc = 1;
        for (int64_t x : args)
          if (__builtin_mul_overflow(acc, x, &acc)) return std::nullopt;
        return acc;
      case Z3_OP_IDIV: case Z3_OP_MOD: {   // SMT-LIB: the remainder is never negative
        if (args.size() != 2 || args[1] == 0 || args[1] == INT64_MIN || (args[0] == INT64_MIN && args[1] == -1))
          return std::nullopt;
        int64_t a = args[0], b = args[1], q = a / b, r = a % b;
        if (r < 0) {
          r += b > 0 ? b : -b;
          q = b > 0 ? q - 1 : q + 1;
        }
        return k == Z3_OP_IDIV ? q : r;
      }
      case Z3_OP_LE: return args.size() == 2 ? std::optional<int64_t>(args[0] <= args[1]) : std::nullopt;
      case Z3_OP_LT: return args.size() == 2 ? std::optional<int64_t>(args[0] < args[1]) : std::nullopt;
      case Z3_OP_GE: return args.size() == 2 ? std::optional<int64_t>(args[0] >= args[1]) : std::nullopt;
      case Z3_OP_GT: return args.size() == 2 ? std::optional<int64_t>(args[0] > args[1]) : std::nullopt;
      case Z3_OP_EQ: return args.size() == 2 ? std::optional<int64_t>(args[0] == args[1]) : std::nullopt;
      case Z3_OP_DISTINCT: {
        std::set<int64_t> seen(args.begin(), args.end());
        return static_cast<int64_t>(seen.size() == args.size());
      }
      case Z3_OP_AND: return static_cast<int64_t>(std::all_of(args.begin(), args.end(), [](int64_t x) { return x != 0; }));
      case Z3_OP_OR: return static_cast<int64_t>(std::any_of(args.begin(), args.end(), [](int64_t x) { return x != 0; }));
      case Z3_OP_NOT: return args.size() == 1 ? std::optional<int64_t>(args[0] == 0) : std::nullopt;
      case Z3_OP_IMPLIES: return args.size() == 2 ? std::optional<int64_t>(args[0] == 0 || args[1] != 0) : std::nullopt;
      default: return std::nullopt;
      }
    }
    std::unordered_map<unsigned, int64_t> memo_;
    std::unordered_set<unsigned> failed_;
  };

  // One access evaluated for one thread: its condition, epochs and region as integers.
  struct ThreadPoint {
    bool active = false;
    int64_t epoch = 0, warpEpoch = 0;
    std::vector<std::pair<int64_t, int64_t>> region;   // [start, start + length) per dimension
  };

  // Do the access's condition, epochs and region mention no free constant but tid.x, warp and lane?  (A walk
  // over the terms' DAG: each node once.)
  bool threadOnlyAccess(const SharedAccess &a) {
    if (a.warpWide || a.inexact || !a.problem.empty()) return false;
    std::vector<z3::expr> terms = {a.cond, a.epoch, a.warpEpoch};
    for (const Region &r : a.region) terms.insert(terms.end(), {r.start, r.length});
    std::vector<z3::expr> threadVars = {tr_.builtinVar(BuiltinValue::TidX), tr_.builtinVar(BuiltinValue::Warp),
                                        tr_.builtinVar(BuiltinValue::Lane)};
    size_t known = threadVars.size();
    appendNewConstants(threadVars, freeConstants(terms));
    return threadVars.size() == known;
  }

  // Every thread's view of access i (memoised); nullopt when some term does not evaluate to a number.
  const std::optional<std::vector<ThreadPoint>> &threadPoints(size_t i) {
    auto it = threadPoints_.find(i);
    if (it != threadPoints_.end()) return it->second;
    const SharedAccess &a = accesses_[i];
    z3::expr_vector from(z3_);
    from.push_back(tr_.builtinVar(BuiltinValue::TidX));
    from.push_back(tr_.builtinVar(BuiltinValue::Warp));
    from.push_back(tr_.builtinVar(BuiltinValue::Lane));
    std::optional<std::vector<ThreadPoint>> points(std::vector<ThreadPoint>{});
    for (int64_t t = 0; t < ctx_.info().threads && points; ++t) {
      TermEvaluator ev({{from[0].id(), t}, {from[1].id(), t / 32}, {from[2].id(), t % 32}});
      ThreadPoint p;
      std::optional<int64_t> c = ev(a.cond);
      bool ok = c.has_value();
      if (ok && (p.active = *c != 0)) {
        std::optional<int64_t> epoch = ev(a.epoch), warpEpoch = ev(a.warpEpoch);
        ok = epoch && warpEpoch;
        p.epoch = epoch.value_or(0);
        p.warpEpoch = warpEpoch.value_or(0);
        for (const Region &r : a.region) {
          std::optional<int64_t> start = ev(r.start), length = ev(r.length);
          ok = ok && start && length;
          if (ok) p.region.emplace_back(*start, *start + *length);
        }
      }
      if (!ok) points.reset();
      else points->push_back(std::move(p));
    }
    return threadPoints_.emplace(i, std::move(points)).first->second;
  }

  // No two different threads execute accesses i and j in one interval on a common element (as checkPairs'
  // query: same epoch, and in one warp the same warp epoch).  False also when it cannot tell.
  bool threadOnlyRaceFree(size_t i, size_t j) {
    const std::optional<std::vector<ThreadPoint>> &pa = threadPoints(i);
    const std::optional<std::vector<ThreadPoint>> &pb = threadPoints(j);
    if (!pa || !pb) return false;
    for (size_t t1 = 0; t1 < pa->size(); ++t1) {
      const ThreadPoint &x = (*pa)[t1];
      if (!x.active) continue;
      for (size_t t2 = 0; t2 < pb->size(); ++t2) {
        const ThreadPoint &y = (*pb)[t2];
        if (t1 == t2 || !y.active || x.epoch != y.epoch) continue;
        if (!warpEpochUnknown_ && t1 / 32 == t2 / 32 && x.warpEpoch != y.warpEpoch) continue;
        bool overlap = true;   // as RaceWalker::overlap: the dimensions both have
        for (size_t d = 0; d < std::min(x.region.size(), y.region.size()) && overlap; ++d)
          overlap = x.region[d].first < y.region[d].second && y.region[d].first < x.region[d].second;
        if (overlap) return false;
      }
    }
    return true;
  }
  std::map<size_t, std::optional<std::vector<ThreadPoint>>> threadPoints_;

  // Two threads of one warp are ordered by a full-mask syncwarp between their accesses: unordered when they
  // are in different warps or their warp epochs are equal.
  z3::expr unorderedInWarp(const SharedAccess &a, const SharedAccess &b, const Renaming &second, const z3::expr &warp,
                           const z3::expr &warp2) {
    if (warpEpochUnknown_) return z3_.bool_val(true);
    z3::expr bWarpEpoch = rename(b.warpEpoch, second.from, second.to);
    z3::expr same = (a.warpEpoch == bWarpEpoch).simplify();
    if (same.is_true()) return same;
    return warp != warp2 || same;
  }

  static const SharedAccess &laterOf(const SharedAccess &a, const SharedAccess &b) {
    return b.range.begin.offset >= a.range.begin.offset ? b : a;
  }
  static const SharedAccess &otherOf(const SharedAccess &a, const SharedAccess &b, const SharedAccess &later) {
    return &later == &a ? b : a;
  }

  // "thread 40 (warp 1, lane 8), kt = 2"
  std::string threadText(const SharedAccess &x, const z3::model &m, const z3::expr_vector *from, const z3::expr_vector *to) {
    auto r = [&](const z3::expr &e) { return from ? rename(e, *from, *to) : e; };
    std::string out = threadPrefix(m, from, to);
    for (const LoopVar &l : x.loops) out += ", " + l.loop->name + " = " + value(m, r(l.var));
    return out;
  }

  std::string elementText(const SharedAccess &x, const z3::model &m, const z3::expr_vector *from, const z3::expr_vector *to) {
    return RaceWalker::elementText(x.array->name, x.region, m, from, to);
  }

  // The fix-it for a barrier missing between two accesses of one barrier interval: above the statement that holds
  // the later access, in the block that holds both.
  void insertBarrierBetween(DiagBuilder &d, const SharedAccess &earlier, const SharedAccess &later,
                            const char *barrier) {
    if (const BlockStmt *body = ctx_.kernel().body.get())
      if (std::optional<SourceRange> at = statementHoldingIn(*body, later.range, earlier.range))
        d.fixit(insertStatementBefore(ctx_.diags(), *at, barrier));
  }

  void reportRace(const SharedAccess &a, const SharedAccess &b, const z3::model &m, const z3::expr_vector &from,
                  const z3::expr_vector &to) {
    bool bIsLater = &laterOf(a, b) == &b;
    const SharedAccess &later = bIsLater ? b : a, &earlier = bIsLater ? a : b;
    const z3::expr_vector *lf = bIsLater ? &from : nullptr, *lt = bIsLater ? &to : nullptr;
    const z3::expr_vector *ef = bIsLater ? nullptr : &from, *et = bIsLater ? nullptr : &to;
    std::string kindLater = later.write ? "write" : "read";
    std::string kindEarlier = earlier.write ? "write" : "read";
    auto d = ctx_.reportFailure(later.atomic || earlier.atomic ? DiagKind::AtomicPlainRace : DiagKind::SharedMemoryRace,
                                later.range, later.what, later.array->name, earlier.what);
    d.note(earlier.range, "the other access: " + kindEarlier + " by " + threadText(earlier, m, ef, et));
    std::string shape = shapeText(m, {"block"});
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
    if (later.atomic != earlier.atomic) {
      const SharedAccess &plain = later.atomic ? earlier : later;
      d.note(headOf(plain.range), "no block barrier between the atomic and this plain access");
      d.hint("put 'syncthreads;' between the atomic updates and the plain " + std::string(plain.write ? "write" : "read") +
             ", or make it atomic too (atom.exch for a store, atom.add(T[i], 0) for a load)");
      insertBarrierBetween(d, earlier, later, "syncthreads;");
    } else if (across) {
      d.note(headOf(across->range), "no block barrier separates them between one iteration of loop '" + across->name +
                                        "' and the next (the accesses are in different iterations)");
      d.hint("add 'syncthreads;' so that every thread has finished with '" + later.array->name +
             "' before the next iteration touches it (for a ring buffer: before the stage is refilled)");
      if (across->body && !across->body->stmts.empty() && across->body->stmts.back())
        d.fixit(insertStatementAfter(ctx_.diags(), across->body->stmts.back()->range, "syncthreads;"));
    } else if (&a == &b || a.range.begin.offset == b.range.begin.offset) {
      d.hint("make every thread " + kindLater + " only elements no other thread touches before the next barrier "
             "(index by the thread), or reduce through warp shuffles");
    } else {
      d.note(headOf(earlier.range), "no block barrier between this access and the racing one");
      z3::expr w = tr_.builtinVar(BuiltinValue::Warp), w2 = rename(w, from, to);
      bool sameWarp = !later.warpWide && !earlier.warpWide && value(m, w) == value(m, w2);
      if (sameWarp)
        d.hint("both threads are lanes of warp " + value(m, w) + ": put 'syncwarp;' (or 'syncthreads;') between the " +
               kindEarlier + " and the " + kindLater);
      else
        d.hint("put 'syncthreads;' between the " + kindEarlier + " and the " + kindLater +
               " (a warp-level shuffle or a barrier every thread reaches)");
      insertBarrierBetween(d, earlier, later, sameWarp ? "syncwarp;" : "syncthreads;");
    }
  }
};

} // namespace

void verifySharedRaces(VerifyContext &ctx) { RaceChecker(ctx).run(); }

} // namespace cake

// SyncAnalysis: proves the synchronisation protocol of a kernel for every trip count and shape.
//
// Method (docs/verifier.md, "Synchronisation protocol"):
//   1. Sync loops.  Loops that contain synchronisation events (SyncModel.h) and whose bounds are symbolic
//      (shape variables, scalar params) define the kernel's trip counts t_1..t_m, as Z3 terms
//      max(0, cdiv(hi - lo, step)); trip terms that Z3 proves equal under requires(...) are merged.
//   2. Period.  P = 2 x lcm of the constant divisors / moduli / masks applied to loop variables and
//      counters in the sync-relevant expressions (stage index k % S and parity (k / S) & 1 give P = 2S),
//      or the lcm itself when the expressions' shapes suggest it (S odd) and every fact of step 3 is
//      proven for it.
//   3. Structural facts, proven with Z3 for all shapes allowed by requires(...):
//        periodicity   every sync-relevant expression E inside a sync loop satisfies E(k + P) == E(k) for
//                      lo + h <= k, k + P < hi (h = 0, or h = P for guards such as k > 0);
//        determinacy   every sync-relevant expression depends on the shape and the block's position only
//                      through the trip counts:
//                      shape' with t' = t gives E' == E, and (outside the loops) t' = t + P gives E' == E.
//      Together they make the event sequence of trip count T + P the sequence of T with one more period
//      inserted in the loop body's steady state.
//   4. Simulation.  For every feasible trip count T in a window of h + 2P + 3 counts from the smallest
//      feasible one (Z3 finds a shape with t = T, or proves there is none; placeTripWindows also proves that
//      every feasible count past the window leads back into it), the agents' event lists are expanded and
//      run by SyncSimulator, which checks
//      arrivals, expect_tx, parity, laps, initialisation, stage overwrite / read-before-fill, and deadlock.
//      Since the simulated range covers every residue of T mod P at least twice beyond the prefix h, and
//      the protocol state (barrier parities, balances, stage ownership) after a steady-state period of a
//      deadlock-free, race-free run is that of the previous period shifted by whole phases, longer trip
//      counts repeat the simulated behaviour (this last step is argued, not machine-checked).
//      Persistent kernels (tile loops, docs/verifier.md "Persistent kernels"): all tile counts of one
//      loop-trip vector are expanded and simulated together - the longest in full, the others as variants
//      sharing its beginning - with exactly the outcome each would have alone.
// Each refutation keeps the smallest trip count that shows it, as a concrete trace; anything that cannot
// be evaluated, translated or proven becomes an "unproven" finding (E0601) with the reason.
#include "verify/SyncAnalysis.h"

#include "frontend/Types.h"
#include "verify/SyncExprFacts.h"
#include "verify/EnclosingStatement.h"
#include "verify/InductionCounters.h"
#include "verify/NamedHandoffs.h"
#include "verify/SyncModel.h"
#include "verify/SyncSimulator.h"
#include "verify/VerifyContext.h"
#include "verify/Z3Terms.h"

#include <unordered_map>
#include <unordered_set>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <numeric>
#include <set>

namespace cake {

namespace {

constexpr size_t kMaxTripCombinations = 400;

class Analyzer {
public:
  explicit Analyzer(VerifyContext &ctx) : ctx_(ctx), z_(ctx.z3()) {}

  SyncAnalysis run() {
    const KernelInfo &info = ctx_.info();
    // No mbarrier protocol and no one-way named-barrier hand-off (NamedHandoffs.h): nothing for these families.
    if (info.mbarriers.empty() && (!ctx_.kernel().body || !usesNamedHandoffs(ctx_.kernel()))) return result_;
    result_.applicable = true;
    if (!ctx_.kernel().body) return result_;
    const Kernel &k = ctx_.kernel();

    std::vector<SyncLoop> loops;
    findSyncLoops(*k.body, loops);
    std::vector<const Expr *> allExprs;
    collectSyncExprs(*k.body, allExprs);
    collectDataGuards(*k.body);

    // 0. Induction counters: free integer constants in the proofs, tracked concretely by the expansion.
    counters_ = findInductionCounters(k, info);
    for (const auto &[decl, c] : counters_.counters) {
      // A counter that only grows never falls below its initial value (the other proofs, e.g. that a stage
      // index `w % S` is not negative, may use that).
      const std::string name = "var " + decl->name + "#" + std::to_string(counterVars_.size());
      z3::expr x = c.step > 0 ? ctx_.translator().newVar(name, c.init, std::nullopt) : z_.int_const(name.c_str());
      ctx_.translator().bind(decl, x);
      counterVars_.push_back(decl);
      counterTerms_.emplace(decl, x);
    }

    // 1. Trip-count terms of the symbolic sync loops (tile loops separately: they are driven directly).
    //    Tile loops first: a loop that runs as often as a tile loop joins its group (below).
    std::vector<const SyncLoop *> ordered;
    for (const SyncLoop &l : loops)
      if (l.symbolic && l.driven) ordered.push_back(&l);
    for (const SyncLoop &l : loops)
      if (l.symbolic && !l.driven) ordered.push_back(&l);
    for (const SyncLoop *lp : ordered) {
      const SyncLoop &l = *lp;
      if (mentions(l.loop->lower.get(), DeclKind::LoopVar) || mentions(l.loop->upper.get(), DeclKind::LoopVar) ||
          mentions(l.loop->step.get(), DeclKind::LoopVar)) {
        unproven(SyncFamily::Deadlock, l.loop->range, "the synchronisation protocol for every trip count",
                 "the bounds of a loop with synchronisation depend on an enclosing loop's variable");
        return finish();
      }
      if (mentions(l.loop->lower.get(), DeclKind::Var) || mentions(l.loop->upper.get(), DeclKind::Var) ||
          mentions(l.loop->step.get(), DeclKind::Var)) {
        unproven(SyncFamily::Deadlock, l.loop->range, "the synchronisation protocol for every trip count",
                 "the bounds of a loop with synchronisation depend on a mutable variable");
        return finish();
      }
      std::optional<z3::expr> t = tripTerm(*l.loop);
      if (!t) return finish();
      // A loop with no symbolic loop inside or around it that runs exactly as often as a tile loop (a
      // role's loop over the same tiles with no inner loop of its own: an epilogue draining one accumulator
      // per tile) is driven with that group, when nothing of its synchronisation reads its variable: as an
      // independent trip count it would be enumerated against the tile count, in combinations that never
      // occur (each simulated, refuted and then dropped by a shape query).
      const bool mayJoinTiles = !l.driven && !insideSymbolicLoop(loops, l) &&
                                std::none_of(l.exprs.begin(), l.exprs.end(),
                                             [&](const Expr *e) { return mentionsDecl(e, l.loop); });
      bool joined = false;
      for (size_t i = 0; i < drivenTrips_.size() && mayJoinTiles && !joined; ++i)
        if (ctx_.proveForAll(drivenTrips_[i] == *t).proven()) {
          drivenLoops_[i].push_back(l.loop);
          joined = true;
        }
      if (joined) continue;
      std::vector<z3::expr> &terms = l.driven ? drivenTrips_ : trips_;
      std::vector<std::vector<const ForStmt *>> &groups = l.driven ? drivenLoops_ : tripLoops_;
      bool merged = false;
      for (size_t i = 0; i < terms.size() && !merged; ++i) {
        ProofResult same = ctx_.proveForAll(terms[i] == *t);
        if (same.proven()) {
          merged = true;
          groups[i].push_back(l.loop);
        }
      }
      if (!merged) {
        terms.push_back(*t);
        groups.push_back({l.loop});
      }
    }
    for (size_t i = 0; i < drivenTrips_.size(); ++i)
      for (const ForStmt *f : drivenLoops_[i])
        if (!proveSameTripAcrossCluster(*f)) return finish();

    // 2. Period.
    std::vector<int64_t> moduli;
    for (const SyncLoop &l : loops)
      for (const Expr *e : l.exprs)
        if (e && (mentions(e, DeclKind::LoopVar) || mentions(e, DeclKind::Var))) collectModuli(e, moduli);
    for (const Expr *e : allExprs)
      if (e && mentions(e, DeclKind::Var)) collectModuli(e, moduli);
    int64_t lcm = 1;
    for (int64_t m : moduli)
      if (m > 0 && m <= kMaxPeriod) lcm = std::lcm(lcm, m);
    // The likely period, read off the expressions' shapes (`k % S`: S, `(k / S) & 1`: 2S): a candidate only.
    // (A flag and a value rather than std::optional: GCC 12 -O2 reports the optional's payload as
    // maybe-uninitialized inside std::lcm.)
    bool likelyKnown = true;
    int64_t likely = 1;
    auto fold = [&](const Expr *e) {
      if (!likelyKnown || !e) return;
      std::optional<ShapePeriod> sp = shapePeriod(e, 0);
      if (!sp || sp->kind == ShapePeriod::Linear) likelyKnown = false;
      else likely = std::lcm(likely, sp->period);
    };
    for (const SyncLoop &l : loops)
      for (const Expr *e : l.exprs)
        if (e && (mentions(e, DeclKind::LoopVar) || mentions(e, DeclKind::Var))) fold(e);
    for (const Expr *e : allExprs)
      if (e && mentions(e, DeclKind::Var)) fold(e);

    // 3. Structural facts for every trip count, with the smallest period that has them: lcm when every
    //    fact holds for it (`(k / S) & 1` with S odd: lcm(S, 2) = 2S), else 2 x lcm (S even needs 2S).
    //    lcm is tried only when the expressions' shapes suggest it; the trial stops at its first failure
    //    and leaves no trace.  Either way the facts used are the ones proven for the period used.
    int64_t prefix = 0, counterPrefix = 0;
    if (2 * lcm <= kMaxPeriod && likelyKnown && likely == lcm) {
      SyncAnalysis before = result_;
      size_t heldBefore = heldBack_.size();
      std::set<const IfStmt *> mayBefore = mayGuards_;
      period_ = lcm;
      trialFindings_ = result_.findings.size();
      bool held = proveStructure(loops, allExprs, prefix, counterPrefix);
      trialFindings_ = SIZE_MAX;
      if (!held) {
        result_ = std::move(before);
        heldBack_.resize(heldBefore);
        mayGuards_ = std::move(mayBefore);
        period_ = 2 * lcm;
        proveStructure(loops, allExprs, prefix, counterPrefix);
      }
    } else {
      period_ = std::min<int64_t>(2 * lcm, kMaxPeriod);
      proveStructure(loops, allExprs, prefix, counterPrefix);
    }

    // 3b. The trip counts' own period: P is a period of everything, but inserting iterations of a trip loop
    //     shifts only that loop's variable and the counters it advances; those often repeat sooner (a tile
    //     counter w with `w % 2` and `(w / 2) & 1` and a ring counter it += 2 with `it % 3` make P = 12,
    //     while the k-tile loop repeats every 3 iterations).  Each enumerated dimension then spans its own
    //     period: the k-tile counts up to h + 2 x 3 + 2 instead of h + 2 x 12 + 2, in every tile count.
    int64_t tripPrefix = prefix;
    tripPeriod_ = period_;
    if (!trips_.empty() && result_.findings.empty() && heldBack_.empty()) findTripPeriod(loops, allExprs, counterPrefix, tripPrefix);

    // 4. Simulation of every feasible trip count up to prefix + 2P + 2 (tile loops: counter prefix + 2P + 2).
    int64_t maxTrip = std::min<int64_t>(tripPrefix + 2 * tripPeriod_ + 2, ctx_.options().maxSimulatedTrips);
    int64_t maxTiles = std::min<int64_t>(counterPrefix + 2 * period_ + 2, ctx_.options().maxSimulatedTrips);
    if (placeTripWindows(maxTrip, tripPrefix)) simulateAll(maxTiles);
    // CAKE_VERIFY_TIMES=1 (Verifier.cpp) also prints the size of the enumeration (profiling aid, stderr).
    if (std::getenv("CAKE_VERIFY_TIMES"))
      std::fprintf(stderr,
                   "cakec: verify %s: sync analysis: period %lld (trip counts: %lld, up to %lld; tile counts up to "
                   "%lld), %zu trip counts, %zu tile-loop groups, %zu shape queries, %zu expansions simulated\n",
                   k.name.c_str(), static_cast<long long>(period_), static_cast<long long>(tripPeriod_),
                   static_cast<long long>(maxTrip), static_cast<long long>(maxTiles), trips_.size(), drivenTrips_.size(),
                   shapeQueries_, simulatedPrograms_);
    return finish();
  }

private:
  // Step 3 with the current period_: periodicity in the loops and counters, determinacy.  Returns false
  // when a trial (trialFindings_ set) failed: some fact did not hold (it stopped there).
  bool proveStructure(const std::vector<SyncLoop> &loops, const std::vector<const Expr *> &allExprs,
                      int64_t &prefix, int64_t &counterPrefix) {
    prefix = 0;
    counterPrefix = 0;
    for (const SyncLoop &l : loops) {
      if (l.symbolic && !l.driven) prefix = std::max(prefix, provePeriodic(l));
      if (trialFailed()) return false;
    }
    for (const Expr *e : allExprs) {
      if (e) counterPrefix = std::max(counterPrefix, proveCounterPeriodic(*e));
      if (trialFailed()) return false;
    }
    prefix = std::max(prefix, counterPrefix);
    counterPrefix_ = counterPrefix;
    return proveDeterminacyOf(allExprs);
  }
  bool trialFailed() const { return trialFindings_ != SIZE_MAX && result_.findings.size() > trialFindings_; }
  // Determinacy of every sync-relevant expression but the loops' own bounds: the upper bounds of the trip
  // loops are the trip counts themselves, and the tile loops' bounds are never evaluated by the expansion.
  // False when a trial failed.
  bool proveDeterminacyOf(const std::vector<const Expr *> &allExprs) {
    std::set<const Expr *> bounds;
    for (const auto &group : tripLoops_)
      for (const ForStmt *f : group) bounds.insert(f->upper.get());
    for (const auto &group : drivenLoops_)
      for (const ForStmt *f : group) bounds.insert({f->lower.get(), f->upper.get(), f->step.get()});
    for (const Expr *e : allExprs) {
      if (e && !bounds.count(e)) proveDeterminacy(*e);
      if (trialFailed()) return false;
    }
    return true;
  }
  // A structural fact: under the solver limit, or a share of it in a trip-period trial (a candidate whose
  // fact is false costs the default solver's search for a counterexample, which only says "not this one").
  ProofResult proveFact(const z3::expr &claim, const std::vector<z3::expr> &extra) {
    if (tripTrial_) return ctx_.proveForAllWithin(claim, extra, std::max(1u, ctx_.options().timeoutMs / 10));
    return ctx_.proveForAll(claim, extra);
  }

  // Step 3b: the smallest divisor d of P for which the facts that concern the trip counts hold - every
  // expression of a trip loop repeats every d iterations of it, every counter advanced inside a trip loop
  // repeats every d of its increments (in every expression), and code after the loops repeats when a trip
  // count grows by d - so that a run with T + d iterations is a run with T and one more d-iteration period
  // in the steady state.  Each candidate is a trial that leaves no trace (the facts for P are the ones
  // counted); tripPeriod_ and `tripPrefix` (the prefix h those facts need) are set for the first that holds.
  void findTripPeriod(const std::vector<SyncLoop> &loops, const std::vector<const Expr *> &allExprs,
                      int64_t counterPrefix, int64_t &tripPrefix) {
    std::set<const ForStmt *> tripLoops;
    for (const auto &group : tripLoops_) tripLoops.insert(group.begin(), group.end());
    // The counters a trip loop advances: their loop is a trip loop or lies inside one.
    std::set<const Decl *> advanced;
    for (const auto &[decl, c] : counters_.counters) {
      if (c.step == 0) continue;
      for (size_t i = 0; i < loops.size(); ++i) {
        if (loops[i].loop != c.loop) continue;
        for (int p = static_cast<int>(i); p >= 0; p = loops[static_cast<size_t>(p)].parent)
          if (tripLoops.count(loops[static_cast<size_t>(p)].loop)) advanced.insert(decl);
      }
    }
    // Candidates: the divisors d of P that the moduli allow - each trip-loop variable's expressions apply
    // moduli whose lcm divides d, each advanced counter's (step c) moduli divide d x c (the moduli's lcm is
    // where a period starts: `(k / S) & 1` needs 2S, which the proof then rejects for d = S).
    std::vector<std::pair<int64_t, int64_t>> needs;   // (lcm of the moduli, step): d x step % lcm == 0
    for (const SyncLoop &l : loops)
      if (tripLoops.count(l.loop)) {
        std::vector<int64_t> moduli;
        for (const Expr *e : l.exprs)
          if (e && mentionsDecl(e, l.loop)) collectModuli(e, moduli);
        needs.push_back({lcmOf(moduli), 1});
      }
    for (const Decl *x : advanced) {
      std::vector<int64_t> moduli;
      for (const Expr *e : allExprs)
        if (e && mentionsDecl(e, x)) collectModuli(e, moduli);
      needs.push_back({lcmOf(moduli), std::abs(counters_.find(x)->step)});
    }
    const int64_t full = period_;
    for (int64_t d = 1; d < full; ++d) {
      if (full % d != 0) continue;
      if (std::any_of(needs.begin(), needs.end(), [&](const auto &n) { return (d * n.second) % n.first != 0; }))
        continue;
      SyncAnalysis before = result_;
      size_t heldBefore = heldBack_.size();
      period_ = d;
      trialFindings_ = result_.findings.size();
      tripTrial_ = true;
      int64_t prefix = 0;
      for (const SyncLoop &l : loops) {
        if (tripLoops.count(l.loop)) prefix = std::max(prefix, provePeriodic(l));
        if (trialFailed()) break;
      }
      for (const Expr *e : allExprs) {
        if (trialFailed()) break;
        if (e) prefix = std::max(prefix, proveCounterPeriodic(*e, &advanced));
      }
      bool held = !trialFailed() && proveDeterminacyOf(allExprs);
      trialFindings_ = SIZE_MAX;
      tripTrial_ = false;
      period_ = full;
      result_ = std::move(before);
      heldBack_.resize(heldBefore);
      if (held) {
        tripPeriod_ = d;
        tripPrefix = std::max(prefix, counterPrefix);
        return;
      }
    }
  }

  // The data guards (isDataGuard) of the kernel, by their conditions.
  void collectDataGuards(const Stmt &s) {
    switch (s.kind) {
    case StmtKind::Block:
      for (const Ptr<Stmt> &c : cast<BlockStmt>(&s)->stmts) collectDataGuards(*c);
      return;
    case StmtKind::Role: if (cast<RoleStmt>(&s)->body) collectDataGuards(*cast<RoleStmt>(&s)->body); return;
    case StmtKind::Elect: if (cast<ElectStmt>(&s)->body) collectDataGuards(*cast<ElectStmt>(&s)->body); return;
    case StmtKind::For: if (cast<ForStmt>(&s)->body) collectDataGuards(*cast<ForStmt>(&s)->body); return;
    case StmtKind::If: {
      auto *i = cast<IfStmt>(&s);
      if (isDataGuard(*i)) dataGuards_.emplace(i->cond.get(), i);
      if (i->thenBody) collectDataGuards(*i->thenBody);
      if (i->elseBody) collectDataGuards(*i->elseBody);
      return;
    }
    default: return;
    }
  }
  bool mayGuard(const Expr *cond) const {
    auto it = dataGuards_.find(cond);
    return it != dataGuards_.end() && mayGuards_.count(it->second);
  }
  // A structural fact about `e` failed: when e is a data guard's condition, the guard becomes a may-guard
  // (the expansion takes both branches, so the condition's value is never needed) instead of a finding.
  // Not in a trip-period trial: the trial would then hold only by the trial's own may-guards.
  bool excused(const Expr *e) {
    auto it = dataGuards_.find(e);
    if (it == dataGuards_.end() || tripTrial_) return false;
    mayGuards_.insert(it->second);
    return true;
  }

  // An expression the solver cannot take.  When the cause is a mutable variable that is not an induction
  // counter, the expansion reports the same cause more precisely (why the variable is not a counter) where
  // the value is needed: the finding is held back and reported at the end only if the expansion did not.
  void untranslatable(const TranslateFailure &f, SourceRange whole, std::string obligation, std::string reason) {
    SourceRange range = f.culprit ? f.culprit->range : whole;
    const Decl *var = nullptr;
    if (auto *n = f.culprit ? dynCast<NameExpr>(f.culprit) : nullptr; n && n->decl && n->decl->declKind == DeclKind::Var &&
                                                                      !counters_.find(n->decl))
      var = n->decl;
    if (!var) {
      unproven(SyncFamily::Deadlock, range, std::move(obligation), std::move(reason));
      return;
    }
    heldBack_.push_back({var, range, std::move(obligation), std::move(reason)});
  }
  // An expansion problem, reported as unproven.
  void explained(const SyncProblem &p) {
    if (p.variable) explainedVars_.insert(p.variable);
    unproven(SyncFamily::Deadlock, p.range, "the synchronisation protocol", p.what + " cannot be evaluated: " + p.reason);
  }

  SyncAnalysis finish() {
    for (HeldBack &h : heldBack_)
      if (!explainedVars_.count(h.var)) unproven(SyncFamily::Deadlock, h.range, std::move(h.obligation), std::move(h.reason));
    heldBack_.clear();
    // Obligations: per barrier (arrivals, expect_tx, parity / laps, initialisation), per staged shared array
    // (overwrite, read-before-fill), per agent (termination), plus the proven structural facts.
    unsigned failedPerFamily[3] = {0, 0, 0};
    for (const SyncFinding &f : result_.findings) failedPerFamily[static_cast<int>(f.family)]++;
    unsigned obligations[3] = {static_cast<unsigned>(4 * ctx_.info().mbarriers.size()),
                               static_cast<unsigned>(2 * ctx_.info().shared.size()),
                               static_cast<unsigned>(buildAgents(ctx_.info()).size())};
    for (int f = 0; f < 3; ++f)
      result_.proven[f] += obligations[f] > failedPerFamily[f] ? obligations[f] - failedPerFamily[f] : 0;
    return result_;
  }

  void unproven(SyncFamily family, SourceRange range, std::string obligation, std::string reason) {
    for (const SyncFinding &f : result_.findings)
      if (f.unproven && f.range.begin.offset == range.begin.offset && f.args[0] == obligation) return;
    SyncFinding f;
    f.family = family;
    f.unproven = true;
    f.range = range;
    f.args = {std::move(obligation), std::move(reason)};
    result_.findings.push_back(std::move(f));
  }

  void inconclusive(const ProofResult &r, SourceRange range, const std::string &obligation) {
    // One report per obligation text is enough: the kernel is unproven either way.
    for (const SyncFinding &f : result_.findings)
      if (f.unproven && f.timedOut == r.timedOut && f.args[0] == obligation) return;
    SyncFinding f;
    f.family = SyncFamily::Deadlock;
    f.unproven = true;
    f.timedOut = r.timedOut;
    f.range = range;
    f.args = {obligation, r.refuted() ? "counterexample " + r.counterexampleText() : r.reason};
    result_.findings.push_back(std::move(f));
  }

  std::optional<z3::expr> tripTerm(const ForStmt &loop) {
    TranslateFailure why;
    std::optional<z3::expr> trips = ctx_.tripCount(loop, &why);
    if (!trips)
      unproven(SyncFamily::Deadlock, why.culprit ? why.culprit->range : loop.range,
               "the trip count of this loop", why.reason);
    return trips;
  }

  // Returns the prefix h (0 or P) from which the loop's sync expressions are P-periodic.
  int64_t provePeriodic(const SyncLoop &l) {
    int64_t prefix = 0;
    ExprToZ3 &tr = ctx_.translator();
    z3::expr k = tr.declVar(l.loop);
    TranslateFailure why;
    auto lo = ctx_.toZ3(*l.loop->lower, &why);
    auto hi = ctx_.toZ3(*l.loop->upper, &why);
    if (!lo || !hi) return prefix;
    for (const Expr *e : l.exprs) {
      if (!e || !mentions(e, DeclKind::LoopVar) || mayGuard(e)) continue;
      TranslateFailure f;
      auto at = ctx_.toZ3(*e, &f);
      if (!at) {
        if (!excused(e)) untranslatable(f, e->range, "that this expression repeats with the pipeline period", f.reason);
        continue;
      }
      if (trialFailed()) return prefix;
      z3::expr shifted = at->substitute(vec(k), vec(k + z_.int_val(period_)));
      bool done = false;
      for (int64_t h : {int64_t(0), int64_t(1), period_}) {
        ProofResult r = proveFact(*at == shifted, {k >= *lo + z_.int_val(h), k + z_.int_val(period_) < *hi});
        if (r.proven()) {
          prefix = std::max(prefix, h);
          result_.proven[static_cast<int>(SyncFamily::Deadlock)]++;
          done = true;
          break;
        }
        if (r.status == ProofStatus::Unknown) {
          if (!excused(e))
            inconclusive(r, e->range, "that this expression repeats every " + std::to_string(period_) +
                                          " iterations of '" + l.loop->name + "'");
          done = true;
          break;
        }
      }
      if (!done && !excused(e))
        unproven(SyncFamily::Deadlock, e->range,
                 "that this expression repeats every " + std::to_string(period_) + " iterations of '" + l.loop->name + "'",
                 "it is not periodic in '" + l.loop->name + "' (the verifier checks the pipeline by its period)");
    }
    return prefix;
  }

  z3::expr_vector vec(const z3::expr &e) {
    z3::expr_vector v(z_);
    v.push_back(e);
    return v;
  }

  // E depends on the shape only through the trip counts (and, outside sync loops, periodically in them).
  void proveDeterminacy(const Expr &e) {
    if ((!isSymbolic(&e) && !readsBlockPosition(&e)) || mayGuard(&e)) return;
    TranslateFailure f;
    auto term = ctx_.toZ3(e, &f);
    if (!term) {
      if (!excused(&e))
        untranslatable(f, e.range, "the synchronisation protocol for every shape", "it depends on " + f.reason);
      return;
    }
    // The symbolic inputs: shape variables and scalar params (free constants named like them).
    z3::expr_vector from(z_), to(z_);
    for (const Ptr<ShapeVar> &sv : ctx_.kernel().shapeVars) {
      z3::expr v = ctx_.translator().declVar(sv.get());
      from.push_back(v);
      to.push_back(z_.int_const((v.decl().name().str() + "'").c_str()));
    }
    for (const Ptr<Param> &p : ctx_.kernel().params)
      if (p->type && p->type->isInteger()) {
        z3::expr v = ctx_.translator().declVar(p.get());
        from.push_back(v);
        to.push_back(z_.int_const((v.decl().name().str() + "'").c_str()));
      }
    // The block's position and the SM count too: the expansion simulates one CTA per trip vector (tile
    // counts, enumerated apart from the shape, likewise), so nothing else may depend on which CTA it is.
    for (const auto &[name, var] : ctx_.translator().freeVars())
        if (name == "block.x" || name == "block.y" || name == "block.z" || name == "num_sms") {
          from.push_back(var);
          to.push_back(z_.int_const((name + "'").c_str()));
        }
    // And what the launch reads from memory (a sequence's bounds in a variable-length batch).
    for (const ExprToZ3::LaunchRead &read : ctx_.translator().launchReads()) {
      from.push_back(read.value);
      to.push_back(z_.int_const((read.value.decl().name().str() + "'").c_str()));
    }
    if (from.empty()) return;
    z3::expr assumptions = ctx_.scopedAssumptions({}, *term);
    std::vector<z3::expr> extra = {assumptions.substitute(from, to)};
    z3::expr sameTrips = z_.bool_val(true), shiftedTrips = z_.bool_val(true);
    for (z3::expr t : trips_) {
      sameTrips = sameTrips && t.substitute(from, to) == t;
      shiftedTrips = shiftedTrips && t.substitute(from, to) == t + z_.int_val(period_);
    }
    z3::expr other = term->substitute(from, to);
    extra.push_back(sameTrips);
    ProofResult same = proveFact(*term == other, extra);
    if (!same.proven()) {
      if (excused(&e)) return;
      if (same.refuted())
        unproven(SyncFamily::Deadlock, e.range, "the synchronisation protocol for every shape",
                 std::string(readsBlockPosition(&e) ? "this expression depends on the shape or on which CTA runs it"
                                                    : "this expression depends on the shape") +
                     " beyond the loop trip counts (" + same.counterexampleText() + ")");
      else
        inconclusive(same, e.range, "that this expression depends on the shape only through the trip counts");
      return;
    }
    result_.proven[static_cast<int>(SyncFamily::Deadlock)]++;
    if (mentions(&e, DeclKind::LoopVar) || trips_.empty()) return;
    extra.back() = shiftedTrips;
    ProofResult shifted = proveFact(*term == other, extra);
    if (shifted.proven()) {
      result_.proven[static_cast<int>(SyncFamily::Deadlock)]++;
      return;
    }
    if (excused(&e)) return;
    if (shifted.refuted())
      unproven(SyncFamily::Deadlock, e.range, "the synchronisation protocol for every trip count",
               "this expression is not periodic in the trip count with period " + std::to_string(period_));
    else
      inconclusive(shifted, e.range, "that this expression repeats with the pipeline period");
  }

  // Every CTA of a cluster runs a tile loop the same number of times (the tile count is enumerated once for
  // all agents): each bound of the loop is equal for block.x = B*cx + r1 (rank r1) and B*cx + r2 (rank r2).
  bool proveSameTripAcrossCluster(const ForStmt &loop) {
    const KernelInfo &info = ctx_.info();
    int64_t ctas = info.cluster[0] * info.cluster[1] * info.cluster[2];
    if (ctas <= 1) return true;
    const std::string obligation = "that every CTA of the cluster runs this loop equally often";
    if (info.cluster[1] != 1 || info.cluster[2] != 1) {
      unproven(SyncFamily::Deadlock, loop.range, obligation, "tile loops are supported in one-dimensional clusters only");
      return false;
    }
    for (const Expr *bound : {loop.lower.get(), loop.upper.get(), loop.step.get()}) {
      if (!bound) continue;
      std::string why;
      if (!clusterInvariant(*bound, why, 0)) {
        unproven(SyncFamily::Deadlock, bound->range, obligation, why);
        return false;
      }
    }
    result_.proven[static_cast<int>(SyncFamily::Deadlock)]++;
    return true;
  }

  // Is e the same in every CTA of a (one-dimensional) cluster?  Proven for e as a whole, or - when the
  // solver gives up on it - by congruence from its operands.
  bool clusterInvariant(const Expr &e, std::string &why, unsigned depth) {
    if (depth > 32) {
      why = "the expression is nested too deeply";
      return false;
    }
    if (auto *n = dynCast<NameExpr>(&e); n && clusterInvariantLets_.count(n->decl)) return true;
    TranslateFailure f;
    auto term = ctx_.toZ3(e, &f);
    if (!term) {
      why = "it depends on " + f.reason;
      return false;
    }
    ExprToZ3 &tr = ctx_.translator();
    z3::expr bx = tr.builtinVar(BuiltinValue::BlockX), rank = tr.builtinVar(BuiltinValue::ClusterRank);
    z3::expr cxv = tr.builtinVar(BuiltinValue::ClusterX);
    z3::expr base = z_.int_const("cluster#"), r1 = z_.int_const("rank#1"), r2 = z_.int_const("rank#2");
    z3::expr cx = z_.int_val(ctx_.info().cluster[0]);
    z3::expr_vector from(z_), to1(z_), to2(z_);
    from.push_back(bx), from.push_back(rank), from.push_back(cxv);
    to1.push_back(base * cx + r1), to1.push_back(r1), to1.push_back(r1);
    to2.push_back(base * cx + r2), to2.push_back(r2), to2.push_back(r2);
    z3::expr one = term->substitute(from, to1), two = term->substitute(from, to2);
    if (z3::eq(one, two)) return true;   // mentions no CTA-dependent builtin
    z3::expr a = ctx_.scopedAssumptions({}, *term);
    ProofResult r = ctx_.proveForAll(one == two, {a.substitute(from, to1), a.substitute(from, to2), base >= 0,
                                                  r1 >= 0, r1 < cx, r2 >= 0, r2 < cx});
    if (r.proven()) return true;
    if (r.refuted()) {
      why = "it differs between the CTAs of a cluster (" + r.counterexampleText() + ")";
      return false;
    }
    // Congruence: every operand is invariant.
    std::vector<const Expr *> parts;
    switch (e.kind) {
    case ExprKind::Name: {
      const Decl *d = cast<NameExpr>(&e)->decl;
      if (d && d->declKind == DeclKind::Let) {
        if (clusterInvariantLets_.count(d)) return true;   // each let proven once: chains stay linear
        const Expr *init = static_cast<const LetStmt *>(d)->init.get();
        if (!init || !clusterInvariant(*init, why, depth + 1)) return false;
        clusterInvariantLets_.insert(d);
        return true;
      }
      break;
    }
    case ExprKind::Unary: parts.push_back(cast<UnaryExpr>(&e)->operand.get()); break;
    case ExprKind::Binary: parts = {cast<BinaryExpr>(&e)->lhs.get(), cast<BinaryExpr>(&e)->rhs.get()}; break;
    case ExprKind::Call:
      for (const Ptr<Expr> &x : cast<CallExpr>(&e)->args) parts.push_back(x.get());
      break;
    default: break;
    }
    if (parts.empty()) {
      why = r.reason.empty() ? "the solver could not decide it" : r.reason;
      return false;
    }
    for (const Expr *x : parts)
      if (!x || !clusterInvariant(*x, why, depth + 1)) return false;
    return true;
  }

  // An expression over induction counters repeats when a counter advances by P iterations: E(x + P*c) ==
  // E(x) for every x at least h iterations past its initial value.  Returns h (0, 1 or P).
  // `only`: shift just these counters (the others stay).
  int64_t proveCounterPeriodic(const Expr &e, const std::set<const Decl *> *only = nullptr) {
    if (!mentions(&e, DeclKind::Var) || mayGuard(&e)) return 0;
    TranslateFailure f;
    auto at = ctx_.toZ3(e, &f);
    if (!at) {
      if (!excused(&e)) untranslatable(f, e.range, "that this expression repeats with the pipeline period", f.reason);
      return 0;
    }
    z3::expr_vector from(z_), to(z_);
    std::vector<std::pair<z3::expr, const InductionCounter *>> used;
    for (const Decl *d : counterVars_) {
      if (!mentionsDecl(&e, d) || (only && !only->count(d))) continue;
      const InductionCounter *c = counters_.find(d);
      z3::expr x = counterTerms_.at(d);
      from.push_back(x);
      to.push_back(x + z_.int_val(period_ * c->step));
      used.emplace_back(x, c);
    }
    if (used.empty()) return 0;   // only non-counter vars: the expansion reports them
    for (int64_t h : {int64_t(0), int64_t(1), period_}) {
      // Shift one counter at a time (each may advance independently of the others).
      bool all = true, unknown = false;
      for (size_t i = 0; i < used.size() && all; ++i) {
        z3::expr_vector f1(z_), t1(z_);
        f1.push_back(from[static_cast<unsigned>(i)]);
        t1.push_back(to[static_cast<unsigned>(i)]);
        std::vector<z3::expr> past;
        for (const auto &[x, c] : used)
          past.push_back(c->step > 0 ? x >= z_.int_val(c->init + h * c->step) : x <= z_.int_val(c->init + h * c->step));
        ProofResult r = proveFact(*at == at->substitute(f1, t1), past);
        if (!r.proven()) all = false;
        if (r.status == ProofStatus::Unknown) {
          if (!excused(&e))
            inconclusive(r, e.range, "that this expression repeats every " + std::to_string(period_) +
                                         " increments of its counter");
          unknown = true;
        }
      }
      if (unknown) return 0;
      if (all) {
        result_.proven[static_cast<int>(SyncFamily::Deadlock)]++;
        return h;
      }
    }
    if (excused(&e)) return 0;
    unproven(SyncFamily::Deadlock, e.range,
             "that this expression repeats every " + std::to_string(period_) + " increments of its counter",
             "it is not periodic in the counter (the verifier checks the pipeline by its period)");
    return 0;
  }

  // A NameExpr referring to `d` inside e (through lets), to translate the counter's bound constant.
  static const Expr *nameOf(const Decl *d, const Expr &e) {
    const Expr *found = nullptr;
    std::unordered_set<const Decl *> seen;   // each let searched once
    std::function<void(const Expr *, unsigned)> go = [&](const Expr *x, unsigned depth) {
      if (!x || found || depth > 64) return;
      switch (x->kind) {
      case ExprKind::Name: {
        const Decl *nd = cast<NameExpr>(x)->decl;
        if (nd == d) found = x;
        else if (nd && nd->declKind == DeclKind::Let && seen.insert(nd).second)
          go(static_cast<const LetStmt *>(nd)->init.get(), depth + 1);
        return;
      }
      case ExprKind::Unary: go(cast<UnaryExpr>(x)->operand.get(), depth + 1); return;
      case ExprKind::Binary: go(cast<BinaryExpr>(x)->lhs.get(), depth + 1); go(cast<BinaryExpr>(x)->rhs.get(), depth + 1); return;
      case ExprKind::Call:
        for (const Ptr<Expr> &a : cast<CallExpr>(x)->args) go(a.get(), depth + 1);
        return;
      case ExprKind::Member: go(cast<MemberExpr>(x)->base.get(), depth + 1); return;
      case ExprKind::Index: {
        auto *ix = cast<IndexExpr>(x);
        go(ix->base.get(), depth + 1);
        for (const IndexItem &it : ix->items) go(it.start.get(), depth + 1);
        return;
      }
      default: return;
      }
    };
    go(&e, 0);
    return found;
  }
  static bool mentionsDecl(const Expr *e, const Decl *d) { return e && nameOf(d, *e) != nullptr; }
  static bool insideSymbolicLoop(const std::vector<SyncLoop> &loops, const SyncLoop &l) {
    for (int p = l.parent; p >= 0; p = loops[static_cast<size_t>(p)].parent)
      if (loops[static_cast<size_t>(p)].symbolic) return true;
    return false;
  }

  // One shape query: requires(...), the translator's side conditions and `condition` (shapeFor says which
  // solver answers).  Kept out of the verifier session's solvers: the shape enumeration's terms and
  // lemmas left there changed how later nonlinear queries of other families searched.
  z3::check_result checkShape(const z3::expr &condition, std::optional<z3::model> *model, std::string *reason) {
    // Each assumption is checked for linearity once and, while all are linear, asserted in the incremental
    // solver (the trip-count terms, fixed for the analysis, are asserted per query).
    if (!tripTermsChecked_) {
      for (const std::vector<z3::expr> *terms : {&trips_, &drivenTrips_})
        for (const z3::expr &t : *terms) shapesNonlinear_ = shapesNonlinear_ || isNonlinear(t);
      tripTermsChecked_ = true;
    }
    auto take = [&](const z3::expr &a) {
      shapesNonlinear_ = shapesNonlinear_ || isNonlinear(a);
      if (!shapesNonlinear_) incrementalShapeSolver().add(a);
    };
    for (; shapeRequirements_ < ctx_.requirements().size(); ++shapeRequirements_)
      take(ctx_.requirements()[shapeRequirements_]);
    // Not the loop variables' bounds: they hold inside their loops, and would exclude every shape where a loop
    // does not run (VerifyContext::scopedAssumptions).
    const std::unordered_map<size_t, unsigned> &loopBounds = ctx_.translator().loopBoundOwners();
    for (; shapeSideConditions_ < ctx_.translator().sideConditions().size(); ++shapeSideConditions_)
      if (!loopBounds.count(shapeSideConditions_)) take(ctx_.translator().sideConditions()[shapeSideConditions_]);
    std::optional<z3::solver> fresh;
    if (shapesNonlinear_ || isNonlinear(condition)) {
      if (!shapeTactic_)
        shapeTactic_.emplace(z3::tactic(z_, "simplify") & z3::tactic(z_, "propagate-values") &
                             z3::tactic(z_, "solve-eqs") & z3::tactic(z_, "smt"));
      fresh.emplace(shapeTactic_->mk_solver());
      ctx_.configureSolver(*fresh);
      for (const z3::expr &r : ctx_.requirements()) fresh->add(r);
      for (size_t i = 0; i < ctx_.translator().sideConditions().size(); ++i)
        if (!loopBounds.count(i)) fresh->add(ctx_.translator().sideConditions()[i]);
    } else {
      incrementalShapeSolver().push();
    }
    z3::solver &solver = fresh ? *fresh : *shapeSolver_;
    struct PopScope {
      z3::solver *s;
      ~PopScope() {
        if (s) s->pop();
      }
    } popScope{fresh ? nullptr : &solver};
    solver.add(condition);
    ++shapeQueries_;
    z3::check_result r = solver.check();
    if (r == z3::sat && model) *model = solver.get_model();
    if (r == z3::unknown && reason) *reason = solver.reason_unknown();
    return r;
  }

  // A shape (with its model) satisfying `condition` - Refuted: found, Proven: none exists, Unknown: undecided.
  ProofResult findShape(const z3::expr &condition) {
    ProofResult out;
    std::optional<z3::model> model;
    std::string why;
    z3::check_result r = checkShape(condition, &model, &why);
    if (r == z3::unsat) {
      out.status = ProofStatus::Proven;
    } else if (r == z3::sat) {
      out.status = ProofStatus::Refuted;
      for (const auto &[name, var] : ctx_.translator().freeVars()) {
        int64_t v = 0;
        if (model->eval(var, true).is_numeral_i64(v)) out.counterexample.emplace_back(name, v);
      }
      out.model = std::move(model);
    } else {
      out.reason = why;
      out.timedOut = VerifyContext::isLimitReason(why);
    }
    return out;
  }

  // A shape (model) for the given trip counts; nullopt when infeasible or unknown (reported).
  // A trip value below 0 leaves its term free.  An undecided query is a finding (unproven) when reportUnknown,
  // else taken as "a shape exists" (nullopt is returned only for unsat).
  std::optional<ConcreteValues> shapeFor(const std::vector<int64_t> &tripValues, std::string &description,
                                        const std::vector<int64_t> &drivenValues = {}, bool reportUnknown = true) {
    // Linear assumptions (requires(...), the translator's side conditions, the trip-count terms): one
    // incremental solver serves every shape query of the analysis (thousands of them in a persistent kernel's
    // enumeration, where a fresh solver per query spent more on setting up than on solving).  The assumptions
    // only grow, so each is asserted once at the base level, the ones added since the last query first; each
    // query is a push / pop scope above them.
    // Nonlinear ones: a fresh solver per query, asked once, so that Z3 preprocesses the query as a whole
    // (solving the equations of requires(...) such as `KP == cdiv(cdiv(K, 2 BN), LP / 4) * (LP / 4) * 2 BN`
    // for their variable) before its search.  An incremental solver skips that preprocessing, and its
    // nonlinear search depends on what earlier queries left in it and on the term ids of the file's shared
    // Z3 context: the same query for knn_topk was answered at once after the other kernels of its file had
    // been verified and ran for minutes alone, its resource limit counting so slowly there (20 ms of limit:
    // 4 s, 80 ms: 54 s) that it bounded nothing.
    std::vector<z3::expr> vars;   // declared first: declaring a variable may add its range as a side condition
    for (const Ptr<ShapeVar> &sv : ctx_.kernel().shapeVars) vars.push_back(ctx_.translator().declVar(sv.get()));
    std::vector<const Param *> params;
    for (const Ptr<Param> &prm : ctx_.kernel().params)
      if (prm->type && prm->type->isInteger()) {
        params.push_back(prm.get());
        vars.push_back(ctx_.translator().declVar(prm.get()));
      }
    z3::expr condition = z_.bool_val(true);
    for (size_t i = 0; i < trips_.size(); ++i)
      if (tripValues[i] >= 0) condition = condition && trips_[i] == z_.int_val(tripValues[i]);
    for (size_t i = 0; i < drivenValues.size() && i < drivenTrips_.size(); ++i)
      if (drivenValues[i] >= 0) condition = condition && drivenTrips_[i] == z_.int_val(drivenValues[i]);
    std::optional<z3::model> model;
    std::string why;
    z3::check_result r = checkShape(condition, &model, &why);
    if (r == z3::unsat) return std::nullopt;
    if (r == z3::unknown && !reportUnknown) return ConcreteValues{};
    if (r == z3::unknown) {
      SyncFinding f;
      f.family = SyncFamily::Deadlock;
      f.unproven = true;
      f.range = ctx_.kernel().nameRange;
      f.args = {"the synchronisation protocol for trip count " + std::to_string(tripValues.empty() ? 0 : tripValues[0]),
                "no shape could be found or excluded: " + why};
      f.timedOut = VerifyContext::isLimitReason(why);
      result_.findings.push_back(std::move(f));
      return std::nullopt;
    }
    const z3::model &m = *model;
    ConcreteValues values;
    size_t i = 0;
    for (const Ptr<ShapeVar> &sv : ctx_.kernel().shapeVars) {
      int64_t v = 1;
      m.eval(vars[i++], true).is_numeral_i64(v);
      values.decls[sv.get()] = v;
      description += (description.empty() ? "" : ", ") + sv->name + " = " + std::to_string(v);
    }
    for (const Param *prm : params) {
      int64_t v = 0;
      m.eval(vars[i++], true).is_numeral_i64(v);
      values.decls[prm] = v;
      description += (description.empty() ? "" : ", ") + prm->name + " = " + std::to_string(v);
    }
    for (const auto &[name, var] : ctx_.translator().freeVars()) {
      int64_t v = 0;
      if (!m.eval(var, true).is_numeral_i64(v)) continue;
      if (name == "block.x") values.builtins[BuiltinValue::BlockX] = v;
      else if (name == "block.y") values.builtins[BuiltinValue::BlockY] = v;
      else if (name == "block.z") values.builtins[BuiltinValue::BlockZ] = v;
      else if (name == "num_sms") values.builtins[BuiltinValue::NumSms] = v;
    }
    for (const ExprToZ3::LaunchRead &read : ctx_.translator().launchReads()) {
      int64_t v = 0;
      if (!m.eval(read.value, true).is_numeral_i64(v)) continue;
      values.launchValues[read.node] = v;
      description += (description.empty() ? "" : ", ") + sourceText(ctx_.diags(), read.node->range) + " = " +
                     std::to_string(v);
    }
    return values;
  }

  // Can each loop trip count occur with each tile count (a shape query per pair, memoised)?  Undecided pairs
  // count as feasible: the joint query decides (and reports) them.  Each tile count alone first (memoised too):
  // a tile count that never occurs rules out its pair with every trip count in one query (a tile loop that
  // cannot run, from 0x7fffffff: 268 pair queries -> 19).
  bool pairsFeasible(const std::vector<int64_t> &loopTrips, const std::vector<int64_t> &tiles) {
    for (size_t j = 0; j < tiles.size(); ++j)
      if (!tileCountFeasible(j, tiles[j])) return false;
    for (size_t i = 0; i < loopTrips.size(); ++i)
      for (size_t j = 0; j < tiles.size(); ++j) {
        auto key = std::make_tuple(i, loopTrips[i], j, tiles[j]);
        auto known = pairFeasible_.find(key);
        if (known == pairFeasible_.end()) {
          std::vector<int64_t> trip(loopTrips.size(), -1), tile(tiles.size(), -1);
          trip[i] = loopTrips[i];
          tile[j] = tiles[j];
          std::string unused;
          known = pairFeasible_.emplace(key, shapeFor(trip, unused, tile, false).has_value()).first;
        }
        if (!known->second) return false;
      }
    return true;
  }

  bool tileCountFeasible(size_t tileLoop, int64_t count) {
    auto known = tileFeasible_.find({tileLoop, count});
    if (known == tileFeasible_.end()) {
      std::vector<int64_t> trip(trips_.size(), -1), tile(drivenTrips_.size(), -1);
      tile[tileLoop] = count;
      std::string unused;
      known = tileFeasible_.emplace(std::make_pair(tileLoop, count), shapeFor(trip, unused, tile, false).has_value()).first;
    }
    return known->second;
  }

  // Has a loop trip count, or the count alone, already been found never to occur with this count of the (one)
  // tile loop?
  bool knownInfeasible(const std::vector<int64_t> &loopTrips, int64_t tiles) const {
    if (auto known = tileFeasible_.find({size_t{0}, tiles}); known != tileFeasible_.end() && !known->second) return true;
    for (size_t i = 0; i < loopTrips.size(); ++i)
      if (auto known = pairFeasible_.find(std::make_tuple(i, loopTrips[i], size_t{0}, tiles));
          known != pairFeasible_.end() && !known->second)
        return true;
    return false;
  }

  // Tile counts to simulate for the given loop trip counts: counter prefix + 2m + 2, where m tiles advance
  // every counter by a multiple of P iterations, P * c in value (after m tiles the tile body repeats).  A
  // counter of loop L that sits directly in a tile loop advances by trip(L) iterations per tile; a counter
  // of the tile loop by one; any other nesting uses m = P.
  int64_t tilesNeeded(const std::vector<int64_t> &loopTrips, int64_t maxTiles) {
    int64_t m = 1;
    for (const auto &[decl, c] : counters_.counters) {
      int64_t perTile = c.step == 0 ? 0 : -1;
      for (const auto &group : drivenLoops_)
        if (std::find(group.begin(), group.end(), c.loop) != group.end()) perTile = 1;
      for (size_t i = 0; i < tripLoops_.size() && perTile < 0; ++i)
        if (std::find(tripLoops_[i].begin(), tripLoops_[i].end(), c.loop) != tripLoops_[i].end() &&
            directlyInTileLoop(c.loop))
          perTile = loopTrips[i];
      // The periodicity facts shift a counter by P iterations (P * step in value): m tiles must advance it by
      // a multiple of P iterations, whatever its step.
      int64_t advance = perTile < 0 ? 0 : perTile;
      int64_t mc = perTile < 0 ? period_ : period_ / std::gcd(period_, advance == 0 ? period_ : advance);
      m = std::lcm(m, mc);
    }
    if (counters_.counters.empty()) m = period_;
    return std::min(maxTiles, counterPrefix_ + 2 * m + 2);
  }
  // Is `loop` a direct child of a tile loop's body (no loop, if or elect in between)?
  bool directlyInTileLoop(const ForStmt *loop) const {
    for (const auto &group : drivenLoops_)
      for (const ForStmt *f : group)
        if (f->body)
          for (const Ptr<Stmt> &st : f->body->stmts)
            if (st.get() == loop) return true;
    return false;
  }

  // Step 4a: where each trip count's simulated window lies, and why it stands for every feasible count.
  // Step 5's argument derives a trip count T past the window from T - P, so T - P must be feasible too
  // (the structural facts are proven only for shapes requires(...) allows; requires(N == 6400) gives one
  // trip count, 100, and nothing below it).  Each window therefore starts at the smallest feasible count
  // (tripBase_), and every feasible count past it must step down by the trip period to a feasible count
  // with the other trip counts unchanged.  That is proven with a witness: one shape variable (or integer
  // parameter) lowered by a fixed amount d, found from a model of a count past the window, turns every
  // feasible shape past the window into a feasible one with P fewer iterations.  No witness: unproven.
  bool placeTripWindows(int64_t maxTrip, int64_t tripPrefix) {
    tripBase_.assign(trips_.size(), 0);
    tripSpan_.assign(trips_.size(), maxTrip);
    std::vector<z3::expr> inputs;   // shape variables, integer parameters, the block's position, the SM count
    for (const Ptr<ShapeVar> &sv : ctx_.kernel().shapeVars) inputs.push_back(ctx_.translator().declVar(sv.get()));
    for (const Ptr<Param> &p : ctx_.kernel().params)
      if (p->type && p->type->isInteger()) inputs.push_back(ctx_.translator().declVar(p.get()));
    for (const auto &[name, var] : ctx_.translator().freeVars())
      if (name == "block.x" || name == "block.y" || name == "block.z" || name == "num_sms") inputs.push_back(var);
    for (const ExprToZ3::LaunchRead &read : ctx_.translator().launchReads()) inputs.push_back(read.value);
    // ... and whatever else a trip count reads (a loop bound loaded from memory, as a free value).
    for (const std::vector<z3::expr> *terms : {&trips_, &drivenTrips_}) appendNewConstants(inputs, freeConstants(*terms));
    // What a shape must satisfy: requires(...) and the side conditions over the inputs alone (the others
    // constrain loop variables and thread indices, which a feasible shape does not fix).
    z3::expr feasible = z_.bool_val(true);
    for (const z3::expr &r : ctx_.requirements()) feasible = feasible && r;
    for (const z3::expr &c : ctx_.translator().sideConditions())
      if (onlyMentions(c, inputs)) feasible = feasible && c;
    auto obligation = [&](size_t i) {
      return "the synchronisation protocol for every trip count of '" + tripLoops_[i].front()->name + "'";
    };
    auto giveUp = [&](size_t i, const std::string &reason) {
      unproven(SyncFamily::Deadlock, tripLoops_[i].front()->range, obligation(i), reason);
      return false;
    };
    auto undecided = [&](size_t i, const ProofResult &r) {   // no shape could be found or excluded
      inconclusive(r, tripLoops_[i].front()->range, obligation(i));
      return false;
    };
    for (size_t i = 0; i < trips_.size(); ++i) {
      z3::expr t = trips_[i];
      // The smallest feasible count: 0 when the usual window already holds one, else a search.
      ProofResult low = findShape(t <= z_.int_val(maxTrip));
      if (low.status == ProofStatus::Unknown) return undecided(i, low);
      if (!low.refuted()) {
        int64_t hi = std::max<int64_t>(2 * maxTrip, 1);
        ProofResult r = findShape(t <= z_.int_val(hi));
        while (r.status == ProofStatus::Proven && hi < (int64_t(1) << 40)) r = findShape(t <= z_.int_val(hi *= 2));
        if (r.status == ProofStatus::Unknown) return undecided(i, r);
        if (r.status == ProofStatus::Proven) continue;   // no feasible shape at all: nothing runs
        int64_t lo = maxTrip;                            // infeasible up to lo, feasible at hi
        while (hi - lo > 1) {
          int64_t mid = lo + (hi - lo) / 2;
          ProofResult m = findShape(t <= z_.int_val(mid));
          if (m.status == ProofStatus::Unknown) return undecided(i, m);
          (m.refuted() ? hi : lo) = mid;
        }
        tripBase_[i] = hi;
      }
      // Counts past the window.
      int64_t past = tripBase_[i] + maxTrip + 1;
      ProofResult beyond = findShape(t >= z_.int_val(past));
      if (beyond.status == ProofStatus::Proven) continue;
      if (beyond.status == ProofStatus::Unknown || !beyond.model) return undecided(i, beyond);
      const int64_t steady = tripBase_[i] + tripPrefix + tripPeriod_;
      bool held = residuesInWindow(t, steady, past) || steppedTogether(i, inputs, feasible, past);
      if (!held) {
        // A residue class whose first feasible count lies past the window (trip counts in steps of 6 under
        // period 4): the window grows to the first feasible count of each class, up to the simulation's cap.
        const int64_t cap = tripBase_[i] + ctx_.options().maxSimulatedTrips;
        std::set<int64_t> classes;
        int64_t last = past - 1;
        for (int64_t T = past; T <= cap && static_cast<int64_t>(classes.size()) < tripPeriod_; ++T) {
          if (classes.count(T % tripPeriod_)) continue;
          ProofResult at = findShape(t == z_.int_val(T));
          if (at.status == ProofStatus::Unknown) return undecided(i, at);
          if (!at.refuted()) continue;
          classes.insert(T % tripPeriod_);
          last = T;
        }
        if (last >= past) {
          tripSpan_[i] = last - tripBase_[i];
          past = last + 1;
          held = residuesInWindow(t, steady, past) || steppedTogether(i, inputs, feasible, past);
        }
      }
      if (!held)
        return giveUp(i, "requires(...) allows " + std::to_string(beyond.model->eval(t, true).get_numeral_int64()) +
                             " iterations (" + beyond.counterexampleText() + ") and the verifier simulates up to " +
                             std::to_string(past - 1) + "; it could not show that every such count is reached " +
                             "from a smaller feasible one in steps of " + std::to_string(tripPeriod_) +
                             " iterations (no fixed decrease of the inputs does it)");
    }
    return true;
  }

  // placeTripWindows' residue check: every residue class (mod P) of the feasible counts past the window has a
  // feasible count in the window's steady part [from, past), so that step 5's argument has a simulated run
  // of that class to insert periods into.  The classes in the window are found first (equalities, cheap):
  // when all P are there, nothing past the window needs asking.
  bool residuesInWindow(const z3::expr &t, int64_t from, int64_t past) {
    const int64_t P = tripPeriod_;
    std::set<int64_t> inWindow;
    for (int64_t T = std::max<int64_t>(from, 0); T < past && static_cast<int64_t>(inWindow.size()) < P; ++T) {
      if (inWindow.count(T % P)) continue;
      if (findShape(t == z_.int_val(T)).refuted()) inWindow.insert(T % P);
    }
    for (int64_t r = 0; r < P && static_cast<int64_t>(inWindow.size()) < P; ++r) {
      if (inWindow.count(r)) continue;
      ProofResult beyond = findShape(z3::mod(t, z_.int_val(P)) == z_.int_val(r) && t >= z_.int_val(past));
      if (!beyond.proven()) return false;   // a class past the window that the window lacks (or undecided)
    }
    return true;
  }

  // placeTripWindows' witness: fixed decreases delta of every input at once (derived shape variables follow
  // their definitions: KP == cdiv(K, 256) * 256 lowers K and KP together), each taking trip count i down by
  // n_i P (n_i >= 1) and every other trip count down by n_j P (n_j >= 0: coupled counts such as M / 32 and
  // M / 64 fall together), the tile counts unchanged.  A step of several periods in several loops is still
  // periods inserted into each, which is what step 5 derives larger trip counts from.  Each delta and its n
  // are read off the smallest shape past the window that no earlier delta covers and the smallest shape below
  // it with the fewest periods removed (both smallest, so that a floor or ceiling division meets them on the
  // same side of its steps); then "some delta covers every shape past the window" is put to the solver, and
  // its counterexample, if any, starts the next round (a loaded sequence length beside the shape's, say,
  // needs a delta of its own).  A block index stays within the smaller grid: the last CTAs of the larger
  // one have no CTA of the same index below, and where the trip counts do not depend on the index any CTA
  // stands for them.
  bool steppedTogether(size_t i, const std::vector<z3::expr> &inputs, z3::expr feasible, int64_t past) {
    constexpr int kMaxRounds = 3;
    const int64_t P = tripPeriod_;
    const unsigned share = std::max(1u, ctx_.options().timeoutMs / 8);   // per query: a witness is optional
    auto smallest = [&](z3::optimize &opt, const std::vector<z3::expr> &minimise) -> std::optional<z3::model> {
      ctx_.configureOptimizer(opt, share);
      for (const z3::expr &x : minimise) opt.minimize(x);
      if (opt.check() != z3::sat) return std::nullopt;
      return opt.get_model();
    };
    z3::expr_vector from(z_), to(z_);   // the inputs, and fresh copies of them for the shape below
    std::vector<std::optional<z3::expr>> grids;   // per input: its grid dimension's size, for block indices
    for (size_t u = 0; u < inputs.size(); ++u) {
      from.push_back(inputs[u]);
      to.push_back(z_.int_const(("lower " + inputs[u].decl().name().str()).c_str()));
      std::string name = inputs[u].decl().name().str();
      size_t dim = name == "block.x" ? 0 : name == "block.y" ? 1 : name == "block.z" ? 2 : 3;
      grids.push_back(dim < ctx_.info().grid.size() && ctx_.info().grid[dim] ? ctx_.toZ3(*ctx_.info().grid[dim])
                                                                           : std::nullopt);
    }
    const z3::expr pastWindow = trips_[i] >= z_.int_val(past);
    z3::expr covered = z_.bool_val(false);   // some delta found so far takes this shape down
    for (int round = 0; round < kMaxRounds; ++round) {
      z3::optimize high(z_);
      high.add(feasible && pastWindow && !covered);
      std::optional<z3::model> top = smallest(high, inputs);
      if (!top) return false;
      z3::optimize low(z_);
      low.add(feasible.substitute(from, to));
      std::vector<z3::expr> periods;   // n_j
      for (size_t j = 0; j < trips_.size(); ++j) {
        z3::expr n = z_.int_const(("periods " + std::to_string(j)).c_str());
        periods.push_back(n);
        low.add(n >= (j == i ? 1 : 0));
        low.add(trips_[j].substitute(from, to) == top->eval(trips_[j], true) - n * z_.int_val(P));
      }
      for (z3::expr d : drivenTrips_) low.add(d.substitute(from, to) == top->eval(d, true));
      std::vector<z3::expr> objectives = {periods[i]};
      for (unsigned u = 0; u < to.size(); ++u) objectives.push_back(to[u]);
      std::optional<z3::model> below = smallest(low, objectives);
      if (!below) return false;
      z3::expr_vector lowered(z_);
      for (unsigned u = 0; u < from.size(); ++u)
        lowered.push_back(inputs[u] - (top->eval(inputs[u], true) - below->eval(to[u], true)).simplify());
      z3::expr_vector clamped(z_);
      for (unsigned u = 0; u < from.size(); ++u) {
        if (!grids[u]) {
          clamped.push_back(lowered[u]);
          continue;
        }
        z3::expr last = grids[u]->substitute(from, lowered) - 1;
        clamped.push_back(z3::ite(lowered[u] > last, last, z3::ite(lowered[u] < 0, z_.int_val(0), lowered[u])));
      }
      z3::expr step = feasible.substitute(from, clamped);
      for (size_t j = 0; j < trips_.size(); ++j)
        step = step && trips_[j].substitute(from, clamped) == trips_[j] - below->eval(periods[j], true) * z_.int_val(P);
      for (z3::expr d : drivenTrips_) step = step && d.substitute(from, clamped) == d;
      covered = covered || step;
      ProofResult uncovered = findShape(pastWindow && !covered);
      if (uncovered.proven()) return true;
      if (!uncovered.refuted()) return false;
    }
    return false;
  }

  // Are the free constants of `e` among `vars`?
  static bool onlyMentions(const z3::expr &e, const std::vector<z3::expr> &vars) {
    std::vector<z3::expr> all = vars;
    appendNewConstants(all, freeConstants({e}));
    return all.size() == vars.size();
  }

  void simulateAll(int64_t maxTiles) {
    const KernelInfo &info = ctx_.info();
    SlotTable slots = buildSlots(info);
    std::vector<SyncAgent> agents = buildAgents(info);
    // Trip-count vectors to explore: the loops' trip counts, then the tile loops' tile counts; smallest
    // total first, so that each refutation is found at its smallest trip counts.
    size_t dims = trips_.size() + drivenTrips_.size();
    std::vector<int64_t> limit(dims);
    for (size_t i = 0; i < dims; ++i) limit[i] = i < trips_.size() ? tripSpan_[i] : maxTiles;
    // A tile loop that runs for no shape (from 0x7fffffff) is simulated at tile count 0 alone: one shape query
    // instead of runs of ~2P + 2 tile counts that never occur (an undecided query enumerates them as before).
    for (size_t j = 0; j < drivenTrips_.size(); ++j)
      if (checkShape(drivenTrips_[j] >= 1, nullptr, nullptr) == z3::unsat) limit[trips_.size() + j] = 0;
    std::vector<std::vector<int64_t>> combos;
    size_t total = 0;   // combinations needed (beyond the cap: counted, not kept)
    // With one tile loop the tile counts of one loop-trip vector are simulated together, sharing the run of
    // the longest (simulateTileCounts): the cap counts loop-trip vectors, each with all its tile counts.
    bool shareTiles = drivenTrips_.size() == 1;
    std::map<std::vector<int64_t>, size_t> loopTripGroups;   // loop-trip vector -> order of first use
    auto needed = [&](const std::vector<int64_t> &c) {
      if (drivenTrips_.empty()) return true;
      std::vector<int64_t> loopTrips(c.begin(), c.begin() + static_cast<long>(trips_.size()));
      for (size_t i = trips_.size(); i < c.size(); ++i)
        if (c[i] > tilesNeeded(loopTrips, maxTiles)) return false;
      return true;
    };
    for (int64_t sum = 0;; ++sum) {
      size_t before = combos.size();
      bool any = false;   // some combination with this total exists within the limits
      std::vector<int64_t> c(dims, 0);
      std::function<void(size_t, int64_t)> gen = [&](size_t d, int64_t left) {
        if (d + 1 >= dims) {
          if (dims == 0) {
            if (left == 0) combos.push_back({});
            any = true;
            return;
          }
          if (left <= limit[d]) {
            c[d] = left + (d < trips_.size() ? tripBase_[d] : 0);
            any = true;
            if (!needed(c)) return;
            if (shareTiles) {
              std::vector<int64_t> loopTrips(c.begin(), c.begin() + static_cast<long>(trips_.size()));
              auto [group, fresh] = loopTripGroups.emplace(std::move(loopTrips), loopTripGroups.size());
              if (fresh) ++total;
              if (group->second < kMaxTripCombinations) combos.push_back(c);
              return;
            }
            if (combos.size() < kMaxTripCombinations) combos.push_back(c);
            ++total;
          }
          return;
        }
        for (int64_t v = 0; v <= std::min(left, limit[d]); ++v) {
          c[d] = v + (d < trips_.size() ? tripBase_[d] : 0);
          gen(d + 1, left - v);
        }
      };
      gen(0, sum);
      if (!any && combos.size() == before) break;
      if (dims == 0) break;
    }
    if (total > kMaxTripCombinations)
      unproven(SyncFamily::Deadlock, ctx_.kernel().nameRange, "the synchronisation protocol for every trip count",
               "the kernel has " + std::to_string(dims) + " independent symbolic loop trip counts (" +
                   std::to_string(total) + " combinations up to the period" +
                   (shareTiles ? " of the loops other than the tile loop" : "") + "); the verifier enumerates at most " +
                   std::to_string(kMaxTripCombinations));
    std::set<std::pair<int, uint32_t>> seen;   // (kind, offset) of reported refutations
    for (const SyncFinding &f : result_.findings) seen.insert({static_cast<int>(f.kind), f.range.begin.offset});
    std::map<std::vector<int64_t>, std::optional<std::pair<ConcreteValues, std::string>>> shapes;
    std::map<std::vector<int64_t>, std::map<int64_t, SimOutcome>> tileGroups;   // loop trips -> tile count -> outcome
    for (const std::vector<int64_t> &combo : combos) {
      std::vector<int64_t> loopTrips(combo.begin(), combo.begin() + static_cast<long>(trips_.size()));
      std::vector<int64_t> tiles(combo.begin() + static_cast<long>(trips_.size()), combo.end());
      auto cached = shapes.find(loopTrips);
      if (cached == shapes.end()) {
        std::string shape;
        size_t before = result_.findings.size();
        std::optional<ConcreteValues> values = shapeFor(loopTrips, shape);
        if (result_.findings.size() != before) return;   // the solver gave up: stop enumerating (reported)
        std::optional<std::pair<ConcreteValues, std::string>> entry;
        if (values) entry = std::make_pair(std::move(*values), shape);
        cached = shapes.emplace(loopTrips, std::move(entry)).first;
      }
      if (!cached->second) continue;
      if (!tiles.empty() && *std::max_element(tiles.begin(), tiles.end()) > tilesNeeded(loopTrips, maxTiles)) continue;
      if (drivenTrips_.size() == 1 && knownInfeasible(loopTrips, tiles[0])) continue;   // never occurs
      std::string shape = cached->second->second;
      SimOutcome out;
      auto group = drivenTrips_.size() == 1 ? tileGroups.find(loopTrips) : tileGroups.end();
      if (drivenTrips_.size() == 1 && group == tileGroups.end()) {
        // First use of these loop trip counts: every tile count of the combinations at once, sharing runs.
        std::vector<int64_t> counts;
        for (const std::vector<int64_t> &c : combos)
          if (std::equal(loopTrips.begin(), loopTrips.end(), c.begin()) && !knownInfeasible(loopTrips, c.back()))
            counts.push_back(c.back());
        group = tileGroups.emplace(loopTrips, simulateTileCounts(cached->second->first, counts, slots, agents)).first;
      }
      if (group != tileGroups.end() && group->second.count(tiles[0])) {
        out = std::move(group->second.at(tiles[0]));
      } else {
        ConcreteValues values = cached->second->first;
        values.counters = &counters_;
        values.mayGuards = &mayGuards_;
        for (size_t i = 0; i < drivenLoops_.size(); ++i)
          for (const ForStmt *f : drivenLoops_[i]) values.tripOverrides[f] = tiles[i];
        SyncProgram program = expandSync(ctx_.kernel(), info, slots, agents, values);
        for (const SyncProblem &p : program.problems)
          explained(p);
        if (!program.problems.empty()) return;
        out = simulateSync(info, ctx_.arch(), slots, agents, program);
        ++simulatedPrograms_;
      }
      if (out.findings.empty()) continue;
      bool stopAfterThis = !drivenTrips_.empty();   // tile nests: the smallest refuting run is reported alone
      if (!tiles.empty()) {
        // The tile counts were chosen apart from the shape: find a shape with all of them (or drop the run),
        // first pair by pair (memoised: a loop that runs one tile short of the tile loops occurs with one or two
        // tile counts of the ~2P + 2 enumerated, and a refuted pair rules out every combination holding it).
        if (!pairsFeasible(loopTrips, tiles)) continue;
        shape.clear();
        size_t before = result_.findings.size();
        std::optional<ConcreteValues> joint = shapeFor(loopTrips, shape, tiles);
        if (result_.findings.size() != before) return;
        if (!joint) continue;   // these trip counts never occur together
      }
      for (SimFinding &f : out.findings) {
        if (!seen.insert({static_cast<int>(f.kind), f.range.begin.offset}).second) continue;
        SyncFinding s;
        s.family = f.family;
        s.kind = f.kind;
        s.range = f.range;
        s.args = std::move(f.args);
        std::string trace = "counterexample: ";
        if (!combo.empty()) {
          for (size_t i = 0; i < combo.size(); ++i) {
            const std::string &name = i < trips_.size() ? tripLoops_[i][0]->name : drivenLoops_[i - trips_.size()][0]->name;
            trace += (i ? ", loop '" : "loop '") + name + "' runs " + std::to_string(combo[i]) + " iteration" +
                     (combo[i] == 1 ? "" : "s");
          }
          trace += " (" + shape + ")";
        } else {
          trace += shape.empty() ? "every shape" : shape;
        }
        s.notes.push_back({f.range, trace});
        for (DiagNote &n : f.notes) s.notes.push_back(std::move(n));
        s.hint = std::move(f.hint);
        s.insertions = std::move(f.insertions);
        s.fixits = std::move(f.fixits);
        result_.findings.push_back(std::move(s));
      }
      if (stopAfterThis) return;
    }
  }

  // One tile loop: the outcomes of the given tile counts for one shape, simulated together - the longest
  // expanded in full, the others as variants sharing its beginning (expandSyncTail), and the shared part
  // run once (simulateSyncVariants); each outcome is exactly that of its own expansion and simulation.
  // Counts whose expansion has a problem are left out (the caller expands and reports them on its own).
  std::map<int64_t, SimOutcome> simulateTileCounts(const ConcreteValues &shapeValues, std::vector<int64_t> counts,
                                                   const SlotTable &slots, const std::vector<SyncAgent> &agents) {
    std::map<int64_t, SimOutcome> outcomes;
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    if (counts.empty()) return outcomes;
    auto valuesFor = [&](int64_t tiles) {
      ConcreteValues values = shapeValues;
      values.counters = &counters_;
      values.mayGuards = &mayGuards_;
      for (const ForStmt *f : drivenLoops_[0]) values.tripOverrides[f] = tiles;
      return values;
    };
    const KernelInfo &info = ctx_.info();
    SyncProgram longest = expandSync(ctx_.kernel(), info, slots, agents, valuesFor(counts.back()));
    if (!longest.problems.empty()) return outcomes;
    std::vector<SyncProgram> variants;
    variants.reserve(counts.size());
    std::vector<int64_t> simulated;
    for (size_t i = 0; i + 1 < counts.size(); ++i) {
      SyncProgram v = expandSyncTail(ctx_.kernel(), info, slots, agents, valuesFor(counts[i]), longest);
      if (!v.problems.empty()) continue;
      variants.push_back(std::move(v));
      simulated.push_back(counts[i]);
    }
    std::vector<const SyncProgram *> programs;
    for (const SyncProgram &v : variants) programs.push_back(&v);
    programs.push_back(&longest);
    simulated.push_back(counts.back());
    std::vector<SimOutcome> results = simulateSyncVariants(info, ctx_.arch(), slots, agents, programs);
    simulatedPrograms_ += programs.size();
    for (size_t i = 0; i < results.size(); ++i) outcomes.emplace(simulated[i], std::move(results[i]));
    return outcomes;
  }

  z3::solver &incrementalShapeSolver() {
    if (!shapeSolver_) {
      shapeSolver_.emplace(z_);
      ctx_.configureSolver(*shapeSolver_);
    }
    return *shapeSolver_;
  }

  // Whether a term multiplies two non-constant terms or divides by a non-constant one.
  static bool isNonlinear(const z3::expr &e) {
    std::vector<z3::expr> todo{e};
    std::set<unsigned> seen;
    while (!todo.empty()) {
      z3::expr t = todo.back();
      todo.pop_back();
      if (!t.is_app() || !seen.insert(t.id()).second) continue;
      Z3_decl_kind kind = t.decl().decl_kind();
      if (kind == Z3_OP_MUL) {
        unsigned variable = 0;
        for (unsigned i = 0; i < t.num_args(); ++i) variable += t.arg(i).is_numeral() ? 0 : 1;
        if (variable > 1) return true;
      }
      if ((kind == Z3_OP_IDIV || kind == Z3_OP_DIV || kind == Z3_OP_MOD || kind == Z3_OP_REM) && t.num_args() == 2 &&
          !t.arg(1).is_numeral())
        return true;
      for (unsigned i = 0; i < t.num_args(); ++i) todo.push_back(t.arg(i));
    }
    return false;
  }

  VerifyContext &ctx_;
  z3::context &z_;
  std::optional<z3::solver> shapeSolver_;   // shapeFor's incremental solver (linear assumptions), on first use
  size_t shapeRequirements_ = 0, shapeSideConditions_ = 0;   // the assumptions taken so far
  bool shapesNonlinear_ = false;            // some assumption of the shape queries is nonlinear
  bool tripTermsChecked_ = false;           // the trip-count terms' linearity is in shapesNonlinear_
  std::optional<z3::tactic> shapeTactic_;   // the fresh solvers' preprocessing and search
  size_t shapeQueries_ = 0, simulatedPrograms_ = 0;           // for CAKE_VERIFY_TIMES
  std::map<std::tuple<size_t, int64_t, size_t, int64_t>, bool> pairFeasible_;   // (trip, value, tile loop, count)
  std::map<std::pair<size_t, int64_t>, bool> tileFeasible_;                      // (tile loop, count)
  SyncAnalysis result_;
  std::vector<z3::expr> trips_;
  std::vector<int64_t> tripBase_;   // each trip count's smallest feasible value: where its window starts
  std::vector<int64_t> tripSpan_;   // and how far it reaches past that (placeTripWindows)
  std::vector<std::vector<const ForStmt *>> tripLoops_;
  std::vector<z3::expr> drivenTrips_;                    // tile loops' trip terms (enumerated directly)
  std::vector<std::vector<const ForStmt *>> drivenLoops_;
  InductionCounters counters_;
  std::vector<const Decl *> counterVars_;
  DeclMap<z3::expr> counterTerms_;
  std::unordered_set<const Decl *> clusterInvariantLets_;   // lets proven the same in every CTA
  int64_t counterPrefix_ = 0;
  int64_t period_ = 2;
  int64_t tripPeriod_ = 2;   // step 3b: the period of the trip-count dimensions (a divisor of period_)
  bool tripTrial_ = false;   // findTripPeriod's trial is running (proveFact's reduced limit)
  size_t trialFindings_ = SIZE_MAX;   // a period trial: the findings before it (SIZE_MAX: no trial)
  struct HeldBack {
    const Decl *var;
    SourceRange range;
    std::string obligation, reason;
  };
  std::vector<HeldBack> heldBack_;          // untranslatable because of a non-counter variable (untranslatable())
  std::set<const Decl *> explainedVars_;    // variables an expansion problem named
  std::unordered_map<const Expr *, const IfStmt *> dataGuards_;   // condition -> its data guard (isDataGuard)
  std::set<const IfStmt *> mayGuards_;      // data guards whose condition is not proven: both branches may run
};

} // namespace

SyncAnalysis analyzeSync(VerifyContext &ctx) { return Analyzer(ctx).run(); }

const SyncAnalysis &VerifyContext::syncAnalysis() {
  if (!syncAnalysis_) syncAnalysis_ = std::make_unique<SyncAnalysis>(analyzeSync(*this));
  return *syncAnalysis_;
}

void reportSyncFamily(VerifyContext &ctx, SyncFamily family) {
  const SyncAnalysis &a = ctx.syncAnalysis();
  ctx.recordProven(a.proven[static_cast<int>(family)]);
  for (const SyncFinding &f : a.findings) {
    if (f.family != family) continue;
    DiagBuilder b = f.unproven ? ctx.reportUnproven(f.range, f.args.at(0), f.args.at(1), f.timedOut)
                               : ctx.reportFailureArgs(f.kind, f.range, f.args);
    for (const DiagNote &n : f.notes) b.note(n.range, n.message);
    if (!f.hint.empty()) b.hint(f.hint);
    for (const FixIt &fix : f.fixits) b.fixit(fix);
    for (StatementInsertion fix : f.insertions) {
      if (fix.sameBlockAs.valid()) {
        std::optional<SourceRange> holder;
        if (ctx.kernel().body) holder = statementHoldingIn(*ctx.kernel().body, fix.nextTo, fix.sameBlockAs);
        if (!holder) continue;
        fix.nextTo = *holder;
      }
      b.fixit(insertStatement(ctx.diags(), fix));
    }
  }
}

} // namespace cake

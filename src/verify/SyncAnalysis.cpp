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
// Steps 1-3 and the findings are here; step 4 is SyncEnumeration.cpp (the state both share: SyncAnalyzer.h).
#include "verify/SyncAnalysis.h"

#include "frontend/Types.h"
#include "verify/EnclosingStatement.h"
#include "verify/NamedHandoffs.h"
#include "verify/SyncAnalyzer.h"
#include "verify/Z3Terms.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>

namespace cake {

namespace sync_detail {

SyncAnalysis Analyzer::run() {
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

// Step 3 with the current period_: periodicity in the loops and counters, determinacy.  Returns false
// when a trial (trialFindings_ set) failed: some fact did not hold (it stopped there).
bool Analyzer::proveStructure(const std::vector<SyncLoop> &loops, const std::vector<const Expr *> &allExprs,
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

// Determinacy of every sync-relevant expression but the loops' own bounds: the upper bounds of the trip
// loops are the trip counts themselves, and the tile loops' bounds are never evaluated by the expansion.
// False when a trial failed.
bool Analyzer::proveDeterminacyOf(const std::vector<const Expr *> &allExprs) {
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
ProofResult Analyzer::proveFact(const z3::expr &claim, const std::vector<z3::expr> &extra) {
  if (tripTrial_) return ctx_.proveForAllWithin(claim, extra, std::max(1u, ctx_.options().timeoutMs / 10));
  return ctx_.proveForAll(claim, extra);
}

// Step 3b: the smallest divisor d of P for which the facts that concern the trip counts hold - every
// expression of a trip loop repeats every d iterations of it, every counter advanced inside a trip loop
// repeats every d of its increments (in every expression), and code after the loops repeats when a trip
// count grows by d - so that a run with T + d iterations is a run with T and one more d-iteration period
// in the steady state.  Each candidate is a trial that leaves no trace (the facts for P are the ones
// counted); tripPeriod_ and `tripPrefix` (the prefix h those facts need) are set for the first that holds.
void Analyzer::findTripPeriod(const std::vector<SyncLoop> &loops, const std::vector<const Expr *> &allExprs,
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
void Analyzer::collectDataGuards(const Stmt &s) {
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

bool Analyzer::mayGuard(const Expr *cond) const {
  auto it = dataGuards_.find(cond);
  return it != dataGuards_.end() && mayGuards_.count(it->second);
}

// A structural fact about `e` failed: when e is a data guard's condition, the guard becomes a may-guard
// (the expansion takes both branches, so the condition's value is never needed) instead of a finding.
// Not in a trip-period trial: the trial would then hold only by the trial's own may-guards.
bool Analyzer::excused(const Expr *e) {
  auto it = dataGuards_.find(e);
  if (it == dataGuards_.end() || tripTrial_) return false;
  mayGuards_.insert(it->second);
  return true;
}

// An expression the solver cannot take.  When the cause is a mutable variable that is not an induction
// counter, the expansion reports the same cause more precisely (why the variable is not a counter) where
// the value is needed: the finding is held back and reported at the end only if the expansion did not.
void Analyzer::untranslatable(const TranslateFailure &f, SourceRange whole, std::string obligation,
                              std::string reason) {
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
void Analyzer::explained(const SyncProblem &p) {
  if (p.variable) explainedVars_.insert(p.variable);
  unproven(SyncFamily::Deadlock, p.range, "the synchronisation protocol", p.what + " cannot be evaluated: " + p.reason);
}

SyncAnalysis Analyzer::finish() {
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

void Analyzer::unproven(SyncFamily family, SourceRange range, std::string obligation, std::string reason) {
  for (const SyncFinding &f : result_.findings)
    if (f.unproven && f.range.begin.offset == range.begin.offset && f.args[0] == obligation) return;
  SyncFinding f;
  f.family = family;
  f.unproven = true;
  f.range = range;
  f.args = {std::move(obligation), std::move(reason)};
  result_.findings.push_back(std::move(f));
}

void Analyzer::inconclusive(const ProofResult &r, SourceRange range, const std::string &obligation) {
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

std::optional<z3::expr> Analyzer::tripTerm(const ForStmt &loop) {
  TranslateFailure why;
  std::optional<z3::expr> trips = ctx_.tripCount(loop, &why);
  if (!trips)
    unproven(SyncFamily::Deadlock, why.culprit ? why.culprit->range : loop.range,
             "the trip count of this loop", why.reason);
  return trips;
}

// Returns the prefix h (0 or P) from which the loop's sync expressions are P-periodic.
int64_t Analyzer::provePeriodic(const SyncLoop &l) {
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

z3::expr_vector Analyzer::vec(const z3::expr &e) {
  z3::expr_vector v(z_);
  v.push_back(e);
  return v;
}

// E depends on the shape only through the trip counts (and, outside sync loops, periodically in them).
void Analyzer::proveDeterminacy(const Expr &e) {
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
bool Analyzer::proveSameTripAcrossCluster(const ForStmt &loop) {
  const KernelInfo &info = ctx_.info();
  int64_t ctas = info.clusterCtas();
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
bool Analyzer::clusterInvariant(const Expr &e, std::string &why, unsigned depth) {
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
int64_t Analyzer::proveCounterPeriodic(const Expr &e, const std::set<const Decl *> *only) {
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
const Expr *Analyzer::nameOf(const Decl *d, const Expr &e) {
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

bool Analyzer::insideSymbolicLoop(const std::vector<SyncLoop> &loops, const SyncLoop &l) {
  for (int p = l.parent; p >= 0; p = loops[static_cast<size_t>(p)].parent)
    if (loops[static_cast<size_t>(p)].symbolic) return true;
  return false;
}

} // namespace sync_detail

SyncAnalysis analyzeSync(VerifyContext &ctx) { return sync_detail::Analyzer(ctx).run(); }

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
      if (fix.sameBlockAs.valid() || fix.enclosing) {
        const BlockStmt *body = ctx.kernel().body.get();
        std::optional<SourceRange> holder;
        if (body)
          holder = fix.sameBlockAs.valid() ? statementHoldingIn(*body, fix.nextTo, fix.sameBlockAs)
                                           : statementHolding(*body, fix.nextTo);
        if (!holder) continue;
        fix.nextTo = *holder;
      }
      b.fixit(insertStatement(ctx.diags(), fix));
    }
  }
}

} // namespace cake

// SyncEnumeration: step 4 of the synchronisation analysis (SyncAnalysis.cpp has the method): shape queries
// (checkShape, shapeFor: a shape with given trip and tile counts, or a proof that there is none), the window of
// trip counts each loop is simulated over and the argument that it stands for every feasible count
// (placeTripWindows), and the enumeration of trip-count vectors and tile counts with their expansion and
// simulation (simulateAll; one tile loop's counts share one run, simulateTileCounts).  A refutation keeps the
// smallest counts that show it, with the shape, as a concrete trace.
#include "verify/SyncAnalyzer.h"

#include "verify/Z3Terms.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <numeric>

namespace cake::sync_detail {

namespace {

constexpr size_t kMaxTripCombinations = 400;

} // namespace

// One shape query: requires(...), the translator's side conditions and `condition` (shapeFor says which
// solver answers).  Kept out of the verifier session's solvers: the shape enumeration's terms and
// lemmas left there changed how later nonlinear queries of other families searched.
z3::check_result Analyzer::checkShape(const z3::expr &condition, std::optional<z3::model> *model, std::string *reason) {
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
  const std::unordered_map<size_t, ExprToZ3::LoopBound> &loopBounds = ctx_.translator().loopBounds();
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
ProofResult Analyzer::findShape(const z3::expr &condition) {
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
std::optional<ConcreteValues> Analyzer::shapeFor(const std::vector<int64_t> &tripValues, std::string &description,
                                                 const std::vector<int64_t> &drivenValues, bool reportUnknown) {
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
bool Analyzer::pairsFeasible(const std::vector<int64_t> &loopTrips, const std::vector<int64_t> &tiles) {
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

bool Analyzer::tileCountFeasible(size_t tileLoop, int64_t count) {
  auto known = tileFeasible_.find({tileLoop, count});
  if (known == tileFeasible_.end()) {
    std::vector<int64_t> trip(trips_.size(), -1), tile(drivenTrips_.size(), -1);
    tile[tileLoop] = count;
    std::string unused;
    const bool feasible = shapeFor(trip, unused, tile, false).has_value();
    known = tileFeasible_.emplace(std::make_pair(tileLoop, count), feasible).first;
  }
  return known->second;
}

// Has a loop trip count, or the count alone, already been found never to occur with this count of the (one)
// tile loop?
bool Analyzer::knownInfeasible(const std::vector<int64_t> &loopTrips, int64_t tiles) const {
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
int64_t Analyzer::tilesNeeded(const std::vector<int64_t> &loopTrips, int64_t maxTiles) {
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
bool Analyzer::directlyInTileLoop(const ForStmt *loop) const {
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
bool Analyzer::placeTripWindows(int64_t maxTrip, int64_t tripPrefix) {
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
bool Analyzer::residuesInWindow(const z3::expr &t, int64_t from, int64_t past) {
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
bool Analyzer::steppedTogether(size_t i, const std::vector<z3::expr> &inputs, z3::expr feasible, int64_t past) {
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
bool Analyzer::onlyMentions(const z3::expr &e, const std::vector<z3::expr> &vars) {
  std::vector<z3::expr> all = vars;
  appendNewConstants(all, freeConstants({e}));
  return all.size() == vars.size();
}

void Analyzer::simulateAll(int64_t maxTiles) {
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
std::map<int64_t, SimOutcome> Analyzer::simulateTileCounts(const ConcreteValues &shapeValues,
                                                           std::vector<int64_t> counts, const SlotTable &slots,
                                                           const std::vector<SyncAgent> &agents) {
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

z3::solver &Analyzer::incrementalShapeSolver() {
  if (!shapeSolver_) {
    shapeSolver_.emplace(z_);
    ctx_.configureSolver(*shapeSolver_);
  }
  return *shapeSolver_;
}

// Whether a term multiplies two non-constant terms or divides by a non-constant one.
bool Analyzer::isNonlinear(const z3::expr &e) {
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

} // namespace cake::sync_detail

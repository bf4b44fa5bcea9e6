// SyncAnalysis: proves the synchronisation protocol of a kernel for every trip count and shape.
//
// Method (docs/verifier.md, "Synchronisation protocol"):
//   1. Sync loops.  Loops that contain synchronisation events (SyncModel.h) and whose bounds are symbolic
//      (shape variables, scalar params) define the kernel's trip counts t_1..t_m, as Z3 terms
//      max(0, cdiv(hi - lo, step)); trip terms that Z3 proves equal under requires(...) are merged.
//   2. Period.  P = 2 x lcm of the constant divisors / moduli / masks in the sync-relevant expressions
//      that use a loop variable (stage index k % S and parity (k / S) & 1 give P = 2S).
//   3. Structural facts, proven with Z3 for all shapes allowed by requires(...):
//        periodicity   every sync-relevant expression E inside a sync loop satisfies E(k + P) == E(k) for
//                      lo + h <= k, k + P < hi (h = 0, or h = P for guards such as k > 0);
//        determinacy   every sync-relevant expression depends on the shape only through the trip counts:
//                      shape' with t' = t gives E' == E, and (outside the loops) t' = t + P gives E' == E.
//      Together they make the event sequence of trip count T + P the sequence of T with one more period
//      inserted in the loop body's steady state.
//   4. Simulation.  For every feasible trip count T in [0, h + 2P + 2] (Z3 finds a shape with t = T, or
//      proves there is none), the agents' event lists are expanded and run by SyncSimulator, which checks
//      arrivals, expect_tx, parity, laps, initialisation, stage overwrite / read-before-fill, and deadlock.
//      Since the simulated range covers every residue of T mod P at least twice beyond the prefix h, and
//      the protocol state (barrier parities, balances, stage ownership) after a steady-state period of a
//      deadlock-free, race-free run is that of the previous period shifted by whole phases, longer trip
//      counts repeat the simulated behaviour (this last step is argued, not machine-checked).
// Each refutation keeps the smallest trip count that shows it, as a concrete trace; anything that cannot
// be evaluated, translated or proven becomes an "unproven" finding (E0601) with the reason.
#include "verify/SyncAnalysis.h"

#include "frontend/Types.h"
#include "verify/SyncModel.h"
#include "verify/SyncSimulator.h"
#include "verify/VerifyContext.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace cake {

namespace {

constexpr int64_t kMaxPeriod = 64;
constexpr size_t kMaxTripCombinations = 400;

struct SyncLoop {
  const ForStmt *loop = nullptr;
  bool symbolic = false;
  std::vector<const Expr *> exprs;   // sync-relevant expressions inside (directly or nested)
};

bool mentions(const Expr *e, DeclKind kind, unsigned depth = 0) {
  if (!e || depth > 64) return false;
  switch (e->kind) {
  case ExprKind::Name: {
    const Decl *d = cast<NameExpr>(e)->decl;
    if (!d) return false;
    if (d->declKind == kind) return true;
    if (d->declKind == DeclKind::Let) return mentions(static_cast<const LetStmt *>(d)->init.get(), kind, depth + 1);
    return false;
  }
  case ExprKind::Unary: return mentions(cast<UnaryExpr>(e)->operand.get(), kind, depth + 1);
  case ExprKind::Binary:
    return mentions(cast<BinaryExpr>(e)->lhs.get(), kind, depth + 1) || mentions(cast<BinaryExpr>(e)->rhs.get(), kind, depth + 1);
  case ExprKind::Call:
    for (const Ptr<Expr> &a : cast<CallExpr>(e)->args)
      if (mentions(a.get(), kind, depth + 1)) return true;
    return false;
  case ExprKind::Member: return mentions(cast<MemberExpr>(e)->base.get(), kind, depth + 1);
  case ExprKind::Index: {
    auto *ix = cast<IndexExpr>(e);
    if (mentions(ix->base.get(), kind, depth + 1)) return true;
    for (const IndexItem &it : ix->items)
      if (mentions(it.start.get(), kind, depth + 1)) return true;
    return false;
  }
  default: return false;
  }
}

bool isSymbolic(const Expr *e) {
  return mentions(e, DeclKind::ShapeVar) || mentions(e, DeclKind::Param);
}

// Constant divisors, moduli and (mask + 1) in an expression, through lets.
void collectModuli(const Expr *e, std::vector<int64_t> &out, unsigned depth = 0) {
  if (!e || depth > 64) return;
  switch (e->kind) {
  case ExprKind::Name: {
    const Decl *d = cast<NameExpr>(e)->decl;
    if (d && d->declKind == DeclKind::Let) collectModuli(static_cast<const LetStmt *>(d)->init.get(), out, depth + 1);
    return;
  }
  case ExprKind::Unary: collectModuli(cast<UnaryExpr>(e)->operand.get(), out, depth + 1); return;
  case ExprKind::Binary: {
    auto *b = cast<BinaryExpr>(e);
    collectModuli(b->lhs.get(), out, depth + 1);
    collectModuli(b->rhs.get(), out, depth + 1);
    if (auto *lit = dynCast<IntLitExpr>(b->rhs.get()); lit && (b->op == BinaryOp::BitAnd))
      out.push_back(static_cast<int64_t>(lit->value) + 1);
    if (b->op == BinaryOp::BitXor) out.push_back(2);
    if (b->op == BinaryOp::Div || b->op == BinaryOp::Rem) {
      // The divisor's value: a literal or a compile-time parameter.
      const Expr *r = b->rhs.get();
      if (auto *lit = dynCast<IntLitExpr>(r)) out.push_back(static_cast<int64_t>(lit->value));
      else if (auto *n = dynCast<NameExpr>(r); n && n->decl && n->decl->declKind == DeclKind::CtParam) {
        auto *p = static_cast<const CtParam *>(n->decl);
        if (p->value) out.push_back(*p->value);
      }
    }
    return;
  }
  case ExprKind::Call:
    for (const Ptr<Expr> &a : cast<CallExpr>(e)->args) collectModuli(a.get(), out, depth + 1);
    return;
  default: return;
  }
}

const Expr *firstIndex(const Expr *operand) {
  const Expr *e = operand;
  const IndexExpr *outer = nullptr;
  while (e) {
    if (auto *m = dynCast<MemberExpr>(e)) e = m->base.get();
    else if (auto *i = dynCast<IndexExpr>(e)) {
      outer = i;
      e = i->base.get();
    } else break;
  }
  return outer && !outer->items.empty() ? outer->items[0].start.get() : nullptr;
}

// The expressions that decide the sync events of a statement: branch conditions and loop bounds around
// events, barrier and stage indices, parities, byte counts, target CTAs, multicast masks.
void collectSyncExprs(const Stmt &s, std::vector<const Expr *> &out) {
  if (!containsSyncEvents(s)) return;
  switch (s.kind) {
  case StmtKind::Block:
    for (const Ptr<Stmt> &c : cast<BlockStmt>(&s)->stmts) collectSyncExprs(*c, out);
    return;
  case StmtKind::Role: collectSyncExprs(*cast<RoleStmt>(&s)->body, out); return;
  case StmtKind::Elect: collectSyncExprs(*cast<ElectStmt>(&s)->body, out); return;
  case StmtKind::If: {
    auto *i = cast<IfStmt>(&s);
    out.push_back(i->cond.get());
    if (i->thenBody) collectSyncExprs(*i->thenBody, out);
    if (i->elseBody) collectSyncExprs(*i->elseBody, out);
    return;
  }
  case StmtKind::For: {
    auto *f = cast<ForStmt>(&s);
    out.push_back(f->lower.get());
    out.push_back(f->upper.get());
    if (f->step) out.push_back(f->step.get());
    collectSyncExprs(*f->body, out);
    return;
  }
  case StmtKind::Op: {
    auto *o = cast<OpStmt>(&s);
    for (const Clause &c : o->clauses)
      for (const Ptr<Expr> &a : c.args) {
        if (c.name == "signal") out.push_back(firstIndex(a.get()));
        else out.push_back(a.get());
      }
    for (const Ptr<Expr> &d : o->dsts) out.push_back(firstIndex(d.get()));
    for (const Ptr<Expr> &d : o->srcs) out.push_back(firstIndex(d.get()));
    return;
  }
  default: return;
  }
}

void findSyncLoops(const Stmt &s, std::vector<SyncLoop> &out) {
  if (!containsSyncEvents(s)) return;
  switch (s.kind) {
  case StmtKind::Block:
    for (const Ptr<Stmt> &c : cast<BlockStmt>(&s)->stmts) findSyncLoops(*c, out);
    return;
  case StmtKind::Role: findSyncLoops(*cast<RoleStmt>(&s)->body, out); return;
  case StmtKind::Elect: findSyncLoops(*cast<ElectStmt>(&s)->body, out); return;
  case StmtKind::If: {
    auto *i = cast<IfStmt>(&s);
    if (i->thenBody) findSyncLoops(*i->thenBody, out);
    if (i->elseBody) findSyncLoops(*i->elseBody, out);
    return;
  }
  case StmtKind::For: {
    auto *f = cast<ForStmt>(&s);
    SyncLoop l;
    l.loop = f;
    l.symbolic = isSymbolic(f->lower.get()) || isSymbolic(f->upper.get()) || isSymbolic(f->step.get());
    collectSyncExprs(*f->body, l.exprs);
    out.push_back(std::move(l));
    findSyncLoops(*f->body, out);
    return;
  }
  default: return;
  }
}

class Analyzer {
public:
  explicit Analyzer(VerifyContext &ctx) : ctx_(ctx), z_(ctx.z3()) {}

  SyncAnalysis run() {
    const KernelInfo &info = ctx_.info();
    if (info.mbarriers.empty()) return result_;   // no mbarrier protocol: nothing for these families
    result_.applicable = true;
    if (!ctx_.kernel().body) return result_;
    const Kernel &k = ctx_.kernel();

    std::vector<SyncLoop> loops;
    findSyncLoops(*k.body, loops);
    std::vector<const Expr *> allExprs;
    collectSyncExprs(*k.body, allExprs);

    // 1. Trip-count terms of the symbolic sync loops.
    for (const SyncLoop &l : loops) {
      if (!l.symbolic) continue;
      if (mentions(l.loop->lower.get(), DeclKind::LoopVar) || mentions(l.loop->upper.get(), DeclKind::LoopVar) ||
          mentions(l.loop->step.get(), DeclKind::LoopVar)) {
        unproven(SyncFamily::Deadlock, l.loop->range, "the synchronisation protocol for every trip count",
                 "the bounds of a loop with synchronisation depend on an enclosing loop's variable");
        return finish();
      }
      std::optional<z3::expr> t = tripTerm(*l.loop);
      if (!t) return finish();
      bool merged = false;
      for (size_t i = 0; i < trips_.size() && !merged; ++i) {
        ProofResult same = ctx_.proveForAll(trips_[i] == *t);
        if (same.proven()) {
          merged = true;
          tripLoops_[i].push_back(l.loop);
        }
      }
      if (!merged) {
        trips_.push_back(*t);
        tripLoops_.push_back({l.loop});
      }
    }

    // 2. Period.
    std::vector<int64_t> moduli;
    for (const SyncLoop &l : loops)
      for (const Expr *e : l.exprs)
        if (e && mentions(e, DeclKind::LoopVar)) collectModuli(e, moduli);
    int64_t lcm = 1;
    for (int64_t m : moduli)
      if (m > 0 && m <= kMaxPeriod) lcm = std::lcm(lcm, m);
    period_ = std::min<int64_t>(2 * lcm, kMaxPeriod);

    // 3. Structural facts for every trip count.
    int64_t prefix = 0;
    for (const SyncLoop &l : loops)
      if (l.symbolic) prefix = std::max(prefix, provePeriodic(l));
    std::set<const Expr *> tripBounds;   // the upper bounds of the trip loops are the trip counts themselves
    for (const auto &group : tripLoops_)
      for (const ForStmt *f : group) tripBounds.insert(f->upper.get());
    for (const Expr *e : allExprs)
      if (e && !tripBounds.count(e)) proveDeterminacy(*e);

    // 4. Simulation of every feasible trip count up to prefix + 2P + 2.
    int64_t maxTrip = std::min<int64_t>(prefix + 2 * period_ + 2, ctx_.options().maxSimulatedTrips);
    simulateAll(maxTrip);
    return finish();
  }

private:
  SyncAnalysis finish() {
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
    auto lo = ctx_.toZ3(*loop.lower, &why);
    auto hi = lo ? ctx_.toZ3(*loop.upper, &why) : std::nullopt;
    std::optional<z3::expr> step = z_.int_val(1);
    if (loop.step && hi) step = ctx_.toZ3(*loop.step, &why);
    if (!lo || !hi || !step) {
      unproven(SyncFamily::Deadlock, why.culprit ? why.culprit->range : loop.range,
               "the trip count of this loop", why.reason);
      return std::nullopt;
    }
    z3::expr span = *hi - *lo;
    return z3::ite(span > 0, (span + *step - 1) / *step, z_.int_val(0));
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
      if (!e || !mentions(e, DeclKind::LoopVar)) continue;
      TranslateFailure f;
      auto at = ctx_.toZ3(*e, &f);
      if (!at) {
        unproven(SyncFamily::Deadlock, f.culprit ? f.culprit->range : e->range,
                 "that this expression repeats with the pipeline period", f.reason);
        continue;
      }
      z3::expr shifted = at->substitute(vec(k), vec(k + z_.int_val(period_)));
      bool done = false;
      for (int64_t h : {int64_t(0), period_}) {
        ProofResult r = ctx_.proveForAll(*at == shifted, {k >= *lo + z_.int_val(h), k + z_.int_val(period_) < *hi});
        if (r.proven()) {
          prefix = std::max(prefix, h);
          result_.proven[static_cast<int>(SyncFamily::Deadlock)]++;
          done = true;
          break;
        }
        if (r.status == ProofStatus::Unknown) {
          inconclusive(r, e->range, "that this expression repeats every " + std::to_string(period_) + " iterations of '" +
                                        l.loop->name + "'");
          done = true;
          break;
        }
      }
      if (!done)
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
    if (!isSymbolic(&e)) return;
    TranslateFailure f;
    auto term = ctx_.toZ3(e, &f);
    if (!term) {
      unproven(SyncFamily::Deadlock, f.culprit ? f.culprit->range : e.range,
               "the synchronisation protocol for every shape", "it depends on " + f.reason);
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
    if (from.empty()) return;
    z3::expr assumptions = ctx_.assumptions();
    std::vector<z3::expr> extra = {assumptions.substitute(from, to)};
    z3::expr sameTrips = z_.bool_val(true), shiftedTrips = z_.bool_val(true);
    for (z3::expr t : trips_) {
      sameTrips = sameTrips && t.substitute(from, to) == t;
      shiftedTrips = shiftedTrips && t.substitute(from, to) == t + z_.int_val(period_);
    }
    z3::expr other = term->substitute(from, to);
    extra.push_back(sameTrips);
    ProofResult same = ctx_.proveForAll(*term == other, extra);
    if (!same.proven()) {
      if (same.refuted())
        unproven(SyncFamily::Deadlock, e.range, "the synchronisation protocol for every shape",
                 "this expression depends on the shape beyond the loop trip counts (" + same.counterexampleText() + ")");
      else
        inconclusive(same, e.range, "that this expression depends on the shape only through the trip counts");
      return;
    }
    result_.proven[static_cast<int>(SyncFamily::Deadlock)]++;
    if (mentions(&e, DeclKind::LoopVar) || trips_.empty()) return;
    extra.back() = shiftedTrips;
    ProofResult shifted = ctx_.proveForAll(*term == other, extra);
    if (shifted.proven()) {
      result_.proven[static_cast<int>(SyncFamily::Deadlock)]++;
      return;
    }
    if (shifted.refuted())
      unproven(SyncFamily::Deadlock, e.range, "the synchronisation protocol for every trip count",
               "this expression is not periodic in the trip count with period " + std::to_string(period_));
    else
      inconclusive(shifted, e.range, "that this expression repeats with the pipeline period");
  }

  // A shape (model) for the given trip counts; nullopt when infeasible or unknown (reported).
  std::optional<ConcreteValues> shapeFor(const std::vector<int64_t> &tripValues, std::string &description) {
    z3::solver solver(z_);
    ctx_.configureSolver(solver);
    std::vector<z3::expr> vars;
    for (const Ptr<ShapeVar> &sv : ctx_.kernel().shapeVars) vars.push_back(ctx_.translator().declVar(sv.get()));
    std::vector<const Param *> params;
    for (const Ptr<Param> &prm : ctx_.kernel().params)
      if (prm->type && prm->type->isInteger()) {
        params.push_back(prm.get());
        vars.push_back(ctx_.translator().declVar(prm.get()));
      }
    solver.add(ctx_.assumptions());
    for (size_t i = 0; i < trips_.size(); ++i) solver.add(trips_[i] == z_.int_val(tripValues[i]));
    z3::check_result r = solver.check();
    if (r == z3::unsat) return std::nullopt;
    if (r == z3::unknown) {
      SyncFinding f;
      f.family = SyncFamily::Deadlock;
      f.unproven = true;
      f.range = ctx_.kernel().nameRange;
      f.args = {"the synchronisation protocol for trip count " + std::to_string(tripValues.empty() ? 0 : tripValues[0]),
                "no shape could be found or excluded: " + solver.reason_unknown()};
      f.timedOut = VerifyContext::isLimitReason(solver.reason_unknown());
      result_.findings.push_back(std::move(f));
      return std::nullopt;
    }
    z3::model m = solver.get_model();
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
    return values;
  }

  void simulateAll(int64_t maxTrip) {
    const KernelInfo &info = ctx_.info();
    SlotTable slots = buildSlots(info);
    std::vector<SyncAgent> agents = buildAgents(info);
    // Trip-count vectors to explore.
    std::vector<std::vector<int64_t>> combos = {{}};
    for (size_t i = 0; i < trips_.size(); ++i) {
      std::vector<std::vector<int64_t>> next;
      for (const auto &c : combos)
        for (int64_t t = 0; t <= maxTrip; ++t) {
          auto d = c;
          d.push_back(t);
          next.push_back(std::move(d));
        }
      combos = std::move(next);
      if (combos.size() > kMaxTripCombinations) {
        unproven(SyncFamily::Deadlock, ctx_.kernel().nameRange, "the synchronisation protocol for every trip count",
                 "the kernel has " + std::to_string(trips_.size()) +
                     " independent symbolic loop trip counts; the verifier enumerates at most " +
                     std::to_string(kMaxTripCombinations) + " combinations");
        combos.resize(kMaxTripCombinations);
        break;
      }
    }
    std::set<std::pair<int, uint32_t>> seen;   // (kind, offset) of reported refutations
    for (const SyncFinding &f : result_.findings) seen.insert({static_cast<int>(f.kind), f.range.begin.offset});
    for (const std::vector<int64_t> &combo : combos) {
      std::string shape;
      size_t before = result_.findings.size();
      std::optional<ConcreteValues> values = shapeFor(combo, shape);
      if (result_.findings.size() != before) return;   // the solver gave up: stop enumerating (reported)
      if (!values) continue;
      SyncProgram program = expandSync(ctx_.kernel(), info, slots, agents, *values);
      for (const SyncProblem &p : program.problems)
        unproven(SyncFamily::Deadlock, p.range, "the synchronisation protocol", p.what + " cannot be evaluated: " + p.reason);
      if (!program.problems.empty()) return;
      SimOutcome out = simulateSync(info, ctx_.arch(), slots, agents, program);
      for (SimFinding &f : out.findings) {
        if (!seen.insert({static_cast<int>(f.kind), f.range.begin.offset}).second) continue;
        SyncFinding s;
        s.family = f.family;
        s.kind = f.kind;
        s.range = f.range;
        s.args = std::move(f.args);
        std::string trace = "counterexample: ";
        if (!combo.empty()) {
          trace += "loop '" + tripLoops_[0][0]->name + "' runs " + std::to_string(combo[0]) + " iteration" +
                   (combo[0] == 1 ? "" : "s");
          for (size_t i = 1; i < combo.size(); ++i)
            trace += ", loop '" + tripLoops_[i][0]->name + "' " + std::to_string(combo[i]);
          trace += " (" + shape + ")";
        } else {
          trace += shape.empty() ? "every shape" : shape;
        }
        s.notes.push_back({f.range, trace});
        for (DiagNote &n : f.notes) s.notes.push_back(std::move(n));
        s.hint = std::move(f.hint);
        result_.findings.push_back(std::move(s));
      }
    }
  }

  VerifyContext &ctx_;
  z3::context &z_;
  SyncAnalysis result_;
  std::vector<z3::expr> trips_;
  std::vector<std::vector<const ForStmt *>> tripLoops_;
  int64_t period_ = 2;
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
  }
}

} // namespace cake

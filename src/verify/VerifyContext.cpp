// VerifyContext: the Z3 set-up of one kernel, proof queries and outcome reporting (see VerifyContext.h).
#include "verify/VerifyContext.h"
#include "verify/Z3Terms.h"

#include "verify/SyncAnalysis.h"

#include <algorithm>
#include <cstdint>

namespace cake {

std::string ProofResult::counterexampleText() const {
  std::string text;
  for (const auto &[name, value] : counterexample) {
    if (!text.empty()) text += ", ";
    text += name + " = " + std::to_string(value);
  }
  return text;
}

VerifyContext::VerifyContext(const Module &module, const Kernel &kernel, const KernelInfo &info,
                             const SemaResult &sema, const VerifyOptions &options, DiagnosticEngine &diags,
                             VerifyResult &result, VerifySession *session)
    : module_(module), kernel_(kernel), info_(info), sema_(sema), options_(options), diags_(diags),
      result_(result), ownSession_(session ? nullptr : std::make_unique<VerifySession>()),
      session_(session ? session : ownSession_.get()), z3_(&session_->z3) {
  translator_ = std::make_unique<ExprToZ3>(*z3_, info_);
  for (const Expr *req : info_.requirements) {
    if (!req) continue;
    if (std::optional<z3::expr> r = translator_->translate(*req); r && r->is_bool()) {
      requirements_.push_back(*r);
      translator_->assumeBounds(*r);   // every query assumes it (assumptions())
    }
    // A condition the translator cannot express only weakens the assumptions (proofs may then fail as
    // unproven, never pass wrongly), so it is dropped here.
  }
}

VerifyContext::~VerifyContext() = default;

std::optional<int64_t> VerifyContext::ctValue(const std::string &name) const {
  auto it = info_.ctValues.find(name);
  if (it == info_.ctValues.end()) return std::nullopt;
  return it->second;
}

std::optional<z3::expr> VerifyContext::tripCount(const ForStmt &loop, TranslateFailure *failure, bool atMost) {
  if (!loop.lower || !loop.upper) return std::nullopt;
  auto lo = toZ3(*loop.lower, failure);
  auto hi = lo ? toZ3(*loop.upper, failure) : std::nullopt;
  std::optional<z3::expr> step = z3().int_val(1);
  if (loop.step && hi) step = toZ3(*loop.step, failure);
  if (!lo || !hi || !step || lo->is_bool() || hi->is_bool() || step->is_bool()) return std::nullopt;
  z3::expr span = *hi - *lo;
  if (atMost && !step->simplify().is_numeral()) return z3::ite(span > 0, span, z3().int_val(0));
  return z3::ite(span > 0, (span + *step - 1) / *step, z3().int_val(0));
}

z3::expr VerifyContext::scopedAssumptions(const std::vector<z3::expr> &extra, const z3::expr &claim) const {
  const std::vector<z3::expr> &conditions = translator_->sideConditions();
  const std::unordered_map<size_t, ExprToZ3::LoopBound> &bounds = translator_->loopBounds();
  std::unordered_set<unsigned> live;   // the loop variables in scope
  std::vector<z3::expr> terms = extra;
  terms.push_back(claim);
  for (const z3::expr &c : freeConstants(terms))
    if (translator_->isLoopVariable(c)) live.insert(c.id());
  std::vector<bool> taken(conditions.size(), false);
  for (bool grew = true; grew;) {   // a bound names the variables of the loops around its loop
    grew = false;
    for (const auto &[index, bound] : bounds)
      if (!taken[index] && live.count(bound.owner)) {
        taken[index] = true;
        for (unsigned v : bound.loopVariables) grew = live.insert(v).second || grew;
      }
  }
  z3::expr all = z3_->bool_val(true);
  for (const z3::expr &r : requirements_) all = all && r;
  for (size_t i = 0; i < conditions.size(); ++i)
    if (taken[i] || !bounds.count(i)) all = all && conditions[i];
  for (const z3::expr &c : extra) all = all && c;
  return all;
}

namespace {

// Z3 resource units per millisecond of --verify-timeout (measured on the development machine: a query that
// exhausts rlimit = 2000 * kRlimitPerMs runs for roughly two seconds).
constexpr unsigned kRlimitPerMs = 2000;

z3::params limitParams(z3::context &ctx, unsigned timeoutMs) {
  z3::params p(ctx);
  uint64_t units = uint64_t(timeoutMs) * kRlimitPerMs;
  p.set("rlimit", static_cast<unsigned>(std::min<uint64_t>(units, 4000000000u)));
  return p;
}

void setLimits(z3::context &ctx, z3::solver &solver, unsigned timeoutMs) { solver.set(limitParams(ctx, timeoutMs)); }

// The share of a query's limit its fast path may use.
constexpr unsigned kFastPathShare = 10;

// Fast path: Z3's plain SMT solver (Z3_mk_simple_solver) settles most obligations in about a millisecond,
// where the default solver first builds its tactic for the query's logic: ~12 ms for every query, however
// trivial (2,000 trivial kernels took 39 s to verify).  Only its unsat is taken: a proof is a proof whichever
// procedure found it.  sat and unknown go to the default solver, so counterexamples and undecided verdicts are
// the default solver's, as before.  It is asked the query's slice (QuerySlice: the facts about the goal's own
// constants, then, if that is not enough, all the facts connected to the goal), and one plain solver serves every
// query of the session, each in its own push/pop scope.
bool provenFast(VerifySession &session, const z3::expr &query, unsigned timeoutMs) {
  z3::context &ctx = session.z3;
  unsigned limitMs = std::max(1u, timeoutMs / kFastPathShare);
  try {
    if (!session.fast) session.fast.emplace(ctx, z3::solver::simple());
    if (session.fastLimitMs != limitMs) {
      session.fast->set(limitParams(ctx, limitMs));
      session.fastLimitMs = limitMs;
    }
    session.fast->push();
    session.fast->add(query);
    bool unsat = session.fast->check() == z3::unsat;
    session.fast->pop();
    return unsat;
  } catch (const z3::exception &) {
    session.fast.reset();   // a solver interrupted mid-scope is not reused
    return false;
  }
}

// Is facts /\ goal unsatisfiable?  (goal: a claim's negation, or the condition a model is sought for.)
ProofResult runQuery(VerifySession &session, const z3::expr &facts, const z3::expr &goal, unsigned timeoutMs,
                     const std::vector<std::pair<std::string, z3::expr>> &vars) {
  z3::context &ctx = session.z3;
  z3::expr query = facts && goal;
  ProofResult r;
  if (session.proven.count(query.id())) {
    r.status = ProofStatus::Proven;
    return r;
  }
  // The goal slice first, then (when it is narrower and not enough) the whole cone of influence.
  const z3::expr narrow = session.slicer.goalSlice(facts, goal);
  bool fast = provenFast(session, narrow, timeoutMs);
  if (!fast) {
    const z3::expr cone = session.slicer.slice(facts, goal);
    fast = !z3::eq(cone, narrow) && provenFast(session, cone, timeoutMs);
  }
  if (fast) {
    r.status = ProofStatus::Proven;
    session.proven.emplace(query.id(), query);
    return r;
  }
  try {
    z3::solver solver(ctx);
    setLimits(ctx, solver, timeoutMs);
    solver.add(query);
    switch (solver.check()) {
    case z3::unsat:
      r.status = ProofStatus::Proven;
      session.proven.emplace(query.id(), query);
      break;
    case z3::sat: {
      r.status = ProofStatus::Refuted;
      z3::model m = solver.get_model();
      for (const auto &[name, v] : vars) {
        z3::expr val = m.eval(v, true);
        int64_t n = 0;
        if (val.is_numeral_i64(n)) r.counterexample.emplace_back(name, n);
      }
      r.model = m;
      break;
    }
    case z3::unknown: {
      r.status = ProofStatus::Unknown;
      r.reason = solver.reason_unknown();
      r.timedOut = VerifyContext::isLimitReason(r.reason);
      if (r.reason == "(incomplete (theory arithmetic))" || r.reason.find("incomplete") != std::string::npos)
        r.reason = "non-linear or bit-level integer arithmetic the solver cannot decide (" + r.reason + ")";
      break;
    }
    }
  } catch (const z3::exception &e) {
    r.status = ProofStatus::Unknown;
    r.reason = std::string("solver error: ") + e.msg();
  }
  return r;
}

} // namespace

bool VerifyContext::isLimitReason(const std::string &reason) {
  return reason.find("timeout") != std::string::npos || reason.find("canceled") != std::string::npos ||
         reason.find("resource") != std::string::npos || reason.find("rlimit") != std::string::npos;
}

void VerifyContext::configureSolver(z3::solver &solver) { setLimits(*z3_, solver, options_.timeoutMs); }
void VerifyContext::configureSolver(z3::solver &solver, unsigned timeoutMs) { setLimits(*z3_, solver, timeoutMs); }
void VerifyContext::configureOptimizer(z3::optimize &optimizer, unsigned timeoutMs) {
  optimizer.set(limitParams(*z3_, timeoutMs));
}

ProofResult VerifyContext::proveForAll(const z3::expr &claim, const std::vector<z3::expr> &extra) {
  return proveForAllWithin(claim, extra, options_.timeoutMs);
}

ProofResult VerifyContext::proveForAllWithin(const z3::expr &claim, const std::vector<z3::expr> &extra,
                                             unsigned timeoutMs) {
  return runQuery(*session_, scopedAssumptions(extra, claim), !claim, timeoutMs, translator_->freeVars());
}

ProofResult VerifyContext::findModel(const z3::expr &condition, const std::vector<z3::expr> &extra) {
  return runQuery(*session_, scopedAssumptions(extra, condition), condition, options_.timeoutMs,
                  translator_->freeVars());
}

DiagBuilder VerifyContext::reportUnproven(SourceRange range, const std::string &obligation,
                                          const std::string &reason, bool timedOut) {
  ++result_.unproven;
  if (timedOut) return diags_.report(DiagKind::VerifySolverTimeout, range, obligation, options_.timeoutMs);
  return diags_.report(DiagKind::VerifyUnproven, range, obligation, reason);
}

std::optional<DiagBuilder> VerifyContext::conclude(const ProofResult &r, const std::string &obligation,
                                                   DiagKind kind, SourceRange range,
                                                   std::vector<std::string> args) {
  switch (r.status) {
  case ProofStatus::Proven: recordProven(); return std::nullopt;
  case ProofStatus::Refuted: {
    DiagBuilder b = reportFailureArgs(kind, range, std::move(args));
    if (!r.counterexample.empty()) b.note(range, "counterexample: " + r.counterexampleText());
    return b;
  }
  case ProofStatus::Unknown: return reportUnproven(range, obligation, r.reason, r.timedOut);
  }
  return std::nullopt;
}

void VerifyContext::runFamily(const FamilyEntry &family) {
  try {
    family.run(*this);
  } catch (const z3::exception &e) {
    // A solver failure is not a proof: report the family's remaining obligations as unproven.
    reportUnproven(kernel_.nameRange, std::string("the ") + family.name + " obligations of kernel '" + kernel_.name + "'",
                   std::string("solver error: ") + e.msg());
  }
}

} // namespace cake

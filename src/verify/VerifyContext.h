// VerifyContext: everything one kernel's obligation families share.
//
//   - the Z3 context and the assumptions every query starts from: requires(...) (translated), shape
//     variables >= 1, and the bounds of the builtins / loop variables the translator introduced (a loop
//     variable's only where the query mentions it: scopedAssumptions);
//   - the kernel's facts (KernelInfo: ct values, roles, barriers, shared layout), the target arch;
//   - proveForAll(claim): Proven, Refuted (with the counterexample as a name -> value map) or Unknown
//     (with the reason: solver timeout, non-linear arithmetic, ...), each query limited to
//     VerifyOptions::timeoutMs;
//   - reporting: recordProven(), reportFailure() (a refutation: counts as failed, returns the diagnostic
//     builder for notes), reportUnproven() (E0601, or E0602 for timeouts).  An obligation that is neither
//     proven nor refuted is always reported: nothing passes silently.
#pragma once
#include "frontend/AST.h"
#include "frontend/KernelInfo.h"
#include "frontend/Sema.h"
#include "support/Diagnostics.h"
#include "verify/ExprToZ3.h"
#include "verify/Families.h"
#include "verify/QuerySlice.h"
#include "verify/Verifier.h"

#include <z3++.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace cake {

struct SyncAnalysis;   // verify/SyncAnalysis.h: the sync simulation the core families share

enum class ProofStatus : uint8_t { Proven, Refuted, Unknown };

struct ProofResult {
  ProofStatus status = ProofStatus::Unknown;
  std::vector<std::pair<std::string, int64_t>> counterexample;   // Refuted: free constant -> value
  std::optional<z3::model> model;                                // Refuted: the solver's model of it
  std::string reason;                                            // Unknown: why
  bool timedOut = false;                                         // Unknown because of the time limit
  bool proven() const { return status == ProofStatus::Proven; }
  bool refuted() const { return status == ProofStatus::Refuted; }
  // "K = 64, k = 5"
  std::string counterexampleText() const;
};

// What the kernels of one module (or of the modules a caller verifies in a row: Verifier.h) share: the Z3
// context (making one costs ~7 ms and deleting it ~7 ms, more than verifying a small kernel), its plain solver,
// and the queries proven in it.  A query is a complete formula (its kernel's assumptions included) and Z3
// shares equal terms, so a query equal to a proven one is proven without a solver call; the proven terms are
// kept alive so that their ids are not reused.
struct VerifySession {
  z3::context z3;
  std::unordered_map<unsigned, z3::expr> proven;   // Z3 term id -> the proven query
  // The fast path's plain solver, kept across queries (each query in its own push/pop scope): making a solver
  // per query cost more than most trivial queries themselves.  fastLimitMs: the limit it is configured for.
  std::optional<z3::solver> fast;
  unsigned fastLimitMs = 0;
  QuerySlicer slicer;   // the fast path asks only the facts connected to the goal
  // A new module: its kernels' queries share nothing with the last module's, so what was proven (and the
  // slicer's memo) is dropped; the context and the plain solver stay.
  void beginModule() {
    proven.clear();
    slicer = QuerySlicer();
  }
};

class VerifyContext {
public:
  // `session`: verifyModule passes one for all kernels of a module; without it the VerifyContext makes its own.
  VerifyContext(const Module &module, const Kernel &kernel, const KernelInfo &info, const SemaResult &sema,
                const VerifyOptions &options, DiagnosticEngine &diags, VerifyResult &result,
                VerifySession *session = nullptr);
  ~VerifyContext();
  VerifyContext(const VerifyContext &) = delete;
  VerifyContext &operator=(const VerifyContext &) = delete;

  // ---- facts
  const Module &module() const { return module_; }
  const Kernel &kernel() const { return kernel_; }
  const KernelInfo &info() const { return info_; }
  const SemaResult &sema() const { return sema_; }
  Arch arch() const { return sema_.arch; }
  const VerifyOptions &options() const { return options_; }
  DiagnosticEngine &diags() { return diags_; }
  const VerifyResult &result() const { return result_; }
  // Compile-time value of a ct parameter by name.
  std::optional<int64_t> ctValue(const std::string &name) const;

  // ---- Z3
  z3::context &z3() { return *z3_; }
  ExprToZ3 &translator() { return *translator_; }
  // Shorthand for translator().translate().
  std::optional<z3::expr> toZ3(const Expr &e, TranslateFailure *failure = nullptr) {
    return translator_->translate(e, failure);
  }
  // The trip count of a `for lo..hi step s` loop, max(0, cdiv(hi - lo, s)), over the translated bounds (which
  // may name enclosing loops' variables); nullopt, with the reason in `failure`, when a bound cannot be translated.
  // atMost: an upper bound the solver handles better where the step is not a constant, max(0, hi - lo) (loop
  // steps are at least 1).
  std::optional<z3::expr> tripCount(const ForStmt &loop, TranslateFailure *failure = nullptr, bool atMost = false);
  // requires(...) conditions that could be translated (the others were reported once as unproven
  // assumptions: see requiresProblems()).
  const std::vector<z3::expr> &requirements() const { return requirements_; }
  // What a query about `claim` assumes (proveForAll, findModel): requires + the translator's side conditions
  // (bounds) + `extra`, but a loop variable's bounds (ExprToZ3::loopBounds) only for the variables `claim`
  // or `extra` mention and, through those bounds, the loops around them.  The others would say that their loops
  // run: `for c in 0..n - 1` would hide every shape with n = 1 from a query about a statement after the loop, or
  // about the shape.  A query about a statement inside a loop says so in `extra` (SIMT bounds: the loop
  // variable's bounds join the path).
  z3::expr scopedAssumptions(const std::vector<z3::expr> &extra, const z3::expr &claim) const;

  // Applies the per-query limit to a solver.  The limit is Z3's deterministic resource limit (rlimit), scaled
  // from VerifyOptions::timeoutMs, not Z3's wall-clock "timeout": the timer thread behind the latter can
  // deadlock in the Z3 4.8 series, and a resource limit makes verdicts reproducible across machines.
  void configureSolver(z3::solver &solver);
  void configureSolver(z3::solver &solver, unsigned timeoutMs);   // a share of the limit
  void configureOptimizer(z3::optimize &optimizer, unsigned timeoutMs);
  // True when Z3's reason_unknown() says a limit was hit (reported as E0602 rather than E0601).
  static bool isLimitReason(const std::string &reason);

  // Is `claim` true for every value of the free constants satisfying scopedAssumptions(extra, claim)?
  ProofResult proveForAll(const z3::expr &claim, const std::vector<z3::expr> &extra = {});
  // The same within a solver limit of `timeoutMs` instead of --verify-timeout's.
  ProofResult proveForAllWithin(const z3::expr &claim, const std::vector<z3::expr> &extra, unsigned timeoutMs);
  unsigned timeoutMs() const { return options_.timeoutMs; }
  // A model of scopedAssumptions(extra, condition) + `condition`: Refuted status means "found" (the model is in
  // counterexample), Proven means "no such values exist", Unknown as above.
  ProofResult findModel(const z3::expr &condition, const std::vector<z3::expr> &extra = {});

  // ---- outcomes
  void recordProven(unsigned count = 1) { result_.proven += count; }
  // A refuted obligation: reports `kind` at `range` and counts it as failed.
  template <class... Args> DiagBuilder reportFailure(DiagKind kind, SourceRange range, const Args &...args) {
    ++result_.failed;
    return diags_.report(kind, range, args...);
  }
  DiagBuilder reportFailureArgs(DiagKind kind, SourceRange range, std::vector<std::string> args) {
    ++result_.failed;
    return diags_.reportArgs(kind, range, std::move(args));
  }
  // An obligation neither proven nor refuted: E0601 (or E0602 when `timedOut`), counted as unproven.
  DiagBuilder reportUnproven(SourceRange range, const std::string &obligation, const std::string &reason,
                             bool timedOut = false);
  // Convenience: proven -> count; refuted -> `kind` with args + a note with the counterexample; unknown
  // -> reportUnproven.  Returns the builder of the diagnostic when one was reported.
  std::optional<DiagBuilder> conclude(const ProofResult &r, const std::string &obligation, DiagKind kind,
                                      SourceRange range, std::vector<std::string> args);

  // ---- family bookkeeping
  void runFamily(const FamilyEntry &family);
  // The sync simulation shared by the core families (built on first use; SyncAnalysis.cpp).
  const SyncAnalysis &syncAnalysis();

private:
  const Module &module_;
  const Kernel &kernel_;
  const KernelInfo &info_;
  const SemaResult &sema_;
  const VerifyOptions &options_;
  DiagnosticEngine &diags_;
  VerifyResult &result_;
  std::unique_ptr<VerifySession> ownSession_;   // when none was passed
  VerifySession *session_;
  z3::context *z3_;
  std::unique_ptr<ExprToZ3> translator_;
  std::vector<z3::expr> requirements_;
  std::unique_ptr<SyncAnalysis> syncAnalysis_;
};

} // namespace cake

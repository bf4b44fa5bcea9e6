// SyncAnalyzer: the state and the steps of the synchronisation analysis (SyncAnalysis.h), private to the two
// files that implement it: SyncAnalysis.cpp (the method, steps 1-3: sync loops, period, structural facts, and
// the findings) and SyncEnumeration.cpp (step 4: shape queries, the trip-count windows, the enumeration of trip
// and tile counts and their simulation).
#pragma once
#include "verify/InductionCounters.h"
#include "verify/SyncAnalysis.h"
#include "verify/SyncExprFacts.h"
#include "verify/SyncModel.h"
#include "verify/SyncSimulator.h"
#include "verify/VerifyContext.h"

#include <z3++.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace cake::sync_detail {

class Analyzer {
public:
  explicit Analyzer(VerifyContext &ctx) : ctx_(ctx), z_(ctx.z3()) {}

  SyncAnalysis run();

private:
  // Steps 1-3 (SyncAnalysis.cpp): the structural facts for the current period, the trip counts' own period,
  // and how failures are recorded.
  bool proveStructure(const std::vector<SyncLoop> &loops, const std::vector<const Expr *> &allExprs,
                      int64_t &prefix, int64_t &counterPrefix);
  bool trialFailed() const { return trialFindings_ != SIZE_MAX && result_.findings.size() > trialFindings_; }
  bool proveDeterminacyOf(const std::vector<const Expr *> &allExprs);
  ProofResult proveFact(const z3::expr &claim, const std::vector<z3::expr> &extra);
  void findTripPeriod(const std::vector<SyncLoop> &loops, const std::vector<const Expr *> &allExprs,
                      int64_t counterPrefix, int64_t &tripPrefix);
  void collectDataGuards(const Stmt &s);
  bool mayGuard(const Expr *cond) const;
  bool excused(const Expr *e);
  void untranslatable(const TranslateFailure &f, SourceRange whole, std::string obligation, std::string reason);
  void explained(const SyncProblem &p);
  SyncAnalysis finish();
  void unproven(SyncFamily family, SourceRange range, std::string obligation, std::string reason);
  void inconclusive(const ProofResult &r, SourceRange range, const std::string &obligation);
  std::optional<z3::expr> tripTerm(const ForStmt &loop);
  int64_t provePeriodic(const SyncLoop &l);
  z3::expr_vector vec(const z3::expr &e);
  void proveDeterminacy(const Expr &e);
  bool proveSameTripAcrossCluster(const ForStmt &loop);
  bool clusterInvariant(const Expr &e, std::string &why, unsigned depth);
  int64_t proveCounterPeriodic(const Expr &e, const std::set<const Decl *> *only = nullptr);
  static const Expr *nameOf(const Decl *d, const Expr &e);
  static bool mentionsDecl(const Expr *e, const Decl *d) { return e && nameOf(d, *e) != nullptr; }
  static bool insideSymbolicLoop(const std::vector<SyncLoop> &loops, const SyncLoop &l);

  // Step 4 (SyncEnumeration.cpp): shape queries, trip-count windows, the enumeration and its simulation.
  z3::check_result checkShape(const z3::expr &condition, std::optional<z3::model> *model, std::string *reason);
  ProofResult findShape(const z3::expr &condition);
  std::optional<ConcreteValues> shapeFor(const std::vector<int64_t> &tripValues, std::string &description,
                                        const std::vector<int64_t> &drivenValues = {}, bool reportUnknown = true);
  bool pairsFeasible(const std::vector<int64_t> &loopTrips, const std::vector<int64_t> &tiles);
  bool tileCountFeasible(size_t tileLoop, int64_t count);
  bool knownInfeasible(const std::vector<int64_t> &loopTrips, int64_t tiles) const;
  int64_t tilesNeeded(const std::vector<int64_t> &loopTrips, int64_t maxTiles);
  bool directlyInTileLoop(const ForStmt *loop) const;
  bool placeTripWindows(int64_t maxTrip, int64_t tripPrefix);
  bool residuesInWindow(const z3::expr &t, int64_t from, int64_t past);
  bool steppedTogether(size_t i, const std::vector<z3::expr> &inputs, z3::expr feasible, int64_t past);
  static bool onlyMentions(const z3::expr &e, const std::vector<z3::expr> &vars);
  void simulateAll(int64_t maxTiles);
  std::map<int64_t, SimOutcome> simulateTileCounts(const ConcreteValues &shapeValues, std::vector<int64_t> counts,
                                                   const SlotTable &slots, const std::vector<SyncAgent> &agents);
  z3::solver &incrementalShapeSolver();
  static bool isNonlinear(const z3::expr &e);

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

} // namespace cake::sync_detail

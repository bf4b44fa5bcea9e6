// SyncEvaluator: integer values of expressions at a point of the sync model's walk (SyncModel.cpp): the launch's
// shape and input values, the loop variables and induction counters the walk has bound, and one thread of an
// agent.  Lets are memoised by what they read (see Evaluator); a failure says why in words.
#pragma once
#include "frontend/AST.h"
#include "frontend/Limits.h"
#include "verify/SyncModel.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace cake::sync_detail {

inline constexpr unsigned kMaxEvalDepth = kMaxExprDepth;

// One thread of an agent.
struct ThreadPoint {
  const SyncAgent *agent = nullptr;
  int64_t tid = 0;
};

// Evaluates expressions at a point of the walk: the shape (values), the loop variables and induction
// counters (loops, counters: the walk's state, which changes as it goes) and a thread.  A let is evaluated
// once and its value reused for as long as what it read is unchanged: the value records which loop
// variables and counters it read (with their values, or their absence) and whether it read the thread, and
// a later use re-checks exactly those before reusing it.  So a chain of lets that reuse the previous one
// costs one evaluation per change of its inputs, not one per use (a chain of 24 lets in every stage index of a
// persistent kernel would otherwise be evaluated afresh at each of its ~10^6 uses).
class Evaluator {
public:
  Evaluator(const KernelInfo &info, const ConcreteValues &values, const DeclMap<int64_t> &loops,
            const DeclMap<int64_t> &counters)
      : info_(info), values_(values), loops_(loops), counters_(counters) {}

  std::optional<int64_t> eval(const Expr &e, const ThreadPoint &at, std::string &why) const;
  // After a failed eval: the mutable variable (not a counter) that made it fail, if that was the cause.
  const Decl *failedVariable() const { return failedVariable_; }

private:
  std::optional<int64_t> fail(std::string &why, std::string text) const;

  // What a let's value read of the walk's state: a loop variable or counter (decl) and its value, or its
  // absence; or, with decl null, the thread.
  struct Dep {
    const Decl *decl = nullptr;
    bool present = false;
    int64_t value = 0;
  };
  // Notes a read into the let being evaluated (the innermost; its enclosing lets take it over when it ends).
  void note(const Dep &d) const;
  void noteState(const Decl *d, const DeclMap<int64_t> &state) const;

  std::optional<int64_t> builtin(BuiltinValue v, const ThreadPoint &at, std::string &why) const;

  std::optional<int64_t> ev(const Expr &e, const ThreadPoint &at, std::string &why, unsigned depth) const;

  const KernelInfo &info_;
  const ConcreteValues &values_;
  const DeclMap<int64_t> &loops_;
  const DeclMap<int64_t> &counters_;
  mutable const Decl *failedVariable_ = nullptr;
  struct LetValue {
    std::optional<int64_t> value;
    std::string why;                        // when value is nullopt
    const Decl *failedVariable = nullptr;
    const SyncAgent *agent = nullptr;       // the agent it was evaluated for
    std::vector<Dep> deps;                  // the walk's state it read
  };
  // Is v still the let's value at this point of the walk (same agent, same thread where it read the
  // thread, same value or absence of each loop variable and counter it read)?
  bool current(const LetValue &v, const ThreadPoint &at) const;
  mutable std::unordered_map<const Decl *, LetValue> lets_;   // each let's latest value
  mutable std::vector<std::vector<Dep> *> recording_;         // the deps of the lets being evaluated, innermost last
  mutable bool tooDeep_ = false;                               // the let being evaluated hit kMaxEvalDepth
};

} // namespace cake::sync_detail

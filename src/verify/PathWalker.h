// PathCondition: the path condition of a structured walk over a kernel body, shared by the verifier families
// that walk statements in program order and ask Z3 about one thread at one program point (SimtBounds.cpp,
// SharedRaces.cpp, AsyncProxyRaces.cpp, MBarrierInitOrder.cpp).
//
// What it keeps: a stack of Z3 Bool conjuncts (enclosing if conditions, loop ranges, `lane == 0` in elect,
// the launch facts tying warp / lane / ROLE.* to tid.x) and a counter of conditions that could not be
// translated (they read memory or a mutable variable) and were dropped: while it is non-zero the path
// condition over-approximates the real one, so a refutation found under it may be spurious ("inexact").
//
// How the families use it:
//   - walkBlock(b, walkStmt) walks a block's statements through the family's own statement walker and
//     applies the early-return rule: after `if c { ...; return; }` without else, the rest of the block runs
//     only where c is false, so !c is pushed (or the inexact counter raised when c cannot be translated)
//     until the end of the block; at the end the stack and the counter are restored to their state at entry;
//   - withCondition(c, holds, body) runs `body` under c (holds) or !c (else branches);
//   - linkThreadBuiltins(role, ...) pushes the launch facts of the kernel level or of a role's body;
//   - mark() / restore() bracket anything else a family pushes (a role's facts, a loop's range).
#pragma once
#include "frontend/AST.h"
#include "frontend/KernelInfo.h"
#include "verify/ExprToZ3.h"

#include <z3++.h>

#include <functional>
#include <optional>
#include <vector>

namespace cake {

class PathCondition {
public:
  PathCondition(z3::context &z3, ExprToZ3 &translator, const KernelInfo &info)
      : z3_(z3), tr_(translator), info_(info) {}

  // ---- the conjuncts
  const std::vector<z3::expr> &terms() const { return terms_; }
  void push(const z3::expr &c) { terms_.push_back(c); }
  void pop() { terms_.pop_back(); }
  z3::expr &back() { return terms_.back(); }
  // The conjunction of the terms (z3::mk_and over them, in order).
  z3::expr conjunction() const;

  // ---- conditions that could not be translated
  unsigned inexact() const { return inexact_; }
  void dropCondition() { ++inexact_; }
  void undropCondition() { --inexact_; }

  // ---- scopes
  struct Mark {
    size_t terms;
    unsigned inexact;
  };
  Mark mark() const { return {terms_.size(), inexact_}; }
  void restore(Mark m);

  // A statement condition as a Bool term (nullopt: not translatable, or not a pred).
  std::optional<z3::expr> translateCondition(const Expr &cond);

  // Walks `b`'s statements with `walkStmt`, applying the early-return rule (see the header comment), and
  // restores the path condition at the end of the block.
  void walkBlock(const BlockStmt &b, const std::function<void(const Stmt &)> &walkStmt);

  // Runs `body` with `cond` (holds) or `!cond` pushed; a missing or untranslatable condition is dropped.
  void withCondition(const Expr *cond, bool holds, const std::function<void()> &body);

  // Pushes warp == tid.x / 32 and lane == tid.x % 32; inside `role` (with a known warp range) also the role's
  // thread range and ROLE.index / ROLE.thread / ROLE.warp as functions of tid.x.  The role's three builtins are
  // appended to `roleVars` when given.  `rangeAsOneTerm`: the range tid.x in [first, end) is one conjunct
  // (roleRange()) rather than two.
  void linkThreadBuiltins(const RoleStmt *role, std::vector<z3::expr> *roleVars = nullptr, bool rangeAsOneTerm = false);
  // tid.x lies in the role's threads.
  z3::expr roleRange(const RoleInfo &ri);

private:
  z3::context &z3_;
  ExprToZ3 &tr_;
  const KernelInfo &info_;
  std::vector<z3::expr> terms_;
  unsigned inexact_ = 0;
};

} // namespace cake

// ExprToZ3: translates typed-AST integer and pred expressions into Z3 terms.
//
// Integers become Z3 Int terms (mathematical integers: wrap-around on overflow is not modelled), preds
// become Bool terms.  The translation follows the target's semantics where they differ from mathematics:
//   - signed `/` and `%` truncate toward zero (PTX div.s32 / rem.s32): encoded with ite over the signs;
//     unsigned (u32, builtins) and provably non-negative operands use Euclidean div/mod directly;
//   - `e & (2^m - 1)` is e mod 2^m (exact in two's complement); `e ^ 1` flips the low bit; shifts by a
//     constant are multiplication / floor division by a power of two; other bit operations go through
//     64-bit bit-vectors (int2bv / bv2int), which the solver may fail on (then: Unknown with the reason);
//   - cdiv(a, b) = a / b + (a % b > 0) (as codegen computes it), min / max / select are ite; integer conversions are the identity.
// Names: compile-time parameters are their constants; shape variables and scalar params are free Int
// constants (shape variables >= 1); `let` bindings are replaced by their (translated, memoised) initialiser; loop
// variables are free Int constants bounded by their loop unless the caller binds them (bind()); builtins
// (tid.x, lane, block.y, ROLE.index, cluster.rank, ...) are free Int constants bounded by the launch.
// Every bound of a free constant is collected in sideConditions(); a proof must assume them.
// Anything else (floats, memory loads, mutable variables) is unsupported: translate() returns nullopt
// with a reason and the culprit sub-expression - except under `x % C` (x unsigned) and `x & C` (C >= 0),
// whose result is a fresh constant in [0, C) / [0, C] whatever x is (a histogram bin from a loaded value), and
// under `min(x, b)` / `max(x, b)` (either way round), a fresh constant of the call's type at most (least) b: a
// clamped index read from memory, `min(max(i, 0), N - 1)`, lies in [0, N - 1].
// Where x is fixed for the launch - it reads only elements of global tensors the kernel never writes, at
// indices computed from shape variables, parameters and the block's position (`u32(cu[n]) % u32(TT + 1)`, a
// sequence's start in a batch of variable-length sequences) - the constant is one per expression node,
// whatever the translation, and listed in launchReads(): an input of the kernel like a shape variable, whose
// value a shape query's model supplies to the synchronisation model.
#pragma once
#include "frontend/AST.h"
#include "frontend/Builtins.h"
#include "frontend/KernelInfo.h"
#include "verify/IntervalBounds.h"

#include <z3++.h>

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace cake {

struct TranslateFailure {
  std::string reason;              // "mutable variable 'x' is not tracked"
  const Expr *culprit = nullptr;   // the sub-expression that could not be translated
};

class ExprToZ3 {
public:
  ExprToZ3(z3::context &ctx, const KernelInfo &info);

  // Integer / pred expression -> Int / Bool term, or nullopt with the reason in `failure`.
  std::optional<z3::expr> translate(const Expr &e, TranslateFailure *failure = nullptr);

  // Uses `value` for every reference to `decl` (a loop variable, a let, a builtin decl) from now on.
  void bind(const Decl *decl, const z3::expr &value);
  void unbind(const Decl *decl);
  // The free constant standing for a builtin (per role for ROLE.*), created on first use with its bounds.
  z3::expr builtinVar(BuiltinValue value, const RoleStmt *role = nullptr);
  // The free constant of a shape variable / scalar parameter / loop variable (created on first use).
  z3::expr declVar(const Decl *decl);

  // Bounds of every free constant created so far (shape vars >= 1, 0 <= tid.x < threads, ...).
  const std::vector<z3::expr> &sideConditions() const { return sideConditions_; }
  // The side conditions that bound a loop variable by its loop's bounds (lower <= v < upper, the step), by
  // index into sideConditions(): the variable's term id, and the loop variables the bound mentions (the
  // variable and those of the loops around it).  They hold only inside the loop, and say that the loop runs
  // (VerifyContext::scopedAssumptions).
  struct LoopBound {
    unsigned owner;
    std::vector<unsigned> loopVariables;
  };
  const std::unordered_map<size_t, LoopBound> &loopBounds() const { return loopBounds_; }
  bool isLoopVariable(const z3::expr &c) const { return loopVariableIds_.count(c.id()) > 0; }
  // Every free constant created so far, by the name it has in diagnostics ("K", "tid.x", "k").
  const std::vector<std::pair<std::string, z3::expr>> &freeVars() const { return freeVars_; }
  // The inclusive range of every bounded free constant, by term id.
  const std::unordered_map<unsigned, IntRange> &freeVarRanges() const { return freeVarRanges_; }
  // A sound range of an integer term from its free constants' ranges alone (IntervalBounds), or nullopt.
  std::optional<IntRange> rangeOf(const z3::expr &e) { return intervals_.rangeOf(e); }

  // Target integer division / remainder (truncation toward zero unless both sides are unsigned).
  z3::expr divide(const z3::expr &a, const z3::expr &b, bool isUnsigned);
  z3::expr remainder(const z3::expr &a, const z3::expr &b, bool isUnsigned);

  // The fresh constants standing for `x % C` / `x & C` of an x fixed for the launch (see above), one per node.
  struct LaunchRead {
    const Expr *node;   // the `%` / `&` / `min` / `max` expression
    z3::expr value;
  };
  const std::vector<LaunchRead> &launchReads() const { return launchReads_; }

  // A fresh free constant in [lo, hiExclusive) (its bounds join sideConditions()).
  z3::expr newVar(const std::string &name, int64_t lo, std::optional<int64_t> hiExclusive);
  // `fact` holds in every query made with this translator's terms (a requires(...) condition): where it is a
  // constant bound of a free constant (x <= c, x < c, x >= c, x > c, x == c, either way round, or a conjunction
  // of them), that constant's interval shrinks to it, so that IntervalBounds decides more without the solver.
  // Ranges only shrink; terms whose range was read before keep the wider (still sound) one.
  void assumeBounds(const z3::expr &fact);

private:
  std::optional<z3::expr> tr(const Expr &e, TranslateFailure &f, unsigned depth);
  std::optional<z3::expr> trBinary(const BinaryExpr &b, TranslateFailure &f, unsigned depth);
  std::optional<z3::expr> trCall(const CallExpr &c, TranslateFailure &f, unsigned depth);
  std::optional<int64_t> constantOf(const z3::expr &e) const;
  // `x % C` / `x & C` of an x the translator cannot express: a fresh constant in [lo, hiExclusive) (and below
  // `bound` where it is positive), the node's one constant when x and the bound are fixed for the launch.
  z3::expr maskedValue(const BinaryExpr &b, int64_t lo, std::optional<int64_t> hiExclusive,
                       const std::optional<z3::expr> &bound = std::nullopt);
  // `min(x, b)` / `max(x, b)` of an x the translator cannot express: a fresh constant in the range of the call's
  // type, <= b (min) or >= b (max); the node's one constant when the call is fixed for the launch.
  z3::expr clampedValue(const CallExpr &c, const z3::expr &known, bool isMin);
  // A fresh constant `name` for `node` (a `%`, `&`, `min`, `max` of a value read from memory) in [lo, hiExclusive), the
  // same constant wherever node is translated when it is fixed for the launch (then listed in launchReads_).
  z3::expr launchReadOrFresh(const Expr &node, const char *name, bool fixed, int64_t lo,
                             std::optional<int64_t> hiExclusive);
  // Is e the same value for every thread, iteration and CTA of a cluster, for the whole launch?
  bool launchInvariant(const Expr &e, unsigned depth);
  // a >= 0 and b > 0 by their ranges: signed division and remainder are Euclidean there.
  bool nonNegativeOverPositive(const z3::expr &a, const z3::expr &b);

  z3::context &ctx_;
  const KernelInfo &info_;
  std::map<const Decl *, z3::expr> bound_;          // bind(), and memoised lets / shape vars / params
  std::map<std::pair<int, const RoleStmt *>, z3::expr> builtins_;
  std::vector<z3::expr> sideConditions_;
  std::unordered_map<size_t, LoopBound> loopBounds_;
  std::unordered_set<unsigned> loopVariableIds_;
  std::vector<std::pair<std::string, z3::expr>> freeVars_;
  std::unordered_map<unsigned, IntRange> freeVarRanges_;
  IntervalBounds intervals_{freeVarRanges_};
  std::vector<const Decl *> inProgress_;             // lets being translated (cycle guard)
  struct LetTranslation {
    std::optional<z3::expr> value;
    TranslateFailure failure;   // why value is nullopt
  };
  std::map<const Decl *, LetTranslation> lets_;      // memoised lets; cleared by bind() / unbind()
  std::vector<LaunchRead> launchReads_;
  std::unordered_map<const Expr *, z3::expr> launchReadOf_;   // node -> its constant in launchReads_
  std::unordered_map<const Decl *, bool> launchInvariantLets_;
  std::unordered_map<const Decl *, bool> tensorWritten_;       // global tensor parameter -> written by the kernel
  // constantOf's answers by term id (the term kept alive, so that its id is not reused): whether the term has
  // no free constant, and then its value.  Without it a flat chain of n operators simplified each operand
  // again at every node, O(n^2) per translation and O(n^3) for the wrap-around search of the chain.
  struct ConstantInfo {
    z3::expr term;
    bool closed;
    std::optional<int64_t> value;
  };
  mutable std::unordered_map<unsigned, ConstantInfo> constants_;
  bool closedTerm(const z3::expr &e) const;
};

} // namespace cake

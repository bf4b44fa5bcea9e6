// Compile-time integer evaluation of CAKE expressions.
//
// Evaluates integer literals, compile-time parameters (CtParam::value), immutable `let` bindings whose
// initialiser is itself constant (each let once per evaluation), unary/binary integer arithmetic, comparisons and the intrinsics cdiv,
// min and max, in 64-bit signed arithmetic.  Every operation is checked: overflow (including shifts by
// 64 or more and INT64_MIN / -1) and division or remainder by zero stop the evaluation and report which
// sub-expression caused it, so sema can point there.  The evaluator reads NameExpr::decl, so names must be
// resolved first; it never reports diagnostics itself.
//
// ConstEvalOptions lets the verifier's concrete evaluators reuse this one walk: a binding hook gives values
// to names and member expressions (loop variables, per-warp builtins) before the default rules, and a few
// switches select the verifier's reading of `&&`/`||`, integer casts, `<<` and cdiv.  The defaults are
// sema's rules above.
#pragma once
#include "frontend/Limits.h"
#include "frontend/AST.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>

namespace cake {

struct ConstResult {
  enum Status : uint8_t { Ok, NotConstant, Overflow, DivisionByZero };
  Status status = NotConstant;
  int64_t value = 0;
  const Expr *culprit = nullptr;   // the sub-expression that is not constant / overflowed / divided by 0
  bool ok() const { return status == Ok; }
  std::optional<int64_t> optional() const { return ok() ? std::optional<int64_t>(value) : std::nullopt; }
};

struct ConstEvalOptions {
  // Bounds recursion through nested expressions and let bindings (deeper = NotConstant).
  unsigned maxDepth = kMaxExprDepth;
  // Consulted first for every Name and Member expression: a value binds the expression; nullopt falls
  // through to the default rules (compile-time parameters and lets for names; members are not constant).
  std::function<std::optional<int64_t>(const Expr &)> bind;
  // `0 && x` is 0 and `1 || x` is 1 without evaluating x (default: both sides must be constant).
  bool shortCircuitLogic = false;
  // i32(x), u32(x) and i64(x) evaluate to x, unchanged (default: not constant).
  bool integerCasts = false;
  // `x << y` for 0 <= y <= 62 keeps the low 64 bits, whatever x (default: checked, y < 64, x >= 0 and no
  // set bit shifted out).
  bool wrappingShiftLeft = false;
  enum class Cdiv : uint8_t {
    Ceiling,                // the rounded-up quotient for any signs (b != 0)
    CeilingOfNonNegative,   // the rounded-up quotient, only for a >= 0 and b > 0
    AddThenDivide,          // (a + b - 1) / b with C++ truncation, only for b > 0 (a + b - 1 checked)
  };
  Cdiv cdiv = Cdiv::Ceiling;
};

class ConstEvaluator {
public:
  explicit ConstEvaluator(unsigned maxDepth = kMaxExprDepth) { options_.maxDepth = maxDepth; }
  explicit ConstEvaluator(ConstEvalOptions options) : options_(std::move(options)) {}
  ConstResult evaluate(const Expr &e) const;

private:
  // Lets evaluated so far in one evaluate() call: a let used k times is evaluated once, so chains of lets
  // that each use the previous one several times stay linear.  Per call, since `bind` may differ.
  using LetMemo = std::unordered_map<const Decl *, ConstResult>;
  mutable LetMemo *lets_ = nullptr;
  ConstResult eval(const Expr &e, unsigned depth) const;
  ConstResult evalCall(const CallExpr &c, unsigned depth) const;
  ConstEvalOptions options_;
};

// Checked helpers shared with sema (false on overflow).
bool checkedAdd(int64_t a, int64_t b, int64_t &out);
bool checkedMul(int64_t a, int64_t b, int64_t &out);

} // namespace cake

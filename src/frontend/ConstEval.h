// Compile-time integer evaluation of CAKE expressions.
//
// Evaluates integer literals, compile-time parameters (CtParam::value), immutable `let` bindings whose
// initialiser is itself constant, unary/binary integer arithmetic, comparisons and the intrinsics cdiv,
// min and max, in 64-bit signed arithmetic.  Every operation is checked: overflow (including shifts by
// 64 or more and INT64_MIN / -1) and division or remainder by zero stop the evaluation and report which
// sub-expression caused it, so sema can point there.  The evaluator reads NameExpr::decl, so names must be
// resolved first; it never reports diagnostics itself.
#pragma once
#include "frontend/AST.h"

#include <cstdint>
#include <optional>

namespace cake {

struct ConstResult {
  enum Status : uint8_t { Ok, NotConstant, Overflow, DivisionByZero };
  Status status = NotConstant;
  int64_t value = 0;
  const Expr *culprit = nullptr;   // the sub-expression that is not constant / overflowed / divided by 0
  bool ok() const { return status == Ok; }
  std::optional<int64_t> optional() const { return ok() ? std::optional<int64_t>(value) : std::nullopt; }
};

class ConstEvaluator {
public:
  // maxDepth bounds recursion through nested expressions and let bindings (deeper = NotConstant).
  explicit ConstEvaluator(unsigned maxDepth = 512) : maxDepth_(maxDepth) {}
  ConstResult evaluate(const Expr &e) const { return eval(e, 0); }

private:
  ConstResult eval(const Expr &e, unsigned depth) const;
  unsigned maxDepth_;
};

// Checked helpers shared with sema (false on overflow).
bool checkedAdd(int64_t a, int64_t b, int64_t &out);
bool checkedMul(int64_t a, int64_t b, int64_t &out);

} // namespace cake

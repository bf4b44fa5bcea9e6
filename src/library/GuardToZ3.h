// GuardToZ3: a manifest expression (runtime/src/Expr.h: the language of dispatch guards, domains and the
// variants' `requires` clauses in their manifests) as a Z3 term, for the dispatch-table checks (TableCheck.h).
//
// Values are 64-bit two's-complement bit-vectors, so the translation is exact where the runtime's evaluator is
// defined: `/` and `%` are bvsdiv / bvsrem (both truncate toward zero, as C and the runtime do), shifts,
// bitwise operators and comparisons are the signed bit-vector ones, cdiv(a, b) is a / b plus one when the
// remainder is non-zero and a, b have the same sign, `&&` `||` `!` and comparisons yield 0 or 1.  Where the
// runtime's evaluator fails (division by zero, overflow, shift counts outside 0..63) the dispatcher refuses
// the launch; the translation does not model those failures (shape variables are below 2^31, so sums and
// single products of them do not overflow).
//
// Names are resolved by the caller: a shape variable of the library is its bit-vector constant, a
// compile-time parameter of the variant its value; an unresolved name is reported (translate returns nullopt).
#pragma once
#include "Expr.h"

#include <z3++.h>

#include <functional>
#include <optional>
#include <string>

namespace cake::library {

class GuardToZ3 {
public:
  using Resolver = std::function<std::optional<z3::expr>(const std::string &name)>;
  GuardToZ3(z3::context &z3, Resolver resolve) : z3_(z3), resolve_(std::move(resolve)) {}

  // The expression's value as a 64-bit bit-vector; nullopt with unresolved() set when a name has no meaning.
  std::optional<z3::expr> value(const rt::Expr &expr);
  // Its truth (value != 0).
  std::optional<z3::expr> truth(const rt::Expr &expr);
  const std::string &unresolved() const { return unresolved_; }

private:
  z3::context &z3_;
  Resolver resolve_;
  std::string unresolved_;
};

}   // namespace cake::library

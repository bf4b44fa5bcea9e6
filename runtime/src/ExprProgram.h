// A manifest expression compiled for fast repeated evaluation: names are resolved once to slot indices
// (positions in an array of int64 values), and the tree is flattened into an array of nodes evaluated without
// any string, map or std::function.  The dispatch table of a library (Library.h) compiles its guards to this
// form when it is loaded, so choosing a variant costs a few nanoseconds per guard.
//
// Semantics are exactly Expr::evaluate's (Expr.h): 64-bit signed, C precedence, `/` `%` truncating, `&&` `||`
// short-circuiting; division by zero, overflow and bad shift counts make evaluate() return false with a
// message instead of a value.
#pragma once
#include "Expr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cake::rt {

class ExprProgram {
public:
  ExprProgram() = default;
  // Compiles `expr`; every name must be in `slots` (its index is the slot); throws ExprSyntaxError naming
  // the first name that is not.
  static ExprProgram compile(const Expr &expr, const std::vector<std::string> &slots);

  // Evaluates with slot i = values[i]; false (and `error` set when not null) when evaluation fails.
  bool evaluate(const int64_t *values, int64_t &result, std::string *error = nullptr) const {
    if (simple_) {   // a conjunction of atoms: one tight loop, no recursion (the common guard)
      for (const Atom &atom : atoms_)
        if (!atom.holds(values[atom.slot])) {
          result = 0;
          return true;
        }
      result = 1;
      return true;
    }
    return evaluateTree(values, result, error);
  }

  struct Node {
    uint8_t op;               // ExprOp
    int32_t a = -1, b = -1;   // operand node indices
    int64_t value = 0;        // literal value, or slot index for a name
  };

private:
  // `NAME cmp INT` (or `INT cmp NAME`, turned around) and `NAME % INT ==/!= INT` with INT > 0: what guards
  // are made of.  A literal `1` (the fallback) is the empty conjunction.
  struct Atom {
    enum Kind : uint8_t { Lt, Le, Gt, Ge, Eq, Ne, RemEq, RemNe } kind;
    int32_t slot;
    int64_t value, divisor;
    bool holds(int64_t v) const {
      switch (kind) {
      case Lt: return v < value;
      case Le: return v <= value;
      case Gt: return v > value;
      case Ge: return v >= value;
      case Eq: return v == value;
      case Ne: return v != value;
      case RemEq: return v % divisor == value;
      case RemNe: return v % divisor != value;
      }
      return false;
    }
  };
  bool evaluateTree(const int64_t *values, int64_t &result, std::string *error) const;
  bool eval(int32_t index, const int64_t *values, int64_t &out) const;
  void compileAtoms();

  bool simple_ = false;
  std::vector<Atom> atoms_;

  std::vector<Node> nodes_;
  int32_t root_ = -1;
  Expr source_;   // for error messages (the checked evaluator says which sub-expression failed)
  std::vector<std::string> slots_;
};

}   // namespace cake::rt

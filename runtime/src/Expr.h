// Integer expressions of the launch manifest (grid sizes, requires clauses, tensor dims, box sizes).
//
// The language (docs/manifest.md): 64-bit signed integers, names, parentheses, the C operators
//   ||  &&  |  ^  &  == !=  < <= > >=  << >>  + -  * / %  and unary - ! ~
// with C precedence (the same as CAKE IR's grammar), and the calls cdiv(a, b), min(a, b), max(a, b).
// Comparisons and logical operators yield 0 or 1; && and || short-circuit.  `/` and `%` truncate toward
// zero as in C and PTX.  Evaluation never has undefined behaviour: division by zero, overflow and shift
// counts outside 0..63 are errors that name the sub-expression.
//
// Expressions are parsed once (when the manifest is loaded) into an Expr and evaluated per launch.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cake::rt {

constexpr int kMaxExprDepth = 100;          // nesting of parentheses / unary operators
constexpr size_t kMaxExprLength = 4096;      // bounds the tree depth of long left-associative chains

// Thrown for malformed expression text.
struct ExprSyntaxError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Thrown when evaluation fails (unbound name, division by zero, overflow).
struct ExprEvalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ExprNode;   // ExprTree.h

// A parsed expression; cheap to copy (the tree is shared and immutable).
class Expr {
public:
  Expr() = default;
  // Parses `text`; throws ExprSyntaxError("...: at column 5: expected ')'").
  static Expr parse(std::string_view text);
  static Expr constant(int64_t value);

  // Looks a name up; returns nullopt when the name is not bound.
  using Lookup = std::function<std::optional<int64_t>(std::string_view)>;
  int64_t evaluate(const Lookup &lookup) const;

  const std::string &text() const { return text_; }
  bool valid() const { return root_ != nullptr; }
  // If the expression is a bare name, that name; else empty.
  std::string_view bareName() const;
  // If the expression is an integer literal, its value.
  std::optional<int64_t> literal() const;
  // Every distinct name the expression mentions, in order of first appearance.
  std::vector<std::string> names() const;
  // The operands of the top-level `&&` chain, in source order (the expression itself when it is no `&&`);
  // each keeps the text it renders to.  Used to say which part of a guard failed.
  std::vector<Expr> conjuncts() const;
  // The tree (ExprTree.h); nullptr for an empty Expr.
  const ExprNode *root() const;

private:
  std::shared_ptr<const ExprNode> root_;
  std::string text_;
};

} // namespace cake::rt

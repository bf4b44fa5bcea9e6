// The tree of a parsed manifest expression (Expr.h), for the code that walks it: the compiled guards of a
// library's dispatch table (ExprProgram.h) and cakec's translation of guards into Z3 terms (src/library).
// Nodes are immutable and shared between copies of an Expr.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cake::rt {

enum class ExprOp {
  Literal,
  Name,
  Neg,
  Not,
  BitNot,
  Mul,
  Div,
  Rem,
  Add,
  Sub,
  Shl,
  Shr,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  BitAnd,
  BitXor,
  BitOr,
  And,
  Or,
  Cdiv,
  Min,
  Max
};

struct ExprNode {
  ExprOp op;
  int64_t value = 0;                                       // Literal
  std::string name;                                        // Name
  std::vector<std::shared_ptr<const ExprNode>> operands;   // one (unary) or two
};

// The node as expression text with the parentheses precedence needs (`K % 64 == 0`), e.g. one conjunct of a guard.
std::string renderExpr(const ExprNode &node);

}   // namespace cake::rt

// Operator spellings: one table for every stage that prints an operator.
#include "frontend/Operators.h"

namespace cake {

std::string_view binaryOpSpelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::Rem: return "%";
  case BinaryOp::Shl: return "<<";
  case BinaryOp::Shr: return ">>";
  case BinaryOp::BitAnd: return "&";
  case BinaryOp::BitOr: return "|";
  case BinaryOp::BitXor: return "^";
  case BinaryOp::Eq: return "==";
  case BinaryOp::Ne: return "!=";
  case BinaryOp::Lt: return "<";
  case BinaryOp::Le: return "<=";
  case BinaryOp::Gt: return ">";
  case BinaryOp::Ge: return ">=";
  case BinaryOp::LogAnd: return "&&";
  case BinaryOp::LogOr: return "||";
  }
  return "?";
}

BinaryOp assignBinaryOp(AssignOp op) {
  switch (op) {
  case AssignOp::Add: return BinaryOp::Add;
  case AssignOp::Sub: return BinaryOp::Sub;
  case AssignOp::Mul: return BinaryOp::Mul;
  case AssignOp::Div: return BinaryOp::Div;
  case AssignOp::Rem: return BinaryOp::Rem;
  case AssignOp::And: return BinaryOp::BitAnd;
  case AssignOp::Or: return BinaryOp::BitOr;
  case AssignOp::Xor: return BinaryOp::BitXor;
  case AssignOp::Shl: return BinaryOp::Shl;
  case AssignOp::Shr: return BinaryOp::Shr;
  case AssignOp::Set: break;
  }
  return BinaryOp::Add;
}

} // namespace cake

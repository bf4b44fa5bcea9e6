// Expression parser (precedence climbing over a binary-operator table) and checked evaluator.
#include "Expr.h"
#include "ExprTree.h"

#include <algorithm>
#include <array>
#include <limits>

namespace cake::rt {

namespace {

using NodePtr = std::shared_ptr<const ExprNode>;

struct BinaryOpInfo {
  std::string_view spelling;
  ExprOp op;
  int precedence; // higher binds tighter
};

// Longer spellings first so that "<=" is not read as "<".
constexpr std::array<BinaryOpInfo, 18> kBinaryOps = {{
    {"||", ExprOp::Or, 1},  {"&&", ExprOp::And, 2}, {"==", ExprOp::Eq, 6}, {"!=", ExprOp::Ne, 6},
    {"<=", ExprOp::Le, 7},  {">=", ExprOp::Ge, 7},  {"<<", ExprOp::Shl, 8}, {">>", ExprOp::Shr, 8},
    {"|", ExprOp::BitOr, 3}, {"^", ExprOp::BitXor, 4}, {"&", ExprOp::BitAnd, 5}, {"<", ExprOp::Lt, 7},
    {">", ExprOp::Gt, 7},   {"+", ExprOp::Add, 9},  {"-", ExprOp::Sub, 9},  {"*", ExprOp::Mul, 10},
    {"/", ExprOp::Div, 10}, {"%", ExprOp::Rem, 10},
}};

std::string_view opSpelling(ExprOp op) {
  for (const auto &info : kBinaryOps)
    if (info.op == op)
      return info.spelling;
  switch (op) {
  case ExprOp::Neg: return "-";
  case ExprOp::Not: return "!";
  case ExprOp::BitNot: return "~";
  case ExprOp::Cdiv: return "cdiv";
  case ExprOp::Min: return "min";
  case ExprOp::Max: return "max";
  default: return "?";
  }
}

class ExprParser {
public:
  explicit ExprParser(std::string_view text) : text_(text) {}

  NodePtr parseAll() {
    NodePtr node = parseBinary(1, 0);
    skipSpace();
    if (pos_ != text_.size())
      fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    return node;
  }

private:
  [[noreturn]] void fail(const std::string &message) {
    throw ExprSyntaxError("in expression `" + std::string(text_) + "`: at column " + std::to_string(pos_ + 1) +
                          ": " + message);
  }

  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n'))
      ++pos_;
  }

  const BinaryOpInfo *peekBinaryOp() {
    skipSpace();
    for (const auto &info : kBinaryOps)
      if (text_.substr(pos_, info.spelling.size()) == info.spelling)
        return &info;
    return nullptr;
  }

  // binary = unary { OP binary-of-higher-precedence }   (left associative)
  NodePtr parseBinary(int minPrecedence, int depth) {
    NodePtr lhs = parseUnary(depth + 1);
    for (;;) {
      const BinaryOpInfo *info = peekBinaryOp();
      if (!info || info->precedence < minPrecedence)
        return lhs;
      pos_ += info->spelling.size();
      NodePtr rhs = parseBinary(info->precedence + 1, depth + 1);
      auto node = std::make_shared<ExprNode>();
      node->op = info->op;
      node->operands = {lhs, rhs};
      lhs = node;
    }
  }

  // unary = ( '-' | '!' | '~' ) unary | primary
  NodePtr parseUnary(int depth) {
    if (depth > kMaxExprDepth)
      fail("expression nested too deeply");
    skipSpace();
    if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '!' || text_[pos_] == '~') &&
        text_.substr(pos_, 2) != "!=") {
      char c = text_[pos_++];
      auto node = std::make_shared<ExprNode>();
      node->op = c == '-' ? ExprOp::Neg : c == '!' ? ExprOp::Not : ExprOp::BitNot;
      node->operands = {parseUnary(depth + 1)};
      return node;
    }
    return parsePrimary(depth);
  }

  static bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
  static bool isDigit(char c) { return c >= '0' && c <= '9'; }

  // primary = INT | NAME | NAME '(' expr { ',' expr } ')' | '(' expr ')'
  NodePtr parsePrimary(int depth) {
    skipSpace();
    if (pos_ >= text_.size())
      fail("unexpected end of expression");
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      NodePtr inner = parseBinary(1, depth + 1);
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ')')
        fail("expected ')'");
      ++pos_;
      return inner;
    }
    if (isDigit(c))
      return parseInteger();
    if (isIdentStart(c)) {
      size_t start = pos_;
      while (pos_ < text_.size() && (isIdentStart(text_[pos_]) || isDigit(text_[pos_])))
        ++pos_;
      std::string name(text_.substr(start, pos_ - start));
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == '(')
        return parseCall(name, start, depth);
      auto node = std::make_shared<ExprNode>();
      if (name == "true" || name == "false") {
        node->op = ExprOp::Literal;
        node->value = name == "true";
      } else {
        node->op = ExprOp::Name;
        node->name = std::move(name);
      }
      return node;
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }

  NodePtr parseInteger() {
    size_t start = pos_;
    int base = 10;
    if (text_.substr(pos_, 2) == "0x" || text_.substr(pos_, 2) == "0X") {
      base = 16;
      pos_ += 2;
    }
    uint64_t value = 0;
    size_t digits = 0;
    for (; pos_ < text_.size(); ++pos_, ++digits) {
      char c = text_[pos_];
      int digit;
      if (isDigit(c))
        digit = c - '0';
      else if (base == 16 && c >= 'a' && c <= 'f')
        digit = c - 'a' + 10;
      else if (base == 16 && c >= 'A' && c <= 'F')
        digit = c - 'A' + 10;
      else
        break;
      if (value > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - digit) / base) {
        pos_ = start;
        fail("integer literal does not fit in 64 bits");
      }
      value = value * base + digit;
    }
    if (digits == 0)
      fail("digits expected after 0x");
    if (pos_ < text_.size() && isIdentStart(text_[pos_]))
      fail("unexpected '" + std::string(1, text_[pos_]) + "' after integer literal");
    auto node = std::make_shared<ExprNode>();
    node->op = ExprOp::Literal;
    node->value = static_cast<int64_t>(value);
    return node;
  }

  NodePtr parseCall(const std::string &name, size_t nameStart, int depth) {
    ExprOp op;
    if (name == "cdiv")
      op = ExprOp::Cdiv;
    else if (name == "min")
      op = ExprOp::Min;
    else if (name == "max")
      op = ExprOp::Max;
    else {
      pos_ = nameStart;
      fail("unknown function '" + name + "' (known: cdiv, min, max)");
    }
    ++pos_; // '('
    auto node = std::make_shared<ExprNode>();
    node->op = op;
    for (;;) {
      node->operands.push_back(parseBinary(1, depth + 1));
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ >= text_.size() || text_[pos_] != ')')
        fail("expected ',' or ')' in call to " + name);
      ++pos_;
      break;
    }
    if (node->operands.size() != 2)
      fail(name + " takes 2 arguments, got " + std::to_string(node->operands.size()));
    return node;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// Renders a subtree back to text for error messages.
std::string render(const ExprNode &node) {
  switch (node.op) {
  case ExprOp::Literal: return std::to_string(node.value);
  case ExprOp::Name: return node.name;
  case ExprOp::Neg:
  case ExprOp::Not:
  case ExprOp::BitNot: return std::string(opSpelling(node.op)) + render(*node.operands[0]);
  case ExprOp::Cdiv:
  case ExprOp::Min:
  case ExprOp::Max:
    return std::string(opSpelling(node.op)) + "(" + render(*node.operands[0]) + ", " + render(*node.operands[1]) +
           ")";
  default:
    return "(" + render(*node.operands[0]) + " " + std::string(opSpelling(node.op)) + " " +
           render(*node.operands[1]) + ")";
  }
}

// Precedence of a node as an operand: binary operators by the table, unary and primaries above all of them.
int precedenceOf(const ExprNode &node) {
  if (node.operands.size() == 2 && node.op != ExprOp::Cdiv && node.op != ExprOp::Min && node.op != ExprOp::Max)
    for (const auto &info : kBinaryOps)
      if (info.op == node.op) return info.precedence;
  return 100;
}

// The node with only the parentheses its precedence needs (left associative: a right operand of equal
// precedence keeps them): `K % 64 == 0`, `(M + 1) * 2`.
std::string renderMinimal(const ExprNode &node) {
  switch (node.op) {
  case ExprOp::Literal:
  case ExprOp::Name: return render(node);
  case ExprOp::Neg:
  case ExprOp::Not:
  case ExprOp::BitNot: {
    std::string inner = renderMinimal(*node.operands[0]);
    return std::string(opSpelling(node.op)) + (precedenceOf(*node.operands[0]) < 100 ? "(" + inner + ")" : inner);
  }
  case ExprOp::Cdiv:
  case ExprOp::Min:
  case ExprOp::Max:
    return std::string(opSpelling(node.op)) + "(" + renderMinimal(*node.operands[0]) + ", " +
           renderMinimal(*node.operands[1]) + ")";
  default: {
    int p = precedenceOf(node);
    std::string lhs = renderMinimal(*node.operands[0]), rhs = renderMinimal(*node.operands[1]);
    if (precedenceOf(*node.operands[0]) < p) lhs = "(" + lhs + ")";
    if (precedenceOf(*node.operands[1]) <= p) rhs = "(" + rhs + ")";
    return lhs + " " + std::string(opSpelling(node.op)) + " " + rhs;
  }
  }
}

class Evaluator {
public:
  explicit Evaluator(const Expr::Lookup &lookup) : lookup_(lookup) {}

  int64_t eval(const ExprNode &node) {
    switch (node.op) {
    case ExprOp::Literal: return node.value;
    case ExprOp::Name: {
      std::optional<int64_t> value = lookup_ ? lookup_(node.name) : std::nullopt;
      if (!value)
        throw ExprEvalError("unknown name '" + node.name + "'");
      return *value;
    }
    case ExprOp::Neg: {
      int64_t v = eval(*node.operands[0]);
      if (v == std::numeric_limits<int64_t>::min())
        overflow(node);
      return -v;
    }
    case ExprOp::Not: return eval(*node.operands[0]) == 0;
    case ExprOp::BitNot: return ~eval(*node.operands[0]);
    case ExprOp::And: return eval(*node.operands[0]) != 0 && eval(*node.operands[1]) != 0;
    case ExprOp::Or: return eval(*node.operands[0]) != 0 || eval(*node.operands[1]) != 0;
    default: break;
    }
    int64_t a = eval(*node.operands[0]);
    int64_t b = eval(*node.operands[1]);
    int64_t result = 0;
    switch (node.op) {
    case ExprOp::Add:
      if (__builtin_add_overflow(a, b, &result))
        overflow(node);
      return result;
    case ExprOp::Sub:
      if (__builtin_sub_overflow(a, b, &result))
        overflow(node);
      return result;
    case ExprOp::Mul:
      if (__builtin_mul_overflow(a, b, &result))
        overflow(node);
      return result;
    case ExprOp::Div:
    case ExprOp::Rem:
    case ExprOp::Cdiv: {
      if (b == 0)
        throw ExprEvalError("division by zero in `" + render(node) + "` (" + render(*node.operands[1]) + " is 0)");
      if (a == std::numeric_limits<int64_t>::min() && b == -1)
        overflow(node);
      if (node.op == ExprOp::Div)
        return a / b;
      if (node.op == ExprOp::Rem)
        return a % b;
      int64_t quotient = a / b;
      if (a % b != 0 && ((a < 0) == (b < 0)))
        ++quotient;
      return quotient;
    }
    case ExprOp::Shl:
    case ExprOp::Shr:
      if (b < 0 || b > 63)
        throw ExprEvalError("shift count " + std::to_string(b) + " outside 0..63 in `" + render(node) + "`");
      if (node.op == ExprOp::Shr)
        return a >> b;
      if (a < 0 || (b > 0 && (a >> (63 - b)) != 0))
        overflow(node);
      return a << b;
    case ExprOp::Lt: return a < b;
    case ExprOp::Le: return a <= b;
    case ExprOp::Gt: return a > b;
    case ExprOp::Ge: return a >= b;
    case ExprOp::Eq: return a == b;
    case ExprOp::Ne: return a != b;
    case ExprOp::BitAnd: return a & b;
    case ExprOp::BitXor: return a ^ b;
    case ExprOp::BitOr: return a | b;
    case ExprOp::Min: return std::min(a, b);
    case ExprOp::Max: return std::max(a, b);
    default: throw ExprEvalError("internal error: unknown expression operator");
    }
  }

private:
  [[noreturn]] static void overflow(const ExprNode &node) {
    throw ExprEvalError("integer overflow in `" + render(node) + "`");
  }
  const Expr::Lookup &lookup_;
};

void collectNames(const ExprNode &node, std::vector<std::string> &names) {
  if (node.op == ExprOp::Name && std::find(names.begin(), names.end(), node.name) == names.end())
    names.push_back(node.name);
  for (const auto &operand : node.operands)
    collectNames(*operand, names);
}

} // namespace

Expr Expr::parse(std::string_view text) {
  if (text.size() > kMaxExprLength)
    throw ExprSyntaxError("expression longer than " + std::to_string(kMaxExprLength) + " characters");
  Expr expr;
  expr.root_ = ExprParser(text).parseAll();
  expr.text_ = std::string(text);
  return expr;
}

Expr Expr::constant(int64_t value) {
  auto node = std::make_shared<ExprNode>();
  node->op = ExprOp::Literal;
  node->value = value;
  Expr expr;
  expr.root_ = node;
  expr.text_ = std::to_string(value);
  return expr;
}

int64_t Expr::evaluate(const Lookup &lookup) const {
  if (!root_)
    throw ExprEvalError("empty expression");
  Evaluator evaluator(lookup);
  try {
    return evaluator.eval(*root_);
  } catch (const ExprEvalError &e) {
    throw ExprEvalError("in `" + text_ + "`: " + e.what());
  }
}

std::string_view Expr::bareName() const {
  if (root_ && root_->op == ExprOp::Name)
    return root_->name;
  return {};
}

std::optional<int64_t> Expr::literal() const {
  if (root_ && root_->op == ExprOp::Literal)
    return root_->value;
  return std::nullopt;
}

const ExprNode *Expr::root() const { return root_.get(); }

std::string renderExpr(const ExprNode &node) { return renderMinimal(node); }

std::vector<Expr> Expr::conjuncts() const {
  std::vector<Expr> parts;
  if (!root_) return parts;
  std::vector<std::shared_ptr<const ExprNode>> stack{root_};
  while (!stack.empty()) {
    auto node = stack.back();
    stack.pop_back();
    if (node->op == ExprOp::And) {
      stack.push_back(node->operands[1]);   // popped after the left operand: source order
      stack.push_back(node->operands[0]);
      continue;
    }
    Expr part;
    part.root_ = node;
    part.text_ = node == root_ ? text_ : renderMinimal(*node);
    parts.push_back(std::move(part));
  }
  return parts;
}

std::vector<std::string> Expr::names() const {
  std::vector<std::string> names;
  if (root_)
    collectNames(*root_, names);
  return names;
}

} // namespace cake::rt

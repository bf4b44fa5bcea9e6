// Parser, part 3: expressions.
//
// The EBNF spells the binary operators as a ladder of ten left-associative levels (lor ... multiplicative).
// parseBinaryRhs implements the whole ladder by precedence climbing with the table below: it accepts
// exactly the same language and builds the same left-leaning trees as ten nested loops would, with one
// C++ frame per precedence change instead of ten per operand.
//
// Nesting: each parseExpr, each unary/postfix operator, each bracket and the first operator of a binary
// chain count one level in depth_; the further operators of a flat chain count in chain_ (both restored
// when the construct ends), so the depth of every expression tree is bounded by kMaxNesting +
// kMaxChainOperators plus a small constant; `((((...` or `- - - ... x` stops with E0207 and a 100,000-term
// sum with E0813 instead of exhausting the stack here or in a later recursive walk of the tree.
#include "frontend/ParserImpl.h"

namespace cake {

namespace {

// Precedence of a binary operator token (higher binds tighter), 0 if the token is not one.
//   1 lor '||'   2 land '&&'   3 bor '|'   4 bxor '^'   5 band '&'   6 equality '==' '!='
//   7 relational '<' '<=' '>' '>='   8 shift '<<' '>>'   9 additive '+' '-'   10 multiplicative '*' '/' '%'
int binaryPrecedence(TokenKind kind, BinaryOp *op) {
  switch (kind) {
  case TokenKind::PipePipe: *op = BinaryOp::LogOr; return 1;
  case TokenKind::AmpAmp: *op = BinaryOp::LogAnd; return 2;
  case TokenKind::Pipe: *op = BinaryOp::BitOr; return 3;
  case TokenKind::Caret: *op = BinaryOp::BitXor; return 4;
  case TokenKind::Amp: *op = BinaryOp::BitAnd; return 5;
  case TokenKind::EqEq: *op = BinaryOp::Eq; return 6;
  case TokenKind::BangEq: *op = BinaryOp::Ne; return 6;
  case TokenKind::Less: *op = BinaryOp::Lt; return 7;
  case TokenKind::LessEq: *op = BinaryOp::Le; return 7;
  case TokenKind::Greater: *op = BinaryOp::Gt; return 7;
  case TokenKind::GreaterEq: *op = BinaryOp::Ge; return 7;
  case TokenKind::Shl: *op = BinaryOp::Shl; return 8;
  case TokenKind::Shr: *op = BinaryOp::Shr; return 8;
  case TokenKind::Plus: *op = BinaryOp::Add; return 9;
  case TokenKind::Minus: *op = BinaryOp::Sub; return 9;
  case TokenKind::Star: *op = BinaryOp::Mul; return 10;
  case TokenKind::Slash: *op = BinaryOp::Div; return 10;
  case TokenKind::Percent: *op = BinaryOp::Rem; return 10;
  default: return 0;
  }
}

int binaryPrecedence(TokenKind kind) {
  BinaryOp ignored;
  return binaryPrecedence(kind, &ignored);
}

bool toUnaryOp(TokenKind kind, UnaryOp *op) {
  switch (kind) {
  case TokenKind::Minus: *op = UnaryOp::Neg; return true;
  case TokenKind::Bang: *op = UnaryOp::Not; return true;
  case TokenKind::Tilde: *op = UnaryOp::BitNot; return true;
  default: return false;
  }
}

// The dotted name a call is made on (`bf16`, `shfl.xor`, `warp.sum`); false if the callee is not a chain of
// names.  Iterative: member chains can be as deep as the nesting limit allows.
bool dottedName(const Expr *e, std::string *name) {
  std::vector<std::string_view> parts;
  while (const MemberExpr *member = dynCast<MemberExpr>(e)) {
    parts.push_back(member->member);
    e = member->base.get();
  }
  const NameExpr *base = dynCast<NameExpr>(e);
  if (!base) return false;
  *name = base->name;
  for (size_t i = parts.size(); i-- > 0;) {
    *name += '.';
    *name += parts[i];
  }
  return true;
}

} // namespace

// expr = lor ;
Ptr<Expr> Parser::parseExpr() {
  DepthScope scope(*this);
  if (!deeper()) return nullptr;
  size_t start = pos_;
  Ptr<Expr> lhs = parseUnary();
  if (!lhs) return nullptr;
  return parseBinaryRhs(1, std::move(lhs), start);
}

// lor            = land { '||' land } ;
// land           = bor { '&&' bor } ;
// bor            = bxor { '|' bxor } ;
// bxor           = band { '^' band } ;
// band           = equality { '&' equality } ;
// equality       = relational { ( '==' | '!=' ) relational } ;
// relational     = shift { ( '<' | '<=' | '>' | '>=' ) shift } ;
// shift          = additive { ( '<<' | '>>' ) additive } ;
// additive       = multiplicative { ( '+' | '-' ) multiplicative } ;
// multiplicative = unary { ( '*' | '/' | '%' ) unary } ;
// Continues an expression whose first operand `lhs` (starting at token lhsStart) is already parsed,
// consuming every binary operator of precedence >= minPrecedence.
Ptr<Expr> Parser::parseBinaryRhs(int minPrecedence, Ptr<Expr> lhs, size_t lhsStart) {
  DepthScope scope(*this);
  BinaryOp op;
  bool first = true;
  for (int precedence; (precedence = binaryPrecedence(tok().kind, &op)) >= minPrecedence && precedence > 0;) {
    consume();
    // The first operator is a level of nesting; the ones after it continue the same flat chain, counted
    // against kMaxChainOperators (a 255-term sum is not "nesting deeper than 256 levels").
    if (!(first ? deeper() : longerChain())) return nullptr;
    first = false;
    size_t rhsStart = pos_;
    Ptr<Expr> rhs = parseUnary();
    if (!rhs) return nullptr;
    while (binaryPrecedence(tok().kind) > precedence) {
      rhs = parseBinaryRhs(precedence + 1, std::move(rhs), rhsStart);
      if (!rhs) return nullptr;
    }
    lhs = std::make_unique<BinaryExpr>(rangeFrom(lhsStart), op, std::move(lhs), std::move(rhs));
  }
  return lhs;
}

// unary = ( '-' | '!' | '~' ) unary | postfix ;
// Prefix operators are collected in a loop (no recursion per operator) and applied innermost first.
Ptr<Expr> Parser::parseUnary() {
  UnaryOp op;
  if (!toUnaryOp(tok().kind, &op)) return parsePostfix();
  DepthScope scope(*this);
  std::vector<std::pair<UnaryOp, size_t>> prefixes;   // operator and its token index
  while (toUnaryOp(tok().kind, &op)) {
    if (!deeper()) return nullptr;
    prefixes.emplace_back(op, pos_);
    consume();
  }
  Ptr<Expr> operand = parsePostfix();
  if (!operand) return nullptr;
  for (size_t i = prefixes.size(); i-- > 0;)
    operand = std::make_unique<UnaryExpr>(rangeFrom(prefixes[i].second), prefixes[i].first, std::move(operand));
  return operand;
}

// postfix = primary { '[' index { ',' index } ']' | '.' IDENT | '(' [ expr { ',' expr } ] ')' } ;
Ptr<Expr> Parser::parsePostfix() {
  size_t start = pos_;
  Ptr<Expr> base = parsePrimary();
  if (!base) return nullptr;
  return parsePostfixRest(std::move(base), start);
}

Ptr<Expr> Parser::parsePostfixRest(Ptr<Expr> base, size_t start) {
  DepthScope scope(*this);
  while (at(TokenKind::LBracket) || at(TokenKind::Dot) || at(TokenKind::LParen)) {
    if (!deeper()) return nullptr;
    if (at(TokenKind::LBracket)) {
      const Token &open = consume();
      auto index = std::make_unique<IndexExpr>(base->range, std::move(base));
      do {
        IndexItem item;
        if (!parseIndex(item)) return nullptr;
        index->items.push_back(std::move(item));
      } while (accept(TokenKind::Comma));
      if (!expectClosing(TokenKind::RBracket, open)) return nullptr;
      index->range = rangeFrom(start);
      base = std::move(index);
    } else if (at(TokenKind::Dot)) {
      consume();
      const Token *member = expectIdent("a member name after '.'");
      if (!member) return nullptr;
      base = std::make_unique<MemberExpr>(rangeFrom(start), std::move(base), std::string(member->text), member->range);
    } else {
      std::string callee;
      if (!dottedName(base.get(), &callee)) {
        if (mayReport())
          diags_.report(DiagKind::ExpectedToken, tok().range, "an operator or the end of the expression",
                        describe(tok()))
              .hint("only names such as bf16, ex2 or shfl.xor can be called");
        return nullptr;
      }
      auto call = std::make_unique<CallExpr>(base->range, std::move(callee), base->range);
      if (!parseCallArgs(call->args)) return nullptr;
      call->range = rangeFrom(start);
      base = std::move(call);
    }
  }
  return base;
}

// '(' [ expr { ',' expr } ] ')'   (the argument list of a call or a clause)
bool Parser::parseCallArgs(std::vector<Ptr<Expr>> &args) {
  const Token &open = tok();
  if (!expect(TokenKind::LParen)) return false;
  if (!at(TokenKind::RParen)) {
    do {
      Ptr<Expr> arg = parseExpr();
      if (!arg) return false;
      args.push_back(std::move(arg));
    } while (accept(TokenKind::Comma));
  }
  return expectClosing(TokenKind::RParen, open);
}

// index = expr [ '+:' expr ] | ':' ;
bool Parser::parseIndex(IndexItem &item) {
  size_t start = pos_;
  if (accept(TokenKind::Colon)) {
    item.kind = IndexItem::Full;
    item.range = rangeFrom(start);
    return true;
  }
  item.start = parseExpr();
  if (!item.start) return false;
  if (accept(TokenKind::PlusColon)) {
    item.kind = IndexItem::Slice;
    item.length = parseExpr();
    if (!item.length) return false;
  }
  item.range = rangeFrom(start);
  return true;
}

// primary = INT | BYTES | FLOAT | 'true' | 'false' | IDENT | '(' expr ')' ;
Ptr<Expr> Parser::parsePrimary() {
  const Token &t = tok();
  switch (t.kind) {
  case TokenKind::IntLit: consume(); return std::make_unique<IntLitExpr>(t.range, t.intValue, false);
  case TokenKind::BytesLit: consume(); return std::make_unique<IntLitExpr>(t.range, t.intValue, true);
  case TokenKind::FloatLit: consume(); return std::make_unique<FloatLitExpr>(t.range, t.floatValue, std::string(t.text));
  case TokenKind::KwTrue: consume(); return std::make_unique<BoolLitExpr>(t.range, true);
  case TokenKind::KwFalse: consume(); return std::make_unique<BoolLitExpr>(t.range, false);
  case TokenKind::Ident: consume(); return std::make_unique<NameExpr>(t.range, std::string(t.text));
  case TokenKind::LParen: return parseParenExpr();
  default:
    if (mayReport()) diags_.report(DiagKind::ExpectedExpression, t.range, describe(t));
    return nullptr;
  }
}

// '(' expr ')'   (the parenthesised alternative of primary and const_primary; the node keeps the range
// of the inner expression, enclosing nodes include the parentheses)
Ptr<Expr> Parser::parseParenExpr() {
  const Token &open = consume();   // '('
  Ptr<Expr> inner = parseExpr();
  if (!inner || !expectClosing(TokenKind::RParen, open)) return nullptr;
  return inner;
}

// const_primary = INT | IDENT | '(' expr ')' ;
Ptr<Expr> Parser::parseConstPrimary() {
  const Token &t = tok();
  switch (t.kind) {
  case TokenKind::IntLit: consume(); return std::make_unique<IntLitExpr>(t.range, t.intValue, false);
  case TokenKind::Ident: consume(); return std::make_unique<NameExpr>(t.range, std::string(t.text));
  case TokenKind::LParen: return parseParenExpr();
  default:
    reportExpected("an integer, a name or '(' expression ')'");
    return nullptr;
  }
}

} // namespace cake

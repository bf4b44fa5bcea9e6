// Parser, part 2: blocks and statements.
//
// Statements are chosen by their first token: a keyword picks its rule; an identifier starts either an
// operation or an assignment.  The op/assignment decision: the identifier and any `.ident` components that
// follow form a dotted name; if the name is in the operation table (Ops.def) the statement is an op_stmt;
// if it has a dot and its first component is an operation namespace (tma, cp, wgmma, ...) it is an
// unknown operation (E0210, with the closest spelling as hint and fix-it); otherwise the parser rewinds and
// reads an assignment whose target is a postfix expression.  `mbarrier` is a keyword, so `mbarrier.init`
// and `mbarrier.expect_tx` are recognised by 'mbarrier' '.' as well.
#include "frontend/ParserImpl.h"

namespace cake {

namespace {

bool toAssignOp(TokenKind kind, AssignOp *op) {
  switch (kind) {
  case TokenKind::Assign: *op = AssignOp::Set; return true;
  case TokenKind::PlusAssign: *op = AssignOp::Add; return true;
  case TokenKind::MinusAssign: *op = AssignOp::Sub; return true;
  case TokenKind::StarAssign: *op = AssignOp::Mul; return true;
  case TokenKind::SlashAssign: *op = AssignOp::Div; return true;
  case TokenKind::PercentAssign: *op = AssignOp::Rem; return true;
  case TokenKind::AmpAssign: *op = AssignOp::And; return true;
  case TokenKind::PipeAssign: *op = AssignOp::Or; return true;
  case TokenKind::CaretAssign: *op = AssignOp::Xor; return true;
  case TokenKind::ShlAssign: *op = AssignOp::Shl; return true;
  case TokenKind::ShrAssign: *op = AssignOp::Shr; return true;
  default: return false;
  }
}

// Tokens that can begin an expression (used to recognise `name operand ...`, a misspelled operation).
bool startsExpression(TokenKind kind) {
  switch (kind) {
  case TokenKind::Ident: case TokenKind::IntLit: case TokenKind::BytesLit: case TokenKind::FloatLit:
  case TokenKind::KwTrue: case TokenKind::KwFalse: case TokenKind::LParen:
    return true;
  default: return false;
  }
}

} // namespace

// block = '{' { stmt } '}' ;
Ptr<BlockStmt> Parser::parseBlock() {
  DepthScope scope(*this);
  size_t start = pos_;
  const Token &open = tok();
  if (!expect(TokenKind::LBrace)) return nullptr;
  if (!deeper()) return nullptr;
  auto block = std::make_unique<BlockStmt>(open.range);
  while (!stop_ && !at(TokenKind::RBrace) && !at(TokenKind::Eof) && !at(TokenKind::KwKernel)) {
    size_t statementStart = pos_;
    synchronized_ = false;
    if (Ptr<Stmt> stmt = parseStmt()) {
      block->stmts.push_back(std::move(stmt));
      checkErrorLimit();
      continue;
    }
    if (stop_) break;
    if (!synchronized_) recoverStatement(statementStart);
    checkErrorLimit();
  }
  if (stop_) return nullptr;
  if (!at(TokenKind::RBrace)) {
    // Missing '}' (end of file, or the next kernel starts): report it and keep what was parsed.
    expectClosing(TokenKind::RBrace, open);
    block->range = rangeFrom(start);
    return block;
  }
  consume();
  block->range = rangeFrom(start);
  return block;
}

// stmt = let_stmt | var_stmt | shared_decl | mbarrier_decl | barrier_decl
//      | role_stmt | for_stmt | if_stmt | elect_stmt | return_stmt
//      | op_stmt | assign_stmt | call_stmt | block ;
Ptr<Stmt> Parser::parseStmt() {
  switch (tok().kind) {
  case TokenKind::KwLet: return parseLetStmt();
  case TokenKind::KwVar: return parseVarStmt();
  case TokenKind::KwShared: return parseSharedDecl();
  case TokenKind::KwMbarrier:
    return peek().kind == TokenKind::Dot ? parseOpOrAssignStmt() : parseMbarrierDecl();
  case TokenKind::KwBarrier: return parseBarrierDecl();
  case TokenKind::KwRole: return parseRoleStmt();
  case TokenKind::KwFor: return parseForStmt();
  case TokenKind::KwIf: return parseIfStmt();
  case TokenKind::KwElect: return parseElectStmt();
  case TokenKind::KwReturn: return parseReturnStmt();
  case TokenKind::LBrace: return parseBlock();
  case TokenKind::KwFn: {
    // fn is a file-scope declaration: report it, parse it (so its own errors show) and drop it.
    if (mayReport())
      diags_.report(DiagKind::FnNotAtFileScope, tok().range)
          .hint("move the fn out of the kernel, before or after it");
    bool outer = inFn_;
    parseFn();
    inFn_ = outer;
    synchronized_ = true;
    return nullptr;
  }
  case TokenKind::Ident:
    // `tmem` is a contextual keyword: `tmem NAME: TYPE;` (an identifier follows it only in a declaration).
    if (tok().text == "tmem" && peek().kind == TokenKind::Ident) return parseSharedDecl();
    return parseOpOrAssignStmt();
  // An assignment target is a postfix expression, which may also start with a literal or '('.
  case TokenKind::IntLit: case TokenKind::BytesLit: case TokenKind::FloatLit:
  case TokenKind::KwTrue: case TokenKind::KwFalse: case TokenKind::LParen:
    return parseAssignStmt();
  default:
    if (mayReport()) {
      auto d = diags_.report(DiagKind::ExpectedStatement, tok().range, describe(tok()));
      if (tok().kind == TokenKind::KwUnroll && peek().kind == TokenKind::KwFor)
        d.hint("'unroll' follows the range: 'for i in 0..N unroll { ... }'");
    }
    return nullptr;
  }
}

// let_stmt = 'let' IDENT [ ':' type ] '=' expr ';' ;
Ptr<Stmt> Parser::parseLetStmt() {
  size_t start = pos_;
  consume();   // 'let'
  const Token *name = expectIdent("a name");
  if (!name) return nullptr;
  auto let = std::make_unique<LetStmt>(name->range, std::string(name->text), name->range);
  if (accept(TokenKind::Colon)) {
    let->declaredType = parseType();
    if (!let->declaredType) return nullptr;
  }
  if (!expect(TokenKind::Assign)) return nullptr;
  let->init = parseExpr();
  if (!let->init || !expectSemicolon()) return nullptr;
  let->range = rangeFrom(start);
  return let;
}

// var_stmt = 'var' IDENT ':' type [ '=' expr ] ';' ;
Ptr<Stmt> Parser::parseVarStmt() {
  size_t start = pos_;
  consume();   // 'var'
  const Token *name = expectIdent("a name");
  if (!name) return nullptr;
  auto var = std::make_unique<VarStmt>(name->range, std::string(name->text), name->range);
  if (!expect(TokenKind::Colon)) return nullptr;
  var->declaredType = parseType();
  if (!var->declaredType) return nullptr;
  if (accept(TokenKind::Assign)) {
    var->init = parseExpr();
    if (!var->init) return nullptr;
  }
  if (!expectSemicolon()) return nullptr;
  var->range = rangeFrom(start);
  return var;
}

// shared_decl = ( 'shared' | 'tmem' ) IDENT ':' type { attr } ';' ;
Ptr<Stmt> Parser::parseSharedDecl() {
  size_t start = pos_;
  const bool tensorMemory = tok().kind == TokenKind::Ident;   // the contextual keyword `tmem`
  consume();   // 'shared' | 'tmem'
  const Token *name = expectIdent("a name");
  if (!name) return nullptr;
  auto shared = std::make_unique<SharedStmt>(name->range, std::string(name->text), name->range);
  shared->tensorMemory = tensorMemory;
  if (tensorMemory) shared->declKind = DeclKind::TensorMemory;
  if (!expect(TokenKind::Colon)) return nullptr;
  shared->declaredType = parseType();
  if (!shared->declaredType || !parseAttrs(shared->attrs) || !expectSemicolon()) return nullptr;
  shared->range = rangeFrom(start);
  return shared;
}

// mbarrier_decl = 'mbarrier' IDENT [ '[' expr ']' ] { attr } ';' ;
Ptr<Stmt> Parser::parseMbarrierDecl() {
  size_t start = pos_;
  consume();   // 'mbarrier'
  const Token *name = expectIdent("a name");
  if (!name) return nullptr;
  auto mbar = std::make_unique<MBarrierStmt>(name->range, std::string(name->text), name->range);
  if (at(TokenKind::LBracket)) {
    const Token &open = consume();
    mbar->count = parseExpr();
    if (!mbar->count || !expectClosing(TokenKind::RBracket, open)) return nullptr;
  }
  if (!parseAttrs(mbar->attrs) || !expectSemicolon()) return nullptr;
  mbar->range = rangeFrom(start);
  return mbar;
}

// barrier_decl = 'barrier' IDENT [ '[' expr ']' ] { attr } ';' ;
Ptr<Stmt> Parser::parseBarrierDecl() {
  size_t start = pos_;
  consume();   // 'barrier'
  const Token *name = expectIdent("a name");
  if (!name) return nullptr;
  auto barrier = std::make_unique<BarrierStmt>(name->range, std::string(name->text), name->range);
  if (at(TokenKind::LBracket)) {
    const Token &open = consume();
    barrier->count = parseExpr();
    if (!barrier->count || !expectClosing(TokenKind::RBracket, open)) return nullptr;
  }
  if (!parseAttrs(barrier->attrs) || !expectSemicolon()) return nullptr;
  barrier->range = rangeFrom(start);
  return barrier;
}

// role_stmt = 'role' IDENT [ '[' expr ']' ] '=' role_unit '(' expr [ '..' expr ] ')' { attr } block ;
Ptr<Stmt> Parser::parseRoleStmt() {
  size_t start = pos_;
  consume();   // 'role'
  const Token *name = expectIdent("a role name");
  if (!name) return nullptr;
  auto role = std::make_unique<RoleStmt>(name->range, std::string(name->text), name->range);
  if (at(TokenKind::LBracket)) {
    const Token &open = consume();
    role->instances = parseExpr();
    if (!role->instances || !expectClosing(TokenKind::RBracket, open)) return nullptr;
  }
  if (!expect(TokenKind::Assign) || !parseRoleUnit(*role)) return nullptr;
  const Token &open = tok();
  if (!expect(TokenKind::LParen)) return nullptr;
  role->first = parseExpr();
  if (!role->first) return nullptr;
  if (accept(TokenKind::DotDot)) {
    role->last = parseExpr();
    if (!role->last) return nullptr;
  }
  if (!expectClosing(TokenKind::RParen, open) || !parseAttrs(role->attrs)) return nullptr;
  role->body = parseBlock();
  if (!role->body) return nullptr;
  role->range = rangeFrom(start);
  return role;
}

// role_unit = 'warp' | 'warps' | 'warpgroup' | 'warpgroups' ;
bool Parser::parseRoleUnit(RoleStmt &role) {
  std::string_view unit = at(TokenKind::Ident) ? tok().text : std::string_view();
  if (unit == "warp" || unit == "warps") role.unit = RoleUnit::Warp;
  else if (unit == "warpgroup" || unit == "warpgroups") role.unit = RoleUnit::Warpgroup;
  else {
    if (mayReport()) diags_.report(DiagKind::UnknownRoleUnit, tok().range, describe(tok()));
    return false;
  }
  role.pluralSpelling = unit.back() == 's';
  consume();
  return true;
}

// for_stmt = 'for' IDENT 'in' expr '..' expr [ 'step' expr ] [ 'unroll' [ '(' expr ')' ] ] block ;
Ptr<Stmt> Parser::parseForStmt() {
  size_t start = pos_;
  consume();   // 'for'
  const Token *name = expectIdent("a loop variable name");
  if (!name) return nullptr;
  auto loop = std::make_unique<ForStmt>(name->range, std::string(name->text), name->range);
  if (!expect(TokenKind::KwIn)) return nullptr;
  loop->lower = parseExpr();
  if (!loop->lower || !expect(TokenKind::DotDot)) return nullptr;
  loop->upper = parseExpr();
  if (!loop->upper) return nullptr;
  if (accept(TokenKind::KwStep)) {
    loop->step = parseExpr();
    if (!loop->step) return nullptr;
  }
  if (accept(TokenKind::KwUnroll)) {
    if (at(TokenKind::LParen)) {
      const Token &open = consume();
      loop->unrollFactor = parseExpr();
      if (!loop->unrollFactor || !expectClosing(TokenKind::RParen, open)) return nullptr;
    } else {
      loop->unroll = true;
    }
  }
  loop->body = parseBlock();
  if (!loop->body) return nullptr;
  loop->range = rangeFrom(start);
  return loop;
}

// if_stmt = 'if' expr block [ 'else' ( if_stmt | block ) ] ;
Ptr<Stmt> Parser::parseIfStmt() {
  DepthScope scope(*this);   // else-if chains nest IfStmts: count them like blocks
  if (!deeper()) return nullptr;
  size_t start = pos_;
  consume();   // 'if'
  auto ifStmt = std::make_unique<IfStmt>(tokens_[start].range);
  ifStmt->cond = parseExpr();
  if (!ifStmt->cond) return nullptr;
  ifStmt->thenBody = parseBlock();
  if (!ifStmt->thenBody) return nullptr;
  if (accept(TokenKind::KwElse)) {
    if (at(TokenKind::KwIf)) ifStmt->elseBody = parseIfStmt();
    else ifStmt->elseBody = parseBlock();
    if (!ifStmt->elseBody) return nullptr;
  }
  ifStmt->range = rangeFrom(start);
  return ifStmt;
}

// elect_stmt = 'elect' block ;
Ptr<Stmt> Parser::parseElectStmt() {
  size_t start = pos_;
  consume();   // 'elect'
  auto elect = std::make_unique<ElectStmt>(tokens_[start].range);
  elect->body = parseBlock();
  if (!elect->body) return nullptr;
  elect->range = rangeFrom(start);
  return elect;
}

// return_stmt = 'return' [ expr ] ';' ;   (a value only in an fn; E0212 elsewhere)
Ptr<Stmt> Parser::parseReturnStmt() {
  size_t start = pos_;
  consume();   // 'return'
  Ptr<Expr> value;
  if (!at(TokenKind::Semi) && !at(TokenKind::RBrace) && !onNewLine(tok())) {
    value = parseExpr();
    if (!value) return nullptr;
    if (!inFn_ && !stop_)
      diags_.report(DiagKind::ReturnValueOutsideFn, value->range)
          .hint("a kernel's 'return;' ends the thread and has no value; values are returned from an fn");
    if (!inFn_) value.reset();   // reported: a kernel's return carries no value into the tree
  }
  if (!expectSemicolon()) return nullptr;
  auto ret = std::make_unique<ReturnStmt>(rangeFrom(start));
  ret->value = std::move(value);
  return ret;
}

// op_stmt | assign_stmt, both starting with an identifier (see the file comment for the decision).
Ptr<Stmt> Parser::parseOpOrAssignStmt() {
  size_t start = pos_;
  std::string name(consume().text);
  while (at(TokenKind::Dot) && isWordToken(peek().kind)) {
    consume();
    name += '.';
    name += consume().text;
  }
  SourceRange nameRange = rangeFrom(start);
  if (const OpInfo *op = lookupOp(name)) return parseOpStmt(start, std::move(name), nameRange, op);
  if (name.find('.') != std::string::npos && isOpNamespace(tokens_[start].text)) {
    reportUnknownOperation(name, nameRange);
    return nullptr;
  }
  pos_ = start;
  return parseAssignStmt();
}

void Parser::reportUnknownOperation(const std::string &name, SourceRange nameRange) {
  if (stop_) return;
  DiagBuilder diag = diags_.report(DiagKind::UnknownOperation, nameRange, name);
  if (const OpInfo *closest = closestOp(name)) {
    diag.hint("did you mean '" + std::string(closest->spelling) + "'?");
    diag.fixit(nameRange, std::string(closest->spelling));
    return;
  }
  // No close spelling: list the operations of the namespace that was used, if any.
  std::string_view space = std::string_view(name).substr(0, name.find('.'));
  std::string known;
  for (const OpInfo &op : allOps()) {
    std::string_view head = op.spelling.substr(0, op.spelling.find('.'));
    if (head != space) continue;
    known += known.empty() ? "" : ", ";
    known += op.spelling;
  }
  if (!known.empty()) diag.hint("operations in '" + std::string(space) + "': " + known);
}

// op_stmt = OP_NAME [ operands ] [ ( '<-' | '+=' ) operands ] { clause } ';' ;
Ptr<Stmt> Parser::parseOpStmt(size_t start, std::string name, SourceRange nameRange, const OpInfo *op) {
  auto stmt = std::make_unique<OpStmt>(nameRange);
  stmt->name = std::move(name);
  stmt->nameRange = nameRange;
  stmt->op = op;
  if (!atOperandsEnd() && !parseOperands(stmt->dsts)) return nullptr;
  if (at(TokenKind::LArrow) || at(TokenKind::PlusAssign)) {
    stmt->arrow = at(TokenKind::LArrow) ? OpArrow::Move : OpArrow::Accumulate;
    consume();
    if (!parseOperands(stmt->srcs)) return nullptr;
  }
  while (atClauseStart()) {
    Clause clause;
    if (!parseClause(clause)) return nullptr;
    stmt->clauses.push_back(std::move(clause));
  }
  if (!expectSemicolon()) return nullptr;
  stmt->range = rangeFrom(start);
  return stmt;
}

bool Parser::atClauseStart() const {
  return at(TokenKind::Ident) && peek().kind == TokenKind::LParen && isClauseName(tok().text);
}

bool Parser::atOperandsEnd() const {
  switch (tok().kind) {
  case TokenKind::Semi: case TokenKind::LArrow: case TokenKind::PlusAssign: case TokenKind::RBrace:
  case TokenKind::Eof:
    return true;
  default: return atClauseStart();
  }
}

// operands = expr { ',' expr } ;
bool Parser::parseOperands(std::vector<Ptr<Expr>> &operands) {
  do {
    Ptr<Expr> operand = parseExpr();
    if (!operand) return false;
    operands.push_back(std::move(operand));
  } while (accept(TokenKind::Comma));
  return true;
}

// clause = CLAUSE_NAME '(' [ expr { ',' expr } ] ')' ;
bool Parser::parseClause(Clause &clause) {
  size_t start = pos_;
  const Token &name = consume();
  clause.name = std::string(name.text);
  clause.nameRange = name.range;
  if (!parseCallArgs(clause.args)) return false;
  clause.range = rangeFrom(start);
  return true;
}

// assign_stmt = postfix assign_op expr ';' ;
// assign_op   = '=' | '+=' | '-=' | '*=' | '/=' | '%=' | '&=' | '|=' | '^=' | '<<=' | '>>=' ;
// call_stmt   = IDENT '(' [ expr { ',' expr } ] ')' ';' ;   (a call of an fn; see Inline.h)
Ptr<Stmt> Parser::parseAssignStmt() {
  size_t start = pos_;
  Ptr<Expr> target = parsePostfix();
  if (!target) return nullptr;
  if (isa<CallExpr>(target.get()) && (at(TokenKind::Semi) || at(TokenKind::RBrace) || onNewLine(tok()))) {
    if (!expectSemicolon()) return nullptr;
    auto call = std::make_unique<CallStmt>(rangeFrom(start));
    call->call.reset(cast<CallExpr>(target.release()));
    return call;
  }
  AssignOp op;
  if (toAssignOp(tok().kind, &op)) {
    consume();
    auto assign = std::make_unique<AssignStmt>(target->range);
    assign->target = std::move(target);
    assign->op = op;
    assign->value = parseExpr();
    if (!assign->value || !expectSemicolon()) return nullptr;
    assign->range = rangeFrom(start);
    return assign;
  }
  // Not an assignment.  `name operand ...` is most likely a misspelled operation, and so is `name;` when
  // the name is close to an operation's spelling (`syncthread;`); very short names are left alone.
  if (auto *name = dynCast<NameExpr>(target.get())) {
    bool operandFollows = startsExpression(tok().kind);
    bool closeToOp = at(TokenKind::Semi) && name->name.size() >= 4 && closestOp(name->name) != nullptr;
    if (operandFollows || closeToOp) {
      reportUnknownOperation(name->name, target->range);
      return nullptr;
    }
  }
  // Otherwise read the rest of the expression to report the whole unused expression (E0209).
  Ptr<Expr> expr = parseBinaryRhs(1, std::move(target), start);
  if (!expr) return nullptr;
  if (at(TokenKind::Semi) || at(TokenKind::RBrace) || onNewLine(tok())) {
    if (!stop_) {
      diags_.report(DiagKind::NotAnAssignment, expr->range);
    }
    accept(TokenKind::Semi);
    synchronized_ = true;
    return nullptr;
  }
  reportExpected("'=' or another assignment operator");
  return nullptr;
}

} // namespace cake

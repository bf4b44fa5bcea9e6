// Parser, part 1: the entry point, module / kernel / parameter / attribute / type rules, token helpers and
// error recovery.  Statements are in ParseStmt.cpp, expressions in ParseExpr.cpp; ParserImpl.h states the
// conventions all three follow.
//
// Recovery strategy: a statement that fails is skipped up to the next ';' (consumed), a '}' or a statement
// keyword (left for the block loop), or past a balanced '{ ... }' group; a failed parameter is skipped up to
// the next ',' or ')'; a failed kernel header is skipped up to its body '{'.  At top level the parser skips
// to the next 'kernel'.  Parsing stops when the error limit is reached or nesting exceeds kMaxNesting.
#include "frontend/ParserImpl.h"

namespace cake {

namespace {
constexpr size_t kMaxQuotedToken = 32;
} // namespace

bool isWordToken(TokenKind kind) {
  switch (kind) {
  case TokenKind::Ident:
#define KEYWORD(Kind, Text) case TokenKind::Kind:
#include "frontend/TokenKinds.def"
    return true;
  default: return false;
  }
}

bool isStatementKeyword(TokenKind kind) {
  switch (kind) {
  case TokenKind::KwLet: case TokenKind::KwVar: case TokenKind::KwShared: case TokenKind::KwMbarrier:
  case TokenKind::KwBarrier: case TokenKind::KwRole: case TokenKind::KwFor: case TokenKind::KwIf:
  case TokenKind::KwElect: case TokenKind::KwReturn: case TokenKind::KwFn:
    return true;
  default: return false;
  }
}

Ptr<Module> parseModule(const SourceManager &sm, uint32_t file, DiagnosticEngine &diags) {
  return Parser(sm, file, diags).parseModule();
}

Parser::Parser(const SourceManager &sm, uint32_t file, DiagnosticEngine &diags)
    : sm_(sm), file_(file), diags_(diags), tokens_(lex(sm, file, diags)) {
  CAKE_ASSERT(!tokens_.empty() && tokens_.back().kind == TokenKind::Eof);
  checkErrorLimit();
}

// ---------------------------------------------------------------- tokens

const Token &Parser::consume() {
  const Token &t = tokens_[pos_];
  if (t.kind != TokenKind::Eof) ++pos_;
  return t;
}

bool Parser::accept(TokenKind kind) {
  if (!at(kind)) return false;
  consume();
  return true;
}

SourceRange Parser::rangeFrom(size_t startToken) const {
  const Token &first = tokens_[startToken];
  if (pos_ <= startToken) return first.range;
  return SourceRange{first.range.begin, tokens_[pos_ - 1].range.end};
}

bool Parser::onNewLine(const Token &t) const {
  if (pos_ == 0) return false;
  const Token &prev = previous();
  std::string_view text = sm_.text(file_);
  for (uint32_t i = prev.range.end; i < t.range.begin.offset && i < text.size(); ++i)
    if (text[i] == '\n') return true;
  return false;
}

// ---------------------------------------------------------------- errors and recovery

std::string Parser::describe(const Token &t) const {
  switch (t.kind) {
  case TokenKind::Eof: return "end of file";
  case TokenKind::Error: return "invalid token";
  default:
    if (t.text.size() > kMaxQuotedToken) return "'" + std::string(t.text.substr(0, kMaxQuotedToken)) + "...'";
    return "'" + std::string(t.text) + "'";
  }
}

void Parser::reportExpected(std::string_view what) {
  if (mayReport()) diags_.report(DiagKind::ExpectedToken, tok().range, what, describe(tok()));
}

bool Parser::expect(TokenKind kind) {
  if (accept(kind)) return true;
  reportExpected(tokenKindSpelling(kind));
  return false;
}

bool Parser::expectClosing(TokenKind kind, const Token &opener) {
  if (accept(kind)) return true;
  if (mayReport())
    diags_.report(DiagKind::ExpectedToken, tok().range, tokenKindSpelling(kind), describe(tok()))
        .note(opener.range, "to match this " + std::string(tokenKindSpelling(opener.kind)));
  return false;
}

// A ';' missing at the end of a line (the next token starts a new line, or closes the block) is reported
// right after the previous token with a fix-it inserting it; the statement is then kept as if the ';' were
// there, so one forgotten ';' produces one error.
bool Parser::expectSemicolon() {
  if (accept(TokenKind::Semi)) return true;
  bool endsLine = at(TokenKind::RBrace) || at(TokenKind::Eof) || onNewLine(tok());
  if (!endsLine) {
    reportExpected("';'");
    return false;
  }
  if (!stop_) {
    SourceRange after{{file_, previous().range.end}, previous().range.end};
    diags_.report(DiagKind::ExpectedToken, after, "';'", describe(tok())).fixit(after, ";");
  }
  return true;
}

const Token *Parser::expectIdent(std::string_view what) {
  if (at(TokenKind::Ident)) return &consume();
  reportExpected(what);
  return nullptr;
}

// Skips `{ ... }` starting at the current '{', counting nesting iteratively (no recursion).
void Parser::skipBalancedBraces() {
  size_t depth = 0;
  do {
    if (at(TokenKind::LBrace)) ++depth;
    else if (at(TokenKind::RBrace)) --depth;
    else if (at(TokenKind::Eof) || at(TokenKind::KwKernel)) return;
    consume();
  } while (depth > 0);
}

// After a failed statement: skip to the next ';' (consumed), '}', statement keyword or 'kernel' (kept), or
// past a balanced '{ ... }' group.  A statement keyword counts only after progress, so this always ends
// with the parser past the failed statement's first token.
void Parser::recoverStatement(size_t statementStart) {
  while (!at(TokenKind::Eof)) {
    TokenKind kind = tok().kind;
    if (kind == TokenKind::RBrace || kind == TokenKind::KwKernel) break;
    if (kind == TokenKind::Semi) { consume(); break; }
    if (isStatementKeyword(kind) && pos_ > statementStart) break;
    if (kind == TokenKind::LBrace) { skipBalancedBraces(); break; }
    consume();
  }
  if (pos_ == statementStart && !at(TokenKind::Eof) && !at(TokenKind::RBrace) && !at(TokenKind::KwKernel))
    consume();
  checkErrorLimit();
}

// ---------------------------------------------------------------- nesting

bool Parser::deeper() {
  if (++depth_ <= kMaxNesting) return true;
  if (!stop_) {
    diags_.report(DiagKind::NestingTooDeep, tok().range, kMaxNesting)
        .hint("cakec stops parsing here; flatten the construct or split the expression with let");
    stop_ = true;
  }
  return false;
}

bool Parser::longerChain() {
  if (++chain_ <= kMaxChainOperators) return true;
  if (!stop_) {
    diags_.report(DiagKind::ExpressionChainTooLong, tok().range, kMaxChainOperators)
        .hint("cakec stops parsing here; split the expression into partial sums with let");
    stop_ = true;
  }
  return false;
}

// ---------------------------------------------------------------- module and kernels

// module = target_decl { kernel | fn_decl } ;
Ptr<Module> Parser::parseModule() {
  auto module = std::make_unique<Module>();
  std::string_view text = sm_.text(file_);
  module->range = SourceRange{{file_, 0}, static_cast<uint32_t>(text.size())};
  if (stop_) return module;
  parseTargetDecl(*module);
  while (!at(TokenKind::Eof) && !stop_) {
    if (at(TokenKind::KwKernel)) {
      if (Ptr<Kernel> kernel = parseKernel()) module->kernels.push_back(std::move(kernel));
    } else if (at(TokenKind::KwFn)) {
      if (Ptr<FnDecl> fn = parseFn()) module->fns.push_back(std::move(fn));
      inFn_ = false;
    } else {
      if (mayReport()) diags_.report(DiagKind::ExpectedKernel, tok().range, describe(tok()));
      consume();
      while (!at(TokenKind::Eof) && !at(TokenKind::KwKernel) && !at(TokenKind::KwFn)) consume();
    }
    checkErrorLimit();
  }
  return module;
}

// target_decl = 'target' IDENT ';' ;
bool Parser::parseTargetDecl(Module &module) {
  if (!at(TokenKind::KwTarget)) {
    if (mayReport())
      diags_.report(DiagKind::MissingTarget, tok().range, describe(tok()))
          .hint("start the file with e.g. 'target sm_90a;'");
    while (!at(TokenKind::Eof) && !at(TokenKind::KwKernel) && !at(TokenKind::KwFn)) consume();
    return false;
  }
  consume();
  const Token *name = expectIdent("a target name such as sm_90a");
  if (!name) {
    while (!at(TokenKind::Eof) && !at(TokenKind::KwKernel) && !at(TokenKind::KwFn)) consume();
    return false;
  }
  module.target = std::string(name->text);
  module.targetRange = name->range;
  if (!expectSemicolon()) {
    while (!at(TokenKind::Eof) && !at(TokenKind::KwKernel) && !at(TokenKind::KwFn)) consume();
    return false;
  }
  return true;
}

// kernel = 'kernel' IDENT [ ct_params ] '(' [ param { ',' param } ] ')' { attr } block ;
Ptr<Kernel> Parser::parseKernel() {
  size_t start = pos_;
  consume();   // 'kernel'
  auto kernel = std::make_unique<Kernel>();
  const Token *name = expectIdent("a kernel name");
  bool headerOk = name != nullptr;
  if (name) {
    kernel->name = std::string(name->text);
    kernel->nameRange = name->range;
    if (at(TokenKind::Less)) headerOk = parseCtParams(*kernel);
  }
  if (headerOk && !stop_) {
    const Token &open = tok();
    headerOk = expect(TokenKind::LParen);
    if (headerOk && !at(TokenKind::RParen)) {
      do {
        if (Ptr<Param> param = parseParam()) {
          kernel->params.push_back(std::move(param));
          continue;
        }
        if (stop_) return nullptr;
        // Skip the broken parameter up to the next ',' or ')' outside brackets.
        int depth = 0;
        while (!at(TokenKind::Eof) && !at(TokenKind::LBrace) && !at(TokenKind::KwKernel)) {
          if (depth == 0 && (at(TokenKind::Comma) || at(TokenKind::RParen))) break;
          if (at(TokenKind::LParen) || at(TokenKind::LBracket)) ++depth;
          if ((at(TokenKind::RParen) || at(TokenKind::RBracket)) && depth > 0) --depth;
          consume();
        }
        checkErrorLimit();
      } while (!stop_ && accept(TokenKind::Comma));
    }
    if (headerOk && !stop_) headerOk = expectClosing(TokenKind::RParen, open);
    if (headerOk && !stop_) headerOk = parseAttrs(kernel->attrs);
    if (headerOk && !stop_ && !at(TokenKind::LBrace)) {
      reportExpected("'{'");
      headerOk = false;
    }
  }
  if (stop_) return nullptr;
  if (!headerOk) {
    // Skip the rest of the header; parse the body if there is one so its errors are reported too.
    while (!at(TokenKind::Eof) && !at(TokenKind::LBrace) && !at(TokenKind::KwKernel)) consume();
    checkErrorLimit();
    if (!at(TokenKind::LBrace) || stop_) return nullptr;
  }
  kernel->body = parseBlock();
  if (!kernel->body) return nullptr;
  kernel->range = rangeFrom(start);
  if (!headerOk || !name) return nullptr;
  return kernel;
}

// fn_decl  = 'fn' IDENT '(' [ fn_param { ',' fn_param } ] ')' [ '->' type ] block ;
Ptr<FnDecl> Parser::parseFn() {
  size_t start = pos_;
  consume();   // 'fn'
  auto fn = std::make_unique<FnDecl>();
  const Token *name = expectIdent("a function name");
  bool headerOk = name != nullptr;
  if (name) {
    fn->name = std::string(name->text);
    fn->nameRange = name->range;
    const Token &open = tok();
    headerOk = expect(TokenKind::LParen);
    if (headerOk && !at(TokenKind::RParen)) {
      do {
        FnParam param;
        headerOk = parseFnParam(param);
        if (headerOk) fn->params.push_back(std::move(param));
      } while (headerOk && !stop_ && accept(TokenKind::Comma));
    }
    if (headerOk && !stop_) headerOk = expectClosing(TokenKind::RParen, open);
    if (headerOk && !stop_ && accept(TokenKind::RArrow)) {
      fn->resultType = parseType();
      headerOk = fn->resultType != nullptr;
    }
    if (headerOk && !stop_ && !at(TokenKind::LBrace)) {
      reportExpected("'{'");
      headerOk = false;
    }
  }
  if (stop_) return nullptr;
  if (!headerOk) {
    while (!at(TokenKind::Eof) && !at(TokenKind::LBrace) && !at(TokenKind::KwKernel) && !at(TokenKind::KwFn))
      consume();
    checkErrorLimit();
    if (!at(TokenKind::LBrace) || stop_) return nullptr;
  }
  inFn_ = true;
  fn->body = parseBlock();
  if (!fn->body) return nullptr;
  fn->range = rangeFrom(start);
  if (!headerOk) return nullptr;
  return fn;
}

// fn_param = [ 'var' | 'shared' ] IDENT ':' type ;
bool Parser::parseFnParam(FnParam &param) {
  size_t start = pos_;
  if (accept(TokenKind::KwVar)) param.mode = FnParamMode::Var;
  else if (accept(TokenKind::KwShared)) param.mode = FnParamMode::Shared;
  const Token *name = expectIdent("a parameter name");
  if (!name) return false;
  param.name = std::string(name->text);
  param.nameRange = name->range;
  if (!expect(TokenKind::Colon)) return false;
  param.declaredType = parseType();
  if (!param.declaredType) return false;
  param.range = rangeFrom(start);
  return true;
}

// ct_params = '<' ct_param { ',' ct_param } '>' ;
bool Parser::parseCtParams(Kernel &kernel) {
  const Token &open = consume();   // '<'
  do {
    Ptr<CtParam> param = parseCtParam();
    if (!param) return false;
    kernel.ctParams.push_back(std::move(param));
  } while (accept(TokenKind::Comma));
  return expectClosing(TokenKind::Greater, open);
}

// ct_param = IDENT '=' const_primary            (an integer parameter)
//          | IDENT ':' 'type' '=' IDENT ;        (a type parameter: the default names a scalar type)
Ptr<CtParam> Parser::parseCtParam() {
  const Token *name = expectIdent("a compile-time parameter name");
  if (!name) return nullptr;
  auto param = std::make_unique<CtParam>(std::string(name->text), name->range);
  if (accept(TokenKind::Colon)) {
    if (!at(TokenKind::Ident) || tok().text != "type") {
      if (mayReport())
        diags_.report(DiagKind::ExpectedToken, tok().range, "'type'", describe(tok()))
            .hint("a type parameter is declared 'NAME: type = bf16'; an integer parameter has no ':' ('NAME = 128')");
      return nullptr;
    }
    param->isType = true;
    param->typeKeywordRange = consume().range;
    if (!expect(TokenKind::Assign)) return nullptr;
    const Token *dflt = expectIdent("a scalar type name such as bf16");
    if (!dflt) return nullptr;
    param->defaultValue = std::make_unique<NameExpr>(dflt->range, std::string(dflt->text));
    return param;
  }
  if (!expect(TokenKind::Assign)) return nullptr;
  param->defaultValue = parseConstPrimary();
  if (!param->defaultValue) return nullptr;
  return param;
}

// param = IDENT ':' type { attr } ;
Ptr<Param> Parser::parseParam() {
  size_t start = pos_;
  const Token *name = expectIdent("a parameter name");
  if (!name) return nullptr;
  auto param = std::make_unique<Param>(std::string(name->text), name->range);
  if (!expect(TokenKind::Colon)) return nullptr;
  param->declaredType = parseType();
  if (!param->declaredType) return nullptr;
  if (!parseAttrs(param->attrs)) return nullptr;
  param->range = rangeFrom(start);
  return param;
}

// { attr }   (an attribute starts with IDENT '(')
bool Parser::parseAttrs(std::vector<Attr> &attrs) {
  while (atAttrStart() && !stop_) {
    Attr attr;
    if (!parseAttr(attr)) return false;
    attrs.push_back(std::move(attr));
  }
  return !stop_;
}

// attr = IDENT '(' [ attr_arg { ',' attr_arg } ] ')' ;
bool Parser::parseAttr(Attr &attr) {
  size_t start = pos_;
  const Token &name = consume();
  attr.name = std::string(name.text);
  attr.nameRange = name.range;
  const Token &open = consume();   // '('
  if (!at(TokenKind::RParen)) {
    do {
      AttrArg arg;
      if (!parseAttrArg(arg)) return false;
      attr.args.push_back(std::move(arg));
    } while (accept(TokenKind::Comma));
  }
  if (!expectClosing(TokenKind::RParen, open)) return false;
  attr.range = rangeFrom(start);
  return true;
}

// attr_arg = [ IDENT '=' ] ( expr | list ) ;
bool Parser::parseAttrArg(AttrArg &arg) {
  if (at(TokenKind::Ident) && peek().kind == TokenKind::Assign) {
    arg.key = std::string(tok().text);
    arg.keyRange = tok().range;
    consume();
    consume();
  }
  arg.value = at(TokenKind::LBracket) ? parseList() : parseExpr();
  return arg.value != nullptr;
}

// list = '[' [ expr { ',' expr } ] ']' ;
Ptr<Expr> Parser::parseList() {
  DepthScope scope(*this);
  if (!deeper()) return nullptr;
  size_t start = pos_;
  const Token &open = consume();   // '['
  auto list = std::make_unique<ListExpr>(open.range);
  if (!at(TokenKind::RBracket)) {
    do {
      Ptr<Expr> element = parseExpr();
      if (!element) return nullptr;
      list->elements.push_back(std::move(element));
    } while (accept(TokenKind::Comma));
  }
  if (!expectClosing(TokenKind::RBracket, open)) return nullptr;
  list->range = rangeFrom(start);
  return list;
}

// ---------------------------------------------------------------- types

// type = base_type { '[' dim { ',' dim } ']' } ;
// base_type = SCALAR_OR_VECTOR_TYPE | 'frag' '<' ... '>' ;   (see parseFragType)
// dim = expr ;
Ptr<TypeExpr> Parser::parseType() {
  size_t start = pos_;
  auto type = std::make_unique<TypeExpr>();
  if (at(TokenKind::KwFrag)) {
    if (!parseFragType(*type)) return nullptr;
  } else if (at(TokenKind::Ident)) {
    type->baseName = std::string(tok().text);
    type->baseRange = tok().range;
    consume();
  } else {
    if (mayReport()) diags_.report(DiagKind::ExpectedType, tok().range, describe(tok()));
    return nullptr;
  }
  while (at(TokenKind::LBracket)) {
    const Token &open = consume();
    std::vector<Ptr<Expr>> group;
    do {
      Ptr<Expr> dim = parseExpr();
      if (!dim) return nullptr;
      group.push_back(std::move(dim));
    } while (accept(TokenKind::Comma));
    if (!expectClosing(TokenKind::RBracket, open)) return nullptr;
    type->dimGroups.push_back(std::move(group));
  }
  type->range = rangeFrom(start);
  return type;
}

// base_type = 'frag' '<' IDENT ',' IDENT ',' const_primary [ ',' const_primary ',' const_primary ] '>' ;
// (the short form, M only, is a row vector: frag<wgmma_row, f32, 64>)
bool Parser::parseFragType(TypeExpr &type) {
  type.baseName = "frag";
  type.baseRange = consume().range;   // 'frag'
  const Token &open = tok();
  if (!expect(TokenKind::Less)) return false;
  const Token *kind = expectIdent("a fragment kind (mma_a, mma_b, mma_c, wgmma_a, wgmma_acc)");
  if (!kind) return false;
  type.fragKind = std::string(kind->text);
  type.fragKindRange = kind->range;
  if (!expect(TokenKind::Comma)) return false;
  const Token *dtype = expectIdent("a fragment element type");
  if (!dtype) return false;
  type.fragDtype = std::string(dtype->text);
  type.fragDtypeRange = dtype->range;
  Ptr<Expr> *dims[] = {&type.fragM, &type.fragN, &type.fragK};
  for (Ptr<Expr> *dim : dims) {
    if (dim == &type.fragN && tok().kind == TokenKind::Greater) break;   // row vector
    if (!expect(TokenKind::Comma)) return false;
    *dim = parseConstPrimary();
    if (!*dim) return false;
  }
  return expectClosing(TokenKind::Greater, open);
}

} // namespace cake

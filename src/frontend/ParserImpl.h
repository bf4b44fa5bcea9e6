// The recursive-descent parser's class, shared by the files that implement it:
//   Parser.cpp     module, kernel header, params, attributes, types, token helpers, error recovery
//   ParseStmt.cpp  statements and blocks (incl. the op-statement / assignment decision)
//   ParseExpr.cpp  expressions (precedence climbing over the EBNF's binary-operator ladder)
//
// Conventions every parse function follows:
//  - it carries its grammar rule (grammar/cake.ebnf) as a comment;
//  - on a syntax error it reports through the DiagnosticEngine and returns null/false; it never attaches a
//    partially-built child to a node, so every node in the returned tree is complete;
//  - no error is reported at an Error token (the lexer already reported it) or once parsing has stopped;
//  - the range of every node runs from its first to its last token (rangeFrom(startTokenIndex));
//  - nesting (blocks, else-if chains, parentheses, unary/binary/postfix operators) is counted in depth_;
//    past kMaxNesting the parser reports E0207 once, sets stop_, and every function unwinds, so neither
//    the parser nor any later tree walk can run out of stack.
#pragma once
#include "frontend/AST.h"
#include "frontend/Lexer.h"
#include "frontend/Ops.h"
#include "frontend/Parser.h"
#include "support/Diagnostics.h"

#include <string>
#include <string_view>
#include <vector>

namespace cake {

class Parser {
public:
  Parser(const SourceManager &sm, uint32_t file, DiagnosticEngine &diags);
  Ptr<Module> parseModule();

private:
  // ---- tokens (Parser.cpp)
  const Token &tok() const { return tokens_[pos_]; }
  const Token &peek(size_t n = 1) const { return tokens_[pos_ + n < tokens_.size() ? pos_ + n : tokens_.size() - 1]; }
  const Token &previous() const { return tokens_[pos_ > 0 ? pos_ - 1 : 0]; }
  bool at(TokenKind kind) const { return tok().kind == kind; }
  const Token &consume();
  bool accept(TokenKind kind);
  SourceRange rangeFrom(size_t startToken) const;
  bool onNewLine(const Token &t) const;   // t starts on a later line than the previous token ends

  // ---- errors and recovery (Parser.cpp)
  std::string describe(const Token &t) const;
  bool mayReport() const { return !stop_ && !at(TokenKind::Error); }
  void reportExpected(std::string_view what);                // E0201 at the current token
  bool expect(TokenKind kind);                                // E0201 unless the token is there
  bool expectClosing(TokenKind kind, const Token &opener);    // same, with a note at the opener
  bool expectSemicolon();                                     // E0201 + fix-it when ';' ends a line
  const Token *expectIdent(std::string_view what);
  void recoverStatement(size_t statementStart);
  void skipBalancedBraces();
  void checkErrorLimit() { if (diags_.limitReached()) stop_ = true; }

  // ---- nesting (Parser.cpp)
  bool deeper();   // one more level; false (after E0207) past kMaxNesting
  bool longerChain();   // one more operator of a flat binary chain; false (after E0813) past kMaxChainOperators
  struct DepthScope {
    explicit DepthScope(Parser &p) : parser(p), saved(p.depth_), savedChain(p.chain_) {}
    ~DepthScope() {
      parser.depth_ = saved;
      parser.chain_ = savedChain;
    }
    Parser &parser;
    unsigned saved;
    unsigned savedChain;
  };

  // ---- module, kernels, params, attributes, types (Parser.cpp)
  bool parseTargetDecl(Module &module);
  Ptr<Kernel> parseKernel();
  Ptr<FnDecl> parseFn();
  bool parseFnParam(FnParam &param);
  bool parseCtParams(Kernel &kernel);
  Ptr<CtParam> parseCtParam();
  Ptr<Param> parseParam();
  bool parseAttrs(std::vector<Attr> &attrs);
  bool parseAttr(Attr &attr);
  bool parseAttrArg(AttrArg &arg);
  Ptr<Expr> parseList();
  Ptr<TypeExpr> parseType();
  bool parseFragType(TypeExpr &type);
  bool atAttrStart() const { return at(TokenKind::Ident) && peek().kind == TokenKind::LParen; }

  // ---- statements (ParseStmt.cpp)
  Ptr<BlockStmt> parseBlock();
  Ptr<Stmt> parseStmt();
  Ptr<Stmt> parseLetStmt();
  Ptr<Stmt> parseVarStmt();
  Ptr<Stmt> parseSharedDecl();
  Ptr<Stmt> parseMbarrierDecl();
  Ptr<Stmt> parseBarrierDecl();
  Ptr<Stmt> parseRoleStmt();
  bool parseRoleUnit(RoleStmt &role);
  Ptr<Stmt> parseForStmt();
  Ptr<Stmt> parseIfStmt();
  Ptr<Stmt> parseElectStmt();
  Ptr<Stmt> parseReturnStmt();
  Ptr<Stmt> parseOpOrAssignStmt();
  Ptr<Stmt> parseOpStmt(size_t start, std::string name, SourceRange nameRange, const OpInfo *op);
  Ptr<Stmt> parseAssignStmt();
  void reportUnknownOperation(const std::string &name, SourceRange nameRange);
  bool parseOperands(std::vector<Ptr<Expr>> &operands);
  bool parseClause(Clause &clause);
  bool atClauseStart() const;
  bool atOperandsEnd() const;

  // ---- expressions (ParseExpr.cpp)
  Ptr<Expr> parseExpr();
  Ptr<Expr> parseBinaryRhs(int minPrecedence, Ptr<Expr> lhs, size_t lhsStart);
  Ptr<Expr> parseUnary();
  Ptr<Expr> parsePostfix();
  Ptr<Expr> parsePostfixRest(Ptr<Expr> base, size_t start);
  bool parseIndex(IndexItem &item);
  Ptr<Expr> parsePrimary();
  Ptr<Expr> parseConstPrimary();
  Ptr<Expr> parseParenExpr();
  bool parseCallArgs(std::vector<Ptr<Expr>> &args);

  const SourceManager &sm_;
  uint32_t file_;
  DiagnosticEngine &diags_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  unsigned depth_ = 0;
  unsigned chain_ = 0;   // operators of flat binary chains on the path from the root (a tree-depth budget)
  bool stop_ = false;          // nesting limit or error limit hit: unwind and return what was built
  bool inFn_ = false;          // inside an fn body (return may carry a value)
  bool synchronized_ = false;  // a failed statement already skipped to its end (no recovery needed)
};

// Token-kind classes used by several parse files.
bool isWordToken(TokenKind kind);            // identifier or keyword (text is a word)
bool isStatementKeyword(TokenKind kind);     // let var shared mbarrier barrier role for if elect return

} // namespace cake

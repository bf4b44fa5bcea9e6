// ASTPrinter: prints a Module as canonical CAKE source (cakec --emit=ir).
//
// How it works: one Printer walks the tree and appends to a std::string.  Statements print one per line at
// 2-space indentation; blocks put `{` at the end of their header line and `}` on its own line.  Kernel
// headers print `kernel name<A = 1>(p: T attrs, ...)`, then every kernel attribute on its own line indented
// by 2, then `{` on its own line.
//
// Expressions print with the minimal parentheses that preserve the tree.  Every expression has a
// precedence level (the grammar's, loosest first: || && | ^ & equality relational shift additive
// multiplicative unary postfix primary); all binary operators are left-associative, so a left operand
// needs parentheses only when it binds looser than its parent, a right operand when it binds looser or
// equally loose.  The grammar's `const_primary` positions (compile-time parameter defaults, fragment shape
// arguments) accept only INT | IDENT | '(' expr ')', so anything else is parenthesised there.
//
// The parser builds left-operand chains (a + b + c + ...) and postfix chains (a[i][j].x ...) with loops,
// so their depth is not bounded by the parser's nesting cap; the printer walks both spines iteratively so
// that no input can exhaust the stack.  Comments are not in the AST and are therefore dropped.
//
// Two places need parentheses that precedence alone does not give, because the parser decides what a
// statement is from its first tokens: an assignment whose target starts with a name the parser would read
// as an operation (`(sync)[0] = 1;`, `(cluster).x = 1;`), and an operation whose first operand starts with
// a call to a clause name (`arrive (signal(x));`).  There the first primary is parenthesised (see
// firstPrimary / readsAsOperation / readsAsClause).
#include "frontend/ASTPrinter.h"
#include "frontend/Operators.h"

#include "frontend/Ops.h"
#include "support/Diagnostics.h"

#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string_view>
#include <vector>

namespace cake {
namespace {

// Precedence levels, loosest first (grammar/cake.ebnf, "expressions").
enum Prec : int {
  PrecLogOr = 1, PrecLogAnd, PrecBitOr, PrecBitXor, PrecBitAnd, PrecEquality, PrecRelational, PrecShift,
  PrecAdditive, PrecMultiplicative, PrecUnary, PrecPostfix, PrecPrimary
};

int binaryPrec(BinaryOp op) {
  switch (op) {
  case BinaryOp::LogOr: return PrecLogOr;
  case BinaryOp::LogAnd: return PrecLogAnd;
  case BinaryOp::BitOr: return PrecBitOr;
  case BinaryOp::BitXor: return PrecBitXor;
  case BinaryOp::BitAnd: return PrecBitAnd;
  case BinaryOp::Eq: case BinaryOp::Ne: return PrecEquality;
  case BinaryOp::Lt: case BinaryOp::Le: case BinaryOp::Gt: case BinaryOp::Ge: return PrecRelational;
  case BinaryOp::Shl: case BinaryOp::Shr: return PrecShift;
  case BinaryOp::Add: case BinaryOp::Sub: return PrecAdditive;
  case BinaryOp::Mul: case BinaryOp::Div: case BinaryOp::Rem: return PrecMultiplicative;
  }
  CAKE_INTERNAL_ERROR("unknown binary operator");
}


std::string_view unarySpelling(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg: return "-";
  case UnaryOp::Not: return "!";
  case UnaryOp::BitNot: return "~";
  }
  CAKE_INTERNAL_ERROR("unknown unary operator");
}

std::string_view assignSpelling(AssignOp op) {
  switch (op) {
  case AssignOp::Set: return "=";
  case AssignOp::Add: return "+=";
  case AssignOp::Sub: return "-=";
  case AssignOp::Mul: return "*=";
  case AssignOp::Div: return "/=";
  case AssignOp::Rem: return "%=";
  case AssignOp::And: return "&=";
  case AssignOp::Or: return "|=";
  case AssignOp::Xor: return "^=";
  case AssignOp::Shl: return "<<=";
  case AssignOp::Shr: return ">>=";
  }
  CAKE_INTERNAL_ERROR("unknown assignment operator");
}

int exprPrec(const Expr &e) {
  switch (e.kind) {
  case ExprKind::Binary: return binaryPrec(cast<BinaryExpr>(&e)->op);
  case ExprKind::Unary: return PrecUnary;
  case ExprKind::Member: case ExprKind::Index: case ExprKind::Call: return PrecPostfix;
  case ExprKind::IntLit: case ExprKind::FloatLit: case ExprKind::BoolLit: case ExprKind::Name:
  case ExprKind::List: return PrecPrimary;
  }
  CAKE_INTERNAL_ERROR("unknown expression kind");
}

bool isPostfix(const Expr &e) { return e.kind == ExprKind::Member || e.kind == ExprKind::Index; }

// The Name or Call that prints as the first token(s) of `e`, with the Member nodes applied directly on top
// of it (innermost first) in `membersAbove`; nullptr when `e` prints starting with '(' , an operator or a
// literal.  Follows the printer's own parenthesisation: binary left operands and postfix bases that are
// printed without parentheses.
const Expr *firstPrimary(const Expr &root, std::vector<const MemberExpr *> *membersAbove) {
  std::vector<const Expr *> path;
  const Expr *e = &root;
  for (;;) {
    path.push_back(e);
    if (const auto *b = dynCast<BinaryExpr>(e)) {
      if (!b->lhs || exprPrec(*b->lhs) < binaryPrec(b->op)) return nullptr;
      e = b->lhs.get();
    } else if (isPostfix(*e)) {
      const Expr *base = e->kind == ExprKind::Index ? cast<IndexExpr>(e)->base.get() : cast<MemberExpr>(e)->base.get();
      if (!base || exprPrec(*base) < PrecPostfix) return nullptr;
      e = base;
    } else {
      break;
    }
  }
  if (e->kind != ExprKind::Name && e->kind != ExprKind::Call) return nullptr;
  if (membersAbove) {
    membersAbove->clear();
    for (size_t i = path.size() - 1; i-- > 0;) {
      const auto *m = dynCast<MemberExpr>(path[i]);
      if (!m || m->base.get() != path[i + 1]) break;
      membersAbove->push_back(m);
    }
  }
  return e;
}

// The parser reads a statement that starts with a dotted name as an operation when the name is in
// Ops.def, or when it has a dot and its first component is an operation namespace (ParseStmt.cpp,
// parseOpOrAssignStmt).  Returns the primary to parenthesise when an assignment target would be misread.
const Expr *readsAsOperation(const Expr &target) {
  std::vector<const MemberExpr *> members;
  const Expr *first = firstPrimary(target, &members);
  if (!first) return nullptr;
  std::string dotted;
  if (const auto *call = dynCast<CallExpr>(first)) {
    dotted = call->callee;
  } else {
    dotted = cast<NameExpr>(first)->name;
    for (const MemberExpr *m : members) dotted += "." + m->member;
  }
  size_t dot = dotted.find('.');
  bool isOp = lookupOp(dotted) || (dot != std::string::npos && isOpNamespace(std::string_view(dotted).substr(0, dot)));
  return isOp ? first : nullptr;
}

// An operation's first operand that starts with `clause_name(` would be read as a clause.
const Expr *readsAsClause(const Expr &operand) {
  const Expr *first = firstPrimary(operand, nullptr);
  const auto *call = dynCast<CallExpr>(first);
  return call && isClauseName(call->callee) ? first : nullptr;
}

class Printer {
public:
  explicit Printer(std::string &out) : out_(out) {}

  void module(const Module &m) {
    out_ += "target ";
    out_ += m.target;
    out_ += ";\n";
    for (const auto &f : m.fns) {
      out_ += '\n';
      fn(*f);
    }
    for (const auto &k : m.kernels) {
      out_ += '\n';
      kernel(*k);
    }
  }

  // Prints `e`, parenthesised when it binds looser than `minPrec`.
  void expr(const Expr &e, int minPrec = PrecLogOr) {
    bool parens = exprPrec(e) < minPrec || &e == forceParens_;
    if (parens) out_ += '(';
    exprNoParens(e);
    if (parens) out_ += ')';
  }

  // const_primary = INT | IDENT | '(' expr ')' ;
  void constPrimary(const Expr &e) {
    bool bare = e.kind == ExprKind::Name || (e.kind == ExprKind::IntLit && !cast<IntLitExpr>(&e)->isBytes);
    if (!bare) out_ += '(';
    expr(e);
    if (!bare) out_ += ')';
  }

  void stmt(const Stmt &s) {
    switch (s.kind) {
    case StmtKind::Block:
      line();
      block(*cast<BlockStmt>(&s));
      out_ += '\n';
      return;
    case StmtKind::Let: {
      const auto &l = *cast<LetStmt>(&s);
      line() += "let ";
      out_ += l.name;
      if (l.declaredType) {
        out_ += ": ";
        type(*l.declaredType);
      }
      out_ += " = ";
      optExpr(l.init.get());
      out_ += ";\n";
      return;
    }
    case StmtKind::Var: {
      const auto &v = *cast<VarStmt>(&s);
      line() += "var ";
      out_ += v.name;
      out_ += ": ";
      optType(v.declaredType.get());
      if (v.init) {
        out_ += " = ";
        expr(*v.init);
      }
      out_ += ";\n";
      return;
    }
    case StmtKind::Shared: {
      const auto &d = *cast<SharedStmt>(&s);
      line() += d.tensorMemory ? "tmem " : "shared ";
      out_ += d.name;
      out_ += ": ";
      optType(d.declaredType.get());
      attrs(d.attrs);
      out_ += ";\n";
      return;
    }
    case StmtKind::MBarrier: {
      const auto &d = *cast<MBarrierStmt>(&s);
      line() += "mbarrier ";
      out_ += d.name;
      if (d.count) {
        out_ += '[';
        expr(*d.count);
        out_ += ']';
      }
      attrs(d.attrs);
      out_ += ";\n";
      return;
    }
    case StmtKind::Barrier: {
      const auto &d = *cast<BarrierStmt>(&s);
      line() += "barrier ";
      out_ += d.name;
      if (d.count) {
        out_ += '[';
        expr(*d.count);
        out_ += ']';
      }
      attrs(d.attrs);
      out_ += ";\n";
      return;
    }
    case StmtKind::Role: role(*cast<RoleStmt>(&s)); return;
    case StmtKind::For: {
      const auto &f = *cast<ForStmt>(&s);
      line() += "for ";
      out_ += f.name;
      out_ += " in ";
      optExpr(f.lower.get());
      out_ += " .. ";
      optExpr(f.upper.get());
      if (f.step) {
        out_ += " step ";
        expr(*f.step);
      }
      if (f.unroll) out_ += " unroll";
      if (f.unrollFactor) {
        out_ += " unroll(";
        expr(*f.unrollFactor);
        out_ += ')';
      }
      out_ += ' ';
      optBlock(f.body.get());
      out_ += '\n';
      return;
    }
    case StmtKind::If:
      line();
      ifChain(*cast<IfStmt>(&s));
      out_ += '\n';
      return;
    case StmtKind::Elect:
      line() += "elect ";
      optBlock(cast<ElectStmt>(&s)->body.get());
      out_ += '\n';
      return;
    case StmtKind::Return: {
      const auto &r = *cast<ReturnStmt>(&s);
      line() += "return";
      if (r.value) {
        out_ += ' ';
        expr(*r.value);
      }
      out_ += ";\n";
      return;
    }
    case StmtKind::Call: {
      const auto &c = *cast<CallStmt>(&s);
      line();
      if (c.call) expr(*c.call);
      else out_ += "<missing>";
      out_ += ";\n";
      return;
    }
    case StmtKind::Assign: {
      const auto &a = *cast<AssignStmt>(&s);
      line();
      if (a.target) exprWithParenthesised(*a.target, readsAsOperation(*a.target));
      else out_ += "<missing>";
      out_ += ' ';
      out_ += assignSpelling(a.op);
      out_ += ' ';
      optExpr(a.value.get());
      out_ += ";\n";
      return;
    }
    case StmtKind::Op: op(*cast<OpStmt>(&s)); return;
    }
    CAKE_INTERNAL_ERROR("unknown statement kind");
  }

private:
  std::string &out_;
  unsigned depth_ = 0;
  const Expr *forceParens_ = nullptr;   // a statement's first primary that must not read as op/clause

  // Prints `e` with `first` (a primary inside it, or null) parenthesised.
  void exprWithParenthesised(const Expr &e, const Expr *first) {
    forceParens_ = first;
    expr(e);
    forceParens_ = nullptr;
  }

  std::string &line() {
    out_.append(2 * depth_, ' ');
    return out_;
  }

  // The parser never leaves these null in an error-free tree; printing "<missing>" keeps the printer total
  // (it is also used on partial trees for debugging) without pretending the text would reparse.
  void optExpr(const Expr *e) {
    if (e) expr(*e);
    else out_ += "<missing>";
  }
  void optType(const TypeExpr *t) {
    if (t) type(*t);
    else out_ += "<missing>";
  }
  void optBlock(const BlockStmt *b) {
    if (b) block(*b);
    else out_ += "{\n" + std::string(2 * depth_, ' ') + "}";
  }

  // block = '{' { stmt } '}' ;  the caller has already indented; leaves the cursor after '}'.
  void block(const BlockStmt &b) {
    out_ += "{\n";
    ++depth_;
    for (const auto &s : b.stmts) stmt(*s);
    --depth_;
    line() += '}';
  }

  // if_stmt = 'if' expr block [ 'else' ( if_stmt | block ) ] ;  (iterative over else-if chains)
  void ifChain(const IfStmt &first) {
    const IfStmt *s = &first;
    for (;;) {
      out_ += "if ";
      optExpr(s->cond.get());
      out_ += ' ';
      optBlock(s->thenBody.get());
      if (!s->elseBody) return;
      out_ += " else ";
      if (const auto *elseIf = dynCast<IfStmt>(s->elseBody.get())) {
        s = elseIf;
        continue;
      }
      if (const auto *elseBlock = dynCast<BlockStmt>(s->elseBody.get())) {
        block(*elseBlock);
        return;
      }
      CAKE_INTERNAL_ERROR("else branch is neither a block nor an if");
    }
  }

  // role_stmt = 'role' IDENT [ '[' expr ']' ] '=' role_unit '(' expr [ '..' expr ] ')' { attr } block ;
  void role(const RoleStmt &r) {
    line() += "role ";
    out_ += r.name;
    if (r.instances) {
      out_ += '[';
      expr(*r.instances);
      out_ += ']';
    }
    out_ += " = ";
    out_ += r.unit == RoleUnit::Warp ? "warp" : "warpgroup";
    if (r.pluralSpelling) out_ += 's';
    out_ += '(';
    optExpr(r.first.get());
    if (r.last) {
      out_ += " .. ";
      expr(*r.last);
    }
    out_ += ')';
    attrs(r.attrs);
    out_ += ' ';
    optBlock(r.body.get());
    out_ += '\n';
  }

  // op_stmt = OP_NAME [ operands ] [ ( '<-' | '+=' ) operands ] { clause } ';' ;
  void op(const OpStmt &o) {
    if (o.name == "syncwarp" && o.dsts.size() == 1 && o.dsts[0] && o.srcs.empty() && o.clauses.empty()) {
      line() += "syncwarp(";   // canonical spelling of the mask operand: syncwarp(MASK), a literal in hex
      if (const auto *lit = dynCast<IntLitExpr>(o.dsts[0].get()); lit && !lit->isBytes && lit->value <= 0xffffffffu) {
        char hex[16];
        std::snprintf(hex, sizeof hex, "0x%08llx", static_cast<unsigned long long>(lit->value));
        out_ += hex;
      } else {
        expr(*o.dsts[0]);
      }
      out_ += ");\n";
      return;
    }
    line() += o.name;
    for (size_t i = 0; i < o.dsts.size(); ++i) {
      out_ += i ? ", " : " ";
      if (!o.dsts[i]) out_ += "<missing>";
      else if (i == 0) exprWithParenthesised(*o.dsts[0], readsAsClause(*o.dsts[0]));
      else expr(*o.dsts[i]);
    }
    if (o.arrow != OpArrow::None) {
      out_ += o.arrow == OpArrow::Move ? " <- " : " += ";
      exprList(o.srcs);
    }
    for (const auto &c : o.clauses) {
      out_ += ' ';
      out_ += c.name;
      out_ += '(';
      exprList(c.args);
      out_ += ')';
    }
    out_ += ";\n";
  }

  // fn_decl = 'fn' IDENT '(' [ fn_param { ',' fn_param } ] ')' [ '->' type ] block ;
  // fn_param = [ 'var' | 'shared' ] IDENT ':' type ;
  void fn(const FnDecl &f) {
    out_ += "fn ";
    out_ += f.name;
    out_ += '(';
    for (size_t i = 0; i < f.params.size(); ++i) {
      if (i) out_ += ", ";
      const FnParam &p = f.params[i];
      if (p.mode == FnParamMode::Var) out_ += "var ";
      if (p.mode == FnParamMode::Shared) out_ += "shared ";
      out_ += p.name;
      out_ += ": ";
      optType(p.declaredType.get());
    }
    out_ += ')';
    if (f.resultType) {
      out_ += " -> ";
      type(*f.resultType);
    }
    out_ += ' ';
    if (f.body) block(*f.body);
    else out_ += "{\n}";
    out_ += '\n';
  }

  // kernel = 'kernel' IDENT [ ct_params ] '(' [ param { ',' param } ] ')' { attr } block ;
  void kernel(const Kernel &k) {
    out_ += "kernel ";
    out_ += k.name;
    if (!k.ctParams.empty()) {
      out_ += '<';
      for (size_t i = 0; i < k.ctParams.size(); ++i) {
        if (i) out_ += ", ";
        out_ += k.ctParams[i]->name;
        out_ += k.ctParams[i]->isType ? ": type = " : " = ";
        if (k.ctParams[i]->defaultValue) constPrimary(*k.ctParams[i]->defaultValue);
        else out_ += "<missing>";
      }
      out_ += '>';
    }
    out_ += '(';
    for (size_t i = 0; i < k.params.size(); ++i) {
      if (i) out_ += ", ";
      const Param &p = *k.params[i];
      out_ += p.name;
      out_ += ": ";
      optType(p.declaredType.get());
      attrs(p.attrs);
    }
    out_ += ")\n";
    for (const Attr &a : k.attrs) {
      out_ += "  ";
      attr(a);
      out_ += '\n';
    }
    if (k.body) block(*k.body);
    else out_ += "{\n}";
    out_ += '\n';
  }

  // type = base_type { '[' dim { ',' dim } ']' } ;
  void type(const TypeExpr &t) {
    out_ += t.baseName;
    if (t.isFrag()) {
      out_ += '<';
      out_ += t.fragKind;
      out_ += ", ";
      out_ += t.fragDtype;
      for (const Expr *e : {t.fragM.get(), t.fragN.get(), t.fragK.get()}) {
        if (e != t.fragM.get() && !t.fragN && !t.fragK) break;   // row vector: frag<wgmma_row, f32, 64>
        out_ += ", ";
        if (e) constPrimary(*e);
        else out_ += "<missing>";
      }
      out_ += '>';
    }
    for (const auto &group : t.dimGroups) {
      out_ += '[';
      exprList(group);
      out_ += ']';
    }
  }

  // Attributes follow their owner separated by one space each.
  void attrs(const std::vector<Attr> &list) {
    for (const Attr &a : list) {
      out_ += ' ';
      attr(a);
    }
  }

  // attr = IDENT '(' [ attr_arg { ',' attr_arg } ] ')' ;  attr_arg = [ IDENT '=' ] ( expr | list ) ;
  void attr(const Attr &a) {
    out_ += a.name;
    out_ += '(';
    for (size_t i = 0; i < a.args.size(); ++i) {
      if (i) out_ += ", ";
      if (!a.args[i].key.empty()) {
        out_ += a.args[i].key;
        out_ += '=';
      }
      optExpr(a.args[i].value.get());
    }
    out_ += ')';
  }

  void exprList(const std::vector<Ptr<Expr>> &list) {
    for (size_t i = 0; i < list.size(); ++i) {
      if (i) out_ += ", ";
      optExpr(list[i].get());
    }
  }

  void exprNoParens(const Expr &e) {
    switch (e.kind) {
    case ExprKind::IntLit: {
      const auto &lit = *cast<IntLitExpr>(&e);
      out_ += std::to_string(lit.value);
      if (lit.isBytes) out_ += 'B';
      return;
    }
    case ExprKind::FloatLit: floatLit(*cast<FloatLitExpr>(&e)); return;
    case ExprKind::BoolLit: out_ += cast<BoolLitExpr>(&e)->value ? "true" : "false"; return;
    case ExprKind::Name: out_ += cast<NameExpr>(&e)->name; return;
    case ExprKind::Unary: {
      // Nested prefix operators print without spaces (--a, !~b): the lexer has no '--' token.
      const auto &u = *cast<UnaryExpr>(&e);
      out_ += unarySpelling(u.op);
      if (u.operand) expr(*u.operand, PrecUnary);
      else out_ += "<missing>";
      return;
    }
    case ExprKind::Binary: binaryChain(*cast<BinaryExpr>(&e)); return;
    case ExprKind::Member: case ExprKind::Index: postfixChain(e); return;
    case ExprKind::Call: {
      const auto &c = *cast<CallExpr>(&e);
      out_ += c.callee;
      out_ += '(';
      exprList(c.args);
      out_ += ')';
      return;
    }
    case ExprKind::List:
      out_ += '[';
      exprList(cast<ListExpr>(&e)->elements);
      out_ += ']';
      return;
    }
    CAKE_INTERNAL_ERROR("unknown expression kind");
  }

  void floatLit(const FloatLitExpr &f) {
    if (!f.spelling.empty()) {
      out_ += f.spelling;
      return;
    }
    // Built by hand (no spelling): shortest round-tripping form, always with a '.' or exponent.
    char buf[64];
    for (int precision = 1; precision <= 17; ++precision) {
      std::snprintf(buf, sizeof buf, "%.*g", precision, f.value);
      if (std::strtod(buf, nullptr) == f.value) break;
    }
    std::string text = buf;
    if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
    out_ += text;
  }

  // A left-deep chain of binary operators prints iteratively: walk down the left spine while the left
  // operand needs no parentheses (it binds at least as tightly as its parent), then print the leftmost
  // operand and every ` op rhs` on the way back up.
  void binaryChain(const BinaryExpr &root) {
    std::vector<const BinaryExpr *> spine{&root};
    for (;;) {
      const BinaryExpr *b = spine.back();
      const Expr *lhs = b->lhs.get();
      if (!lhs || lhs->kind != ExprKind::Binary || exprPrec(*lhs) < binaryPrec(b->op)) break;
      spine.push_back(cast<BinaryExpr>(lhs));
    }
    const BinaryExpr *deepest = spine.back();
    if (deepest->lhs) expr(*deepest->lhs, binaryPrec(deepest->op));
    else out_ += "<missing>";
    for (auto it = spine.rbegin(); it != spine.rend(); ++it) {
      const BinaryExpr *b = *it;
      out_ += ' ';
      out_ += binaryOpSpelling(b->op);
      out_ += ' ';
      if (b->rhs) expr(*b->rhs, binaryPrec(b->op) + 1);
      else out_ += "<missing>";
    }
  }

  // a[i][j].x: walk down the base spine of Index/Member nodes, print the innermost base, then every
  // suffix outward.
  void postfixChain(const Expr &root) {
    std::vector<const Expr *> spine{&root};
    while (true) {
      const Expr *e = spine.back();
      const Expr *base = e->kind == ExprKind::Index ? cast<IndexExpr>(e)->base.get() : cast<MemberExpr>(e)->base.get();
      if (!base || !isPostfix(*base)) break;
      spine.push_back(base);
    }
    const Expr *innermost = spine.back();
    const Expr *base = innermost->kind == ExprKind::Index ? cast<IndexExpr>(innermost)->base.get()
                                                          : cast<MemberExpr>(innermost)->base.get();
    if (!base) {
      out_ += "<missing>";
    } else {
      // Numeric literals as bases need parentheses: `1.x` would lex as a float.
      bool numeric = base->kind == ExprKind::IntLit || base->kind == ExprKind::FloatLit;
      if (numeric) out_ += '(';
      expr(*base, PrecPostfix);
      if (numeric) out_ += ')';
    }
    for (auto it = spine.rbegin(); it != spine.rend(); ++it) {
      const Expr *e = *it;
      if (e->kind == ExprKind::Member) {
        out_ += '.';
        out_ += cast<MemberExpr>(e)->member;
        continue;
      }
      out_ += '[';
      const auto &items = cast<IndexExpr>(e)->items;
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) out_ += ", ";
        indexItem(items[i]);
      }
      out_ += ']';
    }
  }

  // index = expr [ '+:' expr ] | ':' ;
  void indexItem(const IndexItem &item) {
    switch (item.kind) {
    case IndexItem::Full: out_ += ':'; return;
    case IndexItem::Point: optExpr(item.start.get()); return;
    case IndexItem::Slice:
      optExpr(item.start.get());
      out_ += " +: ";
      optExpr(item.length.get());
      return;
    }
    CAKE_INTERNAL_ERROR("unknown index item kind");
  }
};

} // namespace

void printModule(const Module &m, std::ostream &os) { os << printModule(m); }

std::string printModule(const Module &m) {
  std::string out;
  Printer(out).module(m);
  return out;
}

std::string printExpr(const Expr &e) {
  std::string out;
  Printer(out).expr(e);
  return out;
}

} // namespace cake

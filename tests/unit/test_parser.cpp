// Unit tests for the parser (src/frontend/Parser.cpp, ParseStmt.cpp, ParseExpr.cpp): the AST shape of every
// construct of grammar/cake.ebnf, operator precedence and associativity, source ranges, the op-statement /
// assignment decision, every parser diagnostic (E0201-E0210), recovery that reports several errors in one
// run, and nesting limits that reject deep input without exhausting the stack.
#include "frontend/Ops.h"
#include "frontend/Parser.h"
#include "support/Diagnostics.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace cake;

namespace {

struct Parsed {
  SourceManager sm;
  uint32_t file = 0;
  DiagnosticEngine diags;
  Ptr<Module> module;
  explicit Parsed(std::string source, unsigned errorLimit = 0) : diags(sm, errorLimit) {
    file = sm.addBuffer("test.cake", std::move(source));
    module = parseModule(sm, file, diags);
  }
  std::vector<std::string> codes() const {
    std::vector<std::string> out;
    for (const Diagnostic &d : diags.diagnostics()) out.push_back(std::string(diagInfo(d.kind).code));
    return out;
  }
  std::string message(size_t i = 0) const {
    return i < diags.diagnostics().size() ? diags.diagnostics()[i].message : std::string("<none>");
  }
  // The source text a range covers.
  std::string text(SourceRange r) const {
    return std::string(sm.text(file).substr(r.begin.offset, r.end - r.begin.offset));
  }
  LineCol at(size_t i) const { return sm.lineCol(diags.diagnostics()[i].range.begin); }
  const BlockStmt &body(size_t kernel = 0) const { return *module->kernels.at(kernel)->body; }
  const Stmt &stmt(size_t i) const { return *body().stmts.at(i); }
};

std::string inKernel(const std::string &stmts) { return "target sm_90a;\nkernel k() {\n" + stmts + "\n}\n"; }

const char *binaryOpText(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "+"; case BinaryOp::Sub: return "-"; case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/"; case BinaryOp::Rem: return "%"; case BinaryOp::Shl: return "<<";
  case BinaryOp::Shr: return ">>"; case BinaryOp::BitAnd: return "&"; case BinaryOp::BitOr: return "|";
  case BinaryOp::BitXor: return "^"; case BinaryOp::Eq: return "=="; case BinaryOp::Ne: return "!=";
  case BinaryOp::Lt: return "<"; case BinaryOp::Le: return "<="; case BinaryOp::Gt: return ">";
  case BinaryOp::Ge: return ">="; case BinaryOp::LogAnd: return "&&"; case BinaryOp::LogOr: return "||";
  }
  return "?";
}

// A compact s-expression of an expression tree, to check shapes: (+ a (* b c)), (index a s (slice c 8)).
std::string sexpr(const Expr *e) {
  if (!e) return "<null>";
  switch (e->kind) {
  case ExprKind::IntLit: {
    auto *i = cast<IntLitExpr>(e);
    return std::to_string(i->value) + (i->isBytes ? "B" : "");
  }
  case ExprKind::FloatLit: return "f:" + cast<FloatLitExpr>(e)->spelling;
  case ExprKind::BoolLit: return cast<BoolLitExpr>(e)->value ? "true" : "false";
  case ExprKind::Name: return cast<NameExpr>(e)->name;
  case ExprKind::Unary: {
    auto *u = cast<UnaryExpr>(e);
    const char *op = u->op == UnaryOp::Neg ? "neg" : u->op == UnaryOp::Not ? "!" : "~";
    return std::string("(") + op + " " + sexpr(u->operand.get()) + ")";
  }
  case ExprKind::Binary: {
    auto *b = cast<BinaryExpr>(e);
    return std::string("(") + binaryOpText(b->op) + " " + sexpr(b->lhs.get()) + " " + sexpr(b->rhs.get()) + ")";
  }
  case ExprKind::Member: {
    auto *m = cast<MemberExpr>(e);
    return "(. " + sexpr(m->base.get()) + " " + m->member + ")";
  }
  case ExprKind::Index: {
    auto *ix = cast<IndexExpr>(e);
    std::string out = "(index " + sexpr(ix->base.get());
    for (const IndexItem &item : ix->items) {
      if (item.kind == IndexItem::Full) out += " :";
      else if (item.kind == IndexItem::Slice) out += " (slice " + sexpr(item.start.get()) + " " + sexpr(item.length.get()) + ")";
      else out += " " + sexpr(item.start.get());
    }
    return out + ")";
  }
  case ExprKind::Call: {
    auto *c = cast<CallExpr>(e);
    std::string out = "(call " + c->callee;
    for (const auto &a : c->args) out += " " + sexpr(a.get());
    return out + ")";
  }
  case ExprKind::List: {
    std::string out = "[";
    for (const auto &el : cast<ListExpr>(e)->elements) out += (out.size() > 1 ? " " : "") + sexpr(el.get());
    return out + "]";
  }
  }
  return "?";
}

// Parses `x = <expr>;` in a kernel and returns the s-expression of the value ("" on error).
std::string exprShape(const std::string &expr) {
  Parsed p(inKernel("x = " + expr + ";"));
  if (p.diags.hasErrors() || p.module->kernels.empty() || p.body().stmts.empty()) return "<error: " + p.message() + ">";
  auto *assign = dynCast<AssignStmt>(p.body().stmts[0].get());
  return assign ? sexpr(assign->value.get()) : "<not an assignment>";
}

} // namespace

// ---------------------------------------------------------------- module and kernel header

TEST_CASE("parser: module with target and kernels") {
  Parsed p("target sm_90a;\nkernel a() {}\nkernel b() { }\n");
  CHECK(p.codes().empty());
  CHECK(p.module->target == "sm_90a");
  CHECK(p.text(p.module->targetRange) == "sm_90a");
  REQUIRE(p.module->kernels.size() == 2);
  CHECK(p.module->kernels[0]->name == "a");
  CHECK(p.text(p.module->kernels[0]->range) == "kernel a() {}");
  CHECK(p.text(p.module->kernels[1]->nameRange) == "b");
  CHECK(p.module->kernels[1]->body->stmts.empty());
}

TEST_CASE("parser: kernel header with ct params, tensor params, attributes") {
  Parsed p("target sm_90a;\n"
           "kernel gemm<BM = 128, BN = (2 * BM), S = STAGES>(A: bf16[M, K] tma(box=[BM, 64], swizzle=128B) align(16),\n"
           "    C: f32[M, N] stride(ldc, 1), alpha: f32)\n"
           "    requires(K % 64 == 0, M > 0) grid(cdiv(M, BM), cdiv(N, BN)) threads(384) cluster(2, 1, 1) { }\n");
  REQUIRE(p.codes().empty());
  const Kernel &k = *p.module->kernels.at(0);
  REQUIRE(k.ctParams.size() == 3);
  CHECK(k.ctParams[0]->name == "BM");
  CHECK(sexpr(k.ctParams[0]->defaultValue.get()) == "128");
  CHECK(sexpr(k.ctParams[1]->defaultValue.get()) == "(* 2 BM)");
  CHECK(sexpr(k.ctParams[2]->defaultValue.get()) == "STAGES");
  CHECK(p.text(k.ctParams[1]->nameRange) == "BN");
  REQUIRE(k.params.size() == 3);
  const Param &a = *k.params[0];
  CHECK(a.name == "A");
  CHECK(a.declaredType->baseName == "bf16");
  REQUIRE(a.declaredType->dimGroups.size() == 1);
  CHECK(sexpr(a.declaredType->dimGroups[0][0].get()) == "M");
  CHECK(sexpr(a.declaredType->dimGroups[0][1].get()) == "K");
  REQUIRE(a.attrs.size() == 2);
  CHECK(a.attrs[0].name == "tma");
  REQUIRE(a.attrs[0].args.size() == 2);
  CHECK(a.attrs[0].args[0].key == "box");
  CHECK(sexpr(a.attrs[0].args[0].value.get()) == "[BM 64]");
  CHECK(a.attrs[0].args[1].key == "swizzle");
  CHECK(sexpr(a.attrs[0].args[1].value.get()) == "128B");
  CHECK(p.text(a.attrs[0].range) == "tma(box=[BM, 64], swizzle=128B)");
  CHECK(p.text(a.attrs[0].args[0].keyRange) == "box");
  CHECK(p.text(a.attrs[0].nameRange) == "tma");
  CHECK(a.attrs[1].name == "align");
  CHECK(a.attrs[1].args[0].key.empty());
  CHECK(p.text(a.range) == "A: bf16[M, K] tma(box=[BM, 64], swizzle=128B) align(16)");
  CHECK(p.text(a.declaredType->range) == "bf16[M, K]");
  CHECK(k.params[1]->attrs.at(0).name == "stride");
  CHECK(k.params[2]->declaredType->dimGroups.empty());
  REQUIRE(k.attrs.size() == 4);
  CHECK(k.attrs[0].name == "requires");
  CHECK(sexpr(k.attrs[0].args[0].value.get()) == "(== (% K 64) 0)");
  CHECK(sexpr(k.attrs[0].args[1].value.get()) == "(> M 0)");
  CHECK(sexpr(k.attrs[1].args[1].value.get()) == "(call cdiv N BN)");
  CHECK(k.attrs[3].args.size() == 3);
}

TEST_CASE("parser: type parameters in the ct param list") {
  Parsed p("target sm_90a;\nkernel k<T: type = bf16, BM = 128, U: type = T>(A: T[M, BM]) { }\n");
  REQUIRE(p.codes().empty());
  const Kernel &k = *p.module->kernels.at(0);
  REQUIRE(k.ctParams.size() == 3);
  CHECK(k.ctParams[0]->isType);
  CHECK(p.text(k.ctParams[0]->typeKeywordRange) == "type");
  CHECK(sexpr(k.ctParams[0]->defaultValue.get()) == "bf16");
  CHECK_FALSE(k.ctParams[1]->isType);
  CHECK(k.ctParams[2]->isType);
  CHECK(sexpr(k.ctParams[2]->defaultValue.get()) == "T");
  CHECK(k.params[0]->declaredType->baseName == "T");

  // ':' must be followed by 'type', and a type parameter's default is a name.
  Parsed typed("target sm_90a;\nkernel k<BM: i32 = 4>() { }\n");
  CHECK(typed.codes() == std::vector<std::string>{"E0201"});
  CHECK(typed.diags.diagnostics().at(0).hint.find("'NAME: type = bf16'") != std::string::npos);
  Parsed number("target sm_90a;\nkernel k<T: type = 7>() { }\n");
  CHECK(number.codes() == std::vector<std::string>{"E0201"});
}

TEST_CASE("parser: types with bracket groups and fragments") {
  Parsed p(inKernel("var acc: frag<mma_c, f32, 16, 8, (K * 2)>[2][4];\n"
                    "shared a: bf16[S][BM, BK] swizzle(128B) align(1024);\n"
                    "var v: bf16x8;"));
  REQUIRE(p.codes().empty());
  auto *var = dynCast<VarStmt>(&p.stmt(0));
  REQUIRE(var);
  const TypeExpr &t = *var->declaredType;
  CHECK(t.isFrag());
  CHECK(t.fragKind == "mma_c");
  CHECK(t.fragDtype == "f32");
  CHECK(sexpr(t.fragM.get()) == "16");
  CHECK(sexpr(t.fragN.get()) == "8");
  CHECK(sexpr(t.fragK.get()) == "(* K 2)");
  CHECK(p.text(t.fragKindRange) == "mma_c");
  CHECK(p.text(t.fragDtypeRange) == "f32");
  REQUIRE(t.dimGroups.size() == 2);
  CHECK(sexpr(t.dimGroups[1][0].get()) == "4");
  CHECK(p.text(t.range) == "frag<mma_c, f32, 16, 8, (K * 2)>[2][4]");
  CHECK(p.text(t.baseRange) == "frag");
  CHECK(var->init == nullptr);
  auto *shared = dynCast<SharedStmt>(&p.stmt(1));
  REQUIRE(shared);
  CHECK(shared->name == "a");
  REQUIRE(shared->declaredType->dimGroups.size() == 2);
  CHECK(shared->declaredType->dimGroups[0].size() == 1);
  CHECK(shared->declaredType->dimGroups[1].size() == 2);
  REQUIRE(shared->attrs.size() == 2);
  CHECK(shared->attrs[1].name == "align");
  CHECK(p.text(shared->range) == "shared a: bf16[S][BM, BK] swizzle(128B) align(1024);");
  CHECK(dynCast<VarStmt>(&p.stmt(2))->declaredType->baseName == "bf16x8");
}

// ---------------------------------------------------------------- statements

TEST_CASE("parser: let, var, mbarrier, barrier, return") {
  Parsed p(inKernel("let s = k % S;\nlet t: i32 = 1;\nvar x: f32 = 0.0;\nmbarrier full[S] arrivals(1);\n"
                    "mbarrier one arrivals(2);\nbarrier epi id(1) threads(256);\nreturn;"));
  REQUIRE(p.codes().empty());
  REQUIRE(p.body().stmts.size() == 7);
  auto *let = dynCast<LetStmt>(&p.stmt(0));
  REQUIRE(let);
  CHECK(let->name == "s");
  CHECK(let->declaredType == nullptr);
  CHECK(sexpr(let->init.get()) == "(% k S)");
  CHECK(p.text(let->range) == "let s = k % S;");
  CHECK(p.text(let->nameRange) == "s");
  CHECK(dynCast<LetStmt>(&p.stmt(1))->declaredType->baseName == "i32");
  CHECK(sexpr(dynCast<VarStmt>(&p.stmt(2))->init.get()) == "f:0.0");
  auto *mbar = dynCast<MBarrierStmt>(&p.stmt(3));
  REQUIRE(mbar);
  CHECK(sexpr(mbar->count.get()) == "S");
  CHECK(mbar->attrs.at(0).name == "arrivals");
  CHECK(dynCast<MBarrierStmt>(&p.stmt(4))->count == nullptr);
  auto *bar = dynCast<BarrierStmt>(&p.stmt(5));
  REQUIRE(bar);
  CHECK(bar->attrs.size() == 2);
  CHECK(p.text(bar->range) == "barrier epi id(1) threads(256);");
  CHECK(isa<ReturnStmt>(&p.stmt(6)));
  CHECK(p.text(p.stmt(6).range) == "return;");
}

TEST_CASE("parser: roles") {
  Parsed p(inKernel("role load = warpgroup(0) regs(40) { }\n"
                    "role math[2] = warpgroups(1..3) regs(232) { x = 1; }\n"
                    "role w = warp(4) { }\nrole ws[2] = warps(0..2) { }"));
  REQUIRE(p.codes().empty());
  auto *load = dynCast<RoleStmt>(&p.stmt(0));
  REQUIRE(load);
  CHECK(load->name == "load");
  CHECK(load->unit == RoleUnit::Warpgroup);
  CHECK(!load->pluralSpelling);
  CHECK(load->instances == nullptr);
  CHECK(sexpr(load->first.get()) == "0");
  CHECK(load->last == nullptr);
  CHECK(load->attrs.at(0).name == "regs");
  CHECK(p.text(load->range) == "role load = warpgroup(0) regs(40) { }");
  auto *math = dynCast<RoleStmt>(&p.stmt(1));
  REQUIRE(math);
  CHECK(sexpr(math->instances.get()) == "2");
  CHECK(math->pluralSpelling);
  CHECK(sexpr(math->first.get()) == "1");
  CHECK(sexpr(math->last.get()) == "3");
  CHECK(math->body->stmts.size() == 1);
  CHECK(dynCast<RoleStmt>(&p.stmt(2))->unit == RoleUnit::Warp);
  CHECK(dynCast<RoleStmt>(&p.stmt(3))->pluralSpelling);
}

TEST_CASE("parser: for, if / else if / else, elect, nested blocks") {
  Parsed p(inKernel("for k in 0..K / BK { }\nfor i in a..b step 2 unroll { x = i; }\n"
                    "if x < -1.0 { } else if !(x >= 2.0) { } else { return; }\n"
                    "elect { arrive e[0]; }\n{ { x = 1; } }"));
  REQUIRE(p.codes().empty());
  auto *f = dynCast<ForStmt>(&p.stmt(0));
  REQUIRE(f);
  CHECK(f->name == "k");
  CHECK(sexpr(f->lower.get()) == "0");
  CHECK(sexpr(f->upper.get()) == "(/ K BK)");
  CHECK(f->step == nullptr);
  CHECK(!f->unroll);
  auto *g = dynCast<ForStmt>(&p.stmt(1));
  CHECK(sexpr(g->step.get()) == "2");
  CHECK(g->unroll);
  CHECK(p.text(g->range) == "for i in a..b step 2 unroll { x = i; }");
  auto *i = dynCast<IfStmt>(&p.stmt(2));
  REQUIRE(i);
  CHECK(sexpr(i->cond.get()) == "(< x (neg f:1.0))");
  auto *elseIf = dynCast<IfStmt>(i->elseBody.get());
  REQUIRE(elseIf);
  CHECK(sexpr(elseIf->cond.get()) == "(! (>= x f:2.0))");
  auto *elseBlock = dynCast<BlockStmt>(elseIf->elseBody.get());
  REQUIRE(elseBlock);
  CHECK(isa<ReturnStmt>(elseBlock->stmts.at(0).get()));
  CHECK(p.text(i->range) == "if x < -1.0 { } else if !(x >= 2.0) { } else { return; }");
  CHECK(p.text(elseIf->range) == "if !(x >= 2.0) { } else { return; }");
  auto *elect = dynCast<ElectStmt>(&p.stmt(3));
  REQUIRE(elect);
  CHECK(isa<OpStmt>(elect->body->stmts.at(0).get()));
  auto *outer = dynCast<BlockStmt>(&p.stmt(4));
  REQUIRE(outer);
  auto *inner = dynCast<BlockStmt>(outer->stmts.at(0).get());
  REQUIRE(inner);
  CHECK(p.text(inner->range) == "{ x = 1; }");
}

TEST_CASE("parser: assignments with every assignment operator") {
  const char *ops[] = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
  AssignOp expected[] = {AssignOp::Set, AssignOp::Add, AssignOp::Sub, AssignOp::Mul, AssignOp::Div, AssignOp::Rem,
                         AssignOp::And, AssignOp::Or, AssignOp::Xor, AssignOp::Shl, AssignOp::Shr};
  for (size_t i = 0; i < std::size(ops); ++i) {
    Parsed p(inKernel(std::string("acc[i][j] ") + ops[i] + " v;"));
    REQUIRE_MESSAGE(p.codes().empty(), ops[i]);
    auto *a = dynCast<AssignStmt>(&p.stmt(0));
    REQUIRE(a);
    CHECK(a->op == expected[i]);
    CHECK(sexpr(a->target.get()) == "(index (index acc i) j)");
    CHECK(sexpr(a->value.get()) == "v");
  }
  Parsed store(inKernel("C[r, c +: 8] = v;"));
  CHECK(store.codes().empty());
  CHECK(store.text(store.stmt(0).range) == "C[r, c +: 8] = v;");
}

// ---------------------------------------------------------------- operation statements

TEST_CASE("parser: op statements, arrows, operands, clauses") {
  Parsed p(inKernel("tma.load a[s] <- A[block.x * BM, k * BK] signal(full[s]) multicast(0b11);\n"
                    "mma.sync acc[i][j] += af[i] * bf[j];\n"
                    "ldmatrix.trans bf[j], bf[j + 1] <- bs[s][r, c +: 8];\n"
                    "wgmma.wait 0;\nsyncthreads;\nmbarrier.init full;\nmbarrier.expect_tx full[s], 1024;\n"
                    "arrive full[s] expect_tx((BM + BN) * BK * 2) cta(1);\nwait full[s] parity((k / S) & 1);\n"
                    "cp.async.commit;\nfence.proxy_async;\ncluster.sync;\nsync epi;\n"
                    "wgmma acc += a[s][64 * R.index +: 64, :] * b[s].T;\nstore C[r0, c0] <- bf16(acc);"));
  REQUIRE(p.codes().empty());
  REQUIRE(p.body().stmts.size() == 15);
  auto op = [&](size_t i) { return dynCast<OpStmt>(&p.stmt(i)); };
  for (size_t i = 0; i < 15; ++i) {
    REQUIRE(op(i));
    REQUIRE(op(i)->op);
    CHECK(op(i)->op->spelling == op(i)->name);
  }
  CHECK(op(0)->name == "tma.load");
  CHECK(p.text(op(0)->nameRange) == "tma.load");
  CHECK(op(0)->arrow == OpArrow::Move);
  CHECK(sexpr(op(0)->dsts.at(0).get()) == "(index a s)");
  CHECK(sexpr(op(0)->srcs.at(0).get()) == "(index A (* (. block x) BM) (* k BK))");
  REQUIRE(op(0)->clauses.size() == 2);
  CHECK(op(0)->clauses[0].name == "signal");
  CHECK(sexpr(op(0)->clauses[0].args.at(0).get()) == "(index full s)");
  CHECK(p.text(op(0)->clauses[0].range) == "signal(full[s])");
  CHECK(p.text(op(0)->clauses[0].nameRange) == "signal");
  CHECK(sexpr(op(0)->clauses[1].args.at(0).get()) == "3");
  CHECK(p.text(op(0)->range) == "tma.load a[s] <- A[block.x * BM, k * BK] signal(full[s]) multicast(0b11);");
  CHECK(op(1)->arrow == OpArrow::Accumulate);
  CHECK(sexpr(op(1)->srcs.at(0).get()) == "(* (index af i) (index bf j))");
  CHECK(op(2)->dsts.size() == 2);
  CHECK(sexpr(op(2)->srcs.at(0).get()) == "(index (index bs s) r (slice c 8))");
  CHECK(op(3)->name == "wgmma.wait");
  CHECK(sexpr(op(3)->dsts.at(0).get()) == "0");
  CHECK(op(3)->arrow == OpArrow::None);
  CHECK(op(4)->dsts.empty());
  CHECK(op(5)->name == "mbarrier.init");
  CHECK(op(6)->name == "mbarrier.expect_tx");
  CHECK(op(6)->dsts.size() == 2);
  CHECK(op(7)->clauses.size() == 2);
  CHECK(op(7)->clauses[0].name == "expect_tx");
  CHECK(op(7)->clauses[1].name == "cta");
  CHECK(sexpr(op(8)->clauses.at(0).args.at(0).get()) == "(& (/ k S) 1)");
  CHECK(sexpr(op(13)->srcs.at(0).get()) ==
        "(* (index (index a s) (slice (* 64 (. R index)) 64) :) (. (index b s) T))");
  CHECK(sexpr(op(14)->srcs.at(0).get()) == "(call bf16 acc)");
}

TEST_CASE("parser: the zero-fill clause of cp.async") {
  Parsed p(inKernel("cp.async sa[r, c +: 8] <- A[m0 + r, c +: 8] valid(m0 + r < M && c < K);"));
  REQUIRE(p.codes().empty());
  auto *op = dynCast<OpStmt>(&p.stmt(0));
  REQUIRE(op);
  CHECK(op->name == "cp.async");
  CHECK(sexpr(op->srcs.at(0).get()) == "(index A (+ m0 r) (slice c 8))");   // the clause is not an operand
  REQUIRE(op->clauses.size() == 1);
  CHECK(op->clauses[0].name == "valid");
  CHECK(sexpr(op->clauses[0].args.at(0).get()) == "(&& (< (+ m0 r) M) (< c K))");
  CHECK(p.text(op->clauses[0].range) == "valid(m0 + r < M && c < K)");
}

TEST_CASE("parser: names that are not operations are expressions") {
  Parsed p(inKernel("tid.x = 1;\nwarp = 2;\nshfl = 3;"));
  CHECK(p.codes().empty());
  REQUIRE(p.body().stmts.size() == 3);
  CHECK(sexpr(dynCast<AssignStmt>(&p.stmt(0))->target.get()) == "(. tid x)");
  CHECK(isa<AssignStmt>(&p.stmt(1)));
}

// ---------------------------------------------------------------- expressions

TEST_CASE("parser: literals and primaries") {
  CHECK(exprShape("42") == "42");
  CHECK(exprShape("0x10") == "16");
  CHECK(exprShape("128B") == "128B");
  CHECK(exprShape("1.5e-3") == "f:1.5e-3");
  CHECK(exprShape("true") == "true");
  CHECK(exprShape("false") == "false");
  CHECK(exprShape("inf") == "inf");
  CHECK(exprShape("(a)") == "a");
}

TEST_CASE("parser: precedence ladder and left associativity") {
  CHECK(exprShape("a || b && c") == "(|| a (&& b c))");
  CHECK(exprShape("a && b | c") == "(&& a (| b c))");
  CHECK(exprShape("a | b ^ c") == "(| a (^ b c))");
  CHECK(exprShape("a ^ b & c") == "(^ a (& b c))");
  CHECK(exprShape("a & b == c") == "(& a (== b c))");
  CHECK(exprShape("a == b < c") == "(== a (< b c))");
  CHECK(exprShape("a < b << c") == "(< a (<< b c))");
  CHECK(exprShape("a << b + c") == "(<< a (+ b c))");
  CHECK(exprShape("a + b * c") == "(+ a (* b c))");
  CHECK(exprShape("a * b + c * d") == "(+ (* a b) (* c d))");
  CHECK(exprShape("a - b - c") == "(- (- a b) c)");
  CHECK(exprShape("a / b % c * d") == "(* (% (/ a b) c) d)");
  CHECK(exprShape("a - (b - c)") == "(- a (- b c))");
  CHECK(exprShape("a + b * c - d") == "(- (+ a (* b c)) d)");
  CHECK(exprShape("a || b || c") == "(|| (|| a b) c)");
  CHECK(exprShape("a >> 1 != b <= c") == "(!= (>> a 1) (<= b c))");
  CHECK(exprShape("a * b == c + d && e > f || g") == "(|| (&& (== (* a b) (+ c d)) (> e f)) g)");
}

TEST_CASE("parser: unary and postfix") {
  CHECK(exprShape("-a * b") == "(* (neg a) b)");
  CHECK(exprShape("- - a") == "(neg (neg a))");
  CHECK(exprShape("!~a") == "(! (~ a))");
  CHECK(exprShape("-a[i].x") == "(neg (. (index a i) x))");
  CHECK(exprShape("a[s][r, c +: 8]") == "(index (index a s) r (slice c 8))");
  CHECK(exprShape("a[:, 0]") == "(index a : 0)");
  CHECK(exprShape("shfl.xor(v, 16)") == "(call shfl.xor v 16)");
  CHECK(exprShape("warp.sum(v)") == "(call warp.sum v)");
  CHECK(exprShape("f()") == "(call f)");
  CHECK(exprShape("bf16x2(a, b)[0]") == "(index (call bf16x2 a b) 0)");
  CHECK(exprShape("b[s].T") == "(. (index b s) T)");
}

TEST_CASE("parser: expression source ranges include parentheses of enclosing nodes") {
  Parsed p(inKernel("x = (a + b) * c[i +: 4];"));
  REQUIRE(p.codes().empty());
  auto *a = dynCast<AssignStmt>(&p.stmt(0));
  auto *mul = dynCast<BinaryExpr>(a->value.get());
  REQUIRE(mul);
  CHECK(p.text(mul->range) == "(a + b) * c[i +: 4]");
  CHECK(p.text(mul->lhs->range) == "a + b");
  auto *idx = dynCast<IndexExpr>(mul->rhs.get());
  REQUIRE(idx);
  CHECK(p.text(idx->range) == "c[i +: 4]");
  CHECK(p.text(idx->items.at(0).range) == "i +: 4");
  Parsed q(inKernel("x = -f.g(1)[2];"));
  auto *neg = dynCast<UnaryExpr>(dynCast<AssignStmt>(&q.stmt(0))->value.get());
  REQUIRE(neg);
  CHECK(q.text(neg->range) == "-f.g(1)[2]");
  auto *index = dynCast<IndexExpr>(neg->operand.get());
  auto *call = dynCast<CallExpr>(index->base.get());
  REQUIRE(call);
  CHECK(q.text(call->range) == "f.g(1)");
  CHECK(q.text(call->calleeRange) == "f.g");
  Parsed m(inKernel("x = tid.x;"));
  auto *mem = dynCast<MemberExpr>(dynCast<AssignStmt>(&m.stmt(0))->value.get());
  REQUIRE(mem);
  CHECK(m.text(mem->range) == "tid.x");
  CHECK(m.text(mem->memberRange) == "x");
}

// ---------------------------------------------------------------- diagnostics

TEST_CASE("parser: E0201 expected token, with a fix-it for a ';' missing at end of line") {
  Parsed p(inKernel("x = 1\ny = 2;"));
  REQUIRE(p.codes() == std::vector<std::string>{"E0201"});
  CHECK(p.message() == "expected ';', found 'y'");
  const Diagnostic &d = p.diags.diagnostics()[0];
  CHECK(p.at(0).line == 3);
  CHECK(p.at(0).column == 6);
  REQUIRE(d.fixits.size() == 1);
  CHECK(d.fixits[0].replacement == ";");
  CHECK(d.fixits[0].range.begin.offset == d.fixits[0].range.end);
  // The statement is kept, and the next one parses normally.
  CHECK(p.body().stmts.size() == 2);
  Parsed q(inKernel("x = 1 y = 2;"));
  REQUIRE(q.codes() == std::vector<std::string>{"E0201"});
  CHECK(q.message() == "expected ';', found 'y'");
  CHECK(q.diags.diagnostics()[0].fixits.empty());
  Parsed r(inKernel("let x: f32 0;"));
  CHECK(r.message() == "expected '=', found '0'");
  Parsed s(inKernel("x = f(1, 2;"));
  REQUIRE(s.codes() == std::vector<std::string>{"E0201"});
  CHECK(s.message() == "expected ')', found ';'");
  CHECK(s.diags.diagnostics()[0].notes.at(0).message == "to match this '('");
}

TEST_CASE("parser: E0201 missing '}' at end of file points back at the '{'") {
  Parsed p("target sm_90a;\nkernel k() {\n  x = 1;\n");
  REQUIRE(p.codes() == std::vector<std::string>{"E0201"});
  CHECK(p.message() == "expected '}', found end of file");
  CHECK(p.diags.diagnostics()[0].notes.at(0).message == "to match this '{'");
}

TEST_CASE("parser: E0202 expected expression") {
  Parsed p(inKernel("x = ;"));
  REQUIRE(p.codes() == std::vector<std::string>{"E0202"});
  CHECK(p.message() == "expected an expression, found ';'");
  CHECK(Parsed(inKernel("x = a + * b;")).codes() == std::vector<std::string>{"E0202"});
}

TEST_CASE("parser: E0203 expected type") {
  Parsed p(inKernel("var x: 3;"));
  REQUIRE(p.codes() == std::vector<std::string>{"E0203"});
  CHECK(p.message() == "expected a type, found '3'");
  CHECK(Parsed("target sm_90a; kernel k(A: [M]) {}").codes() == std::vector<std::string>{"E0203"});
}

TEST_CASE("parser: E0204 expected statement") {
  Parsed p(inKernel(") ;\nx = 1;"));
  REQUIRE(p.codes() == std::vector<std::string>{"E0204"});
  CHECK(p.message() == "expected a statement, found ')'");
  CHECK(p.body().stmts.size() == 1);   // recovered
}

TEST_CASE("parser: E0205 non-kernel at top level") {
  Parsed p("target sm_90a;\nlet x = 1;\nkernel k() {}\n");
  REQUIRE(p.codes() == std::vector<std::string>{"E0205"});
  CHECK(p.message() == "expected 'kernel' or 'fn', found 'let'");
  CHECK(p.module->kernels.size() == 1);
}

TEST_CASE("parser: E0206 missing target") {
  Parsed p("kernel k() {}\n");
  REQUIRE(p.codes() == std::vector<std::string>{"E0206"});
  CHECK(p.message() == "expected 'target' declaration at the start of the file, found 'kernel'");
  CHECK(p.module->kernels.size() == 1);   // the kernel is still parsed
  CHECK(Parsed("").codes() == std::vector<std::string>{"E0206"});
}

TEST_CASE("parser: E0208 unknown role unit") {
  Parsed p(inKernel("role r = warpz(0) { }\nx = 1;"));
  REQUIRE(p.codes() == std::vector<std::string>{"E0208"});
  CHECK(p.message() == "expected 'warp', 'warps', 'warpgroup' or 'warpgroups', found 'warpz'");
  CHECK(p.body().stmts.size() == 1);
}

TEST_CASE("parser: E0209 expression statement without assignment") {
  // `f(x);` is a call statement (inlining reports it unless f is an fn), not E0209 here.
  Parsed p(inKernel("x + 1;\nf(x);\ny;\nz = 1;"));
  CHECK(p.codes() == std::vector<std::string>{"E0209", "E0209"});
  CHECK(p.text(p.diags.diagnostics()[0].range) == "x + 1");
  REQUIRE(p.body().stmts.size() == 2);
  CHECK(isa<CallStmt>(p.body().stmts[0].get()));
}

TEST_CASE("parser: fn declarations, call statements, return values and unroll(N)") {
  Parsed p("target sm_80;\nfn f(a: f32, var b: f32, shared t: f32[4, 4]) -> f32 {\n  b = a;\n  return a * 2.0;\n}\n"
           "kernel k() { f(1.0, x, s); for i in 0..8 unroll(4) { } for j in 0..2 unroll { } }\n");
  REQUIRE(p.codes().empty());
  REQUIRE(p.module->fns.size() == 1);
  const FnDecl &f = *p.module->fns[0];
  CHECK(f.name == "f");
  REQUIRE(f.params.size() == 3);
  CHECK(f.params[0].mode == FnParamMode::Value);
  CHECK(f.params[1].mode == FnParamMode::Var);
  CHECK(f.params[2].mode == FnParamMode::Shared);
  CHECK(f.params[2].declaredType->dimGroups.size() == 1);
  REQUIRE(f.resultType);
  CHECK(f.resultType->baseName == "f32");
  REQUIRE(f.body->stmts.size() == 2);
  CHECK(cast<ReturnStmt>(f.body->stmts[1].get())->value != nullptr);
  REQUIRE(p.body().stmts.size() == 3);
  CHECK(cast<CallStmt>(p.body().stmts[0].get())->call->args.size() == 3);
  const auto *partial = cast<ForStmt>(p.body().stmts[1].get());
  CHECK_FALSE(partial->unroll);
  REQUIRE(partial->unrollFactor);
  const auto *full = cast<ForStmt>(p.body().stmts[2].get());
  CHECK(full->unroll);
  CHECK_FALSE(full->unrollFactor);
}

TEST_CASE("parser: E0210 unknown operation, with hint and fix-it") {
  Parsed p(inKernel("tma.laod a[s] <- A[0, 0] signal(full[s]);\nx = 1;"));
  REQUIRE(p.codes() == std::vector<std::string>{"E0210"});
  CHECK(p.message() == "unknown operation 'tma.laod'");
  const Diagnostic &d = p.diags.diagnostics()[0];
  CHECK(d.hint == "did you mean 'tma.load'?");
  REQUIRE(d.fixits.size() == 1);
  CHECK(d.fixits[0].replacement == "tma.load");
  CHECK(p.text(d.range) == "tma.laod");
  CHECK(p.body().stmts.size() == 1);
  // A misspelled single-word operation followed by an operand.
  Parsed q(inKernel("arive empty[s];"));
  REQUIRE(q.codes() == std::vector<std::string>{"E0210"});
  CHECK(q.diags.diagnostics()[0].hint == "did you mean 'arrive'?");
  // No close spelling: the namespace's operations are listed.
  Parsed r(inKernel("cluster.frobnicate;"));
  REQUIRE(r.codes() == std::vector<std::string>{"E0210"});
  CHECK(r.diags.diagnostics()[0].hint.find("cluster.sync") != std::string::npos);
  Parsed s(inKernel("mbarrier.inti full;"));
  CHECK(s.codes() == std::vector<std::string>{"E0210"});
  // A bare name close to an operation, alone in a statement.
  Parsed t(inKernel("syncthread;"));
  REQUIRE(t.codes() == std::vector<std::string>{"E0210"});
  CHECK(t.diags.diagnostics()[0].hint == "did you mean 'syncthreads'?");
}

TEST_CASE("parser: an Error token from the lexer is not reported twice") {
  Parsed p(inKernel("let x = 12ab;\nlet y = $;\nz = 1;"));
  CHECK(p.codes() == std::vector<std::string>{"E0105", "E0101"});
  CHECK(p.body().stmts.size() == 1);
}

TEST_CASE("parser: recovery reports several errors in one run") {
  Parsed p(inKernel("let = 1;\nx = ;\nvar y: ;\nrole r = bad(0) { }\nfor i 0..4 { }\nok = 1;\n"
                    "if { }\nwgmma.wiat 0;\nalso_ok = 2;"));
  CHECK(p.codes() == std::vector<std::string>{"E0201", "E0202", "E0203", "E0208", "E0201", "E0202", "E0210"});
  REQUIRE(p.body().stmts.size() == 2);
  CHECK(sexpr(dynCast<AssignStmt>(&p.stmt(0))->target.get()) == "ok");
  CHECK(sexpr(dynCast<AssignStmt>(&p.stmt(1))->target.get()) == "also_ok");
}

TEST_CASE("parser: recovery in kernel headers and across kernels") {
  Parsed p("target sm_90a;\nkernel a(A: , B: f32) { x = 1; }\nkernel b() { y = ; }\nkernel c() {}\n");
  CHECK(p.codes() == std::vector<std::string>{"E0203", "E0202"});
  REQUIRE(p.module->kernels.size() == 3);
  CHECK(p.module->kernels[0]->params.size() == 1);
  CHECK(p.module->kernels[0]->params[0]->name == "B");
  Parsed q("target sm_90a;\nkernel a() {\n  x = 1;\nkernel b() {}\n");
  CHECK(q.codes() == std::vector<std::string>{"E0201"});
  CHECK(q.message() == "expected '}', found 'kernel'");
  CHECK(q.module->kernels.size() == 2);
}

TEST_CASE("parser: stops at the error limit") {
  std::string body;
  for (int i = 0; i < 100; ++i) body += "x = ;\n";
  Parsed p(inKernel(body), 5);
  CHECK(p.diags.limitReached());
  CHECK(p.codes().size() == 6);   // five errors and the E0001 fatal
  CHECK(p.codes().back() == "E0001");
}

// ---------------------------------------------------------------- nesting limits

TEST_CASE("parser: E0207 deep nesting is rejected without exhausting the stack") {
  const size_t n = 100000;
  auto check = [](const std::string &source) {
    Parsed p(source);
    REQUIRE(!p.codes().empty());
    CHECK(p.codes()[0] == "E0207");
    CHECK(p.codes().size() == 1);
    CHECK(p.message() == "nesting deeper than 256 levels");
  };
  check(inKernel("x = " + std::string(n, '(') + "1" + std::string(n, ')') + ";"));
  check(inKernel(std::string(n, '{') + std::string(n, '}')));
  check(inKernel(std::string(n, '{')));
  std::string unary;
  for (size_t i = 0; i < n; ++i) unary += "- ";
  check(inKernel("x = " + unary + "1;"));
  std::string members = "a";
  for (size_t i = 0; i < n; ++i) members += ".b";
  check(inKernel("x = " + members + ";"));
  std::string calls;
  for (size_t i = 0; i < n; ++i) calls += "f(";
  check(inKernel("x = " + calls + ";"));
  std::string elseIfs = "if a {} ";
  for (size_t i = 0; i < n; ++i) elseIfs += "else if a {} ";
  check(inKernel(elseIfs));
  std::string indexes;
  for (size_t i = 0; i < n; ++i) indexes += "a[";
  check(inKernel("x = " + indexes + ";"));
}

TEST_CASE("parser: a flat operator chain is limited as a chain (E0813), not as nesting") {
  auto sum = [](size_t terms, const char *op) {
    std::string s = "a";
    for (size_t i = 1; i < terms; ++i) s += std::string(op) + "a";
    return s;
  };
  // 255 and 1000 '+' were "nesting deeper than 256 levels"; they are a chain of fine length.
  CHECK(Parsed(inKernel("x = " + sum(256, " + ") + ";")).codes().empty());
  CHECK(Parsed(inKernel("x = " + sum(1000, " * ") + ";")).codes().empty());
  Parsed longSum(inKernel("x = " + sum(100000, "+") + ";"));
  REQUIRE(longSum.codes().size() == 1);
  CHECK(longSum.codes()[0] == "E0813");
  CHECK(longSum.message() == "expression chain longer than 1024 operators");
  // Chains inside brackets share the budget along a path, so tree depth stays bounded.
  std::string nested = "a";
  for (int i = 0; i < 60; ++i) nested = sum(20, "+") + "+(" + nested + ")";
  Parsed deep(inKernel("x = " + nested + ";"));
  REQUIRE(deep.codes().size() == 1);
  CHECK(deep.codes()[0] == "E0813");
}

TEST_CASE("parser: nesting just under the limit is accepted") {
  Parsed p(inKernel("x = " + std::string(200, '(') + "1" + std::string(200, ')') + ";"));
  CHECK(p.codes().empty());
  Parsed q(inKernel(std::string(200, '{') + std::string(200, '}')));
  CHECK(q.codes().empty());
}

TEST_CASE("parser: every prefix of a valid kernel parses without crashing") {
  std::string source = inKernel("role math[2] = warpgroups(1..3) regs(232) {\n"
                                "  var acc: frag<wgmma_acc, f32, 64, 128, 16> = 0.0;\n"
                                "  for k in 0..K / 64 step 1 unroll { wait full[k % 4] parity((k / 4) & 1);\n"
                                "    wgmma acc += a[k % 4][64 * math.index +: 64, :] * b[k % 4].T; }\n"
                                "  if x < -1.0 { x = 0.0; } else if !y { x += ex2(x); } else { return; }\n"
                                "  store C[0, 0] <- bf16(acc);\n}");
  for (size_t len = 0; len <= source.size(); ++len) {
    Parsed p(source.substr(0, len));
    CHECK(p.module != nullptr);
    bool complete = len == 14 || len == 15 || len == source.size() || len == source.size() - 1;
    if (!complete) CHECK_MESSAGE(p.diags.hasErrors(), len);
  }
}

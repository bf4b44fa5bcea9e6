// Unit tests for the canonical printer (ASTPrinter) and structural equality (ASTEquality).
//
// Part 1 builds expression trees by hand, so precedence and parenthesisation are tested on exact trees
// ((a - b) - c versus a - (b - c)) independently of the parser.  Part 2 parses source text, prints it and
// compares with the expected canonical text, then checks that the canonical text is a fixed point
// (print(parse(canonical)) == canonical) and that reparsing gives an equal tree.
#include "frontend/ASTEquality.h"
#include "frontend/ASTPrinter.h"
#include "frontend/Parser.h"
#include "support/Diagnostics.h"

#include <doctest/doctest.h>

#include <sstream>

using namespace cake;

namespace {

// ---------------------------------------------------------------- hand-built trees
Ptr<Expr> name(const char *n) { return std::make_unique<NameExpr>(SourceRange{}, n); }
Ptr<Expr> lit(uint64_t v, bool bytes = false) { return std::make_unique<IntLitExpr>(SourceRange{}, v, bytes); }
Ptr<Expr> flit(double v, const char *spelling) { return std::make_unique<FloatLitExpr>(SourceRange{}, v, spelling); }
Ptr<Expr> bin(BinaryOp op, Ptr<Expr> l, Ptr<Expr> r) {
  return std::make_unique<BinaryExpr>(SourceRange{}, op, std::move(l), std::move(r));
}
Ptr<Expr> un(UnaryOp op, Ptr<Expr> e) { return std::make_unique<UnaryExpr>(SourceRange{}, op, std::move(e)); }
Ptr<Expr> member(Ptr<Expr> base, const char *m) {
  return std::make_unique<MemberExpr>(SourceRange{}, std::move(base), m, SourceRange{});
}
Ptr<Expr> index1(Ptr<Expr> base, Ptr<Expr> i) {
  auto e = std::make_unique<IndexExpr>(SourceRange{}, std::move(base));
  IndexItem item;
  item.kind = IndexItem::Point;
  item.start = std::move(i);
  e->items.push_back(std::move(item));
  return e;
}
Ptr<Expr> call1(const char *callee, Ptr<Expr> arg) {
  auto c = std::make_unique<CallExpr>(SourceRange{}, callee, SourceRange{});
  c->args.push_back(std::move(arg));
  return c;
}

// ---------------------------------------------------------------- parsing helpers
struct ParseResult {
  std::string printed;
  std::string diagnostics;
  bool ok = false;
};

ParseResult parseAndPrint(const std::string &source) {
  SourceManager sm;
  uint32_t file = sm.addBuffer("test.cake", source);
  DiagnosticEngine diags(sm);
  Ptr<Module> m = parseModule(sm, file, diags);
  ParseResult r;
  std::ostringstream os;
  diags.renderText(os);
  r.diagnostics = os.str();
  r.ok = !diags.hasErrors();
  if (r.ok) r.printed = printModule(*m);
  return r;
}

// Parses `source`, prints it, checks it equals `expected`, that `expected` is a fixed point and that
// reparsing the printed text gives a structurally equal tree.
void checkCanonical(const std::string &source, const std::string &expected) {
  SourceManager sm;
  uint32_t f1 = sm.addBuffer("input.cake", source);
  DiagnosticEngine diags(sm);
  Ptr<Module> first = parseModule(sm, f1, diags);
  std::ostringstream os;
  diags.renderText(os);
  INFO("diagnostics:\n", os.str());
  REQUIRE_FALSE(diags.hasErrors());
  std::string printed = printModule(*first);
  CHECK(printed == expected);

  uint32_t f2 = sm.addBuffer("printed.cake", printed);
  Ptr<Module> second = parseModule(sm, f2, diags);
  std::ostringstream os2;
  diags.renderText(os2);
  INFO("diagnostics after reparse:\n", os2.str());
  REQUIRE_FALSE(diags.hasErrors());
  std::optional<std::string> diff = firstDifference(*first, *second);
  INFO("first difference: ", diff.value_or(""));
  CHECK_FALSE(diff.has_value());
  CHECK(printModule(*second) == printed);
}

// Wraps statements in a minimal kernel; returns the canonical kernel text for the given body lines.
std::string inKernel(const std::string &body) { return "target sm_90a;\nkernel k() {\n" + body + "}\n"; }
std::string canonicalKernel(const std::string &bodyLines) {
  return "target sm_90a;\n\nkernel k()\n{\n" + bodyLines + "}\n";
}

// Prints the expression `e` through a `let` so the parser builds it, then returns the printed expression.
std::string reprintExpr(const std::string &e) {
  ParseResult r = parseAndPrint(inKernel("let x = " + e + ";\n"));
  INFO("diagnostics:\n", r.diagnostics);
  REQUIRE(r.ok);
  const std::string prefix = "  let x = ";
  size_t at = r.printed.find(prefix);
  REQUIRE(at != std::string::npos);
  size_t end = r.printed.find(";\n", at);
  return r.printed.substr(at + prefix.size(), end - at - prefix.size());
}

} // namespace

TEST_SUITE("printer") {

TEST_CASE("left-associative chains print without parentheses; right-nested ones keep them") {
  auto left = bin(BinaryOp::Sub, bin(BinaryOp::Sub, name("a"), name("b")), name("c"));
  CHECK(printExpr(*left) == "a - b - c");
  auto right = bin(BinaryOp::Sub, name("a"), bin(BinaryOp::Sub, name("b"), name("c")));
  CHECK(printExpr(*right) == "a - (b - c)");
  auto mixed = bin(BinaryOp::Add, name("a"), bin(BinaryOp::Mul, name("b"), name("c")));
  CHECK(printExpr(*mixed) == "a + b * c");
  auto grouped = bin(BinaryOp::Mul, bin(BinaryOp::Add, name("a"), name("b")), name("c"));
  CHECK(printExpr(*grouped) == "(a + b) * c");
  auto divRight = bin(BinaryOp::Div, name("a"), bin(BinaryOp::Mul, name("b"), name("c")));
  CHECK(printExpr(*divRight) == "a / (b * c)");
}

TEST_CASE("every precedence level against its neighbours") {
  // (a | b) & c needs parentheses, a | b & c does not.
  CHECK(printExpr(*bin(BinaryOp::BitAnd, bin(BinaryOp::BitOr, name("a"), name("b")), name("c"))) == "(a | b) & c");
  CHECK(printExpr(*bin(BinaryOp::BitOr, name("a"), bin(BinaryOp::BitAnd, name("b"), name("c")))) == "a | b & c");
  CHECK(printExpr(*bin(BinaryOp::BitXor, bin(BinaryOp::BitOr, name("a"), name("b")), name("c"))) == "(a | b) ^ c");
  CHECK(printExpr(*bin(BinaryOp::LogOr, bin(BinaryOp::LogAnd, name("a"), name("b")), name("c"))) == "a && b || c");
  CHECK(printExpr(*bin(BinaryOp::LogAnd, name("a"), bin(BinaryOp::LogOr, name("b"), name("c")))) == "a && (b || c)");
  CHECK(printExpr(*bin(BinaryOp::Eq, bin(BinaryOp::Lt, name("a"), name("b")), name("c"))) == "a < b == c");
  CHECK(printExpr(*bin(BinaryOp::Lt, name("a"), bin(BinaryOp::Eq, name("b"), name("c")))) == "a < (b == c)");
  CHECK(printExpr(*bin(BinaryOp::Shl, name("a"), bin(BinaryOp::Add, name("b"), lit(1)))) == "a << b + 1");
  CHECK(printExpr(*bin(BinaryOp::Add, bin(BinaryOp::Shl, name("a"), name("b")), lit(1))) == "(a << b) + 1");
  CHECK(printExpr(*bin(BinaryOp::BitAnd, bin(BinaryOp::Eq, name("a"), lit(0)), name("p"))) == "a == 0 & p");
  CHECK(printExpr(*bin(BinaryOp::Rem, bin(BinaryOp::Rem, name("a"), name("b")), name("c"))) == "a % b % c");
  CHECK(printExpr(*bin(BinaryOp::Rem, name("a"), bin(BinaryOp::Rem, name("b"), name("c")))) == "a % (b % c)");
}

TEST_CASE("unary and postfix operators") {
  CHECK(printExpr(*un(UnaryOp::Neg, bin(BinaryOp::Add, name("a"), name("b")))) == "-(a + b)");
  CHECK(printExpr(*un(UnaryOp::Neg, un(UnaryOp::Neg, name("a")))) == "--a");
  CHECK(printExpr(*un(UnaryOp::Not, un(UnaryOp::BitNot, name("a")))) == "!~a");
  CHECK(printExpr(*un(UnaryOp::Neg, index1(name("a"), lit(0)))) == "-a[0]");
  CHECK(printExpr(*index1(un(UnaryOp::Neg, name("a")), lit(0))) == "(-a)[0]");
  CHECK(printExpr(*member(index1(name("b"), name("s")), "T")) == "b[s].T");
  CHECK(printExpr(*member(bin(BinaryOp::Add, name("a"), name("b")), "T")) == "(a + b).T");
  CHECK(printExpr(*bin(BinaryOp::Sub, name("a"), un(UnaryOp::Neg, lit(1)))) == "a - -1");
  CHECK(printExpr(*bin(BinaryOp::Lt, name("a"), un(UnaryOp::Neg, name("b")))) == "a < -b");   // never `<-`
  CHECK(printExpr(*call1("bf16", bin(BinaryOp::Mul, name("x"), flit(0.5, "0.5")))) == "bf16(x * 0.5)");
  CHECK(printExpr(*member(call1("f", name("x")), "T")) == "f(x).T");
}

TEST_CASE("literals") {
  CHECK(printExpr(*lit(128, true)) == "128B");
  CHECK(printExpr(*lit(18446744073709551615ull)) == "18446744073709551615");
  CHECK(printExpr(*flit(2e-3, "2e-3")) == "2e-3");        // floats by their spelling
  CHECK(printExpr(*flit(1.0, "1.000")) == "1.000");
  CHECK(printExpr(*flit(0.25, "")) == "0.25");            // no spelling: shortest exact form
  CHECK(printExpr(*flit(3.0, "")) == "3.0");
}

TEST_CASE("very long left chains print without deep recursion") {
  Ptr<Expr> e = name("x0");
  for (int i = 1; i < 200000; ++i) e = bin(BinaryOp::Add, std::move(e), name("y"));
  std::string s = printExpr(*e);
  CHECK(s.size() == 2 + 199999 * 4);
  CHECK(s.rfind("x0 + y + y", 0) == 0);
  Ptr<Expr> copy = name("x0");
  for (int i = 1; i < 200000; ++i) copy = bin(BinaryOp::Add, std::move(copy), name("y"));
  CHECK(structurallyEqual(*e, *copy));
  // Tear the chains down iteratively (the default destructor recursion is not what is under test).
  for (Ptr<Expr> *chain : {&e, &copy}) {
    while (isa<BinaryExpr>(chain->get())) {
      Ptr<Expr> lhs = std::move(cast<BinaryExpr>(chain->get())->lhs);
      *chain = std::move(lhs);
    }
  }
}

TEST_CASE("equality reports the path of the first difference") {
  auto a = bin(BinaryOp::Add, name("a"), bin(BinaryOp::Mul, name("b"), lit(64)));
  auto b = bin(BinaryOp::Add, name("a"), bin(BinaryOp::Mul, name("b"), lit(32)));
  auto diff = firstDifference(*a, *b);
  REQUIRE(diff.has_value());
  CHECK(*diff == "rhs.rhs: int literal 64 vs 32");
  CHECK_FALSE(firstDifference(*a, *a).has_value());
  auto c = bin(BinaryOp::Add, name("a"), bin(BinaryOp::Mul, name("z"), lit(32)));
  CHECK(*firstDifference(*b, *c) == "rhs.lhs: name 'b' vs 'z'");
  CHECK(firstDifference(*lit(128, true), *lit(128, false)).has_value());
  CHECK(firstDifference(*flit(1.0, "1.0"), *flit(1.0, "1.00")).has_value());
}

// ---------------------------------------------------------------- through the parser
namespace {
// firstDifference between the modules parsed from two sources ("" when equal).
std::string moduleDifference(const std::string &a, const std::string &b) {
  SourceManager sm;
  DiagnosticEngine diags(sm);
  Ptr<Module> ma = parseModule(sm, sm.addBuffer("a.cake", a), diags);
  Ptr<Module> mb = parseModule(sm, sm.addBuffer("b.cake", b), diags);
  REQUIRE_FALSE(diags.hasErrors());
  return firstDifference(*ma, *mb).value_or("");
}
} // namespace

TEST_CASE("module equality ignores layout and comments, and names the first difference") {
  CHECK(moduleDifference("target sm_80; kernel k() threads(32) { let x = (1); }",
                         "target sm_80;\n// c\nkernel k()\n  threads(32)\n{\n  let x = 1;\n}\n") == "");
  CHECK(moduleDifference("target sm_80; kernel k() threads(32) { }", "target sm_90; kernel k() threads(32) { }") ==
        "<root>: target 'sm_80' vs 'sm_90'");
  CHECK(moduleDifference("target sm_80; kernel k() threads(32) { }", "target sm_80; kernel k() threads(64) { }") ==
        "kernels[0].attrs[0](threads).args[0].value: int literal 32 vs 64");
  CHECK(moduleDifference("target sm_80; kernel k() { if a { x = 1; } else { x = 2; } }",
                         "target sm_80; kernel k() { if a { x = 1; } else { x -= 2; } }") ==
        "kernels[0].body.stmts[0](if).else.stmts[0](assign): assignment operator differs");
  CHECK(moduleDifference("target sm_90a; kernel k() { tma.load a[s] <- A[0, 1] signal(f[s]); }",
                         "target sm_90a; kernel k() { tma.load a[s] <- A[0, 2] signal(f[s]); }") ==
        "kernels[0].body.stmts[0](op tma.load).srcs[0].index[1].start: int literal 1 vs 2");
  CHECK(moduleDifference("target sm_80; kernel k(A: f32[M] align(16)) { }", "target sm_80; kernel k(A: f32[M]) { }") ==
        "kernels[0].params[0]: attrs count 1 vs 0");
}

TEST_CASE("expressions reparse to their minimal-parenthesis form") {
  CHECK(reprintExpr("(a - b) - c") == "a - b - c");
  CHECK(reprintExpr("a - (b - c)") == "a - (b - c)");
  CHECK(reprintExpr("((a))") == "a");
  CHECK(reprintExpr("(a+b)*(c+d)") == "(a + b) * (c + d)");
  CHECK(reprintExpr("a<<(b+1)") == "a << b + 1");
  CHECK(reprintExpr("(k/S+1)&1") == "k / S + 1 & 1");
  CHECK(reprintExpr("-(-x)") == "--x");
  CHECK(reprintExpr("a < -b") == "a < -b");
  CHECK(reprintExpr("!(a == b) || c && d") == "!(a == b) || c && d");
  CHECK(reprintExpr("(a || b) && c") == "(a || b) && c");
  CHECK(reprintExpr("x[i][j +: 8]") == "x[i][j +: 8]");
  CHECK(reprintExpr("shfl.xor(v,16)") == "shfl.xor(v, 16)");
  CHECK(reprintExpr("tid.x+block.x*32") == "tid.x + block.x * 32");
  CHECK(reprintExpr("0x10") == "16");
  CHECK(reprintExpr("1.50") == "1.50");
  CHECK(reprintExpr("select(p,1.0e+4,inf)") == "select(p, 1.0e+4, inf)");
}

TEST_CASE("every statement kind, attributes, clauses and fragments") {
  const std::string source = R"(target sm_90a;   // a comment, dropped
kernel gemm<BM=128, BN=(2*64), S=4>(A: bf16[M,K] tma(box=[BM, 64], swizzle=128B),
    B: bf16[N,K] align(16), C: f32[M,N] stride(N,1), alpha: f32)
  requires(K % 64 == 0, M > 0) grid(cdiv(M,BM), cdiv(N, BN)) threads(384) cluster(2, 1) {
  shared a: bf16[S][BM,64] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier ready arrivals(2);
  barrier epi id(1) threads(256);
  if tid.x == 0 { mbarrier.init full; fence.mbarrier_init; }
  syncthreads;
  role load = warpgroup(0) regs(40) {
    elect {
      for k in 0..K/64 step 2 unroll {
        let s = k % S;
        wait full[s] parity((k/S+1)&1);
        arrive full[s] expect_tx(BM*64*2) cta(1);
        tma.load a[s] <- A[block.x*BM, k*64] signal(full[s]) multicast(3);
      }
    }
  }
  role math[2] = warpgroups(1..3) regs(232) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    var af: frag<mma_a, bf16, 16, 8, 16>[2];
    let t: i32 = math.index * 64;
    wgmma acc += a[0][t +: 64, :] * a[1].T;
    wgmma.commit; wgmma.wait 0;
    ldmatrix.trans af[0], af[1] <- a[0][lane, 0 +: 8];
    store C[t, 0] <- bf16(acc);
    if t > 0 { return; } else if t < 0 { acc += 1.0; } else { { t2 <<= 1; } }
  }
}
kernel small() threads(32) {
  role w = warp(0) { x[0] = -1; }
  role ws[2] = warps(1..3) { }
}
)";
  const std::string expected = R"(target sm_90a;

kernel gemm<BM = 128, BN = (2 * 64), S = 4>(A: bf16[M, K] tma(box=[BM, 64], swizzle=128B), B: bf16[N, K] align(16), C: f32[M, N] stride(N, 1), alpha: f32)
  requires(K % 64 == 0, M > 0)
  grid(cdiv(M, BM), cdiv(N, BN))
  threads(384)
  cluster(2, 1)
{
  shared a: bf16[S][BM, 64] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier ready arrivals(2);
  barrier epi id(1) threads(256);
  if tid.x == 0 {
    mbarrier.init full;
    fence.mbarrier_init;
  }
  syncthreads;
  role load = warpgroup(0) regs(40) {
    elect {
      for k in 0 .. K / 64 step 2 unroll {
        let s = k % S;
        wait full[s] parity(k / S + 1 & 1);
        arrive full[s] expect_tx(BM * 64 * 2) cta(1);
        tma.load a[s] <- A[block.x * BM, k * 64] signal(full[s]) multicast(3);
      }
    }
  }
  role math[2] = warpgroups(1 .. 3) regs(232) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    var af: frag<mma_a, bf16, 16, 8, 16>[2];
    let t: i32 = math.index * 64;
    wgmma acc += a[0][t +: 64, :] * a[1].T;
    wgmma.commit;
    wgmma.wait 0;
    ldmatrix.trans af[0], af[1] <- a[0][lane, 0 +: 8];
    store C[t, 0] <- bf16(acc);
    if t > 0 {
      return;
    } else if t < 0 {
      acc += 1.0;
    } else {
      {
        t2 <<= 1;
      }
    }
  }
}

kernel small()
  threads(32)
{
  role w = warp(0) {
    x[0] = -1;
  }
  role ws[2] = warps(1 .. 3) {
  }
}
)";
  checkCanonical(source, expected);
}

TEST_CASE("kernel without attributes or parameters, every assignment operator") {
  std::string ops[] = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
  std::string src, expected;
  for (const auto &op : ops) {
    src += "x" + op + "1;\n";
    expected += "  x " + op + " 1;\n";
  }
  checkCanonical(inKernel(src), canonicalKernel(expected));
}

TEST_CASE("const_primary positions parenthesise what is not INT or IDENT") {
  checkCanonical("target sm_80;\nkernel k<A=(1+2), B=(-1), C=X>() { var f: frag<mma_c, f32, (8*2), N, 16>; }\n",
                 "target sm_80;\n\nkernel k<A = (1 + 2), B = (-1), C = X>()\n{\n"
                 "  var f: frag<mma_c, f32, (8 * 2), N, 16>;\n}\n");
}

TEST_CASE("statement starts that the parser would misread keep their parentheses") {
  // Assignment targets whose leading dotted name reads as an operation.
  checkCanonical(inKernel("(sync)[0] = 1;\n(cluster).x = 2;\n(wgmma.fence)[1] = 3;\n(store(x)) = 4;\n"
                          "(tma)[0] = 5;\nlet y = sync + cluster.x;\n"),
                 canonicalKernel("  (sync)[0] = 1;\n  (cluster).x = 2;\n  (wgmma).fence[1] = 3;\n"
                                 "  (store(x)) = 4;\n  tma[0] = 5;\n  let y = sync + cluster.x;\n"));
  // An operation's first operand that starts with a call to a clause name.
  checkCanonical(inKernel("arrive (signal(x)) + 1, parity(y) cta(0);\ntma.load a <- signal(b);\n"),
                 canonicalKernel("  arrive (signal(x)) + 1, parity(y) cta(0);\n  tma.load a <- signal(b);\n"));
}

TEST_CASE("the zero-fill clause of cp.async prints after the source and reparses") {
  checkCanonical(inKernel("cp.async sa[r,c+:8] <- A[m0+r, c+:8] valid(m0+r<M&&c<K);\n"),
                 canonicalKernel("  cp.async sa[r, c +: 8] <- A[m0 + r, c +: 8] valid(m0 + r < M && c < K);\n"));
  // `valid` is a clause name: a first operand that calls it keeps its parentheses
  checkCanonical(inKernel("arrive (valid(x)) + 1;\n"), canonicalKernel("  arrive (valid(x)) + 1;\n"));
}

TEST_CASE("printing is deterministic and the stream overload matches") {
  const std::string src = inKernel("let y = (a + b) * c;\n");
  ParseResult r1 = parseAndPrint(src), r2 = parseAndPrint(src);
  REQUIRE(r1.ok);
  CHECK(r1.printed == r2.printed);
  SourceManager sm;
  DiagnosticEngine diags(sm);
  Ptr<Module> m = parseModule(sm, sm.addBuffer("t.cake", src), diags);
  std::ostringstream os;
  printModule(*m, os);
  CHECK(os.str() == r1.printed);
}

} // TEST_SUITE

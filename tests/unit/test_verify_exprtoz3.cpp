// Unit tests of ExprToZ3 (src/verify/ExprToZ3.cpp) through VerifyContext: target semantics of integer
// division and remainder (truncation toward zero), bit operations (masks as modulo, xor 1, shifts, general
// bit-vectors), let substitution, compile-time parameters, loop-variable and builtin bounds, and the
// reasons given for what cannot be translated; the solver-free ranges of IntervalBounds and the least
// models of SmallestModel over the same terms.
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "verify/SmallestModel.h"
#include "verify/VerifyContext.h"

#include <doctest/doctest.h>

#include <functional>

using namespace cake;

namespace {

struct VerifyFixture {
  SourceManager sm;
  DiagnosticEngine diags{sm, 0};
  Ptr<Module> module;
  SemaResult sema;
  VerifyOptions options;
  VerifyResult result;
  std::unique_ptr<VerifyContext> ctx;

  explicit VerifyFixture(const std::string &body, const std::string &assumed = "K % BK == 0") {
    std::string source = "target sm_90a;\n"
                         "kernel k<S = 4, BK = 64>(A: f32[M, K], n: i32) requires(" + assumed + ") grid(M) threads(256) {\n" +
                         body + "\n}\n";
    module = parseModule(sm, sm.addBuffer("t.cake", source), diags);
    REQUIRE(!diags.hasErrors());
    sema = analyzeModule(*module, SemaOptions{}, diags);
    REQUIRE_MESSAGE(sema.ok, (diags.diagnostics().empty() ? "" : diags.diagnostics()[0].message));
    const Kernel &k = *module->kernels[0];
    ctx = std::make_unique<VerifyContext>(*module, k, *sema.kernelInfo(&k), sema, options, diags, result);
  }

  // The initialiser of `let NAME = ...` (searched through blocks, loops and ifs).
  const Expr &let(const std::string &name) {
    const LetStmt *found = nullptr;
    std::function<void(const Stmt &)> walk = [&](const Stmt &s) {
      if (auto *b = dynCast<BlockStmt>(&s)) for (auto &c : b->stmts) walk(*c);
      if (auto *l = dynCast<LetStmt>(&s); l && l->name == name) found = l;
      if (auto *f = dynCast<ForStmt>(&s)) walk(*f->body);
      if (auto *i = dynCast<IfStmt>(&s)) walk(*i->thenBody);
    };
    walk(*module->kernels[0]->body);
    REQUIRE(found);
    return *found->init;
  }

  z3::expr term(const std::string &name) {
    auto t = ctx->toZ3(let(name));
    REQUIRE(t);
    return *t;
  }
  // The value of `let name` when the free constants named in `fixes` have the given values.
  int64_t valueWith(const std::string &name, std::vector<std::pair<std::string, int64_t>> fixes) {
    z3::expr t = term(name);
    std::vector<z3::expr> extra;
    for (auto &[var, value] : fixes)
      for (auto &[n, v] : ctx->translator().freeVars())
        if (n == var) extra.push_back(v == ctx->z3().int_val(value));
    z3::expr result = ctx->z3().int_const("__result");
    z3::solver s(ctx->z3());
    s.add(ctx->scopedAssumptions(extra, result == t) && result == t);
    REQUIRE(s.check() == z3::sat);
    int64_t out = 0;
    REQUIRE(s.get_model().eval(result, true).is_numeral_i64(out));
    return out;
  }
};

} // namespace

TEST_CASE("ExprToZ3: signed division and remainder truncate toward zero") {
  VerifyFixture f("let q = n / 2; let r = n % 2; let q3 = n / (0 - 3);");
  CHECK(f.valueWith("q", {{"n", -7}}) == -3);
  CHECK(f.valueWith("r", {{"n", -7}}) == -1);
  CHECK(f.valueWith("q", {{"n", 7}}) == 3);
  CHECK(f.valueWith("q3", {{"n", 7}}) == -2);
  CHECK(f.valueWith("q3", {{"n", -7}}) == 2);
}

TEST_CASE("ExprToZ3: masks, xor 1, shifts and general bit operations follow two's complement") {
  VerifyFixture f("let m = n & 3; let x = n ^ 1; let sr = n >> 1; let sl = n << 3; let g = n & 6; let o = n | 1;");
  CHECK(f.valueWith("m", {{"n", -1}}) == 3);
  CHECK(f.valueWith("m", {{"n", 13}}) == 1);
  CHECK(f.valueWith("x", {{"n", 4}}) == 5);
  CHECK(f.valueWith("x", {{"n", 5}}) == 4);
  CHECK(f.valueWith("x", {{"n", -1}}) == -2);
  CHECK(f.valueWith("sr", {{"n", -3}}) == -2);
  CHECK(f.valueWith("sl", {{"n", -3}}) == -24);
  CHECK(f.valueWith("g", {{"n", 7}}) == 6);
  CHECK(f.valueWith("g", {{"n", -2}}) == 6);
  CHECK(f.valueWith("o", {{"n", -4}}) == -3);
}

TEST_CASE("ExprToZ3: lets, compile-time parameters and loop bounds make stage indices provable") {
  VerifyFixture f("let kt = K / BK;\n"
                  "for k in 0..kt { let s = k % S; let p = ((k / S) & 1) ^ 1; }");
  z3::expr s = f.term("s");
  ProofResult inRange = f.ctx->proveForAll(s >= 0 && s < 4);
  CHECK(inRange.proven());
  z3::expr p = f.term("p");
  CHECK(f.ctx->proveForAll(p == 0 || p == 1).proven());
  // Without the loop's lower bound the claim would be false: k % S < 0 for negative k.
  CHECK(f.ctx->proveForAll(s < 3).refuted());
}

TEST_CASE("ExprToZ3: builtins are bounded by the launch") {
  VerifyFixture f("let t = i32(tid.x); let w = warp; let l = lane; let u = tid.x / 32;");
  CHECK(f.ctx->proveForAll(f.term("t") < 256 && f.term("t") >= 0).proven());
  CHECK(f.ctx->proveForAll(f.term("w") < 8).proven());
  CHECK(f.ctx->proveForAll(f.term("l") < 32).proven());
  CHECK(f.ctx->proveForAll(f.term("u") < 8).proven());
  CHECK(f.ctx->proveForAll(f.term("t") < 255).refuted());
}

TEST_CASE("IntervalBounds: ranges from the operands' bounds, sound for the target's division") {
  VerifyFixture f("for kk in 0..8 unroll {\n"
                  "  let ix = (kk % 4) * 16 + (lane / 16) * 8;\n"
                  "  let neg = (kk - 9) / 2;\n"
                  "  let rem = (kk - 9) % 4;\n"
                  "  let sel = select(kk < 4, kk * 100, 0 - kk);\n"
                  "  let big = M * K;\n"
                  "  let mixed = n + kk;\n"
                  "}");
  auto range = [&](const std::string &name) {
    z3::expr t = f.term(name);
    return f.ctx->translator().rangeOf(t);
  };
  auto ix = range("ix");
  REQUIRE(ix);
  CHECK(ix->lo == 0);
  CHECK(ix->hi == 56);
  auto neg = range("neg");   // (kk - 9) in [-9, -2], truncated: [-4, -1]
  REQUIRE(neg);
  CHECK(neg->lo >= -5);
  CHECK(neg->hi <= 0);
  CHECK(neg->lo <= -4);
  CHECK(neg->hi >= -1);
  auto rem = range("rem");   // truncated remainder, in [-3, 0]: the range holds it (loosely)
  REQUIRE(rem);
  CHECK(rem->lo <= -3);
  CHECK(rem->hi >= 0);
  CHECK(rem->lo >= -9);
  CHECK(rem->hi <= 9);
  auto sel = range("sel");
  REQUIRE(sel);
  CHECK(sel->lo == -7);
  CHECK(sel->hi == 700);
  auto big = range("big");   // shape variables are below 2^31: the product has a range, past i32
  REQUIRE(big);
  CHECK(big->hi > INT32_MAX);
  auto mixed = range("mixed");   // a scalar parameter is any i32
  REQUIRE(mixed);
  CHECK(mixed->lo == int64_t(INT32_MIN));
  CHECK(mixed->hi == int64_t(INT32_MAX) + 7);
}

TEST_CASE("IntervalBounds: constant bounds in requires(...) narrow shape variables, parameters and grid indices") {
  // Every query assumes requires(...), so its constant bounds are ranges too: the wrap-around check of
  // block.x * 96 + tid.x is then decided without the solver.  Bounds that are not constants narrow nothing.
  VerifyFixture f("let ix = i32(block.x) * 96 + i32(tid.x);\n"
                  "let mk = M * K;\n"
                  "let nn = n + 1;\n",
                  "K % BK == 0, M <= 100000000, 64 <= K && K < 4096, n == 3, M <= K * 2");
  auto range = [&](const std::string &name) {
    z3::expr t = f.term(name);
    return f.ctx->translator().rangeOf(t);
  };
  auto ix = range("ix");   // block.x < M <= 100000000
  REQUIRE(ix);
  CHECK(ix->lo == 0);
  CHECK(ix->hi == int64_t(99999999) * 96 + 255);
  auto mk = range("mk");
  REQUIRE(mk);
  CHECK(mk->lo == 64);
  CHECK(mk->hi == int64_t(100000000) * 4095);
  auto nn = range("nn");
  REQUIRE(nn);
  CHECK(nn->lo == 4);
  CHECK(nn->hi == 4);
}

TEST_CASE("SmallestModel: lexicographically least values of the objectives, in order") {
  VerifyFixture f("let kt = K / BK; let t = i32(tid.x);");
  z3::expr kt = f.term("kt"), t = f.term("t");
  z3::expr query = f.ctx->scopedAssumptions({}, kt >= 3 && t % 7 == 5) && kt >= 3 && t % 7 == 5;
  auto m = smallestModel(*f.ctx, query, {kt, t});
  REQUIRE(m);
  int64_t v = 0;
  REQUIRE(m->eval(kt, true).is_numeral_i64(v));
  CHECK(v == 3);
  REQUIRE(m->eval(t, true).is_numeral_i64(v));
  CHECK(v == 5);
  // The order of the objectives decides: t first, then kt.
  auto m2 = smallestModel(*f.ctx, f.ctx->scopedAssumptions({}, kt + t >= 10) && kt + t >= 10, {t, kt});
  REQUIRE(m2);
  REQUIRE(m2->eval(t, true).is_numeral_i64(v));
  CHECK(v == 0);
  REQUIRE(m2->eval(kt, true).is_numeral_i64(v));
  CHECK(v == 10);
  CHECK_FALSE(smallestModel(*f.ctx, f.ctx->scopedAssumptions({}, kt < 0) && kt < 0, {kt}));
}

TEST_CASE("VerifyContext: a loop variable's bounds are assumed only where the query mentions it or an inner loop") {
  // 'for c in 0..n - 1' runs only for n >= 2: a query about n alone must not assume that (c < n - 1), a query
  // about c must, and one about d (a loop inside c's) takes c's bounds through d's.
  VerifyFixture f("for c in 0..n - 1 { for d in c..c + 4 { let x = d; let y = c; } } let m = n;");
  z3::expr n = f.term("m"), c = f.term("y"), d = f.term("x");
  CHECK(f.ctx->findModel(n == 1).refuted());                  // a shape where the loop does not run
  CHECK(f.ctx->proveForAll(c < n - 1).proven());              // inside the loop
  CHECK(f.ctx->proveForAll(n >= 2, {c >= 0}).proven());        // the query mentions c: its loop runs
  CHECK(f.ctx->proveForAll(n >= 2, {d >= 0}).proven());        // d's loop is inside c's
  CHECK(f.ctx->proveForAll(d < n + 3).proven());
  CHECK(f.ctx->proveForAll(n >= 2).refuted());
}

TEST_CASE("ExprToZ3: refutations carry a counterexample") {
  VerifyFixture f("let kt = K / BK;");
  ProofResult r = f.ctx->proveForAll(f.term("kt") != 3);
  REQUIRE(r.refuted());
  CHECK(r.counterexampleText().find("K = 192") != std::string::npos);
}

TEST_CASE("ExprToZ3: what cannot be translated is reported with a reason and the culprit") {
  VerifyFixture f("var v: i32 = 1; let a = v + 1; let x = 2.0; let ld = i32(A[0, 0]);");
  TranslateFailure why;
  CHECK_FALSE(f.ctx->toZ3(f.let("a"), &why));
  CHECK(why.reason.find("mutable variable 'v'") != std::string::npos);
  REQUIRE(why.culprit);
  TranslateFailure why2;
  CHECK_FALSE(f.ctx->toZ3(f.let("x"), &why2));
  CHECK(why2.reason.find("not an integer") != std::string::npos);
  TranslateFailure why3;
  CHECK_FALSE(f.ctx->toZ3(f.let("ld"), &why3));
  CHECK_FALSE(why3.reason.empty());
}

TEST_CASE("VerifyContext: requires(...) is assumed, and unproven obligations are reported") {
  VerifyFixture f("let kt = K / BK;");
  // K % BK == 0 and K >= 1 give kt >= 1.
  CHECK(f.ctx->proveForAll(f.term("kt") >= 1).proven());
  f.ctx->reportUnproven(SourceRange{}, "the test obligation", "because");
  CHECK(f.result.unproven == 1);
  REQUIRE(f.diags.diagnostics().size() == 1);
  CHECK(f.diags.diagnostics()[0].kind == DiagKind::VerifyUnproven);
  f.ctx->reportUnproven(SourceRange{}, "the test obligation", "limit", true);
  CHECK(f.diags.diagnostics()[1].kind == DiagKind::VerifySolverTimeout);
}

// Unit tests of ConstEvaluator's options (src/frontend/ConstEval.h), the switches the verifier's concrete
// evaluators use: the Name/Member binding hook, short-circuit && / ||, integer casts, wrapping `<<` and the
// three cdiv rules, each checked against the default (sema) rules on hand-built ASTs.
#include "frontend/ConstEval.h"

#include <doctest/doctest.h>

using namespace cake;

namespace {
Ptr<Expr> lit(uint64_t v) { return std::make_unique<IntLitExpr>(SourceRange{}, v, false); }
Ptr<Expr> neg(Ptr<Expr> e) { return std::make_unique<UnaryExpr>(SourceRange{}, UnaryOp::Neg, std::move(e)); }
Ptr<Expr> bin(BinaryOp op, Ptr<Expr> a, Ptr<Expr> b) {
  return std::make_unique<BinaryExpr>(SourceRange{}, op, std::move(a), std::move(b));
}
Ptr<Expr> name(Decl *d, std::string text) {
  auto n = std::make_unique<NameExpr>(SourceRange{}, std::move(text));
  n->decl = d;
  return n;
}
Ptr<Expr> call(std::string callee, Ptr<Expr> a, Ptr<Expr> b = nullptr) {
  auto c = std::make_unique<CallExpr>(SourceRange{}, std::move(callee), SourceRange{});
  c->args.push_back(std::move(a));
  if (b) c->args.push_back(std::move(b));
  return c;
}
ConstResult evalWith(const ConstEvalOptions &o, const Expr &e) { return ConstEvaluator(o).evaluate(e); }
} // namespace

TEST_CASE("const eval options: the binding hook comes first, nullopt falls through") {
  CtParam bm("BM", {});
  bm.value = 128;
  CtParam unset("K", {});
  auto sum = bin(BinaryOp::Add, name(&bm, "BM"), name(&unset, "K"));
  CHECK(ConstEvaluator().evaluate(*sum).status == ConstResult::NotConstant);
  ConstEvalOptions o;
  o.bind = [&](const Expr &x) -> std::optional<int64_t> {
    auto *n = dynCast<NameExpr>(&x);
    if (n && n->decl == &unset) return 7;
    return std::nullopt;
  };
  CHECK(evalWith(o, *sum).value == 135);   // BM from its compile-time value, K from the hook
  o.bind = [&](const Expr &x) -> std::optional<int64_t> {
    if (x.kind == ExprKind::Member) return 3;
    auto *n = dynCast<NameExpr>(&x);
    return n && n->decl == &bm ? std::optional<int64_t>(1) : std::optional<int64_t>(2);
  };
  CHECK(evalWith(o, *sum).value == 3);     // the hook overrides a compile-time value too
  auto member = std::make_unique<MemberExpr>(SourceRange{}, name(nullptr, "r"), "index", SourceRange{});
  CHECK(ConstEvaluator().evaluate(*member).status == ConstResult::NotConstant);
  CHECK(evalWith(o, *member).value == 3);
}

TEST_CASE("const eval options: short-circuit logic and integer casts") {
  CtParam unset("K", {});
  auto andFalse = bin(BinaryOp::LogAnd, lit(0), name(&unset, "K"));
  auto orTrue = bin(BinaryOp::LogOr, lit(5), name(&unset, "K"));
  auto andTrue = bin(BinaryOp::LogAnd, lit(1), name(&unset, "K"));
  ConstEvalOptions o;
  CHECK(evalWith(o, *andFalse).status == ConstResult::NotConstant);
  o.shortCircuitLogic = true;
  CHECK(evalWith(o, *andFalse).value == 0);
  CHECK(evalWith(o, *orTrue).value == 1);
  CHECK(evalWith(o, *andTrue).status == ConstResult::NotConstant);   // the right side still decides

  auto cast = call("u32", lit(9));
  CHECK(evalWith(o, *cast).status == ConstResult::NotConstant);
  o.integerCasts = true;
  CHECK(evalWith(o, *cast).value == 9);
  auto twoArgs = call("i64", lit(1), lit(2));
  CHECK(evalWith(o, *twoArgs).status == ConstResult::NotConstant);
}

TEST_CASE("const eval options: wrapping shift left") {
  auto negShift = bin(BinaryOp::Shl, neg(lit(1)), lit(3));
  auto wide = bin(BinaryOp::Shl, lit(3), lit(62));
  auto by63 = bin(BinaryOp::Shl, lit(0), lit(63));
  ConstEvalOptions o;
  CHECK(evalWith(o, *negShift).status == ConstResult::Overflow);
  CHECK(evalWith(o, *wide).status == ConstResult::Overflow);
  CHECK(evalWith(o, *by63).value == 0);
  o.wrappingShiftLeft = true;
  CHECK(evalWith(o, *negShift).value == -8);
  CHECK(evalWith(o, *wide).value == static_cast<int64_t>(uint64_t(3) << 62));
  CHECK(evalWith(o, *by63).status == ConstResult::Overflow);
}

TEST_CASE("const eval options: cdiv rules") {
  auto positive = call("cdiv", lit(7), lit(2));
  auto negNum = call("cdiv", neg(lit(4)), lit(2));
  auto negDen = call("cdiv", lit(7), neg(lit(2)));
  auto huge = call("cdiv", lit(INT64_MAX), lit(2));
  ConstEvalOptions o;
  CHECK(evalWith(o, *positive).value == 4);
  CHECK(evalWith(o, *negNum).value == -2);
  CHECK(evalWith(o, *negDen).value == -3);
  CHECK(evalWith(o, *huge).value == INT64_MAX / 2 + 1);
  o.cdiv = ConstEvalOptions::Cdiv::CeilingOfNonNegative;
  CHECK(evalWith(o, *positive).value == 4);
  CHECK(evalWith(o, *negNum).status == ConstResult::NotConstant);
  CHECK(evalWith(o, *negDen).status == ConstResult::NotConstant);
  CHECK(evalWith(o, *huge).value == INT64_MAX / 2 + 1);
  o.cdiv = ConstEvalOptions::Cdiv::AddThenDivide;
  CHECK(evalWith(o, *positive).value == 4);
  CHECK(evalWith(o, *negNum).value == -1);   // (-4 + 1) / 2, truncated
  CHECK(evalWith(o, *negDen).status == ConstResult::NotConstant);
  CHECK(evalWith(o, *huge).status == ConstResult::Overflow);
}

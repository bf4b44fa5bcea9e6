// Unit tests of the type representation (src/frontend/Types.h) and compile-time evaluation
// (src/frontend/ConstEval.h): interning, printing for diagnostics, sizes, fragment register counts, and
// checked integer arithmetic on hand-built ASTs.
#include "frontend/ConstEval.h"
#include "frontend/Types.h"

#include <doctest/doctest.h>

using namespace cake;

namespace {
TensorDim dim(std::string text, std::optional<int64_t> v) { return TensorDim{std::move(text), nullptr, v}; }

Ptr<Expr> lit(uint64_t v) { return std::make_unique<IntLitExpr>(SourceRange{}, v, false); }
Ptr<Expr> bin(BinaryOp op, Ptr<Expr> a, Ptr<Expr> b) {
  return std::make_unique<BinaryExpr>(SourceRange{}, op, std::move(a), std::move(b));
}
} // namespace

TEST_CASE("types: scalars and vectors are interned and named") {
  TypeContext tc;
  CHECK(tc.scalar(ScalarKind::BF16) == tc.scalarOrVectorByName("bf16"));
  CHECK(tc.vector(ScalarKind::F32, 4) == tc.scalarOrVectorByName("f32x4"));
  CHECK(tc.scalarOrVectorByName("f32x3") == nullptr);
  CHECK(tc.scalarOrVectorByName("predx2") == nullptr);
  CHECK(tc.scalarOrVectorByName("float") == nullptr);
  CHECK(typeToString(tc.vector(ScalarKind::F16, 2)) == "f16x2");
  const Type *b8 = tc.scalarOrVectorByName("bf16x8");
  CHECK(b8->isVector());
  CHECK(b8->vectorWidth() == 8);
  CHECK(b8->elementScalar() == ScalarKind::BF16);
  CHECK(b8->sizeInBytes() == 16);
  CHECK(tc.scalar(ScalarKind::F8E4M3)->sizeInBytes() == 1);
  CHECK(tc.scalar(ScalarKind::I64)->isInteger());
  CHECK(tc.scalar(ScalarKind::F32)->isFloat());
  CHECK(!tc.pred()->isNumeric());
  CHECK(tc.untypedInt()->isInteger());
  CHECK(tc.withElement(b8, ScalarKind::F32) == tc.vector(ScalarKind::F32, 8));
}

TEST_CASE("types: tensors print with their groups and address space") {
  TypeContext tc;
  const Type *t = tc.tensor(tc.scalar(ScalarKind::BF16), AddressSpace::Shared,
                            {{dim("S", 4)}, {dim("BM", 128), dim("BK", 64)}});
  CHECK(typeToString(t) == "bf16[S][BM, BK] (shared)");
  CHECK(t->rank() == 1);
  CHECK(t->allDims().size() == 3);
  CHECK(t->numElements() == 4 * 128 * 64);
  CHECK(t->sizeInBytes() == 4 * 128 * 64 * 2);
  const Type *g = tc.tensor(tc.scalar(ScalarKind::F32), AddressSpace::Global, {{dim("M", std::nullopt), dim("K", std::nullopt)}});
  CHECK(typeToString(g) == "f32[M, K] (global)");
  CHECK(!g->sizeInBytes());
  // Structural equality: same dims by value or by symbol.
  const Type *g2 = tc.tensor(tc.scalar(ScalarKind::F32), AddressSpace::Global, {{dim("M", std::nullopt), dim("K", std::nullopt)}});
  CHECK(g != g2);
  CHECK(sameType(g, g2));
  const Type *g3 = tc.tensor(tc.scalar(ScalarKind::F32), AddressSpace::Global, {{dim("M", std::nullopt), dim("N", std::nullopt)}});
  CHECK(!sameType(g, g3));
  const Type *c1 = tc.tensor(tc.scalar(ScalarKind::F32), AddressSpace::Shared, {{dim("BM", 64)}});
  const Type *c2 = tc.tensor(tc.scalar(ScalarKind::F32), AddressSpace::Shared, {{dim("64", 64)}});
  CHECK(sameType(c1, c2));
  CHECK(!sameType(c1, tc.tensor(tc.scalar(ScalarKind::F32), AddressSpace::Global, {{dim("64", 64)}})));
}

TEST_CASE("types: fragment registers per thread") {
  TypeContext tc;
  const Type *a = tc.fragment(FragKind::MmaA, ScalarKind::BF16, 16, 8, 16);
  const Type *b = tc.fragment(FragKind::MmaB, ScalarKind::BF16, 16, 8, 16);
  const Type *c = tc.fragment(FragKind::MmaC, ScalarKind::F32, 16, 8, 16);
  const Type *c16 = tc.fragment(FragKind::MmaC, ScalarKind::F16, 16, 8, 16);
  const Type *b8 = tc.fragment(FragKind::MmaB, ScalarKind::F16, 16, 8, 8);
  CHECK(a == tc.fragment(FragKind::MmaA, ScalarKind::BF16, 16, 8, 16));
  CHECK(a->fragRegistersPerThread() == 4);    // ldmatrix.x4
  CHECK(b->fragRegistersPerThread() == 2);    // ldmatrix.x2
  CHECK(b8->fragRegistersPerThread() == 1);   // ldmatrix.x1
  CHECK(c->fragElementsPerThread() == 4);
  CHECK(c->fragRegistersPerThread() == 4);
  CHECK(c16->fragRegistersPerThread() == 2);
  const Type *acc = tc.fragment(FragKind::WgmmaAcc, ScalarKind::F32, 64, 256, 16);
  CHECK(acc->fragThreads() == 128);
  CHECK(acc->fragRegistersPerThread() == 128);
  CHECK(acc->sizeInBytes() == 512);
  const Type *wa = tc.fragment(FragKind::WgmmaA, ScalarKind::F8E4M3, 64, 128, 32);
  CHECK(wa->fragRegistersPerThread() == 4);
  CHECK(typeToString(acc) == "frag<wgmma_acc, f32, 64, 256, 16>");
  CHECK(tc.withElement(acc, ScalarKind::BF16) == tc.fragment(FragKind::WgmmaAcc, ScalarKind::BF16, 64, 256, 16));
}

TEST_CASE("types: barriers and names that are not values") {
  TypeContext tc;
  CHECK(typeToString(tc.mbarrierArray(4)) == "mbarrier[4]");
  CHECK(tc.mbarrierArray(4) == tc.mbarrierArray(4));
  CHECK(tc.mbarrierArray(4)->sizeInBytes() == 32);
  CHECK(typeToString(tc.mbarrier()) == "mbarrier");
  CHECK(!tc.role()->isRegisterValue());
  CHECK(tc.error()->isError());
}

TEST_CASE("const eval: checked 64-bit arithmetic") {
  ConstEvaluator ev;
  auto e = bin(BinaryOp::Add, bin(BinaryOp::Mul, lit(128), lit(64)), lit(2));
  CHECK(ev.evaluate(*e).value == 8194);
  auto div0 = bin(BinaryOp::Div, lit(1), bin(BinaryOp::Sub, lit(3), lit(3)));
  ConstResult r = ev.evaluate(*div0);
  CHECK(r.status == ConstResult::DivisionByZero);
  CHECK(r.culprit == div0.get());
  auto rem0 = bin(BinaryOp::Rem, lit(1), lit(0));
  CHECK(ev.evaluate(*rem0).status == ConstResult::DivisionByZero);
  auto ovf = bin(BinaryOp::Mul, lit(uint64_t(1) << 62), lit(4));
  CHECK(ev.evaluate(*ovf).status == ConstResult::Overflow);
  auto big = lit(uint64_t(1) << 63);
  CHECK(ev.evaluate(*big).status == ConstResult::Overflow);
  auto shl = bin(BinaryOp::Shl, lit(1), lit(64));
  CHECK(ev.evaluate(*shl).status == ConstResult::Overflow);
  auto shl2 = bin(BinaryOp::Shl, lit(3), lit(62));
  CHECK(ev.evaluate(*shl2).status == ConstResult::Overflow);
  auto shl3 = bin(BinaryOp::Shl, lit(1), lit(62));
  CHECK(ev.evaluate(*shl3).value == (int64_t(1) << 62));
  auto neg = std::make_unique<UnaryExpr>(SourceRange{}, UnaryOp::Neg, lit(5));
  CHECK(ev.evaluate(*neg).value == -5);
  auto cmp = bin(BinaryOp::Lt, lit(3), lit(4));
  CHECK(ev.evaluate(*cmp).value == 1);
}

TEST_CASE("const eval: names, cdiv/min/max and non-constants") {
  ConstEvaluator ev;
  CtParam bm("BM", {});
  bm.value = 128;
  auto name = std::make_unique<NameExpr>(SourceRange{}, "BM");
  name->decl = &bm;
  CHECK(ev.evaluate(*name).value == 128);
  auto call = std::make_unique<CallExpr>(SourceRange{}, "cdiv", SourceRange{});
  call->args.push_back(lit(1000));
  call->args.push_back(std::move(name));
  CHECK(ev.evaluate(*call).value == 8);
  auto mx = std::make_unique<CallExpr>(SourceRange{}, "max", SourceRange{});
  mx->args.push_back(lit(3));
  mx->args.push_back(lit(9));
  CHECK(ev.evaluate(*mx).value == 9);
  auto unresolved = std::make_unique<NameExpr>(SourceRange{}, "k");
  auto sum = bin(BinaryOp::Add, lit(1), std::move(unresolved));
  ConstResult r = ev.evaluate(*sum);
  CHECK(r.status == ConstResult::NotConstant);
  CHECK(r.culprit == cast<BinaryExpr>(sum.get())->rhs.get());
  CtParam unset("X", {});
  auto x = std::make_unique<NameExpr>(SourceRange{}, "X");
  x->decl = &unset;
  CHECK(ev.evaluate(*x).status == ConstResult::NotConstant);
  // Deep nesting stops at the depth bound instead of exhausting the stack.
  Ptr<Expr> deep = lit(1);
  for (int i = 0; i < 2000; ++i) deep = bin(BinaryOp::Add, std::move(deep), lit(1));
  CHECK(ev.evaluate(*deep).status == ConstResult::NotConstant);
}

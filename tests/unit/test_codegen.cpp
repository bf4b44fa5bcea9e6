// Unit tests of code generation (src/codegen): the PtxWriter (register classes, declarations, labels, the
// PTX-line -> source-range map), constant folding with GPU semantics (Value.cpp), register storage of
// values and fragments (ValueType.cpp), the manifest JSON, and generatePtx on small kernels (source map,
// determinism, diagnostics instead of PTX for unsupported constructs).  The PTX of each construct is checked
// by the lit tests in tests/lit/codegen/.
#include "codegen/CodeGen.h"
#include "codegen/PtxWriter.h"
#include "codegen/Value.h"
#include "codegen/ValueType.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <sstream>

using namespace cake;
using namespace cake::codegen;

namespace {

struct Compiled {
  SourceManager sm;
  DiagnosticEngine diags{sm, 0};
  Ptr<Module> module;
  SemaResult sema;
  CodegenResult cg;
  std::string messages() const {
    std::string out;
    for (const Diagnostic &d : diags.diagnostics()) out += std::string(diagInfo(d.kind).code) + ": " + d.message + "\n";
    return out;
  }
};

std::unique_ptr<Compiled> compile(const std::string &source) {
  auto c = std::make_unique<Compiled>();
  uint32_t file = c->sm.addBuffer("t.cake", source);
  c->module = parseModule(c->sm, file, c->diags);
  REQUIRE_MESSAGE(!c->diags.hasErrors(), c->messages());
  c->sema = analyzeModule(*c->module, SemaOptions{}, c->diags);
  REQUIRE_MESSAGE(c->sema.ok, c->messages());
  c->cg = generatePtx(*c->module, c->sema, c->sema.arch, c->diags);
  return c;
}

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

} // namespace

TEST_CASE("PtxWriter: registers per class, declarations before the body, labels, source ranges") {
  PtxWriter w;
  w.moduleLine(".version 8.0");
  w.beginKernel(".visible .entry k()");
  SourceRange r1{{1, 10}, 20}, r2{{1, 30}, 40};
  CHECK(w.newReg(RegClass::B32) == "%r0");
  CHECK(w.newReg(RegClass::B32) == "%r1");
  CHECK(w.newReg(RegClass::F32) == "%f0");
  CHECK(w.newReg(RegClass::Pred) == "%p0");
  CHECK(w.newReg(RegClass::B64) == "%rd0");
  CHECK(w.newReg(RegClass::B16) == "%rs0");
  std::string l0 = w.newLabel("loop"), l1 = w.newLabel("loop");
  CHECK(l0 != l1);
  w.setLocation(r1);
  w.inst("add.s32 %r1, %r0, 4");
  w.setLocation(r2);
  w.instGuarded("!%p0", "bra " + l0);
  w.label(l0);
  w.endKernel();
  auto out = w.finish();
  auto ls = lines(out.text);
  REQUIRE(ls.size() == out.lineRanges.size());
  // Header and declarations carry no range; instructions carry the location current when emitted.
  CHECK(ls[0] == ".version 8.0");
  CHECK_FALSE(out.lineRanges[0].valid());
  size_t add = 0, bra = 0, decl = 0;
  for (size_t i = 0; i < ls.size(); ++i) {
    if (ls[i] == "\tadd.s32 %r1, %r0, 4;") add = i;
    if (ls[i] == "\t@!%p0 bra " + l0 + ";") bra = i;
    if (ls[i] == "\t.reg .b32 \t%r<2>;") decl = i;
  }
  REQUIRE(add != 0);
  REQUIRE(bra != 0);
  REQUIRE(decl != 0);
  CHECK(decl < add);
  CHECK(out.lineRanges[add].begin.offset == 10);
  CHECK(out.lineRanges[bra].begin.offset == 30);
  CHECK_FALSE(out.lineRanges[decl].valid());
  CHECK(out.text.find(".reg .pred \t%p<1>;") != std::string::npos);
  CHECK(out.text.find(".reg .f32 \t%f<1>;") != std::string::npos);
}

TEST_CASE("constant folding wraps and compares like the GPU") {
  auto i32 = [](int64_t v) { return ConstScalar::ofInt(v); };
  CHECK(foldBinary(BinaryOp::Add, Scalar::I32, i32(INT32_MAX), i32(1))->i == INT32_MIN);
  CHECK(foldBinary(BinaryOp::Mul, Scalar::U32, i32(0x10000), i32(0x10000))->i == 0);
  CHECK(foldBinary(BinaryOp::Sub, Scalar::U32, i32(0), i32(1))->i == 0xffffffffll);
  CHECK(foldBinary(BinaryOp::Div, Scalar::I32, i32(-7), i32(2))->i == -3);   // truncation toward zero
  CHECK(foldBinary(BinaryOp::Rem, Scalar::I32, i32(-7), i32(2))->i == -1);
  CHECK_FALSE(foldBinary(BinaryOp::Div, Scalar::I32, i32(1), i32(0)).has_value());
  CHECK_FALSE(foldBinary(BinaryOp::Shl, Scalar::I32, i32(1), i32(32)).has_value());
  CHECK(foldBinary(BinaryOp::Shr, Scalar::I32, i32(-8), i32(1))->i == -4);          // arithmetic
  CHECK(foldBinary(BinaryOp::Shr, Scalar::U32, i32(0xfffffff8ll), i32(1))->i == 0x7ffffffcll);
  CHECK(foldBinary(BinaryOp::Lt, Scalar::U32, i32(0xffffffffll), i32(1))->i == 0);  // unsigned compare
  CHECK(foldBinary(BinaryOp::Lt, Scalar::I32, i32(-1), i32(1))->i == 1);
  CHECK(foldBinary(BinaryOp::Shr, Scalar::IntLit, i32(16), i32(3))->i == 2);
  // f32 arithmetic rounds to float: 1 + 2^-30 == 1 in f32.
  CHECK(foldBinary(BinaryOp::Add, Scalar::F32, ConstScalar::ofFloat(1.0), ConstScalar::ofFloat(std::ldexp(1.0, -30)))->f == 1.0);
  CHECK_FALSE(foldBinary(BinaryOp::Div, Scalar::F32, ConstScalar::ofFloat(1), ConstScalar::ofFloat(3)).has_value());
  CHECK(foldUnary(UnaryOp::Neg, Scalar::I32, i32(INT32_MIN))->i == INT32_MIN);
  CHECK(foldUnary(UnaryOp::BitNot, Scalar::U32, i32(0))->i == 0xffffffffll);
  CHECK(normaliseInt(Scalar::I32, 0x180000000ll) == INT32_MIN);
}

TEST_CASE("16-bit float encodings round to nearest even") {
  CHECK(f16Bits(1.0) == 0x3C00);
  CHECK(bf16Bits(1.0) == 0x3F80);
  CHECK(f16Bits(-2.0) == 0xC000);
  CHECK(f16Bits(65504.0) == 0x7BFF);
  CHECK(f16Bits(65520.0) == 0x7C00);            // rounds up to infinity
  CHECK(f16Bits(std::ldexp(1.0, -24)) == 0x0001);   // smallest subnormal
  CHECK(f16Bits(1.0 + std::ldexp(1.0, -11)) == 0x3C00);   // tie -> even
  CHECK(f16Bits(1.0 + 3 * std::ldexp(1.0, -11)) == 0x3C02);
  CHECK(bf16Bits(1.0 + std::ldexp(1.0, -8)) == 0x3F80);   // tie -> even
  CHECK(bf16Bits(INFINITY) == 0x7F80);
  CHECK(bf16Value(0x4049) == doctest::Approx(3.140625));
  CHECK(f16Value(0x3555) == doctest::Approx(0.333251953125));
  CHECK(roundFloat(Scalar::BF16, 3.14159) == doctest::Approx(3.140625));
}

TEST_CASE("conversions of constants and PTX immediates") {
  CHECK(convertConst(Scalar::F32, Scalar::I32, ConstScalar::ofFloat(-2.7)).i == -2);
  CHECK(convertConst(Scalar::F32, Scalar::I32, ConstScalar::ofFloat(1e20)).i == INT32_MAX);   // saturates
  CHECK(convertConst(Scalar::F32, Scalar::U32, ConstScalar::ofFloat(-5)).i == 0);
  CHECK(convertConst(Scalar::F32, Scalar::I32, ConstScalar::ofFloat(NAN)).i == 0);
  CHECK(convertConst(Scalar::U32, Scalar::F32, ConstScalar::ofInt(0xffffffffll)).f == 4294967296.0);
  CHECK(convertConst(Scalar::I64, Scalar::I32, ConstScalar::ofInt(0x100000005ll)).i == 5);
  CHECK(ptxImmediate(Scalar::F32, ConstScalar::ofFloat(1.0)) == "0f3F800000");
  CHECK(ptxImmediate(Scalar::FloatLit, ConstScalar::ofFloat(-0.5)) == "0fBF000000");
  CHECK(ptxImmediate(Scalar::BF16, ConstScalar::ofFloat(1.0)) == "0x3F80");
  CHECK(ptxImmediate(Scalar::U32, ConstScalar::ofInt(0xffffffffll)) == "4294967295");
  CHECK(ptxImmediate(Scalar::I32, ConstScalar::ofInt(-3)) == "-3");
  CHECK(exactLog2(64) == 6u);
  CHECK_FALSE(exactLog2(48).has_value());
  CHECK_FALSE(exactLog2(0).has_value());
}

namespace {
// Every divisor in [3, 2000) that is not a power of two, and `extra`.
std::vector<int64_t> testDivisors(std::initializer_list<int64_t> extra) {
  std::vector<int64_t> divisors;
  for (int64_t d = 3; d < 2000; ++d)
    if (!exactLog2(d)) divisors.push_back(d);
  divisors.insert(divisors.end(), extra);
  return divisors;
}

// divide(n, d) == n / d for dividends near 0, near multiples of d and near `top`, the largest dividend (the
// error term is largest at the top of the range), plus a pseudo-random sweep (seed >> sweepShift <= top).
template <typename UInt, typename Divide>
void checkDivisionExact(const std::vector<int64_t> &divisors, UInt top, unsigned sweepShift, Divide divide) {
  uint64_t seed = 12345;
  for (int64_t d : divisors) {
    const UInt ud = static_cast<UInt>(d);
    std::vector<UInt> ns = {0, 1, UInt(ud - 1), ud, UInt(ud + 1), top, UInt(top - 1), UInt(top / ud * ud),
                            UInt(top / ud * ud - 1)};
    for (int i = 0; i < 64; ++i) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      ns.push_back(static_cast<UInt>(seed >> sweepShift));
    }
    for (UInt n : ns) {
      if (divide(n, d) != n / ud) {
        FAIL_CHECK("n=" << n << " d=" << d);
        break;
      }
    }
  }
}
} // namespace

TEST_CASE("multiply-high division constants are exact for every 31-bit dividend") {
  CHECK(divisionMagic31(3).multiplier == 0xAAAAAAABu);
  CHECK(divisionMagic31(3).shift == 1u);
  checkDivisionExact<uint32_t>(testDivisors({1000003ll, 65537ll, 0x7fffffffll, 0x40000001ll, 641ll * 6700417ll % 0x7fffffffll}),
                               0x7fffffffu, 33, [](uint32_t n, int64_t d) {
                                 DivisionMagic m = divisionMagic31(d);
                                 return static_cast<uint32_t>((static_cast<uint64_t>(n) * m.multiplier) >> 32) >> m.shift;
                               });
}

TEST_CASE("64-bit multiply-high division constants are exact for every magnitude up to 2^63") {
  __extension__ typedef unsigned __int128 U128;
  CHECK(divisionMagic63(3).multiplier == 0xAAAAAAAAAAAAAAABull);
  CHECK(divisionMagic63(3).shift == 1u);
  checkDivisionExact<uint64_t>(testDivisors({1000003ll, 65537ll, 0x7fffffffll, 0x7fffffffffffffffll, 0x4000000000000001ll,
                                             0x5555555555555555ll, 1000000007ll * 998244353ll}),
                               uint64_t{1} << 63, 1, [](uint64_t n, int64_t d) {   // 2^63 = |INT64_MIN|
                                 DivisionMagic64 m = divisionMagic63(d);
                                 return static_cast<uint64_t>((static_cast<U128>(n) * m.multiplier) >> 64) >> m.shift;
                               });
}

TEST_CASE("register storage of vectors and fragments") {
  auto bf16x8 = storageOf(ValueType::vector(Scalar::BF16, 8));
  REQUIRE(bf16x8);
  CHECK(bf16x8->cls == RegClass::B32);
  CHECK(bf16x8->regs == 4);
  CHECK(bf16x8->elemsPerReg == 2);
  auto f32x4 = storageOf(ValueType::vector(Scalar::F32, 4));
  REQUIRE(f32x4);
  CHECK((f32x4->cls == RegClass::F32 && f32x4->regs == 4 && f32x4->elemsPerReg == 1));
  CHECK(storageOf(ValueType::scalar(Scalar::BF16))->cls == RegClass::B16);
  CHECK(storageOf(ValueType::scalar(Scalar::I64))->cls == RegClass::B64);
  CHECK_FALSE(storageOf(ValueType::vector(Scalar::F8E4M3, 2)).has_value());
  auto a = storageOf(ValueType::fragment({codegen::FragKind::MmaA, Scalar::BF16, 16, 8, 16}));
  auto b = storageOf(ValueType::fragment({codegen::FragKind::MmaB, Scalar::BF16, 16, 8, 16}));
  auto c = storageOf(ValueType::fragment({codegen::FragKind::MmaC, Scalar::F32, 16, 8, 16}));
  auto h = storageOf(ValueType::fragment({codegen::FragKind::MmaC, Scalar::F16, 16, 8, 16}));
  auto a8 = storageOf(ValueType::fragment({codegen::FragKind::MmaA, Scalar::BF16, 16, 8, 8}));
  CHECK((a && a->cls == RegClass::B32 && a->regs == 4));
  CHECK((b && b->cls == RegClass::B32 && b->regs == 2));
  CHECK((c && c->cls == RegClass::F32 && c->regs == 4));
  CHECK((h && h->cls == RegClass::B32 && h->regs == 2));
  CHECK((a8 && a8->regs == 2));
  CHECK(parseValueTypeName("bf16x8") == ValueType::vector(Scalar::BF16, 8));
  CHECK_FALSE(parseValueTypeName("predx2").has_value());
  CHECK_FALSE(parseValueTypeName("f32x3").has_value());
}

TEST_CASE("generatePtx: source map points PTX lines at the CAKE statements") {
  std::string src =
      "target sm_80;\n"
      "kernel k(X: f32[N]) grid(1) threads(64) {\n"
      "  let t = i32(tid.x);\n"
      "  X[t] = ex2(X[t]);\n"
      "}\n";
  auto c = compile(src);
  REQUIRE_MESSAGE(c->cg.ok, c->messages());
  auto ls = lines(c->cg.ptx);
  REQUIRE(ls.size() == c->cg.lineRanges.size());
  bool sawEx2 = false;
  for (size_t i = 0; i < ls.size(); ++i) {
    if (ls[i].find("ex2.approx.f32") == std::string::npos) continue;
    sawEx2 = true;
    REQUIRE(c->cg.lineRanges[i].valid());
    CHECK(c->sm.lineCol(c->cg.lineRanges[i].begin).line == 4);
  }
  CHECK(sawEx2);
  CHECK(c->cg.ptx.find(".maxntid 64, 1, 1") != std::string::npos);
  // Deterministic: a second compile of the same text gives the same bytes.
  auto again = compile(src);
  CHECK(again->cg.ptx == c->cg.ptx);
  REQUIRE(c->cg.manifest.kernels.size() == 1);
  const KernelManifest &k = c->cg.manifest.kernels[0];
  CHECK(k.entry == "k");
  REQUIRE(k.abi.size() == 2);
  CHECK(k.abi[0].kind == ManifestAbiSlot::Pointer);
  CHECK(k.abi[1].kind == ManifestAbiSlot::ShapeVar);
  CHECK(k.block[0] == "64");
}

TEST_CASE("generatePtx: a remote arrive with expect_tx maps the barrier into the peer CTA") {
  auto c = compile(
      "target sm_90a;\n"
      "kernel k(X: f32[N]) grid(2) threads(128) cluster(2) {\n"
      "  mbarrier bar arrivals(1);\n"
      "  arrive bar expect_tx(16) cta(1);\n"
      "  arrive bar expect_tx(32) cta(0);\n"
      "}\n");
  REQUIRE(c->cg.ok);
  const std::string &ptx = c->cg.ptx;
  CHECK(ptx.find("mapa.shared::cluster.u32") != std::string::npos);
  size_t remote = 0;
  for (size_t at = ptx.find("mbarrier.arrive.expect_tx.shared::cluster.b64"); at != std::string::npos;
       at = ptx.find("mbarrier.arrive.expect_tx.shared::cluster.b64", at + 1))
    ++remote;
  CHECK(remote == 2);
  CHECK(ptx.find(", 16;") != std::string::npos);
  CHECK(ptx.find(", 32;") != std::string::npos);
}

TEST_CASE("generatePtx: Hopper constructs lower; TMA tensors add tensormap ABI slots") {
  auto c = compile(
      "target sm_90a;\n"
      "kernel k(A: bf16[M, K] tma(box=[64, 64], swizzle=128B) align(16), C: f32[M, K]) grid(1) threads(128) {\n"
      "  shared a: bf16[64, 64] swizzle(128B) align(1024);\n"
      "  mbarrier bar arrivals(1);\n"
      "  wgmma.fence;\n"
      "  wgmma.commit;\n"
      "  wgmma.wait 0;\n"
      "  elect {\n"
      "    arrive bar expect_tx(8192);\n"
      "    tma.load a <- A[0, 0] signal(bar);\n"
      "  }\n"
      "}\n");
  CHECK(c->cg.ok);
  CHECK(c->cg.ptx.find("wgmma.fence.sync.aligned;") != std::string::npos);
  CHECK(c->cg.ptx.find("wgmma.wait_group.sync.aligned 0;") != std::string::npos);
  CHECK(c->cg.ptx.find(".param .align 64 .b8 cake_tmap_A[128]") != std::string::npos);
  CHECK(c->cg.ptx.find("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes") != std::string::npos);
  REQUIRE(c->cg.manifest.kernels.size() == 1);
  const KernelManifest &k = c->cg.manifest.kernels[0];
  REQUIRE(k.abi.size() == 5);   // ptr A, ptr C, shape M, shape K, tensormap A
  CHECK(k.abi[4].kind == ManifestAbiSlot::TensorMap);
  CHECK(k.abi[4].index == 0);
  CHECK(k.params[0].tma);
  CHECK(k.params[0].tmaSwizzle == "128B");
  CHECK(k.params[0].tmaBox == std::vector<std::string>{"64", "64"});
  CHECK_FALSE(k.params[1].tma);
  std::string json = manifestToJson(c->cg.manifest);
  CHECK(json.find("\"tma\": {\"box\": [64, 64], \"swizzle\": \"128B\"}") != std::string::npos);
  CHECK(json.find("{\"kind\": \"tensormap\", \"param\": 0}") != std::string::npos);
}

TEST_CASE("generatePtx: operand layouts - MN-major wgmma, column blocks, a rank-4 box into a 2-D tile") {
  auto c = compile(
      "target sm_90a;\n"
      "kernel k(Q: bf16[B, H, T, 128] tma(box=[1, 1, 64, 64], swizzle=128B) align(16)) grid(1) threads(128) {\n"
      "  shared q: bf16[64, 64] swizzle(128B) align(1024);\n"
      "  shared v: bf16[64, 128] swizzle(128B) align(1024);\n"
      "  mbarrier bar arrivals(1);\n"
      "  var o: frag<wgmma_acc, f32, 64, 128, 16> = 0.0;\n"
      "  if tid.x < 32 { elect {\n"
      "    arrive bar expect_tx(16384);\n"
      "    tma.load v[:, 64 +: 64] <- Q[0, 0, 0, 64] signal(bar);\n"
      "    tma.load v[:, 0 +: 64] <- Q[0, 0, 0, 0] signal(bar);\n"
      "  } }\n"
      "  wgmma.fence;\n"
      "  wgmma o += q * v;\n"
      "  wgmma.commit;\n"
      "  wgmma.wait 0;\n"
      "}\n");
  REQUIRE(c->cg.ok);
  const std::string &ptx = c->cg.ptx;
  CHECK(ptx.find("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes") != std::string::npos);
  // v starts at 8192; its column block 1 at 8192 + 64 * 128.
  CHECK(ptx.find(", 16384;") != std::string::npos);
  // MN-major B: LBO = 64 rows * 128 bytes = 8192 (field 512 << 16), transpose-b 1; 4 instructions of K = 16.
  CHECK(ptx.find("33554432;") != std::string::npos);
  size_t count = 0;
  for (size_t at = ptx.find("wgmma.mma_async"); at != std::string::npos; at = ptx.find("wgmma.mma_async", at + 1)) {
    ++count;
    CHECK(ptx.find(", 1, 1, 0, 1;", at) == ptx.find(';', at) - 12);
  }
  CHECK(count == 4);
}

TEST_CASE("generatePtx: cp.async valid(c) is a zero-fill copy with a clamped source") {
  auto c = compile(
      "target sm_80;\n"
      "kernel k(A: bf16[M, K] align(16)) requires(K % 8 == 0) grid(1) threads(64) {\n"
      "  shared sa: bf16[8, 64] align(128);\n"
      "  let r = i32(tid.x) / 8;\n"
      "  cp.async sa[r, 0 +: 8] <- A[r, 8 +: 8] valid(r < M);\n"
      "  cp.async sa[r, 8 +: 8] <- A[r, 0 +: 8];\n"
      "  cp.async.commit;\n"
      "  cp.async.wait 0;\n"
      "}\n");
  REQUIRE(c->cg.ok);
  const std::string &ptx = c->cg.ptx;
  size_t size = ptx.find("selp.u32 ");
  REQUIRE(size != std::string::npos);
  CHECK(ptx.find(", 16, 0, %p", size) != std::string::npos);          // 16 bytes where c holds, else 0
  size_t clamp = ptx.find("selp.b64 ", size);
  REQUIRE(clamp != std::string::npos);
  size_t zfill = ptx.find("cp.async.cg.shared.global ", clamp);
  REQUIRE(zfill != std::string::npos);
  std::string line = ptx.substr(zfill, ptx.find('\n', zfill) - zfill);
  CHECK(line.find("], 16, %r") != std::string::npos);                  // the source-size operand
  size_t plain = ptx.find("cp.async.cg.shared.global ", zfill + 1);
  REQUIRE(plain != std::string::npos);
  std::string plainLine = ptx.substr(plain, ptx.find('\n', plain) - plain);
  CHECK(plainLine.find("], 16;") != std::string::npos);               // without valid: the plain form
  CHECK(ptx.find("selp", zfill) == std::string::npos);
}

TEST_CASE("generatePtx: PTX version and target per architecture") {
  CHECK(ptxVersionFor(Arch::SM80) == "8.0");
  CHECK(ptxVersionFor(Arch::SM90a) == "8.0");
  CHECK(ptxVersionFor(Arch::SM100a) == "8.6");
  CHECK(ptxVersionFor(Arch::SM120) == "8.7");
  auto c = compile("target sm_100a;\nkernel k(X: f32[N]) grid(1) threads(32) {\n  X[0] = 1.0;\n}\n");
  REQUIRE(c->cg.ok);
  CHECK(c->cg.ptx.find(".version 8.6\n.target sm_100a\n.address_size 64\n") != std::string::npos);
}

TEST_CASE("manifest JSON: fixed key order, expressions as strings or integers, escapes") {
  Manifest m;
  m.arch = "sm_80";
  m.cubin = "k.cubin";
  m.source = "dir/\"k\".cake";
  KernelManifest k;
  k.name = k.entry = "k";
  k.ctParams = {{"BM", 128}};
  ManifestParam a;
  a.name = "A";
  a.dtype = "bf16";
  a.dims = {"M", "64"};
  a.align = 16;
  ManifestParam s;
  s.name = "n";
  s.isTensor = false;
  s.dtype = "i32";
  k.params = {a, s};
  k.shapeVars = {{"M", 0, 0}};
  k.abi = {{ManifestAbiSlot::Pointer, 0, "u64"}, {ManifestAbiSlot::ShapeVar, 0, "s32"}, {ManifestAbiSlot::Scalar, 1, "s32"}};
  k.grid[0] = "cdiv(M, BM)";
  k.block[0] = "128";
  k.dynamicSmem = 4096;
  k.requires_ = {{"M % 64 == 0", "k.cake:2:3"}};
  m.kernels.push_back(k);
  std::string json = manifestToJson(m);
  CHECK(json.find("\"source\": \"dir/\\\"k\\\".cake\"") != std::string::npos);
  CHECK(json.find("{\"name\": \"A\", \"kind\": \"tensor\", \"dtype\": \"bf16\", \"dims\": [\"M\", 64], \"align\": 16}") !=
        std::string::npos);
  CHECK(json.find("{\"name\": \"n\", \"kind\": \"scalar\", \"dtype\": \"i32\"}") != std::string::npos);
  CHECK(json.find("\"launch\": {\"grid\": [\"cdiv(M, BM)\", 1, 1], \"block\": [128, 1, 1], \"dynamic_smem\": 4096}") !=
        std::string::npos);
  CHECK(json.find("\"abi\": [{\"kind\": \"ptr\", \"param\": 0}, {\"kind\": \"shape\", \"var\": \"M\"}, {\"kind\": \"scalar\", \"param\": 1}]") !=
        std::string::npos);
  CHECK(json.find("\"ct_params\": {\"BM\": 128}") != std::string::npos);
  CHECK(manifestToJson(m) == json);
}

TEST_CASE("generatePtx: atomics and reductions; a global tensor updated by an atomic is not read through .nc") {
  auto c = compile(
      "target sm_80;\n"
      "kernel k(H: u32[N], F: f32[N], C: f32[M, N]) grid(1) threads(32) {\n"
      "  shared s: i32[32];\n"
      "  let i = i32(tid.x);\n"
      "  let seen = H[i];\n"
      "  let old = atom.max(H[i], seen + 1);\n"
      "  red.add s[lane], 2;\n"
      "  red.add F[i], f32(old);\n"
      "  var acc: frag<mma_c, f32, 16, 8, 16> = 1.0;\n"
      "  red.add C[0, 0] <- acc;\n"
      "}\n");
  REQUIRE_MESSAGE(c->cg.ok, c->messages());
  const std::string &ptx = c->cg.ptx;
  CHECK(ptx.find("ld.global.nc") == std::string::npos);   // H is written by atom.max
  CHECK(ptx.find("atom.global.max.u32 ") != std::string::npos);
  CHECK(ptx.find("red.shared.add.s32 ") != std::string::npos);
  CHECK(ptx.find("red.global.add.f32 ") != std::string::npos);
  // The fragment form: one red.f32 per element (4 of an m16n8 accumulator), plus the F update.
  size_t count = 0;
  for (size_t p = ptx.find("red.global.add.f32 "); p != std::string::npos; p = ptx.find("red.global.add.f32 ", p + 1)) ++count;
  CHECK(count == 5);
  CHECK(ptx.find("red.global.add.v2") == std::string::npos);
}

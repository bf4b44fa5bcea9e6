// Unit tests of sema (src/frontend/Sema*.cpp): every sample passes with zero diagnostics; types that
// expressions and declarations get (literal adaptation, vector slices, tiles, fragments); the per-kernel
// facts in KernelInfo (launch, roles, register budgets, shared-memory layout, ct values, shape variables);
// -D and --arch handling; error recovery (one mistake, one diagnostic).  The per-code failing inputs live
// in tests/lit/diagnostics/E03xx_*.cake and E04xx_*.cake.
#include "fragment_diagnostics.h"
#include "frontend/Builtins.h"
#include "frontend/Inline.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "frontend/Types.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>

using namespace cake;

namespace {

// Parses and analyses `source`; keeps everything the typed AST points into alive.
struct Analysis {
  SourceManager sm;
  DiagnosticEngine diags = fragmentDiagnostics(sm);
  Ptr<Module> module;
  SemaResult result;
  bool parsed = false;

  std::vector<std::string> codes() const {
    std::vector<std::string> out;
    for (const Diagnostic &d : diags.diagnostics()) out.emplace_back(diagInfo(d.kind).code);
    return out;
  }
  std::string messages() const {
    std::string out;
    for (const Diagnostic &d : diags.diagnostics()) out += std::string(diagInfo(d.kind).code) + ": " + d.message + "\n";
    return out;
  }
  Kernel &kernel(size_t i = 0) { return *module->kernels.at(i); }
  const KernelInfo &info(size_t i = 0) { return *result.kernelInfo(&kernel(i)); }
  // The statement of the kernel body that declares `name` (let/var/shared...), searched recursively.
  Decl *find(const std::string &name) {
    Decl *found = nullptr;
    std::function<void(Stmt &)> walk = [&](Stmt &s) {
      if (found) return;
      switch (s.kind) {
      case StmtKind::Block: for (auto &c : cast<BlockStmt>(&s)->stmts) if (c) walk(*c); break;
      case StmtKind::Let: if (cast<LetStmt>(&s)->name == name) found = cast<LetStmt>(&s); break;
      case StmtKind::Var: if (cast<VarStmt>(&s)->name == name) found = cast<VarStmt>(&s); break;
      case StmtKind::Shared: if (cast<SharedStmt>(&s)->name == name) found = cast<SharedStmt>(&s); break;
      case StmtKind::Role: walk(*cast<RoleStmt>(&s)->body); break;
      case StmtKind::For: walk(*cast<ForStmt>(&s)->body); break;
      case StmtKind::If: walk(*cast<IfStmt>(&s)->thenBody); break;
      case StmtKind::Elect: walk(*cast<ElectStmt>(&s)->body); break;
      default: break;
      }
    };
    walk(*kernel().body);
    return found;
  }
  std::string typeOf(const std::string &name) {
    Decl *d = find(name);
    return d ? typeToString(d->type) : "<not found>";
  }
};

std::unique_ptr<Analysis> analyze(const std::string &source, SemaOptions opts = {}) {
  auto a = std::make_unique<Analysis>();
  a->module = parseModule(a->sm, a->sm.addBuffer("test.cake", source), a->diags);
  a->parsed = !a->diags.hasErrors();
  REQUIRE_MESSAGE(a->parsed, a->messages());
  REQUIRE_MESSAGE(inlineFunctions(*a->module, a->sm, a->diags), a->messages());   // as the driver does
  a->result = analyzeModule(*a->module, opts, a->diags);
  return a;
}

// The codes of the diagnostics a snippet produces.
std::vector<std::string> codesOf(const std::string &source, SemaOptions opts = {}) { return analyze(source, opts)->codes(); }

// Wraps statements in a kernel with the usual parameters.
std::string inKernel(const std::string &body, const std::string &target = "sm_90a") {
  return "target " + target + ";\nkernel k<BM = 64, S = 2>(A: bf16[M, K], X: f32[N], x: f32, n: i32) grid(M / BM) threads(128) {\n" +
         body + "\n}\n";
}

std::string readFile(const std::filesystem::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

using Codes = std::vector<std::string>;

} // namespace

TEST_CASE("sema: every sample passes with zero diagnostics") {
  std::filesystem::path dir = std::filesystem::path(CAKE_SOURCE_DIR) / "samples";
  int count = 0;
  for (const auto &entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".cake") continue;
    ++count;
    CAPTURE(entry.path().string());
    auto a = analyze(readFile(entry.path()));
    CHECK_MESSAGE(a->diags.diagnostics().empty(), a->messages());
    CHECK(a->result.ok);
  }
  CHECK(count > 0);
}

TEST_CASE("sema: untyped constants adapt to the typed operand and default to i32 / f32") {
  auto a = analyze(inKernel("let a = 3;\n let b = 5000000000;\n let c = x * 2;\n let d = n + BM;\n let e = 1.5;\n"
                            "let f = BM * 2 == 128;\n let g = x * inf;\n let h = -1.0e30;"));
  CHECK(a->codes().empty());
  CHECK(a->typeOf("a") == "i32");
  CHECK(a->typeOf("b") == "i64");
  CHECK(a->typeOf("c") == "f32");
  CHECK(a->typeOf("d") == "i32");
  CHECK(a->typeOf("e") == "f32");
  CHECK(a->typeOf("f") == "pred");
  CHECK(a->typeOf("g") == "f32");
  CHECK(a->typeOf("h") == "f32");
  // The literal inside `x * 2` became f32 too (codegen sees concrete types everywhere).
  auto *c = static_cast<LetStmt *>(a->find("c"));
  auto *mul = cast<BinaryExpr>(c->init.get());
  CHECK(typeToString(mul->rhs->type) == "f32");
}

TEST_CASE("sema: loads, vector slices, tiles, register arrays and fragments") {
  auto a = analyze(inKernel(
      "shared s: bf16[S][BM, 64];\n"
      "let e = A[0, 0];\n let v = A[0, 8 +: 8];\n let t = s[1];\n let w = s[1][2, 0 +: 8];\n"
      "var r: f32[4][8];\n let r0 = r[1];\n let r1 = r[1][2];\n"
      "var acc: frag<wgmma_acc, f32, 64, 128, 16> = 0.0;\n let a0 = acc[3];\n"
      "let cv = f32x8(v);\n let p = bf16x2(x, x);\n let bt = tid.x;\n let l = lane;"));
  CHECK_MESSAGE(a->codes().empty(), a->messages());
  CHECK(a->typeOf("e") == "bf16");
  CHECK(a->typeOf("v") == "bf16x8");
  CHECK(a->typeOf("t") == "bf16[BM, 64] (shared)");
  CHECK(a->typeOf("s") == "bf16[S][BM, 64] (shared)");
  CHECK(a->typeOf("w") == "bf16x8");
  CHECK(a->typeOf("r0") == "f32[8] (register)");
  CHECK(a->typeOf("r1") == "f32");
  CHECK(a->typeOf("acc") == "frag<wgmma_acc, f32, 64, 128, 16>");
  CHECK(a->typeOf("a0") == "f32");
  CHECK(a->typeOf("cv") == "f32x8");
  CHECK(a->typeOf("p") == "bf16x2");
  CHECK(a->typeOf("bt") == "u32");
  CHECK(a->typeOf("l") == "i32");
  const Type *st = a->find("s")->type;
  REQUIRE(st->isTensor());
  CHECK(st->space == AddressSpace::Shared);
  CHECK(st->groups.size() == 2);
  CHECK(st->groups[1][0].value == 64);
  CHECK(st->sizeInBytes() == 2 * 64 * 64 * 2);
  CHECK(a->find("acc")->type->fragRegistersPerThread() == 64);
}

TEST_CASE("sema: kernel facts of the Hopper sample") {
  auto a = analyze(readFile(std::filesystem::path(CAKE_SOURCE_DIR) / "samples/hopper_gemm.cake"));
  REQUIRE(a->codes().empty());
  const KernelInfo &info = a->info();
  CHECK(info.threads == 384);
  CHECK(info.warps() == 12);
  CHECK(info.grid.size() == 2);
  CHECK(info.ctValues.at("BM") == 128);
  CHECK(info.ctValues.at("S") == 4);
  REQUIRE(info.roles.size() == 2);
  CHECK(info.roles[0].name == "load");
  CHECK(info.roles[0].firstWarp == 0);
  CHECK(info.roles[0].endWarp == 4);
  CHECK(info.roles[0].regs == 40);
  CHECK(info.roles[1].name == "math");
  CHECK(info.roles[1].instances == 2);
  CHECK(info.roles[1].firstWarp == 4);
  CHECK(info.roles[1].endWarp == 12);
  CHECK(info.roles[1].warpsPerInstance() == 4);
  CHECK(info.roles[1].warpgroupAligned());
  CHECK(info.roles[1].regs == 232);
  REQUIRE(info.shared.size() == 2);
  CHECK(info.shared[0].offset == 0);
  CHECK(info.shared[0].bytes == 4 * 128 * 64 * 2);
  CHECK(info.shared[0].swizzleBytes == 128);
  CHECK(info.shared[0].alignment == 1024);
  CHECK(info.shared[1].offset == 65536);
  REQUIRE(info.mbarriers.size() == 2);
  CHECK(info.mbarriers[0].count == 4);
  CHECK(info.mbarriers[1].arrivals == 8);
  CHECK(info.mbarriers[0].offset == 196608);
  CHECK(info.sharedBytes == 196608 + 64);
  CHECK(info.sharedAlignment == 1024);
  CHECK(info.usesWgmma);
  REQUIRE(a->kernel().shapeVars.size() == 3);
  CHECK(a->kernel().shapeVars[0]->name == "M");
  CHECK(a->kernel().shapeVars[1]->name == "K");
  CHECK(a->kernel().shapeVars[2]->name == "N");
  const TensorParamInfo *ta = info.tensorParamOf(a->kernel().params[0].get());
  REQUIRE(ta);
  CHECK(ta->tma);
  CHECK(ta->box == std::vector<int64_t>{128, 64});
  CHECK(ta->swizzleBytes == 128);
  CHECK(ta->alignment == 16);
}

TEST_CASE("sema: -D overrides compile-time parameters; unknown defines are E0323") {
  SemaOptions opts;
  opts.defines["S"] = 3;
  auto a = analyze(readFile(std::filesystem::path(CAKE_SOURCE_DIR) / "samples/hopper_gemm.cake"), opts);
  CHECK(a->codes().empty());
  CHECK(a->info().ctValues.at("S") == 3);
  CHECK(a->info().shared[1].offset == 3 * 128 * 64 * 2);

  opts.defines["BKK"] = 32;
  auto b = analyze(readFile(std::filesystem::path(CAKE_SOURCE_DIR) / "samples/hopper_gemm.cake"), opts);
  CHECK(b->codes() == Codes{"E0323"});
  REQUIRE(!b->diags.diagnostics().empty());
  CHECK(b->diags.diagnostics()[0].hint == "did you mean -D BK=32?");

  // A define that makes the shared memory too large is caught by the layout check.
  SemaOptions big;
  big.defines["S"] = 8;
  CHECK(codesOf(readFile(std::filesystem::path(CAKE_SOURCE_DIR) / "samples/hopper_gemm.cake"), big) == Codes{"E0414"});
}

TEST_CASE("sema: --arch overrides the target and gates features") {
  SemaOptions opts;
  opts.archOverride = Arch::SM90;
  auto a = analyze(readFile(std::filesystem::path(CAKE_SOURCE_DIR) / "samples/hopper_gemm.cake"), opts);
  CHECK(a->result.arch == Arch::SM90);
  bool sawWgmma = false, sawRegs = false;
  for (const Diagnostic &d : a->diags.diagnostics()) {
    CHECK(std::string(diagInfo(d.kind).code) == "E0402");
    if (d.message == "'wgmma' is not available on sm_90: it requires sm_90a only") sawWgmma = true;
    if (d.message == "'regs' (setmaxnreg) is not available on sm_90: it requires sm_90a or sm_100a") sawRegs = true;
  }
  CHECK(sawWgmma);
  CHECK(sawRegs);
}

TEST_CASE("sema: one mistake gives one diagnostic (error types suppress cascades)") {
  CHECK(codesOf(inKernel("let a = nope + 1;\n let b = a * 2;\n let c = b + x;\n var v: f32 = c;")) == Codes{"E0301"});
  CHECK(codesOf(inKernel("let t = A[0];\n let u = t + 1;")) == Codes{"E0306"});
  CHECK(codesOf(inKernel("var w: bogus = 0;\n w = w + 1;")) == Codes{"E0303"});
  // Independent mistakes are all reported.
  CHECK(codesOf(inKernel("let a = nope;\n let b = x + n;\n if n { }")) == Codes{"E0301", "E0304", "E0311"});
}

TEST_CASE("sema: did-you-mean suggestions come with fix-its") {
  auto a = analyze(inKernel("var accum: f32 = 0.0;\n acum += 1.0;"));
  REQUIRE(a->codes() == Codes{"E0301"});
  const Diagnostic &d = a->diags.diagnostics()[0];
  CHECK(d.hint == "did you mean 'accum'?");
  REQUIRE(d.fixits.size() == 1);
  CHECK(d.fixits[0].replacement == "accum");

  auto b = analyze(inKernel("let y = tid.w;"));
  REQUIRE(b->codes() == Codes{"E0317"});
  CHECK(b->diags.diagnostics()[0].hint.find("tid.x") != std::string::npos);
}

TEST_CASE("sema: operations") {
  std::string tma = "target sm_90a;\nkernel k<BM = 64>(A: bf16[M, K] tma(box=[BM, 64], swizzle=128B)) grid(M / BM) threads(128) {\n"
                    "shared a: bf16[2][BM, 64] swizzle(128B);\n mbarrier full[2] arrivals(1);\n";
  CHECK(codesOf(tma + "tma.load a[0] <- A[0, 0] signal(full[0]);\n}\n").empty());
  CHECK(codesOf(tma + "tma.load a[0] <- A[0, 0] signal(full[0]) multicast(3);\n}\n") == Codes{"E0319"});
  CHECK(codesOf(tma + "tma.load a <- A[0, 0] signal(full[0]);\n}\n") == Codes{"E0319"});
  CHECK(codesOf(tma + "tma.load a[0] <- A[0, 0] signal(full[0]) signal(full[1]);\n}\n") == Codes{"E0411"});
  CHECK(codesOf(tma + "arrive full[0] expect_tx(BM * 64 * 2);\n wait full[1] parity(0);\n}\n").empty());

  std::string mma = inKernel("var acc: frag<mma_c, f32, 16, 8, 16>[2] = 0.0;\n var af: frag<mma_a, bf16, 16, 8, 16>;\n"
                             "var bf: frag<mma_b, bf16, 16, 8, 16>[2];\n var bk8: frag<mma_b, bf16, 16, 8, 8>;\n"
                             "shared s: bf16[64, 64];\n shared o: f32[64, 64];\n");
  auto with = [&](const std::string &stmt) { return codesOf(mma.substr(0, mma.size() - 2) + stmt + "\n}\n"); };
  CHECK(with("mma.sync acc[0] += af * bf[1];").empty());
  CHECK(with("mma.sync acc[0] += bf[1] * af;") == Codes{"E0319", "E0319"});
  CHECK(with("mma.sync acc[0] += af * bk8;") == Codes{"E0326"});
  CHECK(with("ldmatrix af <- s[lane % 16, 0 +: 8];").empty());
  CHECK(with("ldmatrix.trans bf[0], bf[1] <- s[lane % 16, 0 +: 8];").empty());
  CHECK(with("ldmatrix af, bf[0] <- s[0, 0 +: 8];") == Codes{"E0326"});   // 6 registers: no x6
  CHECK(with("store o[0, 0] <- acc[1];").empty());
  CHECK(with("store A[0, 0] <- acc[1];") == Codes{"E0304"});
  CHECK(with("store A[0, 0] <- bf16(acc[1]);").empty());
  CHECK(with("cp.async s[0, 0 +: 8] <- A[0, 0 +: 8];").empty());
  CHECK(with("cp.async.wait 1;\n cp.async.commit;").empty());
  // zero-filling copies: valid(c) takes one pred, only on cp.async
  CHECK(with("cp.async s[0, 0 +: 8] <- A[lane, 0 +: 8] valid(lane < M);").empty());
  CHECK(with("cp.async s[0, 0 +: 8] <- A[lane, 0 +: 8] valid(M - lane);") == Codes{"E0311"});
  CHECK(with("cp.async s[0, 0 +: 8] <- A[lane, 0 +: 8] valid(lane < M) valid(true);") == Codes{"E0411"});
  CHECK(with("cp.async s[0, 0 +: 8] <- A[lane, 0 +: 8] valid();") == Codes{"E0325"});
  CHECK(with("ldmatrix af <- s[lane % 16, 0 +: 8] valid(true);") == Codes{"E0321"});
  CHECK(with("let valid = 1;") == Codes{"E0302"});   // a clause name, reserved like signal / parity
}

TEST_CASE("sema: wgmma operands") {
  std::string k = "target sm_90a;\nkernel k<BN = 128>(A: bf16[M, K]) grid(M) threads(256) {\n"
                  "shared a: bf16[2][128, 64] swizzle(128B);\n shared b: bf16[2][BN, 64] swizzle(128B);\n"
                  "shared bmn: bf16[64, BN];\n role math[2] = warpgroups(0..2) {\n"
                  "var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;\n";
  auto with = [&](const std::string &stmt) { return codesOf(k + stmt + "\n}\n}\n"); };
  CHECK(with("wgmma acc += a[0][64 * math.index +: 64, :] * b[0].T;").empty());
  CHECK(with("wgmma acc += a[0][0 +: 64, :] * bmn;").empty());
  CHECK(with("wgmma acc += a[0] * b[0].T;") == Codes{"E0326"});           // A has 128 rows
  CHECK(with("wgmma acc += a[0][0 +: 64, :] * b[0];") == Codes{"E0326"});  // B is [128, 64]: K mismatch
  CHECK(with("let t = b[0].T;") == Codes{"E0317"});                        // .T only on wgmma operands
  CHECK(codesOf("target sm_90a;\nkernel k(A: bf16[M, K]) grid(M) threads(256) {\n role w = warps(1..5) {\n wgmma.fence;\n }\n}\n") ==
        Codes{"E0404"});
}

TEST_CASE("sema: roles and ROLE members") {
  CHECK(codesOf(inKernel("role p = warp(0) {\n let i = p.index + p.warp + p.thread;\n }\n role q = warps(1..4) { }")).empty());
  CHECK(codesOf(inKernel("role p = warp(0) { }\n role q = warps(0..2) { }")) == Codes{"E0403"});
  CHECK(codesOf(inKernel("role p = warps(0..5) { }")) == Codes{"E0405"});
  CHECK(codesOf(inKernel("role p = warp(0) {\n elect {\n elect { }\n }\n }")) == Codes{"E0412"});
}

TEST_CASE("sema: builtins are classified for later stages") {
  auto a = analyze(inKernel("let t = tid.y;\n let l = lane;\n role p = warp(0) {\n let i = p.thread;\n }"));
  REQUIRE(a->codes().empty());
  auto *t = static_cast<LetStmt *>(a->find("t"));
  auto *l = static_cast<LetStmt *>(a->find("l"));
  auto *i = static_cast<LetStmt *>(a->find("i"));
  CHECK(builtinValueOf(*t->init) == BuiltinValue::TidY);
  CHECK(builtinValueOf(*l->init) == BuiltinValue::Lane);
  CHECK(builtinValueOf(*i->init) == BuiltinValue::RoleThread);
}

TEST_CASE("sema: compile-time evaluation errors") {
  CHECK(codesOf("target sm_80;\nkernel k<A = 4, B = (A - 4)>(X: f32[N]) grid(N) threads(A / B) { }\n") == Codes{"E0324"});
  CHECK(codesOf("target sm_80;\nkernel k<A = 9223372036854775807>(X: f32[N]) grid(N) threads(32) {\n shared s: f32[A + 1];\n}\n") ==
        Codes{"E0327"});
  CHECK(codesOf("target sm_80;\nkernel k<A = 32, B = (A * 2)>(X: f32[N]) grid(N) threads(B) { }\n").empty());
  CHECK(codesOf("target sm_80;\nkernel k<A = B>(X: f32[N]) grid(N) threads(32) { }\n") == Codes{"E0301"});
}

TEST_CASE("sema: atomics type as the element, return the old value; red statements; ordered encoding") {
  auto a = analyze(inKernel(
      "shared h: u32[32];\n"
      "let i = i32(tid.x);\n"
      "let o = atom.add(X[i], 1.0);\n let c = atom.cas(h[i % 32], 0, 1);\n let u = ordered(x);\n let f = unordered(u);\n"
      "let p = atom.add(A[0, 2 * i +: 2], bf16x2(x, x));\n"
      "red.add h[0], 1;\n red.max h[1], ordered(x);\n"
      "var acc: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;\n red.add X[0] <- acc;"));
  // The only error: the fragment form needs a rank-2 destination.
  CHECK(a->codes() == Codes{"E0343"});
  CHECK(a->typeOf("o") == "f32");
  CHECK(a->typeOf("c") == "u32");
  CHECK(a->typeOf("u") == "u32");
  CHECK(a->typeOf("f") == "f32");
  CHECK(a->typeOf("p") == "bf16x2");
  CHECK(codesOf(inKernel("let m = atom.max(X[0], 1.0);")) == Codes{"E0340"});
  CHECK(codesOf(inKernel("let m = atom.add(A[0, 0 +: 2], bf16x2(x, x));", "sm_80")) == Codes{"E0341"});
  CHECK(codesOf(inKernel("var v: f32 = 0.0;\nred.add v, 1.0;")) == Codes{"E0342"});
  CHECK(codesOf(inKernel("let m = atom.add(X[0], n);")) == Codes{"E0304"});
}

TEST_CASE("sema: type parameters are resolved from the default and -D, then substituted before typing") {
  const std::string source = R"(target sm_90a;
kernel k<T: type = bf16, U: type = T, BK = (128 / sizeof(T)), BN = 64>(A: T[M, BK], C: U[M, N])
  requires(BK * sizeof(T) == 128) grid(1) threads(128) {
  shared a: T[2][64, BK] swizzle(128B) align(1024);
  var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
  var af: frag<wgmma_a, T, 64, BN, 16>;
  let x: U = U(acc[0]);
  let bytes = BN * sizeof(U);
  store C[0, 0] <- T(acc);
}
)";
  auto a = analyze(source);
  REQUIRE_MESSAGE(a->codes().empty(), a->messages());
  Kernel &k = a->kernel();
  CHECK(k.ctParams[0]->isType);
  CHECK(k.ctParams[0]->typeValue == "bf16");
  CHECK(k.ctParams[1]->typeValue == "bf16");   // U = T follows T
  CHECK_FALSE(k.ctParams[2]->isType);
  CHECK(a->info().ctValues.at("BK") == 64);     // 128 / sizeof(bf16)
  CHECK(a->info().ctTypes.at("T") == "bf16");
  CHECK(typeToString(k.params[0]->type) == "bf16[M, BK] (global)");
  CHECK(a->typeOf("a") == "bf16[2][64, BK] (shared)");
  CHECK(a->typeOf("af") == "frag<wgmma_a, bf16, 64, 64, 16>");
  CHECK(a->typeOf("x") == "bf16");
  // sizeof(U) became a literal (keeping the call's range); the conversion's callee is the resolved type.
  auto *bytes = static_cast<LetStmt *>(a->find("bytes"));
  auto *mul = dynCast<BinaryExpr>(bytes->init.get());
  REQUIRE(mul);
  auto *size = dynCast<IntLitExpr>(mul->rhs.get());
  REQUIRE(size);
  CHECK(size->value == 2);
  auto *x = static_cast<LetStmt *>(a->find("x"));
  CHECK(cast<CallExpr>(x->init.get())->callee == "bf16");

  // -D T=f16 reaches T, and U through its default; BK follows sizeof(T).
  SemaOptions f16;
  f16.typeDefines["T"] = "f16";
  auto b = analyze(source, f16);
  REQUIRE_MESSAGE(b->codes().empty(), b->messages());
  CHECK(b->kernel().ctParams[1]->typeValue == "f16");
  CHECK(typeToString(b->kernel().params[1]->type) == "f16[M, N] (global)");
  CHECK(b->typeOf("af") == "frag<wgmma_a, f16, 64, 64, 16>");

  // -D T=f32: BK = 32, and wgmma_a rejects f32 at the fragment (the type is checked where it is used).
  SemaOptions f32;
  f32.typeDefines["T"] = "f32";
  f32.typeDefines["U"] = "f32";
  auto c = analyze(source, f32);
  CHECK(c->info().ctValues.at("BK") == 32);
  CHECK(c->codes() == Codes{"E0314"});

  // Wrong kinds of -D value, each once, at the parameter.
  SemaOptions bad;
  bad.defines["T"] = 16;
  bad.typeDefines["BN"] = "f16";
  bad.typeDefines["U"] = "bf16x2";
  CHECK(codesOf("target sm_90a;\nkernel k<T: type = bf16, U: type = T, BN = 64>(A: T[M, BN], C: U[M, N]) "
                "grid(1) threads(128) { }\n",
                bad) == Codes{"E0370", "E0370", "E0371"});

  // An f8 type below sm_89 is E0402 where it is used.
  SemaOptions f8;
  f8.typeDefines["T"] = "f8e4m3";
  f8.archOverride = Arch::SM80;
  auto e = analyze("target sm_80;\nkernel k<T: type = f16>(X: T[N]) grid(1) threads(32) { }\n", f8);
  CHECK(e->codes() == Codes{"E0402"});
}

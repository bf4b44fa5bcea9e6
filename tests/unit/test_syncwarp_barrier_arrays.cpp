// Unit tests of syncwarp and named barrier arrays: sema facts (ids, counts, types), their lowering
// (bar.warp.sync, bar.sync with an immediate or register id), the warp-barrier and named-barrier verifier
// families (WarpSync.cpp, NamedBarriers.cpp), the syncwarp ordering in the shared-memory race check, and
// code generation's one-diagnostic-per-construct reporting.
#include "fragment_diagnostics.h"
#include "verify_local_helpers.h"

#include "codegen/CodeGen.h"
#include "frontend/ASTPrinter.h"

using namespace cake;
using namespace cake::verifytest;

namespace {

struct Lowered {
  SourceManager sm;
  DiagnosticEngine diags = fragmentDiagnostics(sm);
  Ptr<Module> module;
  SemaResult sema;
  CodegenResult cg;
  std::vector<std::string> codes() const {
    std::vector<std::string> out;
    for (const Diagnostic &d : diags.diagnostics()) out.emplace_back(diagInfo(d.kind).code);
    return out;
  }
};

std::unique_ptr<Lowered> lower(const std::string &source) {
  auto c = std::make_unique<Lowered>();
  uint32_t file = c->sm.addBuffer("t.cake", source);
  c->module = parseModule(c->sm, file, c->diags);
  REQUIRE(!c->diags.hasErrors());
  c->sema = analyzeModule(*c->module, SemaOptions{}, c->diags);
  REQUIRE(c->sema.ok);
  c->cg = generatePtx(*c->module, c->sema, c->sema.arch, c->diags);
  return c;
}

size_t countOf(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

const std::string kRoleArray =
    "target sm_80;\n"
    "kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(256) {\n"
    "  barrier epi[2] id(3) threads(128);\n"
    "  role math[2] = warps(0..8) {\n"
    "    sync epi[math.index];\n"
    "    if math.index == 1 { arrive epi[1]; }\n"
    "  }\n"
    "}\n";

} // namespace

TEST_CASE("sema: a named barrier array records its first id and count; its type prints with the count") {
  SourceManager sm;
  DiagnosticEngine diags = fragmentDiagnostics(sm);
  uint32_t file = sm.addBuffer("t.cake", kRoleArray);
  Ptr<Module> m = parseModule(sm, file, diags);
  REQUIRE(!diags.hasErrors());
  SemaResult sema = analyzeModule(*m, SemaOptions{}, diags);
  REQUIRE(sema.ok);
  const KernelInfo *info = sema.kernelInfo(m->kernels[0].get());
  REQUIRE(info);
  REQUIRE(info->namedBarriers.size() == 1);
  CHECK(info->namedBarriers[0].id == 3);
  CHECK(info->namedBarriers[0].count == 2);
  CHECK(info->namedBarriers[0].isArray);
  CHECK(info->namedBarriers[0].threads == 128);
  CHECK(typeToString(info->namedBarriers[0].decl->type) == "named barrier[2]");
}

TEST_CASE("sema: barrier arrays past id 15, overlapping ids, a bare array operand, a zero syncwarp mask") {
  auto codesOf = [](const std::string &body) {
    SourceManager sm;
    DiagnosticEngine diags = fragmentDiagnostics(sm);
    uint32_t file = sm.addBuffer("t.cake", "target sm_80;\nkernel k(X: f32[N]) requires(N >= 1) grid(1) threads(256) {\n" +
                                               body + "\n}\n");
    Ptr<Module> m = parseModule(sm, file, diags);
    REQUIRE(!diags.hasErrors());
    analyzeModule(*m, SemaOptions{}, diags);
    std::vector<std::string> out;
    for (const Diagnostic &d : diags.diagnostics()) out.emplace_back(diagInfo(d.kind).code);
    return out;
  };
  CHECK(codesOf("barrier a[3] id(14) threads(64);") == std::vector<std::string>{"E0351"});
  CHECK(codesOf("barrier a[0] id(1) threads(64);") == std::vector<std::string>{"E0351"});
  CHECK(codesOf("barrier a id(2) threads(64);\n barrier b[2] id(1) threads(64);") == std::vector<std::string>{"E0351"});
  CHECK(codesOf("barrier b[2] id(1) threads(64);\n barrier a id(2) threads(64);") == std::vector<std::string>{"E0316"});
  CHECK(codesOf("barrier b[2] id(1) threads(64);\n sync b;") == std::vector<std::string>{"E0352"});
  CHECK(codesOf("syncwarp(0);") == std::vector<std::string>{"E0350"});
  CHECK(codesOf("syncwarp(0x1ffffffff);") == std::vector<std::string>{"E0350"});
  CHECK(codesOf("syncwarp; syncwarp(0xffffffff);").empty());
}

TEST_CASE("printer: syncwarp(MASK) and barrier arrays round-trip") {
  std::string src = "target sm_80;\nkernel k(X: f32[N]) requires(N >= 1) grid(1) threads(256) {\n"
                    "  barrier epi[2] id(1) threads(128);\n  syncwarp;\n  syncwarp(0x0000ffff);\n}\n";
  SourceManager sm;
  DiagnosticEngine diags = fragmentDiagnostics(sm);
  Ptr<Module> m = parseModule(sm, sm.addBuffer("t.cake", src), diags);
  REQUIRE(!diags.hasErrors());
  std::string printed = printModule(*m);
  CHECK(printed.find("barrier epi[2] id(1) threads(128);") != std::string::npos);
  CHECK(printed.find("syncwarp;") != std::string::npos);
  CHECK(printed.find("syncwarp(0x0000ffff);") != std::string::npos);
  Ptr<Module> again = parseModule(sm, sm.addBuffer("t2.cake", printed), diags);
  REQUIRE(!diags.hasErrors());
  CHECK(printModule(*again) == printed);
}

TEST_CASE("lowering: syncwarp is bar.warp.sync; a barrier array element is bar.sync with id + index") {
  auto c = lower("target sm_80;\nkernel k(X: f32[N]) requires(N >= 1) grid(1) threads(32) {\n"
                 "  syncwarp;\n  syncwarp(0x0000ffff);\n}\n");
  REQUIRE(c->cg.ok);
  CHECK(c->cg.ptx.find("bar.warp.sync 0xffffffff;") != std::string::npos);
  CHECK(c->cg.ptx.find("bar.warp.sync 0x0000ffff;") != std::string::npos);

  auto a = lower(kRoleArray);
  REQUIRE(a->cg.ok);
  CHECK(a->cg.ptx.find("bar.arrive 4, 128;") != std::string::npos);   // constant index: immediate id 3 + 1
  // math.index is computed from the warp: the id is a register, 3 + index.
  CHECK(a->cg.ptx.find(", 3;") != std::string::npos);
  CHECK(countOf(a->cg.ptx, "bar.sync %r") == 1);
}

TEST_CASE("verifier: per-instance barriers verify; each instance's count is checked on its own") {
  auto ok = verifySource(kRoleArray);
  CHECK_MESSAGE(ok->codes().empty(), ok->messages());
  // One instance per barrier but threads(256): each barrier is reached by 128 threads only.
  std::string wrong = kRoleArray;
  wrong.replace(wrong.find("threads(128)"), 12, "threads(256)");
  wrong.replace(wrong.find("    if math.index == 1 { arrive epi[1]; }\n"), 43, "");
  auto bad = verifySource(wrong);
  CHECK(bad->has("E0640"));
  // The same role array on one plain barrier: the instances collide (E0641) and the hint names the array form.
  auto shared = verifySource("target sm_80;\nkernel k(X: f32[N]) requires(N >= 1) grid(1) threads(256) {\n"
                             "  barrier epi id(1) threads(128);\n  role math[2] = warps(0..8) {\n    sync epi;\n  }\n}\n");
  REQUIRE(shared->has("E0641"));
  CHECK(shared->first("E0641")->hint.find("sync epi[math.index]") != std::string::npos);
}

TEST_CASE("verifier: barrier array index out of range, lane-dependent, unknown") {
  auto src = [](const std::string &index, const std::string &params = "") {
    return "target sm_80;\nkernel k(X: f32[N]" + params + ") requires(N >= 1) grid(1) threads(256) {\n"
           "  barrier epi[2] id(1) threads(128);\n  role math[2] = warps(0..8) {\n    sync epi[" + index + "];\n  }\n}\n";
  };
  CHECK(verifySource(src("math.index + 1"))->has("E0668"));
  CHECK(verifySource(src("lane % 2"))->has("E0353"));
  CHECK(verifySource(src("s", ", s: i32"))->has("E0669"));
  CHECK(verifySource(src("(math.warp / 4) + math.index"))->codes().empty());
}

TEST_CASE("verifier: syncwarp lanes against the mask") {
  auto k = [](const std::string &body) {
    return "target sm_80;\nkernel k(X: f32[N]) requires(N >= 1) grid(1) threads(64) {\n" + body + "\n}\n";
  };
  CHECK(verifySource(k("syncwarp;"))->codes().empty());
  CHECK(verifySource(k("if lane < 16 { syncwarp(0x0000ffff); }"))->codes().empty());
  CHECK(verifySource(k("if tid.x >= 0 { syncwarp; }"))->codes().empty());    // lane-varying, but every lane takes it
  CHECK(verifySource(k("elect { syncwarp(1); }"))->codes().empty());
  CHECK(verifySource(k("if lane < 16 { syncwarp; }"))->has("E0665"));
  CHECK(verifySource(k("elect { syncwarp; }"))->has("E0665"));
  CHECK(verifySource(k("syncwarp(0x0000ffff);"))->has("E0666"));
  CHECK(verifySource(k("if lane < 8 { syncwarp(0x0000ffff); }"))->has("E0667"));
  CHECK(verifySource(k("if lane < 16 && warp == 1 { syncwarp(0x0000ffff); }"))->codes().empty());
}

TEST_CASE("races: lanes of one warp are ordered by syncwarp, not without it") {
  auto k = [](const std::string &between) {
    return "target sm_80;\nkernel k(X: f32[N], Y: f32[N]) requires(N == 64) grid(1) threads(64) {\n"
           "  shared buf: f32[64];\n  buf[i32(tid.x)] = X[i32(tid.x)];\n" + between +
           "\n  Y[i32(tid.x)] = buf[warp * 32 + (lane + 1) % 32];\n}\n";
  };
  auto racy = verifySource(k(""));
  REQUIRE(racy->has("E0655"));
  CHECK(racy->first("E0655")->hint.find("syncwarp") != std::string::npos);
  CHECK(verifySource(k("  syncwarp;"))->codes().empty());
  // A partial mask orders nothing for the race check (and is E0666 here).
  CHECK(verifySource(k("  syncwarp(0x0000ffff);"))->has("E0655"));
  // Reading another warp's element still needs a block barrier.
  auto crossWarp = verifySource("target sm_80;\nkernel k(X: f32[N], Y: f32[N]) requires(N == 64) grid(1) threads(64) {\n"
                                "  shared buf: f32[64];\n  buf[i32(tid.x)] = X[i32(tid.x)];\n  syncwarp;\n"
                                "  Y[i32(tid.x)] = buf[(i32(tid.x) + 32) % 64];\n}\n");
  CHECK(crossWarp->has("E0655"));
}

TEST_CASE("codegen: one diagnostic per source construct across unrolled copies") {
  // A scalar f8 conversion has no lowering; in a loop unrolled 8 times it is still reported once.
  auto c = lower("target sm_89;\nkernel k(X: f32[N], Y: f32[N]) requires(N >= 8) grid(1) threads(32) {\n"
                 "  for i in 0..8 unroll {\n    Y[i] = f32(f8e4m3(X[i]));\n  }\n}\n");
  CHECK_FALSE(c->cg.ok);
  CHECK(c->codes() == std::vector<std::string>{"E0707"});
}

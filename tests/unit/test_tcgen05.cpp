// Unit tests of the Blackwell tensor-memory path: the tcgen05 encodings cakec computes (instruction
// descriptor, SM100 shared-memory descriptor high word; both checked bit by bit against the PTX ISA layout),
// sema's tmem declarations (columns allocated, the 4-byte address slot, arch gate, diagnostics) and the
// lowering of a small kernel (column count, lane quarter, no Hopper instructions).  The PTX of every form is
// checked by tests/lit/codegen/blackwell_tcgen05.cake, ptxas and nvdisasm by tests/python/test_blackwell_sass.py.
#include "codegen/CodeGen.h"
#include "codegen/KernelLowering.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace cake;

namespace {

struct Run {
  SourceManager sm;
  DiagnosticEngine diags{sm, 0};
  Ptr<Module> module;
  SemaResult sema;
  CodegenResult cg;
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
};

std::unique_ptr<Run> run(const std::string &source, bool lower) {
  auto r = std::make_unique<Run>();
  r->module = parseModule(r->sm, r->sm.addBuffer("t.cake", source), r->diags);
  REQUIRE_MESSAGE(!r->diags.hasErrors(), r->messages());
  r->sema = analyzeModule(*r->module, SemaOptions{}, r->diags);
  if (lower && r->sema.ok) r->cg = generatePtx(*r->module, r->sema, r->sema.arch, r->diags);
  return r;
}

std::string kernel(const std::string &decls, const std::string &body, const std::string &target = "sm_100a") {
  return "target " + target + ";\nkernel k(C: f32[M, N] align(16)) grid(1) threads(128) {\n" + decls + "\n" + body + "\n}\n";
}

} // namespace

TEST_CASE("tcgen05: instruction descriptor of kind::f16 (PTX ISA bit layout)") {
  using codegen::tcgen05InstrDescriptorF16;
  const uint32_t d = tcgen05InstrDescriptorF16(codegen::Scalar::BF16, 128, 256);
  CHECK(d == 0x08400490u);
  CHECK(((d >> 4) & 3) == 1);       // D format f32
  CHECK(((d >> 7) & 7) == 1);       // A bf16
  CHECK(((d >> 10) & 7) == 1);      // B bf16
  CHECK(((d >> 15) & 3) == 0);      // K-major A and B
  CHECK(((d >> 17) & 63) == 256 / 8);
  CHECK(((d >> 24) & 31) == 128 / 16);
  CHECK((d & 0xf) == 0);            // dense, no saturation
  const uint32_t h = tcgen05InstrDescriptorF16(codegen::Scalar::F16, 128, 64);
  CHECK(h == ((1u << 4) | (8u << 17) | (8u << 24)));
}

TEST_CASE("tcgen05: the SM100 shared-memory descriptor adds the version bit to the wgmma layout") {
  using codegen::tcgen05DescriptorHiWord;
  // 128B K-major: SBO 1024 >> 4 = 64, wgmma mode 1 in bits 62-63 = layout type 2 in bits 61-63.
  const uint32_t hi = tcgen05DescriptorHiWord(0x40000040u);
  CHECK(hi == 0x40004040u);
  CHECK(((hi >> 14) & 3) == 1);           // bits 46-47: version 1
  CHECK(((hi >> 29) & 7) == 2);           // bits 61-63: SWIZZLE_128B
  CHECK(((tcgen05DescriptorHiWord(2u << 30) >> 29) & 7) == 4);   // 64B
  CHECK(((tcgen05DescriptorHiWord(3u << 30) >> 29) & 7) == 6);   // 32B
}

TEST_CASE("tcgen05: tmem declarations allocate a power of two of columns and own a 4-byte slot") {
  auto r = run(kernel("tmem a: f32[2][128, 256];\ntmem b: f32[128, 40];\ntmem c: bf16[128, 64];\ntmem d: i32[128, 8];", ""), false);
  REQUIRE_MESSAGE(r->sema.ok, r->messages());
  const KernelInfo *info = r->sema.kernelInfo(r->module->kernels[0].get());
  REQUIRE(info);
  std::vector<int64_t> cols;
  for (const SharedAllocation &s : info->shared) {
    CHECK(s.bytes == 4);
    cols.push_back(s.tmemColumns);
  }
  CHECK(cols == std::vector<int64_t>{512, 64, 32, 32});
}

TEST_CASE("tcgen05: sema refuses what the hardware cannot do") {
  using Codes = std::vector<std::string>;
  const std::string use = "if warp == 0 { tcgen05.alloc a; }";
  CHECK(run(kernel("tmem a: f32[128, 32];", use), false)->codes().empty());
  const Codes onHopper = run(kernel("tmem a: f32[128, 32];", use, "sm_90a"), false)->codes();
  CHECK(!onHopper.empty());
  CHECK(std::all_of(onHopper.begin(), onHopper.end(), [](const std::string &c) { return c == "E0402"; }));   // tmem, tcgen05.alloc
  CHECK(run(kernel("tmem a: f32[4][128, 256];", ""), false)->codes() == Codes{"E0380"});
  CHECK(run(kernel("tmem a: f32[128, 32];", "C[0, 0] = a[0, 0];"), false)->codes() == Codes{"E0381"});
  CHECK(run(kernel("tmem a: f32[128, 32];", "var f: frag<tmem_acc, f32, 128, 32, 16>;\ntcgen05.ld f <- a;\nlet m = rowmax(f);"), false)
            ->codes() == Codes{"E0383"});
  CHECK(run(kernel("tmem a: f32[128, 32];", "var f: frag<tmem_acc, f32, 128, 24, 16>;"), false)->codes() == Codes{"E0314"});
  CHECK(run(kernel("tmem a: f32[128, 32];\nshared x: bf16[128, 64] swizzle(128B) align(1024);\nshared y: bf16[32, 64] swizzle(128B) align(1024);",
                   "tcgen05.mma a += x * y;"), false)
            ->codes() == Codes{"E0382"});
}

TEST_CASE("tcgen05: lowering of a small kernel") {
  auto r = run(kernel("tmem acc: f32[2][128, 64];\nshared x: bf16[128, 64] swizzle(128B) align(1024);\n"
                      "shared y: bf16[64, 64] swizzle(128B) align(1024);\nmbarrier done arrivals(1);",
                      "if warp == 0 { tcgen05.alloc acc; }\n"
                      "if tid.x == 0 { tcgen05.mma acc[1] += x * y.T; tcgen05.commit done; }\n"
                      "var f: frag<tmem_acc, f32, 128, 64, 16>;\ntcgen05.ld f <- acc[1];\ntcgen05.wait.ld;\n"
                      "store C[0, 0] <- f;\nif warp == 0 { tcgen05.dealloc acc; }"),
               true);
  REQUIRE_MESSAGE(r->cg.ok, r->messages());
  const std::string &ptx = r->cg.ptx;
  CHECK(ptx.find(".target sm_100a") != std::string::npos);
  CHECK(ptx.find("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32") != std::string::npos);
  CHECK(ptx.find(", 128;") != std::string::npos);                                     // 2 x 64 columns
  CHECK(ptx.find("tcgen05.ld.sync.aligned.32x32b.x64.b32") != std::string::npos);
  CHECK(ptx.find("tcgen05.dealloc.cta_group::1.sync.aligned.b32") != std::string::npos);
  // one MMA per 16 of K = 4, N = 64: idesc (1 << 4) | (1 << 7) | (1 << 10) | (8 << 17) | (8 << 24)
  size_t mmas = 0;
  for (size_t p = ptx.find("tcgen05.mma."); p != std::string::npos; p = ptx.find("tcgen05.mma.", p + 1)) ++mmas;
  CHECK(mmas == 4);
  CHECK(ptx.find(std::to_string((1u << 4) | (1u << 7) | (1u << 10) | (8u << 17) | (8u << 24))) != std::string::npos);
  CHECK(ptx.find("wgmma") == std::string::npos);
}

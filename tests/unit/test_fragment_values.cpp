// Unit tests of fragments as values: sema's layout carriers (element-wise results, row and column vectors,
// coordinates, gathers, row and column reductions, converted accumulators as operands) and their lowering
// (per-element registers, one load per distinct gathered column, quad and column shuffles, no shared-memory
// traffic).
#include "codegen/CodeGen.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "frontend/Types.h"
#include "support/Diagnostics.h"
#include "support/SourceManager.h"

#include <doctest/doctest.h>

#include <map>
#include <string>

using namespace cake;

namespace {

struct Analysed {
  SourceManager sm;
  DiagnosticEngine diags{sm, 0};
  Ptr<Module> module;
  SemaResult sema;
  std::map<std::string, std::string> letTypes;   // let name -> its type, for the kernel's top-level lets
  std::vector<std::string> codes() const {
    std::vector<std::string> out;
    for (const Diagnostic &d : diags.diagnostics()) out.emplace_back(diagInfo(d.kind).code);
    return out;
  }
};

std::unique_ptr<Analysed> analyse(const std::string &body) {
  auto a = std::make_unique<Analysed>();
  std::string source = "target sm_90a;\nkernel k(bias: f32[N], C: bf16[M, N], L: f32[M]) grid(1) threads(128) {\n"
                       "  var acc: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;\n"
                       "  var m: frag<wgmma_row, f32, 64> = -inf;\n" + body + "}\n";
  uint32_t file = a->sm.addBuffer("t.cake", source);
  a->module = parseModule(a->sm, file, a->diags);
  REQUIRE(!a->diags.hasErrors());
  a->sema = analyzeModule(*a->module, SemaOptions{}, a->diags);
  for (const auto &s : a->module->kernels[0]->body->stmts)
    if (const auto *let = dynCast<LetStmt>(s.get())) a->letTypes[let->name] = typeToString(let->type);
  return a;
}

size_t countOf(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + needle.size())) ++n;
  return n;
}

} // namespace

TEST_CASE("sema: element-wise operations take the layout carrier's shape with the result element type") {
  auto a = analyse("  let x = acc * 2.0 + bias[acc.col];\n"
                   "  let mask = acc.col < N;\n"
                   "  let r = rowmax(acc);\n"
                   "  let y = ex2(acc - m);\n"
                   "  let z = select(mask, acc, -inf);\n"
                   "  let cols = acc.col;\n"
                   "  let e = acc[5];\n"
                   "  let b = bf16(acc);\n"
                   "  let rows = m.row;\n");
  REQUIRE(a->codes().empty());
  CHECK(a->letTypes["x"] == "frag<wgmma_acc, f32, 64, 64, 16>");
  CHECK(a->letTypes["mask"] == "frag<wgmma_acc, pred, 64, 64, 16>");
  CHECK(a->letTypes["r"] == "frag<wgmma_row, f32, 64>");
  CHECK(a->letTypes["y"] == "frag<wgmma_acc, f32, 64, 64, 16>");   // the row vector broadcasts along columns
  CHECK(a->letTypes["z"] == "frag<wgmma_acc, f32, 64, 64, 16>");
  CHECK(a->letTypes["cols"] == "frag<wgmma_acc, i32, 64, 64, 16>");
  CHECK(a->letTypes["e"] == "f32");
  CHECK(a->letTypes["b"] == "frag<wgmma_acc, bf16, 64, 64, 16>");
  CHECK(a->letTypes["rows"] == "frag<wgmma_row, i32, 64>");
}

TEST_CASE("sema: layouts that do not combine, out-of-range elements, bad gathers and reductions are diagnosed") {
  CHECK(analyse("  var c: frag<mma_c, f32, 16, 8, 16> = 0.0;\n  let x = c + m;\n")->codes() == std::vector<std::string>{"E0334"});
  CHECK(analyse("  let x = acc[32];\n")->codes() == std::vector<std::string>{"E0333"});
  CHECK(analyse("  var r: f32[4];\n  let x = r[acc.col];\n")->codes() == std::vector<std::string>{"E0335"});
  CHECK(analyse("  let x = rowmax(m);\n")->codes() == std::vector<std::string>{"E0331"});
  CHECK(analyse("  let x = acc.row + m.col;\n")->codes() == std::vector<std::string>{"E0317"});
}

TEST_CASE("lowering: a fused epilogue stays in registers; a gather loads each distinct column once") {
  auto a = analyse("  let x = max(acc + bias[acc.col], 0.0);\n"
                   "  let s = rowsum(x);\n"
                   "  store C[0, 0] <- bf16(x);\n"
                   "  store L[0] <- s;\n");
  REQUIRE(a->codes().empty());
  CodegenResult cg = generatePtx(*a->module, a->sema, a->sema.arch, a->diags);
  REQUIRE(cg.ok);
  // 64 columns over the 4 lanes of a quad: each thread holds 16 distinct columns (two rows share them).
  CHECK(countOf(cg.ptx, "ld.global.nc.f32") == 16);
  CHECK(countOf(cg.ptx, "shfl.sync.bfly.b32") == 4);   // xor 1 and xor 2, for each of the thread's two rows
  CHECK(countOf(cg.ptx, "max.f32") == 32);
  CHECK(cg.ptx.find("ld.shared") == std::string::npos);
  CHECK(cg.ptx.find("st.shared") == std::string::npos);
}

TEST_CASE("sema: column reductions give column vectors that broadcast along the rows and have .col") {
  auto a = analyse("  let c = colmax(acc);\n"
                   "  let centred = acc - c;\n"
                   "  let s = colsum(ex2(centred));\n"
                   "  let w = bias[s.col];\n"
                   "  let i = i32(colmin(acc));\n"
                   "  var v: frag<wgmma_col, f32, 64>;\n"
                   "  var r: frag<wgmma_col, i32, 64>;\n"
                   "  colargmin v, r <- acc;\n"
                   "  var mc: frag<mma_c, f32, 16, 8, 16> = 0.0;\n"
                   "  let mcs = colsum(mc);\n");
  REQUIRE(a->codes().empty());
  CHECK(a->letTypes["c"] == "frag<wgmma_col, f32, 64>");
  CHECK(a->letTypes["centred"] == "frag<wgmma_acc, f32, 64, 64, 16>");
  CHECK(a->letTypes["s"] == "frag<wgmma_col, f32, 64>");
  CHECK(a->letTypes["w"] == "frag<wgmma_col, f32, 64>");
  CHECK(a->letTypes["i"] == "frag<wgmma_col, i32, 64>");
  CHECK(a->letTypes["mcs"] == "frag<mma_col, f32, 8>");
}

TEST_CASE("sema: column vectors of another width or family, and a row of a column vector, are diagnosed") {
  CHECK(analyse("  var b: frag<wgmma_acc, f32, 64, 128, 16> = 0.0;\n  let x = acc + colsum(b);\n")->codes() ==
        std::vector<std::string>{"E0334"});
  CHECK(analyse("  var c: frag<mma_c, f32, 16, 8, 16> = 0.0;\n  let x = acc * colsum(c);\n")->codes() ==
        std::vector<std::string>{"E0334"});
  CHECK(analyse("  let x = colsum(acc).row;\n")->codes() == std::vector<std::string>{"E0317"});
  CHECK(analyse("  let x = colsum(m);\n")->codes() == std::vector<std::string>{"E0331"});
  CHECK(analyse("  var v: frag<wgmma_row, f32, 64>;\n  var r: frag<wgmma_row, i32, 64>;\n  colargmax v, r <- acc;\n")->codes() ==
        std::vector<std::string>{"E0304"});
}

TEST_CASE("lowering: a column reduction folds the thread's two rows, then shuffles xor 4, 8, 16, in registers") {
  auto a = analyse("  let s = colsum(acc);\n"
                   "  store C[0, 0] <- bf16(acc * rcp(s));\n"
                   "  red.add L[0] <- s;\n");
  REQUIRE(a->codes().empty());
  CodegenResult cg = generatePtx(*a->module, a->sema, a->sema.arch, a->diags);
  REQUIRE(cg.ok);
  // 64 columns: 16 per thread, each one add of the two rows and three butterfly steps.
  CHECK(countOf(cg.ptx, "shfl.sync.bfly.b32") == 48);
  CHECK(countOf(cg.ptx, ", 4, 31, -1;") == 16);
  CHECK(countOf(cg.ptx, ", 16, 31, -1;") == 16);
  CHECK(countOf(cg.ptx, "rcp.approx.f32") == 16);   // the broadcast reuses each column's reciprocal for both rows
  CHECK(countOf(cg.ptx, "red.global.add.f32") == 16);
  CHECK(cg.ptx.find("ld.shared") == std::string::npos);
  CHECK(cg.ptx.find("st.shared") == std::string::npos);
}

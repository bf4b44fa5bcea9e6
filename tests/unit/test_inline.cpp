// Unit tests for ASTClone (deep copies keep shape, spelling and ranges; ranges can be remapped) and for
// Inline (expansion of fn calls: renaming, substitution of var parameters, hoisting of expression calls,
// else-if placement, expansion files and their call-site notes, recursion and argument diagnostics).
#include "frontend/ASTClone.h"
#include "frontend/ASTEquality.h"
#include "frontend/ASTPrinter.h"
#include "frontend/Inline.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "support/Diagnostics.h"

#include <doctest/doctest.h>

#include <sstream>

using namespace cake;

namespace {

struct Inlined {
  SourceManager sm;
  DiagnosticEngine diags{sm, 0};
  uint32_t file = 0;
  Ptr<Module> module;
  bool ok = false;
  std::string kernelText() const {   // the first kernel after inlining, printed
    std::string all = printModule(*module);
    return all.substr(all.find("kernel "));
  }
  std::string rendered() const {
    std::ostringstream os;
    diags.renderText(os);
    return os.str();
  }
};

std::unique_ptr<Inlined> inlineSource(const std::string &source) {
  auto r = std::make_unique<Inlined>();
  r->file = r->sm.addBuffer("t.cake", source);
  r->module = parseModule(r->sm, r->file, r->diags);
  REQUIRE_MESSAGE(!r->diags.hasErrors(), r->rendered());
  r->ok = inlineFunctions(*r->module, r->sm, r->diags);
  return r;
}

std::vector<std::string> codes(const DiagnosticEngine &d) {
  std::vector<std::string> out;
  for (const Diagnostic &x : d.diagnostics()) out.emplace_back(diagInfo(x.kind).code);
  return out;
}

} // namespace

TEST_CASE("clone: a deep copy is structurally equal, independent, and keeps or remaps ranges") {
  SourceManager sm;
  DiagnosticEngine diags(sm);
  uint32_t file = sm.addBuffer("t.cake", R"(target sm_80;
kernel k(X: f32[N]) grid(1) threads(32) {
  var acc: f32[4] = 0.0;
  for i in 0..8 step 2 unroll(2) {
    if i < 4 { acc[0] += X[i +: 2][0]; } else if i == 6 { acc[1] = ex2(X[i]); } else { return; }
  }
  elect { store X[0 +: 4] <- acc; }
})");
  Ptr<Module> m = parseModule(sm, file, diags);
  REQUIRE(!diags.hasErrors());
  const BlockStmt &body = *m->kernels[0]->body;
  Ptr<BlockStmt> copy = cloneBlock(body);
  // Compare through two modules that differ only in the body.
  Module a, b;
  a.target = b.target = "sm_80";
  auto kernelWith = [&](Ptr<BlockStmt> blk) {
    auto k = std::make_unique<Kernel>();
    k->name = "k";
    k->body = std::move(blk);
    return k;
  };
  a.kernels.push_back(kernelWith(cloneBlock(body)));
  b.kernels.push_back(kernelWith(std::move(copy)));
  CHECK_FALSE(firstDifference(a, b).has_value());
  // Independent: changing the copy leaves the original alone.
  auto *loop = cast<ForStmt>(b.kernels[0]->body->stmts[1].get());
  loop->name = "j";
  CHECK(cast<ForStmt>(body.stmts[1].get())->name == "i");
  REQUIRE(loop->unrollFactor);
  CHECK(cast<IntLitExpr>(loop->unrollFactor.get())->value == 2);
  // Ranges are kept, or passed through the map.
  CHECK(loop->range.begin.offset == body.stmts[1]->range.begin.offset);
  Ptr<Stmt> moved = cloneStmt(*body.stmts[1], [](SourceRange r) {
    r.begin.file = 7;
    return r;
  });
  auto *movedLoop = cast<ForStmt>(moved.get());
  CHECK(movedLoop->range.begin.file == 7);
  CHECK(movedLoop->lower->range.begin.file == 7);
  CHECK(movedLoop->body->stmts[0]->range.begin.file == 7);
  CHECK(movedLoop->lower->range.begin.offset == cast<ForStmt>(body.stmts[1].get())->lower->range.begin.offset);
}

TEST_CASE("inline: value parameters become lets, locals are renamed, the result replaces the call") {
  auto r = inlineSource(R"(target sm_80;
fn sqdist(a: f32, b: f32) -> f32 {
  let d = a - b;
  return d * d;
}
kernel k(Y: f32[2]) grid(1) threads(32) {
  let d = 1.0;
  Y[0] = sqdist(d, 2.0) + sqdist(3.0, d);
}
)");
  REQUIRE_MESSAGE(r->ok, r->rendered());
  CHECK(r->module->fnsInlined);
  std::string k = r->kernelText();
  CHECK(k.find("let a@sqdist.1: f32 = d;") != std::string::npos);
  CHECK(k.find("let b@sqdist.1: f32 = 2.0;") != std::string::npos);
  CHECK(k.find("let d@sqdist.1 = a@sqdist.1 - b@sqdist.1;") != std::string::npos);
  CHECK(k.find("let result@sqdist.1: f32 = d@sqdist.1 * d@sqdist.1;") != std::string::npos);
  CHECK(k.find("let a@sqdist.2: f32 = 3.0;") != std::string::npos);
  CHECK(k.find("Y[0] = result@sqdist.1 + result@sqdist.2;") != std::string::npos);
  // Both expansions come before the statement that used them.
  CHECK(k.find("result@sqdist.2: f32") < k.find("Y[0] ="));
  // The fns stay in the module; the kernel has no call of them left.
  CHECK(r->module->fns.size() == 1);
  CHECK(k.find("sqdist(") == std::string::npos);
}

TEST_CASE("inline: var parameters are replaced by the caller's storage; nested calls expand; else if") {
  auto r = inlineSource(R"(target sm_80;
fn bump(var x: f32, by: f32) {
  let i = 1;
  x += by;
}
fn bump2(var y: f32) {
  bump(y, 1.0);
  bump(y, 2.0);
}
fn one() -> f32 {
  return 1.0;
}
kernel k() grid(1) threads(32) {
  var acc: f32[4] = 0.0;
  let i = 2;
  bump2(acc[i]);
  if lane == 0 {
  } else if one() > 0.5 {
  }
}
)");
  REQUIRE_MESSAGE(r->ok, r->rendered());
  std::string k = r->kernelText();
  // The argument's own `i` is the caller's, not the fn's local (which is renamed).
  CHECK(k.find("acc[i] += by@bump.2;") != std::string::npos);
  CHECK(k.find("acc[i] += by@bump.3;") != std::string::npos);
  CHECK(k.find("let i@bump.2 = 1;") != std::string::npos);
  // The else-if condition's call expands inside the else branch, not before the whole if.
  size_t elseAt = k.find("} else {");
  REQUIRE(elseAt != std::string::npos);
  CHECK(k.find("let result@one.") > elseAt);
  // One storage check per var argument (y of bump2 and x of both bumps).
  CHECK(r->module->inlineArgChecks.size() == 3);
}

TEST_CASE("inline: a copy lies in an expansion whose notes lead to every call site") {
  auto r = inlineSource(R"(target sm_80;
fn inner(x: f32) -> f32 {
  return x;
}
fn outer(x: f32) -> f32 {
  return inner(x);
}
kernel k(Y: f32[1]) grid(1) threads(32) {
  Y[0] = outer(1.0);
}
)");
  REQUIRE(r->ok);
  // The innermost result let is spelled in the fn's body but lives in an expansion of an expansion.
  const LetStmt *innerResult = nullptr;
  for (auto &s : r->module->kernels[0]->body->stmts)
    if (auto *l = dynCast<LetStmt>(s.get()); l && l->name.rfind("result@inner", 0) == 0) innerResult = l;
  REQUIRE(innerResult);
  uint32_t f = innerResult->range.begin.file;
  CHECK(f != r->file);
  CHECK(r->sm.spellingFile(f) == r->file);
  CHECK(r->sm.lineCol(innerResult->range.begin).line == 3);
  const Expansion *e = r->sm.expansion(f);
  REQUIRE(e);
  CHECK(e->what == "'inner' inlined from here");
  CHECK(r->sm.lineCol(e->site.begin).line == 6);
  const Expansion *outer = r->sm.expansion(e->site.begin.file);
  REQUIRE(outer);
  CHECK(r->sm.lineCol(outer->site.begin).line == 9);
  CHECK(r->sm.expansion(outer->site.begin.file) == nullptr);
  // A diagnostic reported there gets both notes, innermost first.
  r->diags.report(DiagKind::TypeMismatch, innerResult->range, "a", "b", "c");
  std::vector<DiagNote> notes = r->diags.notesOf(r->diags.diagnostics().back());
  REQUIRE(notes.size() == 2);
  CHECK(notes[0].message == "'inner' inlined from here");
  CHECK(notes[1].message == "'outer' inlined from here");
}

TEST_CASE("inline: recursion, argument count and non-storage var arguments are reported") {
  auto r = inlineSource(R"(target sm_80;
fn a(x: i32) -> i32 {
  return b(x);
}
fn b(x: i32) -> i32 {
  return a(x);
}
fn bump(var x: f32) {
  x += 1.0;
}
kernel k(Y: i32[1]) grid(1) threads(32) {
  var v: f32 = 0.0;
  bump(v, v);
  bump(v + 1.0);
  Y[0] = a(1);
}
)");
  CHECK_FALSE(r->ok);
  std::vector<std::string> c = codes(r->diags);
  CHECK(c == std::vector<std::string>{"E0345", "E0346", "E0347"});
  const Diagnostic &cycle = r->diags.diagnostics()[0];
  CHECK(cycle.message == "'a' calls itself through 'b'");
  REQUIRE(cycle.notes.size() == 1);
  CHECK(cycle.notes[0].message == "'a' calls 'b' here");
}

TEST_CASE("inline: sema checks var arguments at the call site, and an inlined kernel analyses cleanly") {
  auto r = inlineSource(R"(target sm_80;
fn take_min(var best: f32, var best_i: i32, d: f32, j: i32) {
  if d < best {
    best = d;
    best_i = j;
  }
}
kernel k(X: f32[32], O: i32[1]) grid(1) threads(32) {
  var best: f32 = inf;
  var bi: i32 = 0;
  var wrong: i64 = 0;
  for j in 0..32 unroll(4) {
    take_min(best, bi, X[j], j);
  }
  take_min(best, wrong, 1.0, 0);
  O[0] = bi;
}
)");
  REQUIRE(r->ok);
  SemaResult sema = analyzeModule(*r->module, SemaOptions{}, r->diags);
  // The body's own use of the argument then reports the mismatch too (E0304, at the body, noted).
  CHECK(codes(r->diags) == std::vector<std::string>{"E0348", "E0304"});
  CHECK(r->diags.diagnostics()[0].message ==
        "the argument for parameter 'best_i' of 'take_min' has type i64; the parameter is i32");
  const auto *loop = cast<ForStmt>(r->module->kernels[0]->body->stmts[3].get());
  CHECK(loop->unrollCount == 4);
}

// Unit tests of where the verifier's fix-its put a statement (verify/SourceText: a line of its own or inline;
// verify/EnclosingStatement: the statement that holds an access in the block shared with another).  The lit test
// tests/lit/verify/fixits_make_corpus_verify.cake checks that the fix-its make the corpus verify.
#include "verify/EnclosingStatement.h"
#include "verify/SourceText.h"
#include "source_ranges.h"
#include "verify_local_helpers.h"

#include <doctest/doctest.h>

using namespace cake;

namespace {

// The file's text with the fix-it applied.
std::string applied(const SourceManager &sm, uint32_t file, const FixIt &f) {
  std::string text(sm.text(file));
  return text.substr(0, f.range.begin.offset) + f.replacement + text.substr(f.range.end);
}

} // namespace

TEST_CASE("a statement inserted before another goes on a line of its own at its indentation, else inline") {
  SourceManager sm;
  uint32_t f = sm.addBuffer("k.cake", "{\n    wgmma acc += a * b;\n  x = 1; wgmma acc += a * b;\n}\n");
  DiagnosticEngine d(sm);
  FixIt own = insertStatementBefore(d, rangeOf(sm, f, "wgmma acc += a * b;"), "wgmma.fence;");
  CHECK(own.range.end == own.range.begin.offset);
  CHECK(applied(sm, f, own) == "{\n    wgmma.fence;\n    wgmma acc += a * b;\n  x = 1; wgmma acc += a * b;\n}\n");
  SourceRange second{SourceLoc{f, static_cast<uint32_t>(sm.text(f).rfind("wgmma"))}, 0};
  second.end = second.begin.offset + 19;
  CHECK(applied(sm, f, insertStatementBefore(d, second, "wgmma.fence;")) ==
        "{\n    wgmma acc += a * b;\n  x = 1; wgmma.fence; wgmma acc += a * b;\n}\n");
}

TEST_CASE("a statement inserted after another: next line past a comment, inline before other code, at the end") {
  SourceManager sm;
  uint32_t f = sm.addBuffer("k.cake", "  mbarrier.init full;   // one thread\n  a = 1; b = 2;\n  c = 3");
  DiagnosticEngine d(sm);
  // The range stops before the ';': the insertion goes past it.
  CHECK(applied(sm, f, insertStatementAfter(d, rangeOf(sm, f, "mbarrier.init full"), "fence.mbarrier_init;")) ==
        "  mbarrier.init full;   // one thread\n  fence.mbarrier_init;\n  a = 1; b = 2;\n  c = 3");
  CHECK(applied(sm, f, insertStatementAfter(d, rangeOf(sm, f, "a = 1;"), "syncwarp;")) ==
        "  mbarrier.init full;   // one thread\n  a = 1; syncwarp; b = 2;\n  c = 3");
  CHECK(applied(sm, f, insertStatementAfter(d, rangeOf(sm, f, "c = 3"), "syncwarp;")) ==
        "  mbarrier.init full;   // one thread\n  a = 1; b = 2;\n  c = 3\n  syncwarp;");
}

TEST_CASE("the statement holding an access in the block shared with another access") {
  auto v = verifytest::verifySource(R"(target sm_90;
kernel k(Out: f32[N]) requires(N == 64) grid(1) threads(64) {
  shared s: f32[64];
  if lane == 0 {
    s[i32(tid.x)] = 1.0;
  }
  Out[i32(tid.x)] = s[0] + s[1];
})");
  const BlockStmt &body = *v->module->kernels.at(0)->body;
  uint32_t f = 1;
  SourceRange write = rangeOf(v->sm, f, "s[i32(tid.x)]");
  SourceRange read = rangeOf(v->sm, f, "s[0]");
  std::optional<SourceRange> holder = statementHoldingIn(body, write, read);
  REQUIRE(holder);
  CHECK(sourceText(v->diags, *holder).rfind("if lane == 0 {", 0) == 0);
  // From the read's side: the statement that reads.
  holder = statementHoldingIn(body, read, write);
  REQUIRE(holder);
  CHECK(sourceText(v->diags, *holder) == "Out[i32(tid.x)] = s[0] + s[1];");
  // Both accesses in one statement, or a range outside the body: no place for a statement between them.
  CHECK_FALSE(statementHoldingIn(body, read, rangeOf(v->sm, f, "s[1]")));
  CHECK_FALSE(statementHoldingIn(body, read, rangeOf(v->sm, f, "target sm_90")));
}

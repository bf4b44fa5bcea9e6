// Unit tests of the diagnostics engine (src/support/Diagnostics.*): message formatting, the kind table,
// the error limit, and the text and JSON renderers.  (A lit test, tests/lit/driver/json_diagnostics.cake,
// also feeds cakec's JSON output to Python's json parser.)
#include "support/Diagnostics.h"
#include "support/JsonText.h"
#include "source_ranges.h"

#include <doctest/doctest.h>

#include <set>
#include <sstream>

using namespace cake;

namespace {

std::string renderText(const DiagnosticEngine &d) {
  std::ostringstream os;
  d.renderText(os);
  return os.str();
}

std::string renderJson(const DiagnosticEngine &d) {
  std::ostringstream os;
  d.renderJson(os);
  return os.str();
}

} // namespace

TEST_CASE("formatMessage substitutes numbered placeholders") {
  CHECK(formatMessage("use of undeclared name '{0}'", {"acc"}) == "use of undeclared name 'acc'");
  CHECK(formatMessage("{1} before {0}", {"a", "b"}) == "b before a");
  CHECK(formatMessage("{0}{0}", {"x"}) == "xx");
  // A placeholder without an argument becomes empty; other braces are kept as written.
  CHECK(formatMessage("a{3}b", {"x"}) == "ab");
  CHECK(formatMessage("{{0}} {x} {", {"v"}) == "{v} {x} {");
  CHECK(formatMessage("", {}) == "");
}

TEST_CASE("the kind table: unique well-formed codes, each explained") {
  std::set<std::string_view> codes, names;
  for (const DiagKindInfo &k : allDiagKinds()) {
    INFO(k.code);
    CHECK(codes.insert(k.code).second);
    CHECK(names.insert(k.name).second);
    REQUIRE(k.code.size() == 5);
    CHECK(k.code[0] == 'E');
    for (char c : k.code.substr(1)) CHECK((c >= '0' && c <= '9'));
    CHECK(!k.format.empty());
    CHECK(k.explanation.size() > 20);
  }
  CHECK(diagInfo(DiagKind::TooManyErrors).code == "E0001");
  CHECK(diagInfo(DiagKind::TooManyErrors).severity == Severity::Fatal);
}

TEST_CASE("findDiagByCode is case-insensitive and rejects unknown codes") {
  REQUIRE(findDiagByCode("E0301") != nullptr);
  CHECK(findDiagByCode("E0301")->name == "UndefinedName");
  REQUIRE(findDiagByCode("e0301") != nullptr);
  CHECK(findDiagByCode("e0301")->code == "E0301");
  CHECK(findDiagByCode("E9999") == nullptr);
  CHECK(findDiagByCode("E030") == nullptr);
  CHECK(findDiagByCode("") == nullptr);
}

TEST_CASE("report formats the table message and counts errors") {
  SourceManager sm;
  uint32_t f = sm.addBuffer("k.cake", "x = y;\n");
  DiagnosticEngine d(sm);
  CHECK_FALSE(d.hasErrors());
  d.report(DiagKind::UndefinedName, rangeOf(sm, f, "y"), "y")
      .note(rangeOf(sm, f, "x"), "assigned here")
      .hint("declare it first");
  REQUIRE(d.diagnostics().size() == 1);
  const Diagnostic &diag = d.diagnostics()[0];
  CHECK(diag.kind == DiagKind::UndefinedName);
  CHECK(diag.severity == Severity::Error);
  CHECK(diag.message == "use of undeclared name 'y'");
  REQUIRE(diag.notes.size() == 1);
  CHECK(diag.notes[0].message == "assigned here");
  CHECK(diag.hint == "declare it first");
  CHECK(d.errorCount() == 1);
  CHECK(d.hasErrors());
  // Integer arguments are formatted in decimal.
  d.report(DiagKind::FileTooLarge, SourceRange{}, uint64_t(70000000), 67108864);
  CHECK(d.diagnostics()[1].message == "source file is 70000000 bytes; the limit is 67108864");
}

TEST_CASE("error limit: the first error past the limit becomes one fatal E0001, then nothing") {
  SourceManager sm;
  uint32_t f = sm.addBuffer("k.cake", "a b c d\n");
  DiagnosticEngine d(sm, 2);
  d.report(DiagKind::InvalidCharacter, rangeOf(sm, f, "a"), "'a'");
  d.report(DiagKind::InvalidCharacter, rangeOf(sm, f, "b"), "'b'");
  CHECK_FALSE(d.limitReached());
  d.report(DiagKind::InvalidCharacter, rangeOf(sm, f, "c"), "'c'").note(rangeOf(sm, f, "c"), "dropped note");
  CHECK(d.limitReached());
  d.report(DiagKind::InvalidCharacter, rangeOf(sm, f, "d"), "'d'").hint("dropped hint");
  REQUIRE(d.diagnostics().size() == 3);
  CHECK(d.diagnostics()[2].kind == DiagKind::TooManyErrors);
  CHECK(d.diagnostics()[2].severity == Severity::Fatal);
  CHECK(d.diagnostics()[2].message == "too many errors emitted (2); stopping now");
  CHECK(d.diagnostics()[2].notes.empty());
  CHECK(d.diagnostics()[2].hint.empty());
  CHECK(d.errorCount() == 3);
}

TEST_CASE("error limit 0 means no limit") {
  SourceManager sm;
  sm.addBuffer("k.cake", "x\n");
  DiagnosticEngine d(sm, 0);
  for (int i = 0; i < 100; ++i) d.report(DiagKind::NulByte, SourceRange{});
  CHECK(d.diagnostics().size() == 100);
  CHECK_FALSE(d.limitReached());
}

TEST_CASE("text rendering: location, message, code, source line, caret and range") {
  SourceManager sm;
  uint32_t f = sm.addBuffer("k.cake", "target sm_90a;\n  acc += x;\n");
  DiagnosticEngine d(sm);
  d.report(DiagKind::UndefinedName, rangeOf(sm, f, "acc"), "acc")
      .note(rangeOf(sm, f, "sm_90a"), "target chosen here")
      .fixit(rangeOf(sm, f, "acc"), "accum")
      .hint("declare it with var");
  CHECK(renderText(d) == "k.cake:2:3: error: use of undeclared name 'acc' [E0301]\n"
                         " 2 |   acc += x;\n"
                         "   |   ^~~\n"
                         "k.cake:2:3: fix-it: replace with 'accum'\n"
                         "k.cake:1:8: note: target chosen here\n"
                         " 1 | target sm_90a;\n"
                         "   |        ^~~~~~\n"
                         "hint: declare it with var\n");
}

TEST_CASE("text rendering: no location, insertion fix-its, ranges clipped at the line end") {
  SourceManager sm;
  uint32_t f = sm.addBuffer("dir/k.cake", "let x = 1\nlet y = 2;\n");
  DiagnosticEngine d(sm);
  d.report(DiagKind::CannotReadFile, SourceRange{}, "missing.cake", "No such file or directory");
  SourceLoc endOfX{f, 9};
  d.report(DiagKind::ExpectedToken, SourceRange{endOfX, 9}, "';'", "'let'").fixit(SourceRange{endOfX, 9}, ";");
  // A range running into the next line is underlined to the end of its first line only.
  d.report(DiagKind::TypeMismatch, SourceRange{SourceLoc{f, 8}, 16}, "i32", "f32", "+");
  CHECK(renderText(d) == "cakec: error: cannot read 'missing.cake': No such file or directory [E0501]\n"
                         "dir/k.cake:1:10: error: expected ';', found 'let' [E0201]\n"
                         " 1 | let x = 1\n"
                         "   |          ^\n"
                         "dir/k.cake:1:10: fix-it: insert ';'\n"
                         "dir/k.cake:1:9: error: mismatched types i32 and f32 in '+' [E0304]\n"
                         " 1 | let x = 1\n"
                         "   |         ^\n");
}

TEST_CASE("text rendering keeps tabs and replaces non-ASCII bytes so the caret stays aligned") {
  SourceManager sm;
  uint32_t f = sm.addBuffer("k.cake", "\tx\xc3\xa9 = @;\n");
  DiagnosticEngine d(sm);
  d.report(DiagKind::InvalidCharacter, rangeOf(sm, f, "@"), "'@'");
  CHECK(renderText(d) == "k.cake:1:8: error: unexpected character '@' [E0101]\n"
                         " 1 | \tx?? = @;\n"
                         "   | \t      ^\n");
}

TEST_CASE("text rendering of a fatal diagnostic and of warnings-free output") {
  SourceManager sm;
  sm.addBuffer("k.cake", "");
  DiagnosticEngine empty(sm);
  CHECK(renderText(empty).empty());
  DiagnosticEngine d(sm, 1);
  d.report(DiagKind::NulByte, SourceRange{});
  d.report(DiagKind::NulByte, SourceRange{});
  CHECK(renderText(d) == "cakec: error: NUL byte in source [E0103]\n"
                         "cakec: fatal error: too many errors emitted (1); stopping now [E0001]\n");
}

TEST_CASE("JSON rendering: UTF-8 text is kept as UTF-8") {
  SourceManager sm;
  uint32_t f = sm.addBuffer("na\xc3\xafve.cake", "x = y;\n");
  DiagnosticEngine d(sm);
  d.report(DiagKind::UndefinedName, rangeOf(sm, f, "y"), "y");
  CHECK(renderJson(d).find("\"file\":\"na\xc3\xafve.cake\"") != std::string::npos);
}

TEST_CASE("JSON rendering: fields, escaping, empty list") {
  SourceManager sm;
  uint32_t f = sm.addBuffer("a\"b.cake", "x = y;\n");
  DiagnosticEngine none(sm);
  CHECK(renderJson(none) == "[]\n");

  DiagnosticEngine d(sm);
  d.report(DiagKind::UndefinedName, rangeOf(sm, f, "y"), "y\"\\\n\x01\xff")
      .note(rangeOf(sm, f, "x"), "note\there")
      .fixit(rangeOf(sm, f, "y"), "z")
      .hint("h");
  d.report(DiagKind::NulByte, SourceRange{});
  std::string json = renderJson(d);
  CHECK(json == "[\n"
                "  {\"code\":\"E0301\",\"kind\":\"UndefinedName\",\"severity\":\"error\",\"file\":\"a\\\"b.cake\","
                "\"line\":1,\"column\":5,\"end_line\":1,\"end_column\":6,"
                "\"message\":\"use of undeclared name 'y\\\"\\\\\\n\\u0001\xef\xbf\xbd'\","   // invalid UTF-8: U+FFFD
                "\"notes\":[{\"file\":\"a\\\"b.cake\",\"line\":1,\"column\":1,\"end_line\":1,\"end_column\":2,"
                "\"message\":\"note\\there\"}],"
                "\"fixits\":[{\"file\":\"a\\\"b.cake\",\"line\":1,\"column\":5,\"end_line\":1,\"end_column\":6,"
                "\"replacement\":\"z\"}],\"hint\":\"h\"},\n"
                "  {\"code\":\"E0103\",\"kind\":\"NulByte\",\"severity\":\"error\",\"file\":null,\"line\":0,"
                "\"column\":0,\"end_line\":0,\"end_column\":0,\"message\":\"NUL byte in source\",\"notes\":[],"
                "\"fixits\":[],\"hint\":\"\"}\n"
                "]\n");
}

TEST_CASE("jsonQuote: the one string escaper of every JSON cakec writes") {
  CHECK(jsonQuote("plain") == "\"plain\"");
  CHECK(jsonQuote("a\"b\\c\nd\te\x01") == "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
  CHECK(jsonQuote("na\xc3\xafve.cake") == "\"na\xc3\xafve.cake\"");   // UTF-8 as is
  CHECK(jsonQuote("bad\xff.cake") == "\"bad\xef\xbf\xbd.cake\"");      // invalid UTF-8: U+FFFD
}

TEST_CASE("every warning has exactly one flag, and only warnings have flags") {
  for (size_t i = 0; i < allDiagKinds().size(); ++i) {
    auto kind = static_cast<DiagKind>(i);
    bool warning = diagInfo(kind).severity == Severity::Warning;
    CHECK_MESSAGE(!warningFlag(kind).empty() == warning, diagInfo(kind).code);
    if (warning) CHECK(warningByFlag(warningFlag(kind)) == kind);
  }
  const std::vector<std::string> flags = allWarningFlags();
  CHECK(flags.size() == std::set<std::string>(flags.begin(), flags.end()).size());
}

TEST_CASE("a warning policy drops, keeps or promotes warnings") {
  SourceManager sm;
  uint32_t f = sm.addBuffer("w.cake", "x");
  SourceRange r{{f, 0}, 1};
  // An unused-declaration and a spill warning reported under `policy`: the diagnostics kept and the errors.
  auto underPolicy = [&](const WarningPolicy &policy) {
    DiagnosticEngine d(sm);
    d.setWarningPolicy(policy);
    d.report(DiagKind::UnusedDeclaration, r, "shared array", "t");
    d.report(DiagKind::RegisterSpills, r, "k", 4, 4);
    std::vector<std::pair<DiagKind, Severity>> kept;
    for (const Diagnostic &x : d.diagnostics()) kept.emplace_back(x.kind, x.severity);
    return std::make_pair(kept, d.errorCount());
  };
  using Kept = std::vector<std::pair<DiagKind, Severity>>;
  CHECK(underPolicy({}) == std::make_pair(Kept{{DiagKind::UnusedDeclaration, Severity::Warning},
                                                {DiagKind::RegisterSpills, Severity::Warning}}, 0u));
  WarningPolicy off;
  off.off.insert(DiagKind::UnusedDeclaration);
  CHECK(underPolicy(off) == std::make_pair(Kept{{DiagKind::RegisterSpills, Severity::Warning}}, 0u));
  WarningPolicy promote;
  promote.errors.insert(DiagKind::RegisterSpills);
  CHECK(underPolicy(promote) == std::make_pair(Kept{{DiagKind::UnusedDeclaration, Severity::Warning},
                                                     {DiagKind::RegisterSpills, Severity::Error}}, 1u));
  WarningPolicy quiet;
  quiet.allOff = true;
  quiet.allErrors = true;
  CHECK(underPolicy(quiet) == std::make_pair(Kept{}, 0u));
}

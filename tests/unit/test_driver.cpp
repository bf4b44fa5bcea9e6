// Unit tests of the driver (src/driver): option values (-D, --shape, emit inference), the
// --verify-diagnostics expectation parser and matcher, --explain, and runDriver's exit codes, output
// conventions and atomic output writing.  The command line itself (CLI11) is tested by tests/lit/driver/.
#include "driver/Driver.h"
#include "driver/VerifyDiagnostics.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace cake;
namespace fs = std::filesystem;

namespace {

// A scratch directory removed at the end of the test case.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("cake-driver-test-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(counter()++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  static int &counter() {
    static int n = 0;
    return n;
  }
  std::string write(const std::string &name, const std::string &text) const {
    fs::path p = path / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
};

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

struct Run {
  ExitCode code;
  std::string out, err;
};

Run run(const DriverOptions &opts) {
  std::ostringstream out, err;
  ExitCode code = runDriver(opts, out, err);
  return {code, out.str(), err.str()};
}

// The smallest valid module: a target and no kernels.
const char *kValidModule = "target sm_80;\n";
// A file whose first statement is a syntax error.
const char *kSyntaxError = "target sm_80;\nkernel k() grid(1) threads(32) { let = ; }\n";

} // namespace

// ------------------------------------------------------------------ option values

TEST_CASE("parseDefine accepts NAME=INTEGER in decimal, hex and negative form") {
  auto d = parseDefine("BM=128");
  REQUIRE(d);
  CHECK(d->first == "BM");
  CHECK(d->second == 128);
  CHECK(parseDefine("_x1=0x40")->second == 64);
  CHECK(parseDefine("N=-3")->second == -3);
  CHECK(parseDefine("N=9223372036854775807")->second == INT64_MAX);
  CHECK(parseDefine("N=-9223372036854775808")->second == INT64_MIN);
}

TEST_CASE("parseDefine rejects malformed definitions") {
  for (const char *bad : {"", "BM", "BM=", "=1", "1X=2", "B-M=1", "BM=12a", "BM=1.5", "BM= 1", "BM=0x",
                          "BM=9223372036854775808", "BM=-9223372036854775809", "BM=--1", "BM=+1"}) {
    INFO(bad);
    CHECK_FALSE(parseDefine(bad));
  }
}

TEST_CASE("parseTypeDefine accepts NAME=TYPE (an identifier value) and nothing else") {
  auto d = parseTypeDefine("T=f16");
  REQUIRE(d);
  CHECK(d->first == "T");
  CHECK(d->second == "f16");
  CHECK(parseTypeDefine("BM=bf16x8")->second == "bf16x8");   // sema decides whether it is a scalar type
  for (const char *bad : {"", "T", "T=", "=f16", "T=7", "T=f 16", "T=f16,bf16", "1T=f16", "T==f16"}) {
    INFO(bad);
    CHECK_FALSE(parseTypeDefine(bad));
  }
}

TEST_CASE("parseShape reads comma-separated NAME=INTEGER pairs") {
  auto s = parseShape("M=4096,N=2048,K=64");
  REQUIRE(s);
  CHECK(s->size() == 3);
  CHECK(s->at("M") == 4096);
  CHECK(s->at("K") == 64);
  CHECK_FALSE(parseShape(""));
  CHECK_FALSE(parseShape("M=1,"));
  CHECK_FALSE(parseShape("M=1,,N=2"));
  CHECK_FALSE(parseShape("M"));
}

TEST_CASE("effectiveEmit: --emit wins, else the -o extension, else cubin") {
  DriverOptions o;
  CHECK(effectiveEmit(o) == EmitKind::Cubin);
  o.outputPath = "k.ptx";
  CHECK(effectiveEmit(o) == EmitKind::PTX);
  o.outputPath = "k.cake";
  CHECK(effectiveEmit(o) == EmitKind::IR);
  o.outputPath = "k.cubin";
  CHECK(effectiveEmit(o) == EmitKind::Cubin);
  o.emit = EmitKind::IR;
  CHECK(effectiveEmit(o) == EmitKind::IR);
}

// ------------------------------------------------------------------ expectation parsing

TEST_CASE("parseExpectations: severities, codes, relative, absolute and any-line forms") {
  const char *src = "x = y;  // expected-error E0301 {{use of undeclared name 'y'}}\n"
                    "// expected-warning@+1 {{careful}}\n"
                    "z;\n"
                    "// expected-note@-3 {{declared here}} expected-error@2 E0201{{two on one line}}\n"
                    "// expected-error@* E0001 {{too many errors}}\n";
  ParsedExpectations p = parseExpectations(src);
  CHECK(p.errors.empty());
  REQUIRE(p.expectations.size() == 5);
  const auto &e = p.expectations;
  CHECK(e[0].severity == Severity::Error);
  CHECK(e[0].line == 1u);
  CHECK(e[0].code == "E0301");
  CHECK(e[0].substring == "use of undeclared name 'y'");
  CHECK(e[0].directiveLine == 1);
  CHECK(e[1].severity == Severity::Warning);
  CHECK(e[1].line == 3u);
  CHECK(e[1].code.empty());
  CHECK(e[2].severity == Severity::Note);
  CHECK(e[2].line == 1u);
  CHECK(e[3].line == 2u);
  CHECK(e[3].code == "E0201");
  CHECK(e[3].substring == "two on one line");
  CHECK_FALSE(e[4].line.has_value());
  CHECK(e[4].code == "E0001");
}

TEST_CASE("parseExpectations: only comments count; prose and CRLF are handled") {
  const char *src = "expected-error {{not in a comment}}\r\n"
                    "// the expected-value of x; expected-errors are fine here\r\n"
                    "a; // expected-error {{crlf}}\r\n"
                    "// expected-error {{}}";
  ParsedExpectations p = parseExpectations(src);
  CHECK(p.errors.empty());
  REQUIRE(p.expectations.size() == 2);
  CHECK(p.expectations[0].line == 3u);
  CHECK(p.expectations[0].substring == "crlf");
  CHECK(p.expectations[1].line == 4u);
  CHECK(p.expectations[1].substring.empty());
}

TEST_CASE("parseExpectations: malformed directives are errors, not silently ignored") {
  const char *src = "// expected-error E0301 use of undeclared\n"  // no {{ }}
                    "// expected-error {{unterminated\n"
                    "// expected-note@-5 {{before line 1}}\n"
                    "// expected-error@+ {{no number}}\n"
                    "// expected-error@0 {{line zero}}\n";
  ParsedExpectations p = parseExpectations(src);
  CHECK(p.expectations.empty());
  REQUIRE(p.errors.size() == 5);
  for (size_t i = 0; i < 5; ++i) CHECK(p.errors[i].line == i + 1);
  CHECK(p.errors[2].message.find("line -2") != std::string::npos);
}

// ------------------------------------------------------------------ matching

namespace {
EmittedItem item(Severity s, uint32_t line, std::string code, std::string message) {
  EmittedItem i;
  i.severity = s;
  i.line = line;
  i.code = std::move(code);
  i.message = std::move(message);
  return i;
}
Expectation expect(Severity s, std::optional<uint32_t> line, std::string code, std::string sub) {
  Expectation e;
  e.severity = s;
  e.line = line;
  e.code = std::move(code);
  e.substring = std::move(sub);
  e.directiveLine = line.value_or(1);
  return e;
}
} // namespace

TEST_CASE("matchDiagnostics: line, severity, code and substring must all agree") {
  std::vector<EmittedItem> emitted = {item(Severity::Error, 3, "E0301", "use of undeclared name 'y'")};
  CHECK(matchDiagnostics({expect(Severity::Error, 3, "E0301", "undeclared name 'y'")}, emitted).ok());
  CHECK(matchDiagnostics({expect(Severity::Error, 3, "", "")}, emitted).ok());
  CHECK_FALSE(matchDiagnostics({expect(Severity::Error, 4, "E0301", "undeclared")}, emitted).ok());
  CHECK_FALSE(matchDiagnostics({expect(Severity::Note, 3, "E0301", "undeclared")}, emitted).ok());
  CHECK_FALSE(matchDiagnostics({expect(Severity::Error, 3, "E0302", "undeclared")}, emitted).ok());
  CHECK_FALSE(matchDiagnostics({expect(Severity::Error, 3, "E0301", "'z'")}, emitted).ok());
}

TEST_CASE("matchDiagnostics reports both leftovers") {
  std::vector<EmittedItem> emitted = {item(Severity::Error, 1, "E0301", "a"), item(Severity::Error, 2, "E0301", "b")};
  MatchResult r = matchDiagnostics({expect(Severity::Error, 1, "", "a"), expect(Severity::Error, 5, "", "c")}, emitted);
  CHECK_FALSE(r.ok());
  REQUIRE(r.unmatchedExpectations.size() == 1);
  CHECK(r.unmatchedExpectations[0].substring == "c");
  REQUIRE(r.unexpectedItems.size() == 1);
  CHECK(r.unexpectedItems[0].message == "b");
  // One emitted diagnostic satisfies one expectation only.
  CHECK_FALSE(matchDiagnostics({expect(Severity::Error, 1, "", "a"), expect(Severity::Error, 1, "", "a")},
                               {item(Severity::Error, 1, "E0301", "a")})
                  .ok());
  CHECK(matchDiagnostics({}, {}).ok());
}

TEST_CASE("matchDiagnostics: @* expectations match any line only after precise ones") {
  std::vector<EmittedItem> emitted = {item(Severity::Error, 7, "E0301", "x"), item(Severity::Error, 0, "E0001", "x")};
  // Listed first, the @* expectation must not take line 7's diagnostic away from the precise one.
  CHECK(matchDiagnostics({expect(Severity::Error, std::nullopt, "", "x"), expect(Severity::Error, 7, "", "x")}, emitted)
            .ok());
}

TEST_CASE("flattenDiagnostics: fatal counts as error, notes carry their parent's code and own line") {
  SourceManager sm;
  uint32_t f = sm.addBuffer("k.cake", "a\nb\n");
  DiagnosticEngine d(sm, 1);
  d.report(DiagKind::Redefinition, SourceRange{SourceLoc{f, 2}, 3}, "b").note(SourceRange{SourceLoc{f, 0}, 1}, "first");
  d.report(DiagKind::Redefinition, SourceRange{SourceLoc{f, 2}, 3}, "b");   // past the limit: E0001
  auto items = flattenDiagnostics(d, f);
  REQUIRE(items.size() == 3);
  CHECK(items[0].line == 2);
  CHECK(items[0].column == 1);
  CHECK(items[0].code == "E0302");
  CHECK(items[1].severity == Severity::Note);
  CHECK(items[1].line == 1);
  CHECK(items[1].code == "E0302");
  CHECK(items[1].message == "first");
  CHECK(items[2].severity == Severity::Error);
  CHECK(items[2].line == 0);
  CHECK(items[2].code == "E0001");
}

TEST_CASE("verifyDiagnostics prints every mismatch with its location") {
  std::string src = "a\nb // expected-error E0302 {{redefinition of 'c'}}\n// expected-note {{oops\n";
  SourceManager sm;
  uint32_t f = sm.addBuffer("k.cake", src);
  DiagnosticEngine d(sm, 0);
  d.report(DiagKind::Redefinition, SourceRange{SourceLoc{f, 2}, 3}, "b");
  std::ostringstream err;
  CHECK_FALSE(verifyDiagnostics("k.cake", src, d, f, err));
  CHECK(err.str() == "k.cake:3: error: malformed expectation: missing '}}' at the end of the expected message\n"
                     "k.cake:2: error: expected error not seen: E0302 {{redefinition of 'c'}}\n"
                     "k.cake:2:1: error: unexpected error [E0302]: redefinition of 'b'\n"
                     "cakec: --verify-diagnostics: 1 expected not seen, 1 unexpected, 1 malformed\n");

  std::string good = "a\nb // expected-error E0302 {{redefinition of 'b'}}\n";
  SourceManager sm2;
  uint32_t f2 = sm2.addBuffer("k.cake", good);
  DiagnosticEngine d2(sm2, 0);
  d2.report(DiagKind::Redefinition, SourceRange{SourceLoc{f2, 2}, 3}, "b");
  std::ostringstream err2;
  CHECK(verifyDiagnostics("k.cake", good, d2, f2, err2));
  CHECK(err2.str().empty());
}

// ------------------------------------------------------------------ --explain

TEST_CASE("explainDiagnostic prints the explanation, lists every code, rejects unknown codes") {
  std::ostringstream out, err;
  CHECK(explainDiagnostic("e0301", out, err) == ExitCode::Success);
  CHECK(out.str().rfind("E0301 (UndefinedName, error): use of undeclared name '{0}'\n\n", 0) == 0);
  CHECK(out.str().find(std::string(findDiagByCode("E0301")->explanation)) != std::string::npos);
  CHECK(err.str().empty());

  std::ostringstream list, err2;
  CHECK(explainDiagnostic("list", list, err2) == ExitCode::Success);
  for (const DiagKindInfo &k : allDiagKinds()) CHECK(list.str().find(std::string(k.code) + "  " + std::string(k.name)) != std::string::npos);

  std::ostringstream out3, err3;
  CHECK(explainDiagnostic("E9999", out3, err3) == ExitCode::Usage);
  CHECK(out3.str().empty());
  CHECK(err3.str() == "cakec: error: no diagnostic has code 'E9999' [E0505]\n");
}

// ------------------------------------------------------------------ runDriver

TEST_CASE("runDriver: unreadable input is an environment failure (E0501, exit 3)") {
  TempDir dir;
  DriverOptions o;
  o.inputPath = (dir.path / "missing.cake").string();
  o.verifyOnly = true;
  Run r = run(o);
  CHECK(r.code == ExitCode::Environment);
  CHECK(r.err.find("[E0501]") != std::string::npos);
  CHECK(r.err.find("missing.cake") != std::string::npos);
  CHECK(r.out.empty());

  o.inputPath = dir.path.string();   // a directory
  r = run(o);
  CHECK(r.code == ExitCode::Environment);
  CHECK(r.err.find("it is a directory [E0501]") != std::string::npos);
}

TEST_CASE("runDriver: files over 64 MiB are refused before reading (E0107, exit 1)") {
  TempDir dir;
  std::string path = dir.write("huge.cake", "");
  fs::resize_file(path, (64u << 20) + 1);   // sparse: costs no disk space
  DriverOptions o;
  o.inputPath = path;
  o.verifyOnly = true;
  Run r = run(o);
  CHECK(r.code == ExitCode::InputErrors);
  CHECK(r.err.find("source file is 67108865 bytes; the limit is 67108864 [E0107]") != std::string::npos);
}

TEST_CASE("runDriver: --verify-only on valid input exits 0, says what was checked, writes no output") {
  TempDir dir;
  DriverOptions o;
  o.inputPath = dir.write("ok.cake", kValidModule);
  o.verifyOnly = true;
  Run r = run(o);
  CHECK(r.code == ExitCode::Success);
  CHECK(r.out.empty());
  CHECK(r.err.find("ok.cake: verified: ") != std::string::npos);
  CHECK(r.err.find(" obligations proven for sm_80") != std::string::npos);

  o.noVerify = true;   // skipping the verifier is said, not hidden
  r = run(o);
  CHECK(r.code == ExitCode::Success);
  CHECK(r.err.find("verification skipped (--no-verify) for sm_80") != std::string::npos);
  o.noVerify = false;

  o.arch = Arch::SM90a;   // --arch overrides the file's target
  r = run(o);
  CHECK(r.err.find("for sm_90a") != std::string::npos);

  o.diagFormat = DiagFormat::Json;   // JSON mode always prints a (possibly empty) array on stdout
  r = run(o);
  CHECK(r.out == "[]\n");
}

TEST_CASE("runDriver: input errors exit 1 with text diagnostics on stderr, or JSON on stdout") {
  TempDir dir;
  DriverOptions o;
  o.inputPath = dir.write("bad.cake", kSyntaxError);
  o.verifyOnly = true;
  Run r = run(o);
  CHECK(r.code == ExitCode::InputErrors);
  CHECK(r.out.empty());
  CHECK(r.err.find("bad.cake:2:") != std::string::npos);
  CHECK(r.err.find("error: ") != std::string::npos);

  o.diagFormat = DiagFormat::Json;
  r = run(o);
  CHECK(r.code == ExitCode::InputErrors);
  CHECK(r.err.empty());
  CHECK(r.out.rfind("[\n  {\"code\":\"E02", 0) == 0);
}

TEST_CASE("runDriver: --estimate for a target without a machine description is E0504 (exit 1); input errors come first") {
  TempDir dir;
  DriverOptions o;
  o.inputPath = dir.write("ok.cake", kValidModule);
  o.estimate = true;
  o.arch = Arch::SM86;   // machines/*.json has no default for sm_86
  Run r = run(o);
  CHECK(r.code == ExitCode::InputErrors);
  CHECK(r.err.find("--estimate for sm_86 is not available yet") != std::string::npos);
  CHECK(r.err.find("[E0504]") != std::string::npos);
  CHECK(r.out.empty());

  o.inputPath = dir.write("bad.cake", kSyntaxError);
  r = run(o);
  CHECK(r.code == ExitCode::InputErrors);
  CHECK(r.err.find("E0504") == std::string::npos);
}

TEST_CASE("runDriver: PTX goes to stdout with '-o -'; a failing compile writes no PTX or cubin") {
  TempDir dir;
  DriverOptions o;
  o.inputPath = dir.write("ok.cake", kValidModule);
  o.emit = EmitKind::PTX;
  o.outputPath = "-";
  Run r = run(o);
  CHECK(r.code == ExitCode::Success);
  CHECK(r.out.find(".version") != std::string::npos);
  CHECK(run(o).out == r.out);   // deterministic

  o.inputPath = dir.write("bad.cake", kSyntaxError);
  for (const char *name : {"k.ptx", "k.cubin"}) {
    o.emit.reset();
    o.outputPath = (dir.path / name).string();
    CHECK(run(o).code == ExitCode::InputErrors);
    CHECK_FALSE(fs::exists(o.outputPath));
  }
  // Nor the default output next to the input.
  o.outputPath.clear();
  CHECK(run(o).code == ExitCode::InputErrors);
  CHECK_FALSE(fs::exists(dir.path / "bad.cubin"));
}

TEST_CASE("runDriver: --emit=ir prints canonical IR to stdout or -o, deterministically") {
  TempDir dir;
  DriverOptions o;
  o.inputPath = dir.write("ok.cake", "target   sm_80 ;  // comment\n");
  o.emit = EmitKind::IR;
  Run first = run(o);
  CHECK(first.code == ExitCode::Success);
  CHECK(first.err.empty());
  CHECK(first.out.find("target sm_80;") != std::string::npos);
  CHECK(run(o).out == first.out);

  o.outputPath = (dir.path / "out.cake").string();
  Run toFile = run(o);
  CHECK(toFile.code == ExitCode::Success);
  CHECK(toFile.out.empty());
  CHECK(readFile(o.outputPath) == first.out);
  // No temporary file is left next to the output.
  size_t files = 0;
  for (auto &entry : fs::directory_iterator(dir.path)) (void)entry, ++files;
  CHECK(files == 2);
}

TEST_CASE("runDriver: an unwritable output is an environment failure (E0502, exit 3)") {
  TempDir dir;
  DriverOptions o;
  o.inputPath = dir.write("ok.cake", kValidModule);
  o.emit = EmitKind::IR;
  o.outputPath = (dir.path / "no-such-dir" / "out.cake").string();
  Run r = run(o);
  CHECK(r.code == ExitCode::Environment);
  CHECK(r.err.find("[E0502]") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path / "no-such-dir"));

  o.outputPath = dir.path.string();   // a directory
  r = run(o);
  CHECK(r.code == ExitCode::Environment);
  CHECK(r.err.find("it is a directory [E0502]") != std::string::npos);
}

TEST_CASE("runDriver: a failing compile leaves an existing output untouched") {
  TempDir dir;
  DriverOptions o;
  o.inputPath = dir.write("bad.cake", kSyntaxError);
  o.emit = EmitKind::IR;
  o.outputPath = dir.write("out.cake", "previous contents\n");
  CHECK(run(o).code == ExitCode::InputErrors);
  CHECK(readFile(o.outputPath) == "previous contents\n");
}

TEST_CASE("runDriver: --verify-diagnostics decides the exit code by matching, and lifts the error limit") {
  TempDir dir;
  DriverOptions o;
  o.verifyOnly = true;
  o.verifyDiagnostics = true;
  o.inputPath = dir.write("ok.cake", kValidModule);
  Run r = run(o);
  CHECK(r.code == ExitCode::Success);
  CHECK(r.err.empty());   // no summary line in this mode

  // Without a mode, --verify-diagnostics checks only (no E0504 for the default cubin output).
  o.verifyOnly = false;
  r = run(o);
  CHECK(r.code == ExitCode::Success);
  CHECK(r.err.empty());
  // With one, the stage's diagnostics are part of what is checked.
  o.estimate = true;
  o.arch = Arch::SM86;
  r = run(o);
  CHECK(r.code == ExitCode::InputErrors);
  CHECK(r.err.find("unexpected error [E0504]: --estimate for sm_86 is not available yet") != std::string::npos);
  o.estimate = false;
  o.arch.reset();
  o.verifyOnly = true;

  // An unexpected error fails; the diagnostics are not rendered normally, only the mismatch report.
  o.inputPath = dir.write("bad.cake", kSyntaxError);
  r = run(o);
  CHECK(r.code == ExitCode::InputErrors);
  CHECK(r.err.find("bad.cake:2:") != std::string::npos);
  CHECK(r.err.find("unexpected error [E02") != std::string::npos);

  // 30 comments with invalid UTF-8: all 30 reported (no default limit of 20), all expected.
  std::string many = "target sm_80;\n";
  for (int i = 0; i < 30; ++i) many += "// \xff expected-error E0102 {{invalid UTF-8}}\n";
  o.inputPath = dir.write("many.cake", many);
  r = run(o);
  CHECK(r.err == "");
  CHECK(r.code == ExitCode::Success);
  // With an explicit limit the fatal E0001 appears and must be expected too.
  o.errorLimit = 5;
  r = run(o);
  CHECK(r.code == ExitCode::InputErrors);
  CHECK(r.err.find("unexpected error [E0001]") != std::string::npos);
}

TEST_CASE("runDriver: an internal error propagates as InternalError for main to report") {
  TempDir dir;
  DriverOptions o;
  o.inputPath = dir.write("ok.cake", kValidModule);
  o.verifyOnly = true;
  o.debugForceInternalError = true;
  std::ostringstream out, err;
  CHECK_THROWS_AS(runDriver(o, out, err), InternalError);
}

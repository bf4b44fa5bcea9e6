// Unit tests for the lexer (grammar/lexer.re): token streams, literal values, keyword/identifier split,
// multi-character punctuators, and every lexical error path (E0101-E0107), including that bad input yields
// Error tokens and diagnostics, never a crash.
#include "frontend/Lexer.h"
#include "support/Diagnostics.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace cake;

namespace {

struct Lexed {
  SourceManager sm;
  uint32_t file = 0;
  DiagnosticEngine diags{sm, 0};
  std::vector<Token> tokens;
  explicit Lexed(std::string source) {
    file = sm.addBuffer("test.cake", std::move(source));
    tokens = lex(sm, file, diags);
  }
  std::vector<TokenKind> kinds() const {
    std::vector<TokenKind> out;
    for (const Token &t : tokens) out.push_back(t.kind);
    return out;
  }
  std::vector<std::string> codes() const {
    std::vector<std::string> out;
    for (const Diagnostic &d : diags.diagnostics()) out.push_back(std::string(diagInfo(d.kind).code));
    return out;
  }
};

using K = TokenKind;

} // namespace

TEST_CASE("lexer: empty input is just Eof") {
  Lexed l("");
  REQUIRE(l.tokens.size() == 1);
  CHECK(l.tokens[0].kind == K::Eof);
  CHECK(l.tokens[0].range.begin.offset == 0);
  CHECK(!l.diags.hasErrors());
}

TEST_CASE("lexer: whitespace and comments produce no tokens") {
  Lexed l("  \t\r\n// comment with UTF-8: \xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80\n  // another\n");
  CHECK(l.kinds() == std::vector<K>{K::Eof});
  CHECK(!l.diags.hasErrors());
}

TEST_CASE("lexer: keywords versus identifiers") {
  Lexed l("target kernel let var shared mbarrier barrier role for in step unroll if else elect return true false "
          "frag kernels letx bf16 f32x4 warp warpgroup sm_90a _x mbarrier_init");
  std::vector<K> expected = {K::KwTarget, K::KwKernel, K::KwLet, K::KwVar, K::KwShared, K::KwMbarrier,
                             K::KwBarrier, K::KwRole, K::KwFor, K::KwIn, K::KwStep, K::KwUnroll, K::KwIf,
                             K::KwElse, K::KwElect, K::KwReturn, K::KwTrue, K::KwFalse, K::KwFrag,
                             K::Ident, K::Ident, K::Ident, K::Ident, K::Ident, K::Ident, K::Ident, K::Ident,
                             K::Ident, K::Eof};
  CHECK(l.kinds() == expected);
  CHECK(l.tokens[19].text == "kernels");
  CHECK(l.tokens[27].text == "mbarrier_init");
}

TEST_CASE("lexer: every keyword of TokenKinds.def lexes to its kind") {
  struct Entry { K kind; std::string_view spelling; };
  const Entry keywords[] = {
#define KEYWORD(Kind, Text) {K::Kind, Text},
#include "frontend/TokenKinds.def"
  };
  for (const Entry &e : keywords) {
    Lexed l(std::string(e.spelling));
    REQUIRE(l.tokens.size() == 2);
    CHECK_MESSAGE(l.tokens[0].kind == e.kind, e.spelling);
    CHECK(tokenKindSpelling(e.kind) == "'" + std::string(e.spelling) + "'");
  }
}

TEST_CASE("lexer: punctuators, longest match") {
  Lexed l("( ) [ ] { } , ; : . .. +: <- + - * / % & | ^ ~ ! << >> && || == != < <= > >= = += -= *= /= %= &= |= ^= "
          "<<= >>=");
  std::vector<K> expected = {
      K::LParen, K::RParen, K::LBracket, K::RBracket, K::LBrace, K::RBrace, K::Comma, K::Semi, K::Colon,
      K::Dot, K::DotDot, K::PlusColon, K::LArrow, K::Plus, K::Minus, K::Star, K::Slash, K::Percent, K::Amp,
      K::Pipe, K::Caret, K::Tilde, K::Bang, K::Shl, K::Shr, K::AmpAmp, K::PipePipe, K::EqEq, K::BangEq,
      K::Less, K::LessEq, K::Greater, K::GreaterEq, K::Assign, K::PlusAssign, K::MinusAssign, K::StarAssign,
      K::SlashAssign, K::PercentAssign, K::AmpAssign, K::PipeAssign, K::CaretAssign, K::ShlAssign,
      K::ShrAssign, K::Eof};
  CHECK(l.kinds() == expected);
  CHECK(!l.diags.hasErrors());
}

TEST_CASE("lexer: '<-' is always one token, '+:' and '>>' too") {
  CHECK(Lexed("a<-b").kinds() == std::vector<K>{K::Ident, K::LArrow, K::Ident, K::Eof});
  CHECK(Lexed("a < -b").kinds() == std::vector<K>{K::Ident, K::Less, K::Minus, K::Ident, K::Eof});
  CHECK(Lexed("c+:8").kinds() == std::vector<K>{K::Ident, K::PlusColon, K::IntLit, K::Eof});
  CHECK(Lexed("x>>2").kinds() == std::vector<K>{K::Ident, K::Shr, K::IntLit, K::Eof});
  CHECK(Lexed("a<<-b").kinds() == std::vector<K>{K::Ident, K::Shl, K::Minus, K::Ident, K::Eof});
}

TEST_CASE("lexer: integer literals and their values") {
  Lexed l("0 42 007 0x1F 0xffffffffffffffff 0b101 18446744073709551615 128B 0B");
  std::vector<K> expected = {K::IntLit, K::IntLit, K::IntLit, K::IntLit, K::IntLit, K::IntLit,
                             K::IntLit, K::BytesLit, K::BytesLit, K::Eof};
  REQUIRE(l.kinds() == expected);
  CHECK(l.tokens[0].intValue == 0);
  CHECK(l.tokens[1].intValue == 42);
  CHECK(l.tokens[2].intValue == 7);
  CHECK(l.tokens[3].intValue == 0x1F);
  CHECK(l.tokens[4].intValue == UINT64_MAX);
  CHECK(l.tokens[5].intValue == 5);
  CHECK(l.tokens[6].intValue == UINT64_MAX);
  CHECK(l.tokens[7].intValue == 128);
  CHECK(l.tokens[7].text == "128B");
  CHECK(l.tokens[8].intValue == 0);
  CHECK(!l.diags.hasErrors());
}

TEST_CASE("lexer: float literals and their values") {
  Lexed l("1.5 2e-3 1.0e+4 0.0 3E2");
  REQUIRE(l.kinds() == std::vector<K>{K::FloatLit, K::FloatLit, K::FloatLit, K::FloatLit, K::FloatLit, K::Eof});
  CHECK(l.tokens[0].floatValue == 1.5);
  CHECK(l.tokens[1].floatValue == doctest::Approx(0.002));
  CHECK(l.tokens[2].floatValue == 10000.0);
  CHECK(l.tokens[3].floatValue == 0.0);
  CHECK(l.tokens[4].floatValue == 300.0);
  CHECK(l.tokens[2].text == "1.0e+4");
}

TEST_CASE("lexer: ranges are ints separated by '..'") {
  CHECK(Lexed("0..4").kinds() == std::vector<K>{K::IntLit, K::DotDot, K::IntLit, K::Eof});
  CHECK(Lexed("1..K/BK").kinds() == std::vector<K>{K::IntLit, K::DotDot, K::Ident, K::Slash, K::Ident, K::Eof});
  CHECK(Lexed("0.5..2").kinds() == std::vector<K>{K::FloatLit, K::DotDot, K::IntLit, K::Eof});
  // No trailing-dot floats: `1.` is an integer and a dot.
  CHECK(Lexed("1.x").kinds() == std::vector<K>{K::IntLit, K::Dot, K::Ident, K::Eof});
}

TEST_CASE("lexer: token ranges and text are views of the source") {
  Lexed l("let x =\n  a[s];");
  REQUIRE(l.tokens.size() == 9);
  CHECK(l.tokens[1].text == "x");
  CHECK(l.tokens[1].range.begin.offset == 4);
  CHECK(l.tokens[1].range.end == 5);
  CHECK(l.tokens[3].range.begin.offset == 10);
  CHECK(l.tokens[3].range.begin.file == l.file);
  LineCol lc = l.sm.lineCol(l.tokens[3].range.begin);
  CHECK(lc.line == 2);
  CHECK(lc.column == 3);
  CHECK(l.tokens.back().kind == K::Eof);
  CHECK(l.tokens.back().range.begin.offset == 15);
  // The text is a view into the SourceManager's buffer, not a copy.
  CHECK(l.tokens[1].text.data() == l.sm.text(l.file).data() + 4);
}

TEST_CASE("lexer: E0101 stray ASCII character") {
  Lexed l("a $ b");
  CHECK(l.kinds() == std::vector<K>{K::Ident, K::Error, K::Ident, K::Eof});
  REQUIRE(l.codes() == std::vector<std::string>{"E0101"});
  CHECK(l.diags.diagnostics()[0].message == "unexpected character '$'");
  CHECK(l.diags.diagnostics()[0].range.begin.offset == 2);
}

TEST_CASE("lexer: E0101 control byte is printed in hex") {
  Lexed l(std::string("a \x01 b"));
  REQUIRE(l.codes() == std::vector<std::string>{"E0101"});
  CHECK(l.diags.diagnostics()[0].message == "unexpected character 0x01");
}

TEST_CASE("lexer: E0101 once per maximal run of non-ASCII bytes") {
  Lexed l("let caf\xc3\xa9\xc3\xa9 = \xe2\x86\x92;");
  CHECK(l.codes() == std::vector<std::string>{"E0101", "E0101"});
  CHECK(l.diags.diagnostics()[0].message == "unexpected character '\xc3\xa9' (U+00E9)");
  CHECK(l.diags.diagnostics()[0].range.end - l.diags.diagnostics()[0].range.begin.offset == 4);
  CHECK(l.kinds() == std::vector<K>{K::KwLet, K::Ident, K::Error, K::Assign, K::Error, K::Semi, K::Eof});
  Lexed bad("x \xff\xfe\xfd y");
  CHECK(bad.codes() == std::vector<std::string>{"E0101"});
  CHECK(bad.diags.diagnostics()[0].message == "unexpected character 0xff (not valid UTF-8)");
}

TEST_CASE("lexer: E0102 invalid UTF-8 in a comment") {
  Lexed l("a // ok \xc3\xa9 then bad \xc3\x28 and \xff\nb");
  CHECK(l.kinds() == std::vector<K>{K::Ident, K::Ident, K::Eof});
  REQUIRE(l.codes() == std::vector<std::string>{"E0102"});   // once per comment
  CHECK(l.diags.diagnostics()[0].range.begin.offset == 20);
  // Overlong encodings, surrogates and truncated sequences are invalid too.
  CHECK(Lexed("// \xc0\xaf").codes() == std::vector<std::string>{"E0102"});
  CHECK(Lexed("// \xed\xa0\x80").codes() == std::vector<std::string>{"E0102"});
  CHECK(Lexed("// \xe2\x86").codes() == std::vector<std::string>{"E0102"});
  CHECK(Lexed("// \xf4\x90\x80\x80").codes() == std::vector<std::string>{"E0102"});
  CHECK(Lexed("// \xf4\x8f\xbf\xbf").codes().empty());
}

TEST_CASE("lexer: E0103 NUL byte, also inside a comment") {
  Lexed l(std::string("a \0 b", 5));
  CHECK(l.kinds() == std::vector<K>{K::Ident, K::Error, K::Ident, K::Eof});
  REQUIRE(l.codes() == std::vector<std::string>{"E0103"});
  CHECK(l.diags.diagnostics()[0].range.begin.offset == 2);
  Lexed c(std::string("// x\0y\nz", 8));   // reported, but does not end the comment
  CHECK(c.codes() == std::vector<std::string>{"E0103"});
  CHECK(c.kinds() == std::vector<K>{K::Ident, K::Eof});
  CHECK(c.diags.diagnostics()[0].range.begin.offset == 4);
  Lexed end(std::string("a\0", 2));
  CHECK(end.kinds() == std::vector<K>{K::Ident, K::Error, K::Eof});
}

TEST_CASE("lexer: E0104 integer overflow") {
  for (const char *text : {"18446744073709551616", "0x10000000000000000", "99999999999999999999999B",
                           "0b11111111111111111111111111111111111111111111111111111111111111111"}) {
    Lexed l(text);
    CHECK_MESSAGE((l.codes() == std::vector<std::string>{"E0104"}), text);
    CHECK(l.kinds() == std::vector<K>{K::Error, K::Eof});
  }
  // Leading zeros do not count toward overflow.
  CHECK(Lexed("0x0000000000000000000000001").codes().empty());
}

TEST_CASE("lexer: E0105 malformed numbers are one token each") {
  for (const char *text : {"12ab", "0x", "1e", "0b12", "0b", "1e+", "1.5f", "1.5e+3x", "128Bx", "0x1g", "0X10"}) {
    Lexed l(text);
    CHECK_MESSAGE((l.kinds() == std::vector<K>{K::Error, K::Eof}), text);
    REQUIRE_MESSAGE((l.codes() == std::vector<std::string>{"E0105"}), text);
    CHECK(l.diags.diagnostics()[0].message == "malformed number '" + std::string(text) + "'");
  }
}

TEST_CASE("lexer: E0106 float out of range") {
  Lexed l("1e999 1.0e-999");
  CHECK(l.codes() == std::vector<std::string>{"E0106", "E0106"});
  CHECK(l.kinds() == std::vector<K>{K::Error, K::Error, K::Eof});
}

TEST_CASE("lexer: E0107 file over 64 MiB is rejected before lexing") {
  std::string huge(size_t{64} * 1024 * 1024 + 1, ' ');
  Lexed l(std::move(huge));
  CHECK(l.codes() == std::vector<std::string>{"E0107"});
  CHECK(l.kinds() == std::vector<K>{K::Eof});
  CHECK(l.diags.diagnostics()[0].message == "source file is 67108865 bytes; the limit is 67108864");
}

TEST_CASE("lexer: long messages quote a shortened literal") {
  std::string digits(1000, '9');
  Lexed l(digits);
  REQUIRE(l.codes() == std::vector<std::string>{"E0104"});
  CHECK(l.diags.diagnostics()[0].message.size() < 120);
}

TEST_CASE("lexer: stops early once the error limit is reached") {
  SourceManager sm;
  uint32_t file = sm.addBuffer("t.cake", std::string(100000, '$'));
  DiagnosticEngine diags(sm, 5);
  std::vector<Token> tokens = lex(sm, file, diags);
  CHECK(diags.limitReached());
  CHECK(tokens.size() < 10);
  CHECK(tokens.back().kind == K::Eof);
}

TEST_CASE("lexer: every byte value alone lexes without crashing") {
  for (int b = 0; b < 256; ++b) {
    Lexed l(std::string(1, static_cast<char>(b)) + "x" + std::string(1, static_cast<char>(b)));
    CHECK(l.tokens.back().kind == K::Eof);
    bool good = (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9') || b == '_' ||
                b == ' ' || b == '\t' || b == '\r' || b == '\n' || std::string("()[]{},;:.+-*/%&|^~!<>=").find(char(b)) != std::string::npos;
    if (!good) CHECK_MESSAGE(l.diags.hasErrors(), b);
  }
}

TEST_CASE("lexer: tokenKindSpelling") {
  CHECK(tokenKindSpelling(K::Semi) == "';'");
  CHECK(tokenKindSpelling(K::LArrow) == "'<-'");
  CHECK(tokenKindSpelling(K::Ident) == "identifier");
  CHECK(tokenKindSpelling(K::Eof) == "end of file");
  CHECK(tokenKindSpelling(K::KwKernel) == "'kernel'");
}

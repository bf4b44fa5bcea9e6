// CAKE lexer: the re2c specification of CAKE's tokens.  CMake runs
//   re2c -W --no-generation-date --no-version -o build/generated/Lexer.cpp grammar/lexer.re
// and compiles the result into cake_frontend.
//
// How it works: one re2c-generated DFA (the re2c block in Scanner::next) matches the longest
// token at the cursor; keywords are listed as rules before the identifier rule, so `kernel` is KwKernel
// while `kernels` is an identifier (longest match, ties go to the rule listed first).  Literal values are
// computed in plain C++ after the match (overflow checks, std::from_chars for floats).
//
// End of input: the buffer is the SourceManager's std::string, whose data() is always followed by a NUL
// (the C++ standard guarantees data()[size()] == '\0').  The DFA stops on NUL; a NUL at the end offset is
// end of file, anywhere else it is reported as E0103.  No rule reads past a NUL, so the DFA never reads
// past the sentinel.  Comments are skipped by hand (lineComment) up to the newline or the end offset.
//
// Lexical decisions (docs/language.md repeats them):
//  - identifiers [A-Za-z_][A-Za-z0-9_]*; type names (bf16, f32x4, ...) and role units (warp, warpgroup) are
//    identifiers, only the words in TokenKinds.def are keywords;
//  - integers: decimal, 0x hex, 0b binary (lower-case prefixes), up to 2^64-1 (else E0104); `128B` is a
//    byte-size literal (BytesLit, value 128);
//  - floats: 1.5  2e-3  1.0e+4 (digits on both sides of the dot; no `1.` or `.5` forms);
//  - a number with letters or digits glued on (`12ab`, `0x`, `1e`, `0b12`, `1.5f`) is one malformed
//    token (E0105); `0..4` is Int DotDot Int because a float needs a digit after its dot;
//  - `<-` is always one token: `a<-b` means `a <- b` (an operation's arrow), never `a < -b`; write
//    `a < -b` with a space to compare with a negative value.  Likewise `+:` is the slice operator;
//  - `//` comments run to the end of the line and may contain UTF-8 text (validated: E0102); outside
//    comments the source is ASCII: each maximal run of non-ASCII bytes is one E0101;
//  - NUL bytes are E0103; any other character that starts no token is E0101; files over 64 MiB are
//    rejected (E0107) before lexing.
// Every error yields a diagnostic and an Error token covering the bad text, so the parser can recover.
#include "frontend/Lexer.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>
#include <system_error>

namespace cake {

namespace {

constexpr size_t kMaxSourceBytes = size_t{64} << 20;
constexpr size_t kMaxQuotedText = 40;   // longer token texts are shortened in messages

// The token text for a message, shortened so a 10,000-digit literal does not flood the output.
std::string quotedText(std::string_view text) {
  if (text.size() <= kMaxQuotedText) return std::string(text);
  return std::string(text.substr(0, kMaxQuotedText)) + "...";
}

std::string hexByte(unsigned char byte) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", byte);
  return buf;
}

// Length of the valid UTF-8 sequence starting at p (p < end), or 0 if the bytes there are not one
// (truncated, overlong, surrogate, > U+10FFFF, or a stray continuation byte).  *codePoint gets the value.
size_t utf8SequenceLength(const unsigned char *p, const unsigned char *end, uint32_t *codePoint) {
  unsigned char b0 = p[0];
  size_t len;
  uint32_t cp;
  if (b0 < 0x80) { *codePoint = b0; return 1; }
  if (b0 >= 0xC2 && b0 <= 0xDF) { len = 2; cp = b0 & 0x1F; }
  else if (b0 >= 0xE0 && b0 <= 0xEF) { len = 3; cp = b0 & 0x0F; }
  else if (b0 >= 0xF0 && b0 <= 0xF4) { len = 4; cp = b0 & 0x07; }
  else return 0;
  if (static_cast<size_t>(end - p) < len) return 0;
  for (size_t i = 1; i < len; ++i) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  *codePoint = cp;
  return len;
}

class Scanner {
public:
  Scanner(const SourceManager &sm, uint32_t file, DiagnosticEngine &diags)
      : file_(file), diags_(diags), text_(sm.text(file)),
        begin_(reinterpret_cast<const unsigned char *>(text_.data())), end_(begin_ + text_.size()) {}

  std::vector<Token> run() {
    if (text_.size() > kMaxSourceBytes) {
      diags_.report(DiagKind::FileTooLarge, SourceRange{{file_, 0}, 0}, text_.size(), kMaxSourceBytes);
      tokens_.push_back(makeToken(TokenKind::Eof, end_, end_));
      return std::move(tokens_);
    }
    // Dense CAKE source has about one token per 2-3 bytes.  Reserving is cheap even when generous (the
    // pages are only touched when written); the cap bounds the address space reserved for huge inputs,
    // which then grow on demand.
    tokens_.reserve(std::min<size_t>(text_.size() / 2 + 16, size_t{8} << 20));
    CAKE_ASSERT(text_.data()[text_.size()] == '\0');   // the DFA's sentinel (see the file comment)
    cursor_ = begin_;
    while (next()) {
      if (diags_.limitReached()) break;   // nothing more would be reported; the parser stops too
    }
    if (tokens_.empty() || tokens_.back().kind != TokenKind::Eof)
      tokens_.push_back(makeToken(TokenKind::Eof, end_, end_));
    return std::move(tokens_);
  }

private:
  SourceRange rangeOf(const unsigned char *b, const unsigned char *e) const {
    return SourceRange{{file_, static_cast<uint32_t>(b - begin_)}, static_cast<uint32_t>(e - begin_)};
  }
  std::string_view textOf(const unsigned char *b, const unsigned char *e) const {
    return text_.substr(static_cast<size_t>(b - begin_), static_cast<size_t>(e - b));
  }
  Token makeToken(TokenKind kind, const unsigned char *b, const unsigned char *e) const {
    Token t;
    t.kind = kind;
    t.range = rangeOf(b, e);
    t.text = textOf(b, e);
    return t;
  }
  void push(TokenKind kind, const unsigned char *b, const unsigned char *e) { tokens_.push_back(makeToken(kind, b, e)); }

  // Reports `kind` over [b, e) and emits an Error token there.
  template <class... Args> void error(DiagKind kind, const unsigned char *b, const unsigned char *e, const Args &...args) {
    diags_.report(kind, rangeOf(b, e), args...);
    push(TokenKind::Error, b, e);
  }

  // Decimal, hex (base 16, after "0x") or binary (base 2, after "0b") digits -> value; false on overflow.
  static bool parseUnsigned(std::string_view digits, unsigned base, uint64_t *value) {
    uint64_t v = 0;
    for (char c : digits) {
      unsigned d = c >= '0' && c <= '9' ? unsigned(c - '0') : c >= 'a' && c <= 'f' ? unsigned(c - 'a' + 10) : unsigned(c - 'A' + 10);
      if (__builtin_mul_overflow(v, uint64_t{base}, &v) || __builtin_add_overflow(v, uint64_t{d}, &v)) return false;
    }
    *value = v;
    return true;
  }

  // [b, e) is an integer literal; digitsBegin/digitsEnd delimit its digits (no prefix, no B suffix).
  void integer(TokenKind kind, const unsigned char *b, const unsigned char *e, const unsigned char *digitsBegin,
               const unsigned char *digitsEnd, unsigned base) {
    uint64_t value = 0;
    if (!parseUnsigned(textOf(digitsBegin, digitsEnd), base, &value)) {
      error(DiagKind::IntegerLiteralOverflow, b, e, quotedText(textOf(b, e)));
      return;
    }
    push(kind, b, e);
    tokens_.back().intValue = value;
  }

  void floating(const unsigned char *b, const unsigned char *e) {
    double value = 0;
    auto [ptr, ec] = std::from_chars(reinterpret_cast<const char *>(b), reinterpret_cast<const char *>(e), value);
    if (ec == std::errc::result_out_of_range) {
      error(DiagKind::FloatLiteralOutOfRange, b, e, quotedText(textOf(b, e)));
      return;
    }
    if (ec != std::errc() || ptr != reinterpret_cast<const char *>(e)) {   // cannot happen for the regex above
      error(DiagKind::MalformedNumber, b, e, quotedText(textOf(b, e)));
      return;
    }
    push(TokenKind::FloatLit, b, e);
    tokens_.back().floatValue = value;
  }

  // A `//` comment starting at tok: runs to the end of the line (found with memchr, not the DFA, so NUL
  // bytes inside it are reported (E0103) without ending it).  Its text may be UTF-8; the first invalid
  // sequence in it is reported (E0102, once per comment).
  void lineComment(const unsigned char *tok) {
    const void *newline = std::memchr(tok, '\n', static_cast<size_t>(end_ - tok));
    const unsigned char *e = newline ? static_cast<const unsigned char *>(newline) : end_;
    bool utf8Reported = false;
    for (const unsigned char *p = tok + 2; p < e;) {
      if (*p == 0) {
        diags_.report(DiagKind::NulByte, rangeOf(p, p + 1));
        ++p;
        continue;
      }
      if (*p < 0x80) { ++p; continue; }
      uint32_t cp;
      size_t len = utf8SequenceLength(p, e, &cp);
      if (len != 0) { p += len; continue; }
      const unsigned char *q = p + 1;
      while (q < e && (*q & 0xC0) == 0x80) ++q;   // cover the continuation bytes that follow
      if (!utf8Reported) diags_.report(DiagKind::InvalidUtf8, rangeOf(p, q));
      utf8Reported = true;
      p = q;
    }
    cursor_ = e;
  }

  // One E0101 for a maximal run of non-ASCII bytes [b, e) outside comments.
  void nonAscii(const unsigned char *b, const unsigned char *e) {
    uint32_t cp;
    size_t len = utf8SequenceLength(b, e, &cp);
    std::string what;
    if (len != 0) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
      what = "'" + std::string(textOf(b, b + len)) + "' (" + buf + ")";
    } else {
      what = hexByte(*b) + " (not valid UTF-8)";
    }
    diags_.report(DiagKind::InvalidCharacter, rangeOf(b, e), what)
        .hint("CAKE source is ASCII outside // comments");
    push(TokenKind::Error, b, e);
  }

  void strayCharacter(const unsigned char *b) {
    std::string what = *b >= 0x20 && *b < 0x7f ? "'" + std::string(1, static_cast<char>(*b)) + "'" : hexByte(*b);
    error(DiagKind::InvalidCharacter, b, b + 1, what);
  }

  // Scans one token (or skips whitespace / a comment); false once Eof has been pushed.
  bool next() {
    const unsigned char *tok = cursor_;
    const unsigned char *marker = cursor_;
    const unsigned char *&cur = cursor_;
    /*!re2c
      re2c:define:YYCTYPE = "unsigned char";
      re2c:define:YYCURSOR = cur;
      re2c:define:YYMARKER = marker;
      re2c:yyfill:enable = 0;
      re2c:indent:top = 2;

      digit  = [0-9];
      tail   = [A-Za-z0-9_];
      exp    = [eE] [+-]? digit+;
      float  = digit+ "." digit+ exp? | digit+ exp;
      badnum = digit tail* | digit+ "." digit tail* | digit+ ("." digit+)? [eE] [+-] tail*;

      "\x00" {
        if (tok == end_) { push(TokenKind::Eof, tok, tok); return false; }
        error(DiagKind::NulByte, tok, cur);
        return true;
      }
      [ \t\r\n]+ { return true; }
      "//"       { lineComment(tok); return true; }

      "target"   { push(TokenKind::KwTarget, tok, cur); return true; }
      "kernel"   { push(TokenKind::KwKernel, tok, cur); return true; }
      "let"      { push(TokenKind::KwLet, tok, cur); return true; }
      "var"      { push(TokenKind::KwVar, tok, cur); return true; }
      "shared"   { push(TokenKind::KwShared, tok, cur); return true; }
      "mbarrier" { push(TokenKind::KwMbarrier, tok, cur); return true; }
      "barrier"  { push(TokenKind::KwBarrier, tok, cur); return true; }
      "role"     { push(TokenKind::KwRole, tok, cur); return true; }
      "for"      { push(TokenKind::KwFor, tok, cur); return true; }
      "in"       { push(TokenKind::KwIn, tok, cur); return true; }
      "step"     { push(TokenKind::KwStep, tok, cur); return true; }
      "unroll"   { push(TokenKind::KwUnroll, tok, cur); return true; }
      "if"       { push(TokenKind::KwIf, tok, cur); return true; }
      "else"     { push(TokenKind::KwElse, tok, cur); return true; }
      "elect"    { push(TokenKind::KwElect, tok, cur); return true; }
      "return"   { push(TokenKind::KwReturn, tok, cur); return true; }
      "true"     { push(TokenKind::KwTrue, tok, cur); return true; }
      "false"    { push(TokenKind::KwFalse, tok, cur); return true; }
      "frag"     { push(TokenKind::KwFrag, tok, cur); return true; }
      "fn"       { push(TokenKind::KwFn, tok, cur); return true; }
      [A-Za-z_] tail* { push(TokenKind::Ident, tok, cur); return true; }

      digit+         { integer(TokenKind::IntLit, tok, cur, tok, cur, 10); return true; }
      digit+ "B"     { integer(TokenKind::BytesLit, tok, cur, tok, cur - 1, 10); return true; }
      "0x" [0-9a-fA-F]+ { integer(TokenKind::IntLit, tok, cur, tok + 2, cur, 16); return true; }
      "0b" [01]+     { integer(TokenKind::IntLit, tok, cur, tok + 2, cur, 2); return true; }
      float          { floating(tok, cur); return true; }
      badnum         { error(DiagKind::MalformedNumber, tok, cur, quotedText(textOf(tok, cur))); return true; }

      "("   { push(TokenKind::LParen, tok, cur); return true; }
      ")"   { push(TokenKind::RParen, tok, cur); return true; }
      "["   { push(TokenKind::LBracket, tok, cur); return true; }
      "]"   { push(TokenKind::RBracket, tok, cur); return true; }
      "{"   { push(TokenKind::LBrace, tok, cur); return true; }
      "}"   { push(TokenKind::RBrace, tok, cur); return true; }
      ","   { push(TokenKind::Comma, tok, cur); return true; }
      ";"   { push(TokenKind::Semi, tok, cur); return true; }
      ":"   { push(TokenKind::Colon, tok, cur); return true; }
      "."   { push(TokenKind::Dot, tok, cur); return true; }
      ".."  { push(TokenKind::DotDot, tok, cur); return true; }
      "+:"  { push(TokenKind::PlusColon, tok, cur); return true; }
      "<-"  { push(TokenKind::LArrow, tok, cur); return true; }
      "->"  { push(TokenKind::RArrow, tok, cur); return true; }
      "+"   { push(TokenKind::Plus, tok, cur); return true; }
      "-"   { push(TokenKind::Minus, tok, cur); return true; }
      "*"   { push(TokenKind::Star, tok, cur); return true; }
      "/"   { push(TokenKind::Slash, tok, cur); return true; }
      "%"   { push(TokenKind::Percent, tok, cur); return true; }
      "&"   { push(TokenKind::Amp, tok, cur); return true; }
      "|"   { push(TokenKind::Pipe, tok, cur); return true; }
      "^"   { push(TokenKind::Caret, tok, cur); return true; }
      "~"   { push(TokenKind::Tilde, tok, cur); return true; }
      "!"   { push(TokenKind::Bang, tok, cur); return true; }
      "<<"  { push(TokenKind::Shl, tok, cur); return true; }
      ">>"  { push(TokenKind::Shr, tok, cur); return true; }
      "&&"  { push(TokenKind::AmpAmp, tok, cur); return true; }
      "||"  { push(TokenKind::PipePipe, tok, cur); return true; }
      "=="  { push(TokenKind::EqEq, tok, cur); return true; }
      "!="  { push(TokenKind::BangEq, tok, cur); return true; }
      "<"   { push(TokenKind::Less, tok, cur); return true; }
      "<="  { push(TokenKind::LessEq, tok, cur); return true; }
      ">"   { push(TokenKind::Greater, tok, cur); return true; }
      ">="  { push(TokenKind::GreaterEq, tok, cur); return true; }
      "="   { push(TokenKind::Assign, tok, cur); return true; }
      "+="  { push(TokenKind::PlusAssign, tok, cur); return true; }
      "-="  { push(TokenKind::MinusAssign, tok, cur); return true; }
      "*="  { push(TokenKind::StarAssign, tok, cur); return true; }
      "/="  { push(TokenKind::SlashAssign, tok, cur); return true; }
      "%="  { push(TokenKind::PercentAssign, tok, cur); return true; }
      "&="  { push(TokenKind::AmpAssign, tok, cur); return true; }
      "|="  { push(TokenKind::PipeAssign, tok, cur); return true; }
      "^="  { push(TokenKind::CaretAssign, tok, cur); return true; }
      "<<=" { push(TokenKind::ShlAssign, tok, cur); return true; }
      ">>=" { push(TokenKind::ShrAssign, tok, cur); return true; }

      [\x80-\xff]+ { nonAscii(tok, cur); return true; }
      *            { strayCharacter(tok); return true; }
    */
  }

  uint32_t file_;
  DiagnosticEngine &diags_;
  std::string_view text_;
  const unsigned char *begin_;
  const unsigned char *end_;
  const unsigned char *cursor_ = nullptr;
  std::vector<Token> tokens_;
};

constexpr std::string_view kTokenSpellings[] = {
#define TOK(Kind, Spelling) Spelling,
#include "frontend/TokenKinds.def"
};

} // namespace

std::string_view tokenKindSpelling(TokenKind kind) {
  size_t index = static_cast<size_t>(kind);
  return index < std::size(kTokenSpellings) ? kTokenSpellings[index] : std::string_view("token");
}

std::vector<Token> lex(const SourceManager &sm, uint32_t file, DiagnosticEngine &diags) {
  return Scanner(sm, file, diags).run();
}

} // namespace cake

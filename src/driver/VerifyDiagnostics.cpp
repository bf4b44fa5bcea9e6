// --verify-diagnostics: parse expectations from the source text, match them against the emitted
// diagnostics, report both leftovers.  See VerifyDiagnostics.h for the directive syntax and the algorithm.
#include "driver/VerifyDiagnostics.h"

#include <cctype>
#include <limits>
#include <ostream>

namespace cake {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }

std::string_view severityWord(Severity s) {
  switch (s) {
  case Severity::Note: return "note";
  case Severity::Warning: return "warning";
  case Severity::Error:
  case Severity::Fatal: return "error";
  }
  return "error";
}

// Reads digits at `pos` into `value`; false if there are none or the number is absurdly large.
bool readNumber(std::string_view text, size_t &pos, uint32_t &value) {
  size_t start = pos;
  uint64_t v = 0;
  while (pos < text.size() && isDigit(text[pos])) {
    v = v * 10 + static_cast<uint64_t>(text[pos] - '0');
    if (v > std::numeric_limits<uint32_t>::max()) return false;
    ++pos;
  }
  value = static_cast<uint32_t>(v);
  return pos > start;
}

void skipSpaces(std::string_view text, size_t &pos) {
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
}

// Parses one directive that starts at `pos` (just after "expected-") on source line `line`.
// On success appends to `out.expectations`, else to `out.errors`; advances `pos` past what was consumed.
void parseDirective(std::string_view text, size_t &pos, uint32_t line, ParsedExpectations &out) {
  Expectation e;
  e.directiveLine = line;
  std::string_view rest = text.substr(pos);
  if (rest.starts_with("error")) { e.severity = Severity::Error; pos += 5; }
  else if (rest.starts_with("warning")) { e.severity = Severity::Warning; pos += 7; }
  else if (rest.starts_with("note")) { e.severity = Severity::Note; pos += 4; }
  else return;   // "expected-value" in prose: not a directive

  auto fail = [&](std::string message) { out.errors.push_back({line, std::move(message)}); };

  e.line = line;
  if (pos < text.size() && text[pos] == '@') {
    ++pos;
    if (pos < text.size() && text[pos] == '*') {
      e.line.reset();
      ++pos;
    } else {
      int sign = 0;
      if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) sign = text[pos++] == '+' ? 1 : -1;
      uint32_t n = 0;
      if (!readNumber(text, pos, n)) return fail("expected a line number, '+N', '-N' or '*' after '@'");
      int64_t target = sign == 0 ? n : static_cast<int64_t>(line) + sign * static_cast<int64_t>(n);
      if (target < 1 || target > std::numeric_limits<uint32_t>::max())
        return fail("expectation refers to line " + std::to_string(target) + ", which does not exist");
      e.line = static_cast<uint32_t>(target);
    }
  } else if (pos < text.size() && !(text[pos] == ' ' || text[pos] == '\t' || text[pos] == '{')) {
    return;   // "expected-errors" etc.: some other word
  }

  skipSpaces(text, pos);
  // Optional diagnostic code: a capital letter followed by digits (E0301).
  if (pos + 1 < text.size() && std::isupper(static_cast<unsigned char>(text[pos])) && isDigit(text[pos + 1])) {
    size_t start = pos++;
    while (pos < text.size() && isDigit(text[pos])) ++pos;
    e.code = std::string(text.substr(start, pos - start));
    skipSpaces(text, pos);
  }
  if (!text.substr(pos).starts_with("{{"))
    return fail("expected '{{message substring}}' in expected-" + std::string(severityWord(e.severity)));
  pos += 2;
  size_t close = text.find("}}", pos);
  if (close == std::string_view::npos) return fail("missing '}}' at the end of the expected message");
  e.substring = std::string(text.substr(pos, close - pos));
  pos = close + 2;
  out.expectations.push_back(std::move(e));
}

bool sameItem(const Expectation &e, const EmittedItem &item) {
  if (e.severity != item.severity) return false;
  if (e.line && *e.line != item.line) return false;
  if (!e.code.empty() && e.code != item.code) return false;
  return item.message.find(e.substring) != std::string::npos;
}

} // namespace

ParsedExpectations parseExpectations(std::string_view source) {
  ParsedExpectations out;
  uint32_t line = 1;
  size_t lineStart = 0;
  while (lineStart <= source.size()) {
    size_t lineEnd = source.find('\n', lineStart);
    if (lineEnd == std::string_view::npos) lineEnd = source.size();
    std::string_view text = source.substr(lineStart, lineEnd - lineStart);
    size_t comment = text.find("//");
    if (comment != std::string_view::npos) {
      size_t pos = comment;
      while ((pos = text.find("expected-", pos)) != std::string_view::npos) {
        pos += 9;
        parseDirective(text, pos, line, out);
      }
    }
    if (lineEnd == source.size()) break;
    lineStart = lineEnd + 1;
    ++line;
  }
  return out;
}

std::vector<EmittedItem> flattenDiagnostics(const DiagnosticEngine &diags, uint32_t file) {
  const SourceManager &sm = diags.sources();
  auto place = [&](SourceRange r, EmittedItem &item) {
    if (r.valid() && sm.spellingFile(r.begin.file) == file) {   // a copy of an inlined fn body counts too
      LineCol lc = sm.lineCol(r.begin);
      item.line = lc.line;
      item.column = lc.column;
    }
  };
  std::vector<EmittedItem> items;
  for (const Diagnostic &d : diags.diagnostics()) {
    std::string code(diagInfo(d.kind).code);
    EmittedItem item;
    item.severity = d.severity == Severity::Fatal ? Severity::Error : d.severity;
    item.code = code;
    item.message = d.message;
    place(d.range, item);
    items.push_back(std::move(item));
    for (const DiagNote &n : diags.notesOf(d)) {
      EmittedItem note;
      note.severity = Severity::Note;
      note.code = code;
      note.message = n.message;
      place(n.range, note);
      items.push_back(std::move(note));
    }
  }
  return items;
}

MatchResult matchDiagnostics(const std::vector<Expectation> &expected, const std::vector<EmittedItem> &emitted) {
  MatchResult result;
  std::vector<bool> used(emitted.size(), false);
  std::vector<bool> met(expected.size(), false);
  // Expectations with a line first, so an @* expectation cannot take an item a precise one needs.
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < expected.size(); ++i) {
      if (expected[i].line.has_value() != (pass == 0)) continue;
      for (size_t j = 0; j < emitted.size(); ++j) {
        if (!used[j] && sameItem(expected[i], emitted[j])) {
          used[j] = true;
          met[i] = true;
          break;
        }
      }
    }
  }
  for (size_t i = 0; i < expected.size(); ++i)
    if (!met[i]) result.unmatchedExpectations.push_back(expected[i]);
  for (size_t j = 0; j < emitted.size(); ++j)
    if (!used[j]) result.unexpectedItems.push_back(emitted[j]);
  return result;
}

bool verifyDiagnostics(std::string_view fileName, std::string_view source, const DiagnosticEngine &diags,
                       uint32_t file, std::ostream &err) {
  ParsedExpectations parsed = parseExpectations(source);
  MatchResult match = matchDiagnostics(parsed.expectations, flattenDiagnostics(diags, file));
  for (const ExpectationParseError &e : parsed.errors)
    err << fileName << ':' << e.line << ": error: malformed expectation: " << e.message << '\n';
  for (const Expectation &e : match.unmatchedExpectations) {
    err << fileName << ':' << e.directiveLine << ": error: expected " << severityWord(e.severity);
    if (e.line && *e.line != e.directiveLine) err << " on line " << *e.line;
    if (!e.line) err << " on any line";
    err << " not seen: " << (e.code.empty() ? "" : e.code + " ") << "{{" << e.substring << "}}\n";
  }
  for (const EmittedItem &item : match.unexpectedItems) {
    err << fileName;
    if (item.line) err << ':' << item.line << ':' << item.column;
    err << ": error: unexpected " << severityWord(item.severity) << " [" << item.code << "]: " << item.message
        << '\n';
  }
  bool ok = parsed.errors.empty() && match.ok();
  if (!ok)
    err << "cakec: --verify-diagnostics: " << match.unmatchedExpectations.size() << " expected not seen, "
        << match.unexpectedItems.size() << " unexpected, " << parsed.errors.size() << " malformed\n";
  return ok;
}

} // namespace cake

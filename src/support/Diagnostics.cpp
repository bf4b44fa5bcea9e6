// Diagnostics engine: formatting, the error limit, and the text and JSON renderers.
//
// Text form (what humans and agents read):
//   k.cake:12:7: error: use of undeclared name 'acc' [E0301]
//      12 |   acc += x;
//         |   ^~~
//   k.cake:3:5: note: did you mean 'accum'?
//   hint: ...
// Notes: a diagnostic located in a copy of an inlined fn body (an expansion, see SourceManager.h) is
// rendered with one extra note per call site it was inlined through, after its own notes.
// JSON form (nlohmann-json): one array; each element {code, kind, severity, file, line, column, end_line, end_column,
// message, notes[{file,line,column,end_line,end_column,message}], fixits[{...,replacement}], hint}.
#include "support/Diagnostics.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace cake {

namespace {
const std::vector<DiagKindInfo> kKinds = {
#define DIAG(Kind, Code, Sev, Format, Explanation) {#Kind, Code, Severity::Sev, Format, Explanation},
#include "support/DiagnosticKinds.def"
#undef DIAG
};

const char *severityName(Severity s) {
  switch (s) {
  case Severity::Note: return "note";
  case Severity::Warning: return "warning";
  case Severity::Error: return "error";
  case Severity::Fatal: return "fatal error";
  }
  return "error";
}

// Printable form of a source line: tabs stay, other control bytes and non-ASCII bytes become '?', so a
// caret line computed in bytes stays aligned.
std::string printable(std::string_view line) {
  std::string out(line);
  for (char &c : out) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u >= 0x7f) c = '?';
  }
  return out;
}
} // namespace

const DiagKindInfo &diagInfo(DiagKind kind) { return kKinds[static_cast<size_t>(kind)]; }
const std::vector<DiagKindInfo> &allDiagKinds() { return kKinds; }

const DiagKindInfo *findDiagByCode(std::string_view code) {
  for (const auto &k : kKinds) {
    if (k.code.size() != code.size()) continue;
    bool same = true;
    for (size_t i = 0; i < code.size(); ++i)
      if (std::toupper(static_cast<unsigned char>(code[i])) != k.code[i]) same = false;
    if (same) return &k;
  }
  return nullptr;
}

std::string formatMessage(std::string_view format, const std::vector<std::string> &args) {
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] == '{' && i + 2 < format.size() && std::isdigit(static_cast<unsigned char>(format[i + 1])) &&
        format[i + 2] == '}') {
      size_t n = static_cast<size_t>(format[i + 1] - '0');
      if (n < args.size()) out += args[n];
      i += 2;
    } else {
      out += format[i];
    }
  }
  return out;
}

namespace {
struct WarningFlagEntry {
  DiagKind kind;
  std::string_view flag;
};
constexpr WarningFlagEntry kWarningFlags[] = {
#define WARNING(Kind, Flag) {DiagKind::Kind, Flag},
#include "support/WarningFlags.def"
#undef WARNING
};
} // namespace

std::string_view warningFlag(DiagKind kind) {
  for (const WarningFlagEntry &w : kWarningFlags)
    if (w.kind == kind) return w.flag;
  return {};
}

std::optional<DiagKind> warningByFlag(std::string_view flag) {
  for (const WarningFlagEntry &w : kWarningFlags)
    if (w.flag == flag) return w.kind;
  return std::nullopt;
}

std::vector<std::string> allWarningFlags() {
  std::vector<std::string> out;
  for (const WarningFlagEntry &w : kWarningFlags) out.emplace_back(w.flag);
  return out;
}

DiagBuilder DiagnosticEngine::reportArgs(DiagKind kind, SourceRange range, std::vector<std::string> args) {
  const DiagKindInfo &info = diagInfo(kind);
  Severity severity = info.severity;
  if (severity == Severity::Warning) {
    if (warnings_.allOff || warnings_.off.count(kind)) return DiagBuilder(this, SIZE_MAX);
    if (warnings_.allErrors || warnings_.errors.count(kind)) severity = Severity::Error;
  }
  bool isError = severity == Severity::Error || severity == Severity::Fatal;
  if (limitReached_) return DiagBuilder(this, SIZE_MAX);
  if (dedupe_ && range.valid())
    for (const Diagnostic &d : diags_)
      if (d.kind == kind && d.range.begin.file == range.begin.file && d.range.begin.offset == range.begin.offset &&
          d.range.end == range.end)
        return DiagBuilder(this, SIZE_MAX);
  if (isError && errorLimit_ != 0 && errors_ >= errorLimit_) {
    limitReached_ = true;
    ++errors_;
    diags_.push_back({DiagKind::TooManyErrors, Severity::Fatal, {}, formatMessage(diagInfo(DiagKind::TooManyErrors).format, {std::to_string(errorLimit_)}), {}, {}, {}});
    return DiagBuilder(this, SIZE_MAX);
  }
  if (isError) ++errors_;
  diags_.push_back({kind, severity, range, formatMessage(info.format, args), {}, {}, {}});
  return DiagBuilder(this, diags_.size() - 1);
}

Diagnostic *DiagBuilder::get() { return index_ == SIZE_MAX ? nullptr : &engine_->at(index_); }

DiagBuilder &DiagBuilder::note(SourceRange range, std::string message) {
  if (Diagnostic *d = get()) d->notes.push_back({range, std::move(message)});
  return *this;
}
DiagBuilder &DiagBuilder::fixit(SourceRange range, std::string replacement) {
  if (Diagnostic *d = get()) d->fixits.push_back({range, std::move(replacement)});
  return *this;
}
DiagBuilder &DiagBuilder::hint(std::string text) {
  if (Diagnostic *d = get()) d->hint = std::move(text);
  return *this;
}

namespace {
// ANSI colours of the text form (as clang's): bold locations and messages, the severity in its colour, the
// caret line green.  All empty when colour is off.
struct Palette {
  const char *bold = "", *reset = "", *error = "", *warning = "", *note = "", *caret = "";
};
Palette paletteFor(bool color) {
  if (!color) return {};
  return {"\033[1m", "\033[0m", "\033[1;31m", "\033[1;35m", "\033[1;36m", "\033[1;32m"};
}

void renderLocation(std::ostream &os, const SourceManager &sm, SourceRange r, const Palette &p) {
  if (!r.valid()) {
    os << p.bold << "cakec: " << p.reset;
    return;
  }
  LineCol lc = sm.lineCol(r.begin);
  os << p.bold << sm.name(r.begin.file) << ':' << lc.line << ':' << lc.column << ": " << p.reset;
}

// Source lines longer than this are clipped around the range (a 10 MB line printed whole, with a 10 MB caret
// line, cost 0.5 s/MB): kSnippetBefore bytes before the range's start, kSnippetWidth in all, with "..." where
// text was cut.
constexpr size_t kSnippetWidth = 200;
constexpr size_t kSnippetBefore = 60;

void renderSnippet(std::ostream &os, const SourceManager &sm, SourceRange r, const Palette &p) {
  if (!r.valid()) return;
  LineCol lc = sm.lineCol(r.begin);
  std::string_view line = sm.lineText(r.begin);
  size_t col = lc.column - 1;
  size_t len = r.end > r.begin.offset ? r.end - r.begin.offset : 1;
  std::string prefix, suffix;
  if (line.size() > kSnippetWidth) {
    size_t from = col > kSnippetBefore ? col - kSnippetBefore : 0;
    if (from > 0) prefix = "...";
    std::string_view shown = line.substr(from, kSnippetWidth);
    if (from + shown.size() < line.size()) suffix = "...";
    col = col - from + prefix.size();
    line = shown;
  }
  std::string num = std::to_string(lc.line);
  std::string pad(num.size(), ' ');
  os << ' ' << num << " | " << prefix << printable(line) << suffix << '\n';
  os << ' ' << pad << " | ";
  std::string_view shownLine = line;
  for (size_t i = 0; i < col; ++i) {
    size_t at = i - std::min(i, prefix.size());
    os << (i >= prefix.size() && at < shownLine.size() && shownLine[at] == '\t' ? '\t' : ' ');
  }
  os << p.caret << '^';
  size_t maxLen = prefix.size() + line.size() > col ? prefix.size() + line.size() - col : 1;
  for (size_t i = 1; i < std::min(len, maxLen); ++i) os << '~';
  os << p.reset << '\n';
}

// The location fields of a diagnostic, note or fix-it, in key order.
void jsonRange(nlohmann::ordered_json &j, const SourceManager &sm, SourceRange r) {
  if (!r.valid()) {
    j["file"] = nullptr;
    j["line"] = 0;
    j["column"] = 0;
    j["end_line"] = 0;
    j["end_column"] = 0;
    return;
  }
  LineCol b = sm.lineCol(r.begin);
  LineCol e = sm.lineCol(SourceLoc{r.begin.file, std::max(r.end, r.begin.offset)});
  j["file"] = std::string(sm.name(r.begin.file));
  j["line"] = b.line;
  j["column"] = b.column;
  j["end_line"] = e.line;
  j["end_column"] = e.column;
}

// JSON text of `j`: UTF-8 as is, invalid UTF-8 bytes replaced by U+FFFD, so the output is always valid JSON.
std::string dumpJson(const nlohmann::ordered_json &j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}
} // namespace

std::vector<DiagNote> DiagnosticEngine::notesOf(const Diagnostic &d) const {
  std::vector<DiagNote> notes = d.notes;
  // A location in a copy of an inlined body: one note per call on the way out, innermost first.
  unsigned guard = 0;
  for (const Expansion *e = sm_.expansion(d.range.begin.file); e && guard < 1000;
       e = sm_.expansion(e->site.begin.file), ++guard)
    notes.push_back({e->site, e->what});
  return notes;
}

void DiagnosticEngine::renderText(std::ostream &os, bool color) const {
  const Palette p = paletteFor(color);
  for (const Diagnostic &d : diags_) {
    const DiagKindInfo &info = diagInfo(d.kind);
    renderLocation(os, sm_, d.range, p);
    const char *severityColor = d.severity == Severity::Warning ? p.warning : d.severity == Severity::Note ? p.note : p.error;
    os << severityColor << severityName(d.severity) << ": " << p.reset << p.bold << d.message << " [" << info.code << "]"
       << p.reset << '\n';
    renderSnippet(os, sm_, d.range, p);
    for (const FixIt &f : d.fixits) {
      renderLocation(os, sm_, f.range, p);
      // An insertion of one indented line (a statement on a line of its own) is shown as that statement.
      std::string_view text = f.replacement;
      size_t first = text.find_first_not_of(" \t");
      bool wholeLine = f.range.end == f.range.begin.offset && first != std::string_view::npos && text.back() == '\n' &&
                       text.find('\n') == text.size() - 1 && first + 1 < text.size();
      if (wholeLine) text = text.substr(first, text.size() - 1 - first);
      os << "fix-it: " << (f.range.end > f.range.begin.offset ? "replace with '" : wholeLine ? "insert line '" : "insert '")
         << text << "'\n";
    }
    for (const DiagNote &n : notesOf(d)) {
      renderLocation(os, sm_, n.range, p);
      os << p.note << "note: " << p.reset << n.message << '\n';
      renderSnippet(os, sm_, n.range, p);
    }
    if (!d.hint.empty()) os << p.bold << "hint: " << p.reset << d.hint << '\n';
  }
}

void DiagnosticEngine::renderJson(std::ostream &os) const {
  // One array, one element per line (written with nlohmann-json, so every string is escaped correctly).
  os << "[";
  bool first = true;
  for (const Diagnostic &d : diags_) {
    const DiagKindInfo &info = diagInfo(d.kind);
    nlohmann::ordered_json j;
    j["code"] = std::string(info.code);
    j["kind"] = std::string(info.name);
    j["severity"] = severityName(d.severity);
    jsonRange(j, sm_, d.range);
    j["message"] = d.message;
    j["notes"] = nlohmann::ordered_json::array();
    for (const DiagNote &n : notesOf(d)) {
      nlohmann::ordered_json note;
      jsonRange(note, sm_, n.range);
      note["message"] = n.message;
      j["notes"].push_back(std::move(note));
    }
    j["fixits"] = nlohmann::ordered_json::array();
    for (const FixIt &f : d.fixits) {
      nlohmann::ordered_json fix;
      jsonRange(fix, sm_, f.range);
      fix["replacement"] = f.replacement;
      j["fixits"].push_back(std::move(fix));
    }
    j["hint"] = d.hint;
    os << (first ? "\n  " : ",\n  ") << dumpJson(j);
    first = false;
  }
  os << (first ? "]\n" : "\n]\n");
}

void internalError(const char *file, int line, const std::string &what) {
  std::ostringstream os;
  os << "internal compiler error at " << file << ':' << line << ": " << what;
  throw InternalError(os.str());
}

} // namespace cake

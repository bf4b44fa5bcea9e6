// Fix-its that add a statement next to an existing one, laid out as the user would have written it: a line of
// its own at the neighbour's indentation, unless the neighbour shares its line with other code; and one that
// puts a statement under a condition.
#include "verify/SourceText.h"

namespace cake {

namespace {

bool isBlank(char c) { return c == ' ' || c == '\t'; }

size_t lineStart(std::string_view text, size_t at) {
  size_t nl = text.rfind('\n', at == 0 ? 0 : at - 1);
  return at == 0 || nl == std::string_view::npos ? 0 : nl + 1;
}

std::string indentAt(std::string_view text, size_t start) {
  size_t end = start;
  while (end < text.size() && isBlank(text[end])) ++end;
  return std::string(text.substr(start, end - start));
}

// One past the statement at `stmt`, its ';' included (a statement's range may stop before it).
size_t statementEnd(std::string_view text, SourceRange stmt) {
  size_t end = std::min<size_t>(stmt.end, text.size());
  size_t i = end;
  while (i < text.size() && isBlank(text[i])) ++i;
  return i < text.size() && text[i] == ';' ? i + 1 : end;
}

FixIt insertionAt(SourceLoc file, size_t offset, std::string replacement) {
  SourceLoc at{file.file, static_cast<uint32_t>(offset)};
  return FixIt{SourceRange{at, at.offset}, std::move(replacement)};
}

} // namespace

FixIt insertStatementBefore(const DiagnosticEngine &diags, SourceRange stmt, std::string_view statement) {
  std::string_view text = diags.sources().text(stmt.begin.file);
  size_t begin = std::min<size_t>(stmt.begin.offset, text.size());
  size_t start = lineStart(text, begin);
  bool startsLine = true;
  for (size_t i = start; i < begin; ++i) startsLine = startsLine && isBlank(text[i]);
  if (!startsLine) return insertionAt(stmt.begin, begin, std::string(statement) + " ");
  return insertionAt(stmt.begin, start, indentAt(text, start) + std::string(statement) + "\n");
}

FixIt insertStatementAfter(const DiagnosticEngine &diags, SourceRange stmt, std::string_view statement) {
  std::string_view text = diags.sources().text(stmt.begin.file);
  const size_t end = statementEnd(text, stmt);
  size_t i = end;
  while (i < text.size() && isBlank(text[i])) ++i;
  bool endsLine = i >= text.size() || text[i] == '\n' || text.substr(i, 2) == "//";
  if (!endsLine) return insertionAt(stmt.begin, end, " " + std::string(statement));
  std::string indent = indentAt(text, lineStart(text, std::min<size_t>(stmt.begin.offset, text.size())));
  size_t nl = text.find('\n', end);
  if (nl == std::string_view::npos) return insertionAt(stmt.begin, text.size(), "\n" + indent + std::string(statement));
  return insertionAt(stmt.begin, nl + 1, indent + std::string(statement) + "\n");
}

FixIt guardStatement(const DiagnosticEngine &diags, SourceRange stmt, std::string_view condition) {
  std::string_view text = diags.sources().text(stmt.begin.file);
  const size_t begin = std::min<size_t>(stmt.begin.offset, text.size());
  const size_t end = statementEnd(text, stmt);
  std::string replacement = "if " + std::string(condition) + " { " + std::string(text.substr(begin, end - begin)) + " }";
  return FixIt{SourceRange{stmt.begin, static_cast<uint32_t>(end)}, std::move(replacement)};
}

FixIt insertStatement(const DiagnosticEngine &diags, const StatementInsertion &insertion) {
  std::string statement = insertion.statement;
  if (statement.empty() && insertion.copyOf.valid()) {     // the copied statement through its ';'
    std::string_view text = diags.sources().text(insertion.copyOf.begin.file);
    const size_t begin = std::min<size_t>(insertion.copyOf.begin.offset, text.size());
    statement = std::string(text.substr(begin, statementEnd(text, insertion.copyOf) - begin));
  }
  return insertion.after ? insertStatementAfter(diags, insertion.nextTo, statement)
                         : insertStatementBefore(diags, insertion.nextTo, statement);
}

} // namespace cake

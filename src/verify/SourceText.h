// Source text of a range, for verifier messages ("the condition 'tid.x < 64'"), and fix-its that add a
// statement next to an existing one or put one under a condition.
#pragma once
#include "support/Diagnostics.h"

#include <optional>
#include <string>
#include <string_view>

namespace cake {

inline std::string sourceText(const DiagnosticEngine &diags, SourceRange r) {
  if (!r.valid() || r.end < r.begin.offset) return "?";
  std::string_view text = diags.sources().text(r.begin.file);
  if (r.end > text.size()) return "?";
  return std::string(text.substr(r.begin.offset, r.end - r.begin.offset));
}

// Just the first character of a range: points a note at a construct's keyword instead of its whole body.
inline SourceRange headOf(SourceRange r) {
  if (r.valid()) r.end = r.begin.offset + 1;
  return r;
}

// An insertion decided where no DiagnosticEngine is at hand (the sync simulator); insertStatement turns it into
// the fix-it.
struct StatementInsertion {
  SourceRange nextTo;      // the statement the new one goes next to
  bool after = false;      // below it (else above)
  std::string statement;   // e.g. "fence.mbarrier_init;"
  SourceRange sameBlockAs; // when valid: next to the statement that holds `nextTo` in the innermost block that
                           // also holds this range (EnclosingStatement.h) instead
  bool enclosing = false;  // `nextTo` may lie inside a statement (an expression): next to the innermost statement
                           // that holds it
  SourceRange copyOf = {}; // when valid and `statement` is empty: the statement is a copy of the source here
};

// A fix-it inserting `statement` (e.g. "wgmma.fence;") just before the statement at `stmt`: on a line of its own
// with that statement's indentation when the statement starts its line, else in front of it on the same line.
FixIt insertStatementBefore(const DiagnosticEngine &diags, SourceRange stmt, std::string_view statement);
// The same just after the statement at `stmt` (past its ';'): on the next line when only blanks or a comment
// follow it on its last line, else behind it on the same line.
FixIt insertStatementAfter(const DiagnosticEngine &diags, SourceRange stmt, std::string_view statement);
FixIt insertStatement(const DiagnosticEngine &diags, const StatementInsertion &insertion);
// A fix-it inserting `text` just behind the range `r` (e.g. " align(16)" behind a parameter's last attribute).
inline FixIt insertBehind(SourceRange r, std::string text) {
  return FixIt{SourceRange{SourceLoc{r.begin.file, r.end}, r.end}, std::move(text)};
}
// A fix-it setting the `align(..)` of a declaration (its attributes `attrs`, written behind `last`, the end of the
// declaration before any attribute) to `bytes`: the existing attribute replaced, else one added behind the last.
template <class AttrList> FixIt setAlignment(const AttrList &attrs, SourceRange last, int64_t bytes) {
  const std::string align = "align(" + std::to_string(bytes) + ")";
  for (const auto &a : attrs)
    if (a.name == "align") return FixIt{a.range, align};
  return insertBehind(attrs.empty() ? last : attrs.back().range, " " + align);
}
// A fix-it adding `condition` to the kernel's requires(..): behind its last argument, or a new requires(..) in
// front of the first launch attribute; nullopt for a kernel with no attribute to place it by.
template <class KernelT> std::optional<FixIt> addRequirement(const KernelT &k, const std::string &condition) {
  for (const auto &a : k.attrs)
    if (a.name == "requires" && !a.args.empty() && a.args.back().value)
      return insertBehind(a.args.back().value->range, ", " + condition);
  if (k.attrs.empty()) return std::nullopt;
  const SourceRange first = k.attrs.front().range;
  return FixIt{SourceRange{first.begin, first.begin.offset}, "requires(" + condition + ") "};
}
// The condition "DIM % n == 0" on a dim's source text (parenthesised unless it is one name or number).
inline std::string divisibleBy(const std::string &dimText, int64_t n) {
  return (dimText.find_first_of(" +-*/%") == std::string::npos ? dimText : "(" + dimText + ")") + " % " +
         std::to_string(n) + " == 0";
}
// A fix-it that puts the statement at `stmt` (through its ';') under `if condition { ... }`, on the statement's
// own lines: "Y[i] = X[i];" -> "if i < N { Y[i] = X[i]; }".
FixIt guardStatement(const DiagnosticEngine &diags, SourceRange stmt, std::string_view condition);

} // namespace cake

// --verify-diagnostics: the source file carries the diagnostics it must produce, clang style.
//
//   x = y;   // expected-error E0301 {{use of undeclared name 'y'}}
//   // expected-error@+1 E0201 {{expected ';'}}        @+N / @-N: the line N below / above the comment
//   // expected-note@-3 {{previous declaration}}
//   // expected-error@* E0001 {{too many errors}}       @*: any line, including diagnostics with no location
//
// Syntax of one expectation (inside a // comment, several per comment allowed):
//   expected-(error|warning|note)[@(+|-)N | @N | @*] [CODE] {{message substring}}
// `@N` without a sign is an absolute line number.  CODE (E0123) is optional; for a note it is compared with
// the code of the diagnostic the note belongs to.  A fatal diagnostic (E0001) counts as an error.
//
// Algorithm: collect expectations from the raw text (a comment starts at "//"; CAKE has no string literals),
// flatten the emitted diagnostics and their notes into items (file line or 0, severity, code, message), then
// for each expectation in source order take the first unmatched item with equal line, severity and code and
// whose message contains the substring.  Whatever is left on either side is reported with its location.
// A directive that starts like an expectation but does not parse is itself an error, so a typo cannot
// silently turn an expectation off.
#pragma once
#include "support/Diagnostics.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake {

struct Expectation {
  Severity severity = Severity::Error;   // Error, Warning or Note
  std::optional<uint32_t> line;          // nullopt for @* (any line)
  std::string code;                      // empty: any code
  std::string substring;
  uint32_t directiveLine = 0;            // where the comment is, for reports
};

struct ExpectationParseError {
  uint32_t line = 0;
  std::string message;
};

struct ParsedExpectations {
  std::vector<Expectation> expectations;
  std::vector<ExpectationParseError> errors;
};

ParsedExpectations parseExpectations(std::string_view source);

// One emitted diagnostic or note, flattened for matching.
struct EmittedItem {
  Severity severity = Severity::Error;   // Fatal is folded into Error
  uint32_t line = 0;                     // 0: no location (or a location in another file)
  uint32_t column = 0;
  std::string code;                      // a note carries its parent's code
  std::string message;
};

std::vector<EmittedItem> flattenDiagnostics(const DiagnosticEngine &diags, uint32_t file);

struct MatchResult {
  std::vector<Expectation> unmatchedExpectations;
  std::vector<EmittedItem> unexpectedItems;
  bool ok() const { return unmatchedExpectations.empty() && unexpectedItems.empty(); }
};

MatchResult matchDiagnostics(const std::vector<Expectation> &expected, const std::vector<EmittedItem> &emitted);

// Runs the whole check and prints every mismatch (and malformed directive) to `err` as
// "FILE:LINE: ..." lines.  Returns true iff everything matched and every directive parsed.
bool verifyDiagnostics(std::string_view fileName, std::string_view source, const DiagnosticEngine &diags,
                       uint32_t file, std::ostream &err);

} // namespace cake

// Diagnostics: the one engine every stage reports through.
//
// A stage calls `diags.report(DiagKind::X, range, args...)`, which formats the table's message (see
// DiagnosticKinds.def) and returns a builder to attach notes, fix-its and a hint.  The engine counts errors,
// enforces the error limit (the first report past the limit becomes one E0001 fatal), and renders either the
// human text form (file:line:col: error: message [E0123], source line, caret/range, notes) or JSON.
//
// User errors go through this engine.  Internal compiler errors (broken invariants) are thrown as
// InternalError and reported by the driver as such - never as a user diagnostic.
#pragma once
#include "support/SourceManager.h"

#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace cake {

enum class Severity : uint8_t { Note, Warning, Error, Fatal };

enum class DiagKind : uint16_t {
#define DIAG(Kind, Code, Sev, Format, Explanation) Kind,
#include "support/DiagnosticKinds.def"
#undef DIAG
  Count_
};

struct DiagKindInfo {
  std::string_view name;
  std::string_view code;
  Severity severity;
  std::string_view format;
  std::string_view explanation;
};

const DiagKindInfo &diagInfo(DiagKind kind);
// Looks a code ("E0301", case-insensitive) up; returns nullptr if there is none.
const DiagKindInfo *findDiagByCode(std::string_view code);
// All kinds in declaration order.
const std::vector<DiagKindInfo> &allDiagKinds();

struct DiagNote {
  SourceRange range;
  std::string message;
};

struct FixIt {
  SourceRange range;       // text to replace (empty range = insertion at range.begin)
  std::string replacement;
};

struct Diagnostic {
  DiagKind kind;
  Severity severity;
  SourceRange range;
  std::string message;
  std::vector<DiagNote> notes;
  std::vector<FixIt> fixits;
  std::string hint;        // one line of advice, printed as "hint: ..."
};

// Warnings (docs/cli.md "Warnings"): each Warning-severity kind has a flag (WarningFlags.def).
std::string_view warningFlag(DiagKind kind);                        // "" for a kind that is not a warning
std::optional<DiagKind> warningByFlag(std::string_view flag);
std::vector<std::string> allWarningFlags();
// What -w, -W<flag>, -Wno-<flag>, -Werror and -Werror=<flag> asked for.
struct WarningPolicy {
  bool allOff = false;                 // -w
  bool allErrors = false;              // -Werror
  std::set<DiagKind> off;              // -Wno-<flag>
  std::set<DiagKind> errors;           // -Werror=<flag>
};

// Substitutes {0}, {1}, ... in `format` with `args`.
std::string formatMessage(std::string_view format, const std::vector<std::string> &args);

class DiagnosticEngine;

class DiagBuilder {
public:
  DiagBuilder(DiagnosticEngine *engine, size_t index) : engine_(engine), index_(index) {}
  DiagBuilder &note(SourceRange range, std::string message);
  DiagBuilder &fixit(SourceRange range, std::string replacement);
  DiagBuilder &fixit(FixIt fix) { return fixit(fix.range, std::move(fix.replacement)); }
  DiagBuilder &hint(std::string text);

private:
  Diagnostic *get();
  DiagnosticEngine *engine_;
  size_t index_;   // SIZE_MAX when the diagnostic was dropped (past the error limit)
};

template <class T> std::string diagArg(const T &v) {
  if constexpr (std::is_convertible_v<T, std::string_view>) return std::string(std::string_view(v));
  else return std::to_string(v);
}

class DiagnosticEngine {
public:
  explicit DiagnosticEngine(const SourceManager &sm, unsigned errorLimit = 20)
      : sm_(sm), errorLimit_(errorLimit) {}

  template <class... Args> DiagBuilder report(DiagKind kind, SourceRange range, const Args &...args) {
    return reportArgs(kind, range, {diagArg(args)...});
  }
  DiagBuilder reportArgs(DiagKind kind, SourceRange range, std::vector<std::string> args);

  // While on, a diagnostic with the kind and primary range of one already reported is dropped (its notes
  // too).  Code generation turns it on: the copies of an unrolled loop body report the same construct once.
  void setDedupeByLocation(bool on) { dedupe_ = on; }
  // Drops the warnings the policy turns off and reports the ones it promotes as errors.
  void setWarningPolicy(WarningPolicy policy) { warnings_ = std::move(policy); }
  bool dedupeByLocation() const { return dedupe_; }

  unsigned errorCount() const { return errors_; }
  bool hasErrors() const { return errors_ != 0; }
  // True once the error limit was hit: stages should stop producing more work.
  bool limitReached() const { return limitReached_; }
  const std::vector<Diagnostic> &diagnostics() const { return diags_; }
  Diagnostic &at(size_t i) { return diags_[i]; }

  // d's notes, then "inlined from here" at each call site when d lies in an expansion (SourceManager.h).
  std::vector<DiagNote> notesOf(const Diagnostic &d) const;
  void renderText(std::ostream &os, bool color = false) const;
  void renderJson(std::ostream &os) const;
  const SourceManager &sources() const { return sm_; }

private:
  const SourceManager &sm_;
  unsigned errorLimit_;   // 0 = unlimited
  unsigned errors_ = 0;
  bool limitReached_ = false;
  bool dedupe_ = false;
  WarningPolicy warnings_;
  std::vector<Diagnostic> diags_;
};

// A broken compiler invariant. Never used for errors in the user's input.
class InternalError : public std::logic_error {
public:
  using std::logic_error::logic_error;
};

[[noreturn]] void internalError(const char *file, int line, const std::string &what);
#define CAKE_INTERNAL_ERROR(msg) ::cake::internalError(__FILE__, __LINE__, (msg))
#define CAKE_ASSERT(cond)                                                                           \
  do {                                                                                              \
    if (!(cond)) ::cake::internalError(__FILE__, __LINE__, "assertion failed: " #cond);             \
  } while (0)

} // namespace cake

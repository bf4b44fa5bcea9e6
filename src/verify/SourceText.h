// Source text of a range, for verifier messages ("the condition 'tid.x < 64'").
#pragma once
#include "support/Diagnostics.h"

#include <string>

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

} // namespace cake

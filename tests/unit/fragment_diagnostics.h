// Test fixtures analyse kernel fragments that declare more than they use (a shared tile only a type is
// checked against, an mbarrier for a later statement): their diagnostics engine leaves out the unused-
// declaration warning (E0375, -Wno-unused), which tests/lit/diagnostics/E0375_*.cake checks on its own.
#pragma once
#include "support/Diagnostics.h"

namespace cake {

inline DiagnosticEngine fragmentDiagnostics(const SourceManager &sm) {
  DiagnosticEngine diags(sm, 0);
  WarningPolicy policy;
  policy.off.insert(DiagKind::UnusedDeclaration);
  diags.setWarningPolicy(policy);
  return diags;
}

} // namespace cake

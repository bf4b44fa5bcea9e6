// Inline: expands every call of an fn, so that sema, the verifier, the cost model and codegen only ever see
// kernels without calls to fns (the fns stay in Module::fns, for the printer).
//
// Runs after parsing and before sema (driver step 2b).  Reports recursion (E0345), argument count (E0346),
// var/shared arguments that are not storage (E0347), misplaced returns (E0214), calls of an fn without a
// result used as values (E0215), reserved fn names (E0213) and runaway expansion (E0216).  The body of each
// copy lies in its own expansion (SourceManager.h), so a diagnostic that a later stage reports inside it
// points at the fn's body and carries a note "'f' inlined from here" at the call.
#pragma once
#include "frontend/AST.h"
#include "support/Diagnostics.h"
#include "support/SourceManager.h"

namespace cake {

// Returns false when it reported an error.  Sets m.fnsInlined.
bool inlineFunctions(Module &m, SourceManager &sm, DiagnosticEngine &diags);

} // namespace cake

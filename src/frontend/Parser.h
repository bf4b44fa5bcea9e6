// Parser: hand-written recursive descent over the token vector, one function per grammar rule of
// grammar/cake.ebnf (each carries its rule as a comment).  Errors are reported and the parser resynchronises
// at ';' / '}' / the next statement keyword, so one run reports many errors.  Nesting is capped
// (kMaxNesting) so that no input can exhaust the stack.
#pragma once
#include "frontend/AST.h"
#include "frontend/Limits.h"
#include "support/Diagnostics.h"

namespace cake {


// Returns the module (possibly partial when there were errors; never null).
Ptr<Module> parseModule(const SourceManager &sm, uint32_t file, DiagnosticEngine &diags);

} // namespace cake

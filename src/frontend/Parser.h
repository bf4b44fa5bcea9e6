// Parser: hand-written recursive descent over the token vector, one function per grammar rule of
// grammar/cake.ebnf (each carries its rule as a comment).  Errors are reported and the parser resynchronises
// at ';' / '}' / the next statement keyword, so one run reports many errors.  Nesting is capped
// (kMaxNesting) so that no input can exhaust the stack.
#pragma once
#include "frontend/AST.h"
#include "support/Diagnostics.h"

namespace cake {

constexpr unsigned kMaxNesting = 256;
// Operators of flat binary chains (`a + b + c ...`, each a level of the left-leaning tree) along one path of
// an expression tree: counted apart from kMaxNesting, so the tree depth stays below their sum (E0813).
constexpr unsigned kMaxChainOperators = 1024;

// Returns the module (possibly partial when there were errors; never null).
Ptr<Module> parseModule(const SourceManager &sm, uint32_t file, DiagnosticEngine &diags);

} // namespace cake

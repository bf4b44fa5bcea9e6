// ASTPrinter: prints a Module as canonical CAKE source (cakec --emit=ir).  Canonical means: one statement
// per line, 2-space indentation, single spaces around binary operators, minimal parentheses derived from
// precedence, attributes in source order.  parse(print(m)) is structurally equal to m (ASTEquality.h).
#pragma once
#include "frontend/AST.h"

#include <iosfwd>
#include <string>

namespace cake {

void printModule(const Module &m, std::ostream &os);
std::string printModule(const Module &m);
std::string printExpr(const Expr &e);

} // namespace cake

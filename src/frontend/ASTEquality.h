// ASTEquality: structural equality of two ASTs, ignoring source ranges and everything sema fills in
// (Expr::type, NameExpr::decl, Decl::type, CtParam::value, Kernel::shapeVars, OpStmt::op).
//
// Used by the printer round-trip test (parse -> print -> parse must give an equal tree) and the front-end
// fuzzer.  On a mismatch it names the first difference by a path from the root, e.g.
//   kernels[0].body.stmts[3](op tma.load).srcs[0].index[1].start.rhs: int literal 64 vs 32
// so that a failing test says exactly where the trees diverge.
#pragma once
#include "frontend/AST.h"

#include <optional>
#include <string>

namespace cake {

// std::nullopt when the trees are equal; otherwise "path: description" of the first difference
// (depth-first, source order).
std::optional<std::string> firstDifference(const Module &a, const Module &b);
std::optional<std::string> firstDifference(const Expr &a, const Expr &b);

inline bool structurallyEqual(const Module &a, const Module &b) { return !firstDifference(a, b); }
inline bool structurallyEqual(const Expr &a, const Expr &b) { return !firstDifference(a, b); }

} // namespace cake

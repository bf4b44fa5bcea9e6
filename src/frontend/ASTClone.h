// ASTClone: deep copies of syntax trees (expressions, types, statements, blocks).
//
// A copy has the same shape, names, literals and op table entries as the original; what sema fills in
// (Expr::type, NameExpr::decl, Decl::type, ...) is not copied, so cloning is meant for trees that sema has
// not seen yet (inlining, Inline.h).  Every source range of the copy is passed through `mapRange` (identity
// when empty); the inliner uses it to move a body's ranges into an expansion (SourceManager.h).
#pragma once
#include "frontend/AST.h"

#include <functional>

namespace cake {

using RangeMap = std::function<SourceRange(SourceRange)>;

Ptr<Expr> cloneExpr(const Expr &e, const RangeMap &mapRange = {});
Ptr<TypeExpr> cloneType(const TypeExpr &t, const RangeMap &mapRange = {});
Ptr<Stmt> cloneStmt(const Stmt &s, const RangeMap &mapRange = {});
Ptr<BlockStmt> cloneBlock(const BlockStmt &b, const RangeMap &mapRange = {});

} // namespace cake

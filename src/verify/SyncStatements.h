// SyncStatements: which statements and expressions the sync model cares about - synchronisation operations,
// shared-memory references and reads - shared by the model's walk (SyncModel.cpp) and the analyses that ask
// whether a statement holds sync events (containsSyncEvents, isDataGuard in SyncModel.h).
#pragma once
#include "frontend/AST.h"

#include <string_view>
#include <vector>

namespace cake::sync_detail {

// The bracket groups applied to the root name, outermost first.
std::vector<const IndexExpr *> indexChain(const Expr *e);
bool isSharedRef(const Expr *e);
bool isMBarrierRef(const Expr *e);
// Maximal shared-memory references inside an expression (reads).
void collectSharedRefs(const Expr *e, std::vector<const Expr *> &out);
const Clause *findClause(const OpStmt &op, std::string_view name);
// The operations that are synchronisation events themselves, whatever memory they touch.
bool isSynchronisationOp(const OpStmt &op);
bool opIsSyncRelevant(const OpStmt &op);
bool exprReadsShared(const Expr *e);

} // namespace cake::sync_detail

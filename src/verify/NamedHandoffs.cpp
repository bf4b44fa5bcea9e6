// NamedHandoffs: finds `arrive` on a named barrier (NamedHandoffs.h says what follows from it).
// Algorithm: a plain walk over the structured body; the first such arrive answers.
#include "verify/NamedHandoffs.h"

#include "frontend/Ops.h"
#include "verify/NamedBarrierOperand.h"

namespace cake {

namespace {

bool contains(const Stmt *s) {
  if (!s) return false;
  switch (s->kind) {
  case StmtKind::Block:
    for (const Ptr<Stmt> &c : cast<BlockStmt>(s)->stmts)
      if (contains(c.get())) return true;
    return false;
  case StmtKind::Role: return contains(cast<RoleStmt>(s)->body.get());
  case StmtKind::Elect: return contains(cast<ElectStmt>(s)->body.get());
  case StmtKind::If: return contains(cast<IfStmt>(s)->thenBody.get()) || contains(cast<IfStmt>(s)->elseBody.get());
  case StmtKind::For: return contains(cast<ForStmt>(s)->body.get());
  case StmtKind::Op: {
    auto *op = cast<OpStmt>(s);
    return op->op && op->op->id == OpId::Arrive && namedBarrierOperand(*op) != nullptr;
  }
  default: return false;
  }
}

} // namespace

bool usesNamedHandoffs(const Kernel &kernel) { return contains(kernel.body.get()); }

} // namespace cake

// The named barrier an operation names: `sync epi`, `arrive epi`, `sync epi[i]` -> the barrier's declaration
// and, for an element of a barrier array, the index expression.  Shared by the verifier families that
// follow named barriers (the barrier counts, the proxy races and the sync simulator's ordering).
#pragma once
#include "frontend/AST.h"

namespace cake {

// The barrier declaration, or nullptr when the operand is not a named barrier (an mbarrier, say).  `index`
// (when given) receives the element index of `NAME[i]`, or nullptr for a single barrier.  Sema puts the
// barrier of `sync` / `arrive` in the single destination.
inline const BarrierStmt *namedBarrierOperand(const OpStmt &op, const Expr **index = nullptr) {
  if (index) *index = nullptr;
  const Expr *e = op.dsts.size() == 1 ? op.dsts[0].get() : nullptr;
  const Expr *ix = nullptr;
  if (auto *i = e ? dynCast<IndexExpr>(e) : nullptr; i && i->items.size() == 1 && i->items[0].kind == IndexItem::Point) {
    e = i->base.get();
    ix = i->items[0].start.get();
  }
  auto *n = e ? dynCast<NameExpr>(e) : nullptr;
  if (!n || !n->decl || n->decl->declKind != DeclKind::Barrier) return nullptr;
  if (index) *index = ix;
  return static_cast<const BarrierStmt *>(n->decl);
}

} // namespace cake

// SyncStatements: see SyncStatements.h; also containsSyncEvents and isDataGuard (SyncModel.h).
#include "verify/SyncStatements.h"

#include "verify/NamedBarrierOperand.h"
#include "verify/RootDecl.h"
#include "verify/SyncModel.h"

#include "frontend/Ops.h"

#include <algorithm>

namespace cake {

namespace sync_detail {

// The bracket groups applied to the root name, outermost first.
std::vector<const IndexExpr *> indexChain(const Expr *e) {
  std::vector<const IndexExpr *> chain;
  while (e) {
    if (auto *m = dynCast<MemberExpr>(e)) e = m->base.get();
    else if (auto *i = dynCast<IndexExpr>(e)) {
      chain.push_back(i);
      e = i->base.get();
    } else break;
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

bool isSharedRef(const Expr *e) {
  const Decl *d = rootDecl(e);
  return d && d->declKind == DeclKind::Shared;
}

bool isMBarrierRef(const Expr *e) {
  const Decl *d = rootDecl(e);
  return d && d->declKind == DeclKind::MBarrier;
}

// Maximal shared-memory references inside an expression (reads).
void collectSharedRefs(const Expr *e, std::vector<const Expr *> &out) {
  if (!e) return;
  if ((e->kind == ExprKind::Index || e->kind == ExprKind::Name || e->kind == ExprKind::Member) && isSharedRef(e)) {
    out.push_back(e);
    for (const IndexExpr *ix : indexChain(e))
      for (const IndexItem &it : ix->items) {
        collectSharedRefs(it.start.get(), out);
        collectSharedRefs(it.length.get(), out);
      }
    return;
  }
  switch (e->kind) {
  case ExprKind::Unary: collectSharedRefs(cast<UnaryExpr>(e)->operand.get(), out); break;
  case ExprKind::Binary:
    collectSharedRefs(cast<BinaryExpr>(e)->lhs.get(), out);
    collectSharedRefs(cast<BinaryExpr>(e)->rhs.get(), out);
    break;
  case ExprKind::Call:
    for (const Ptr<Expr> &a : cast<CallExpr>(e)->args) collectSharedRefs(a.get(), out);
    break;
  case ExprKind::Member: collectSharedRefs(cast<MemberExpr>(e)->base.get(), out); break;
  case ExprKind::Index: {
    auto *ix = cast<IndexExpr>(e);
    collectSharedRefs(ix->base.get(), out);
    for (const IndexItem &it : ix->items) {
      collectSharedRefs(it.start.get(), out);
      collectSharedRefs(it.length.get(), out);
    }
    break;
  }
  default: break;
  }
}

const Clause *findClause(const OpStmt &op, std::string_view name) {
  for (const Clause &c : op.clauses)
    if (c.name == name) return &c;
  return nullptr;
}

// The operations that are synchronisation events themselves, whatever memory they touch.
bool isSynchronisationOp(const OpStmt &op) {
  switch (op.op->id) {
  case OpId::MbarrierInit: case OpId::FenceMbarrierInit: case OpId::Syncthreads: case OpId::ClusterSync:
  case OpId::ClusterArrive: case OpId::ClusterWait: case OpId::MbarrierExpectTx: case OpId::Wait:
  case OpId::TmaLoad: case OpId::TmaStore: case OpId::TmaStoreCommit: case OpId::TmaStoreWait:
  case OpId::Wgmma: case OpId::WgmmaCommit: case OpId::WgmmaWait: case OpId::Tcgen05Commit:
    return true;
  case OpId::Arrive: return (!op.dsts.empty() && isMBarrierRef(op.dsts[0].get())) || namedBarrierOperand(op);
  case OpId::Sync: return namedBarrierOperand(op) != nullptr;
  default: return false;
  }
}

bool opIsSyncRelevant(const OpStmt &op) {
  if (!op.op) return false;
  if (isSynchronisationOp(op)) return true;
  for (const Ptr<Expr> &d : op.dsts)
    if (isSharedRef(d.get())) return true;
  std::vector<const Expr *> refs;
  for (const Ptr<Expr> &s : op.srcs) collectSharedRefs(s.get(), refs);
  return !refs.empty();
}

bool exprReadsShared(const Expr *e) {
  std::vector<const Expr *> refs;
  collectSharedRefs(e, refs);
  return !refs.empty();
}

} // namespace sync_detail

using namespace sync_detail;

bool containsSyncEvents(const Stmt &s) {
  switch (s.kind) {
  case StmtKind::Block:
    for (const Ptr<Stmt> &c : cast<BlockStmt>(&s)->stmts)
      if (containsSyncEvents(*c)) return true;
    return false;
  case StmtKind::Role: return cast<RoleStmt>(&s)->body && containsSyncEvents(*cast<RoleStmt>(&s)->body);
  case StmtKind::For: return cast<ForStmt>(&s)->body && containsSyncEvents(*cast<ForStmt>(&s)->body);
  case StmtKind::If: {
    auto *i = cast<IfStmt>(&s);
    return (i->thenBody && containsSyncEvents(*i->thenBody)) || (i->elseBody && containsSyncEvents(*i->elseBody));
  }
  case StmtKind::Elect: return cast<ElectStmt>(&s)->body && containsSyncEvents(*cast<ElectStmt>(&s)->body);
  case StmtKind::Return: return true;
  case StmtKind::Op: return opIsSyncRelevant(*cast<OpStmt>(&s));
  case StmtKind::Let: return exprReadsShared(cast<LetStmt>(&s)->init.get());
  case StmtKind::Var: return exprReadsShared(cast<VarStmt>(&s)->init.get());
  case StmtKind::Assign: {
    auto *a = cast<AssignStmt>(&s);
    return isSharedRef(a->target.get()) || exprReadsShared(a->value.get());
  }
  default: return false;
  }
}

namespace {

// Only shared-memory accesses - no synchronisation, control transfer or asynchronous operation - and waits for
// the thread's own wgmma groups (an epilogue under a condition: a wait only adds order).
bool holdsDataAccessesOnly(const Stmt &s) {
  switch (s.kind) {
  case StmtKind::Block:
    for (const Ptr<Stmt> &c : cast<BlockStmt>(&s)->stmts)
      if (!holdsDataAccessesOnly(*c)) return false;
    return true;
  case StmtKind::If: {
    auto *i = cast<IfStmt>(&s);
    return (!i->thenBody || holdsDataAccessesOnly(*i->thenBody)) && (!i->elseBody || holdsDataAccessesOnly(*i->elseBody));
  }
  case StmtKind::For: return !cast<ForStmt>(&s)->body || holdsDataAccessesOnly(*cast<ForStmt>(&s)->body);
  case StmtKind::Elect: return !cast<ElectStmt>(&s)->body || holdsDataAccessesOnly(*cast<ElectStmt>(&s)->body);
  case StmtKind::Role: case StmtKind::Return: case StmtKind::Call: return false;
  case StmtKind::Op: {
    auto *o = cast<OpStmt>(&s);
    return o->op && o->op->id != OpId::Syncwarp && (o->op->id == OpId::WgmmaWait || !isSynchronisationOp(*o));
  }
  default: return true;
  }
}

} // namespace

bool isDataGuard(const IfStmt &s) {
  return containsSyncEvents(s) && (!s.thenBody || holdsDataAccessesOnly(*s.thenBody)) &&
         (!s.elseBody || holdsDataAccessesOnly(*s.elseBody));
}

} // namespace cake

// The declaration an access path starts from, for the verifier families that key their facts by variable or
// buffer: x, x[i], x[i][j], x.f, x[i].f -> x.
#pragma once
#include "frontend/AST.h"

namespace cake {

// Follows index and member bases down to the name at the root; nullptr when the root is not a name (a call,
// a literal, a cast).
inline const Decl *rootDecl(const Expr *e) {
  while (e) {
    if (auto *n = dynCast<NameExpr>(e)) return n->decl;
    if (auto *ix = dynCast<IndexExpr>(e)) { e = ix->base.get(); continue; }
    if (auto *m = dynCast<MemberExpr>(e)) { e = m->base.get(); continue; }
    return nullptr;
  }
  return nullptr;
}

} // namespace cake

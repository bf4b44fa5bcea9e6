// Sema, what inlining leaves for sema to check (Inline.h): the var and shared arguments of inlined calls,
// checked at the call site just before the expansion's first statement (the argument must be storage of
// the right kind, and its type must be the parameter's type exactly, since it is used in place); and the
// partial-unrolling factor of `for ... unroll(N)` (a constant in 1..kMaxUnrollFactor).
#include "frontend/SemaImpl.h"

namespace cake {

void Sema::indexInlineArgChecks() {
  for (const InlineArgCheck &c : module_.inlineArgChecks) argChecks_.emplace(c.before, &c);
}

void Sema::checkInlineArgs(const Stmt &before) {
  auto [first, last] = argChecks_.equal_range(&before);
  for (auto it = first; it != last; ++it) {
    const InlineArgCheck &c = *it->second;
    if (!c.argument || !c.paramType) continue;
    bool isVar = c.mode == FnParamMode::Var;
    allowTiles_ = !isVar;   // a shared argument may be a tile of a ring (a[s]) or a sub-tile
    const Type *at = checkExpr(*c.argument);
    allowTiles_ = false;
    if (at->isError()) continue;
    Decl *root = rootDecl(*c.argument);
    bool storage = root && (isVar ? root->declKind == DeclKind::Var : root->declKind == DeclKind::Shared);
    if (!storage) {
      diags_.report(DiagKind::FnArgNotAssignable, c.argument->range, isVar ? "var" : "shared", c.param, c.fn,
                    isVar ? "a var local or an element of one" : "a shared array or a stage of one")
          .note(c.paramRange, "the parameter is declared here");
      continue;
    }
    const Type *pt = resolveType(*c.paramType, isVar ? TypeUse::Register : TypeUse::Shared);
    if (pt->isError()) continue;
    if (!sameType(at, pt))
      diags_.report(DiagKind::FnArgTypeMismatch, c.argument->range, c.param, c.fn, typeToString(at), typeToString(pt))
          .note(c.paramRange, "the parameter is declared here");
  }
}

void Sema::checkUnrollFactor(ForStmt &s) {
  if (!s.unrollFactor) return;
  const Type *t = checkExpr(*s.unrollFactor);
  if (t->isError()) return;
  if (!t->isInteger()) {
    diags_.report(DiagKind::BadUnrollFactor, s.unrollFactor->range, "must be an integer, not " + typeToString(t));
    return;
  }
  ConstResult r = constEval_.evaluate(*s.unrollFactor);
  if (!r.ok()) {
    diags_.report(DiagKind::BadUnrollFactor, s.unrollFactor->range, "is not a compile-time constant")
        .hint("write a literal or a compile-time parameter: unroll(4), unroll(U)");
    return;
  }
  if (r.value < 1 || r.value > kMaxUnrollFactor) {
    diags_.report(DiagKind::BadUnrollFactor, s.unrollFactor->range,
                  std::to_string(r.value) + " is outside 1.." + std::to_string(kMaxUnrollFactor))
        .hint("unroll(N) repeats the body N times per trip; write 'unroll' alone to unroll fully");
    return;
  }
  if (s.step && !constEval_.evaluate(*s.step).ok()) {
    diags_.report(DiagKind::BadUnrollFactor, s.unrollFactor->range, "needs a compile-time constant step")
        .note(s.step->range, "this step is computed at run time");
    return;
  }
  s.unrollCount = r.value;
}

} // namespace cake

// Sema, statements: the walk over a kernel body.
//
// Each block opens a scope (a for loop's variable shares the scope of its body, so the body cannot
// redeclare it).  The StmtContext passed down records how deep we are (declarations of shared arrays,
// barriers and roles need depth 0), the enclosing role (ROLE.index, warpgroup checks) and whether we are
// inside `elect` (nesting is E0412).  Names are declared after their initialiser is typed, so
// `let x = x + 1;` refers to an outer x.
#include "frontend/SemaImpl.h"

namespace cake {

namespace {
StmtContext nested(const StmtContext &ctx) {
  StmtContext c = ctx;
  ++c.depth;
  return c;
}

std::string assignSpelling(AssignOp op) {
  if (op == AssignOp::Set) return "=";
  return std::string(binaryOpSpelling(assignBinaryOp(op))) + "=";
}
} // namespace

void Sema::analyzeBlock(BlockStmt &b, const StmtContext &ctx, bool newScope) {
  if (newScope) {
    ScopeGuard guard(*this, ScopeKind::Block);
    for (auto &s : b.stmts)
      if (s && !diags_.limitReached()) {
        checkInlineArgs(*s);
        analyzeStmt(*s, ctx);
      }
    return;
  }
  for (auto &s : b.stmts)
    if (s && !diags_.limitReached()) {
      checkInlineArgs(*s);
      analyzeStmt(*s, ctx);
    }
}

void Sema::analyzeStmt(Stmt &s, const StmtContext &ctx) {
  switch (s.kind) {
  case StmtKind::Block: analyzeBlock(*cast<BlockStmt>(&s), nested(ctx)); break;
  case StmtKind::Let: analyzeLet(*cast<LetStmt>(&s)); break;
  case StmtKind::Var: analyzeVar(*cast<VarStmt>(&s)); break;
  case StmtKind::Shared: analyzeShared(*cast<SharedStmt>(&s), ctx); break;
  case StmtKind::MBarrier: analyzeMBarrier(*cast<MBarrierStmt>(&s), ctx); break;
  case StmtKind::Barrier: analyzeBarrier(*cast<BarrierStmt>(&s), ctx); break;
  case StmtKind::Role: analyzeRole(*cast<RoleStmt>(&s), ctx); break;
  case StmtKind::For: analyzeFor(*cast<ForStmt>(&s), ctx); break;
  case StmtKind::If: analyzeIf(*cast<IfStmt>(&s), ctx); break;
  case StmtKind::Elect: {
    auto &e = *cast<ElectStmt>(&s);
    if (ctx.inElect) {
      SourceRange kw{s.range.begin, s.range.begin.offset + 5};
      diags_.report(DiagKind::ElectOutsideWarp, kw).hint("the enclosing elect already runs on one lane; remove this one");
    }
    StmtContext inner = nested(ctx);
    inner.inElect = true;
    if (e.body) analyzeBlock(*e.body, inner);
    break;
  }
  case StmtKind::Return:
    if (cast<ReturnStmt>(&s)->value) CAKE_INTERNAL_ERROR("a return value reached sema (inlining removes it)");
    break;
  case StmtKind::Assign: analyzeAssign(*cast<AssignStmt>(&s)); break;
  case StmtKind::Op: analyzeOp(*cast<OpStmt>(&s), ctx); break;
  case StmtKind::Call: CAKE_INTERNAL_ERROR("a call statement reached sema (inlining replaces it)");
  }
}

void Sema::analyzeLet(LetStmt &s) {
  const Type *declared = s.declaredType ? resolveType(*s.declaredType, TypeUse::Register) : nullptr;
  const Type *t = types_.error();
  if (s.init) {
    if (declared) {
      checkExprAs(*s.init, declared, "let " + s.name);
      t = declared;
    } else {
      checkExpr(*s.init);
      t = concretize(*s.init);
    }
  } else if (declared) {
    t = declared;
  }
  s.type = t;
  declare(s);
}

void Sema::analyzeVar(VarStmt &s) {
  const Type *t = s.declaredType ? resolveType(*s.declaredType, TypeUse::Register) : types_.error();
  if (s.init) {
    if (t->isError()) {
      checkExpr(*s.init);
    } else if (t->isScalar() || t->isVector()) {
      checkExprAs(*s.init, t, "var " + s.name);
    } else {
      // Fragments and register arrays: a constant initialises every element; a fragment may also be copied.
      const Type *it = checkExpr(*s.init);
      const Type *elem = t->isTensor() ? t->element : t;
      if (it->isError()) {
      } else if (it->isUntyped()) {
        const Type *lane = types_.scalar(elem->scalar);
        if (it->kind == TypeKind::UntypedFloat && !lane->isFloat())
          diags_.report(DiagKind::TypeMismatch, s.init->range, typeToString(lane), typeToString(it), "var " + s.name);
        else adaptUntyped(*s.init, lane);
      } else if (!sameType(it, t)) {
        diags_.report(DiagKind::TypeMismatch, s.init->range, typeToString(t), typeToString(it), "var " + s.name);
      }
    }
  }
  s.type = t;
  declare(s);
}

void Sema::analyzeFor(ForStmt &s, const StmtContext &ctx) {
  const Type *t = types_.error();
  bool ok = s.lower && s.upper;
  if (s.lower) ok &= !checkExpr(*s.lower)->isError() && checkInteger(*s.lower, "a loop bound");
  if (s.upper) ok &= !checkExpr(*s.upper)->isError() && checkInteger(*s.upper, "a loop bound");
  if (ok) {
    const Type *r = binaryResultType(BinaryOp::Lt, s.lower->type, s.upper->type, s.lower.get(), s.upper.get(),
                                     SourceRange{s.lower->range.begin, s.upper->range.end}, "..");
    if (!r->isError()) {
      if (s.lower->type->isUntyped() && s.upper->type->isUntyped()) {
        concretize(*s.lower);
        adaptUntyped(*s.upper, s.lower->type);
      }
      t = s.lower->type->isUntyped() ? s.upper->type : s.lower->type;
    }
  }
  if (s.step) {
    const Type *st = checkExpr(*s.step);
    if (!st->isError() && checkInteger(*s.step, "a loop step")) {
      if (!t->isError()) {
        if (st->isUntyped()) adaptUntyped(*s.step, t);
        else if (!sameType(st, t))
          diags_.report(DiagKind::TypeMismatch, s.step->range, typeToString(t), typeToString(st), "step");
      }
      ConstResult r = constEval_.evaluate(*s.step);
      if (r.ok() && r.value <= 0)
        diags_.report(DiagKind::BadAttributeArgument, s.step->range, "step",
                      "the step is " + std::to_string(r.value) + "; loops count upwards with a positive step");
    }
  }
  checkUnrollFactor(s);
  ScopeGuard guard(*this, ScopeKind::Block);
  s.type = t;
  declare(s);
  if (s.body) analyzeBlock(*s.body, nested(ctx), /*newScope=*/false);
}

void Sema::analyzeIf(IfStmt &s, const StmtContext &ctx) {
  if (s.cond && !checkExpr(*s.cond)->isError()) checkPred(*s.cond, "an if condition");
  if (s.thenBody) analyzeBlock(*s.thenBody, nested(ctx));
  if (s.elseBody) {
    if (auto *b = dynCast<BlockStmt>(s.elseBody.get())) analyzeBlock(*b, nested(ctx));
    else analyzeStmt(*s.elseBody, ctx);   // else if: same level as this if
  }
}

Decl *Sema::rootDecl(Expr &e) const {
  Expr *cur = &e;
  for (;;) {
    if (auto *ix = dynCast<IndexExpr>(cur)) cur = ix->base.get();
    else if (auto *m = dynCast<MemberExpr>(cur)) cur = m->base.get();
    else break;
    if (!cur) return nullptr;
  }
  auto *n = dynCast<NameExpr>(cur);
  return n ? n->decl : nullptr;
}

bool Sema::checkAssignable(Expr &target) {
  if (!target.type || target.type->isError()) return false;
  if (target.type->isTensor()) {
    diags_.report(DiagKind::NotAssignable, target.range, "a tile of type " + typeToString(target.type))
        .hint("assign elements (t[r, c] = v) or copy tiles with an operation such as tma.load or cp.async");
    return false;
  }
  Decl *root = rootDecl(target);
  bool direct = isa<NameExpr>(&target);
  bool element = isa<IndexExpr>(&target);
  if (root && (direct || element)) {
    switch (root->declKind) {
    case DeclKind::Var:
    case DeclKind::Shared: return true;
    case DeclKind::Param:
      if (element && root->type && root->type->isTensor()) return true;
      break;
    case DeclKind::Let:
      // A let that names a tile (let t = a[s]) aliases writable memory.
      if (element && root->type && root->type->isTensor() && root->type->space != AddressSpace::Register) return true;
      break;
    default: break;
    }
    auto d = diags_.report(DiagKind::NotAssignable, target.range, (element ? "an element of " : "") + describeDecl(*root));
    if (root->declKind == DeclKind::Let) d.hint("declare it with 'var' to make it mutable").note(root->nameRange, describeDecl(*root) + " is declared here");
    return false;
  }
  diags_.report(DiagKind::NotAssignable, target.range, quote(text(target)))
      .hint("only var locals, their elements, shared arrays and global tensors can be assigned");
  return false;
}

void Sema::analyzeAssign(AssignStmt &s) {
  if (!s.target || !s.value) return;
  const Type *tt = checkExpr(*s.target);
  if (tt->isError() || !checkAssignable(*s.target)) {
    checkExpr(*s.value);
    return;
  }
  std::string spelling = assignSpelling(s.op);
  if (s.op == AssignOp::Set) {
    checkExprAs(*s.value, tt, spelling);
    return;
  }
  const Type *vt = checkExpr(*s.value);
  const Type *r = binaryResultType(assignBinaryOp(s.op), tt, vt, s.target.get(), s.value.get(), s.range, spelling);
  if (!r->isError() && !sameType(r, tt))
    diags_.report(DiagKind::TypeMismatch, s.range, typeToString(tt), typeToString(r), spelling);
}

} // namespace cake

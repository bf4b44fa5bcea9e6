// Sema, names: declarations, scopes, resolution and builtins.
//
// declare() enforces the naming rules of docs/frontend-contract.md: one declaration per name and scope;
// no local may shadow a kernel-level name (ct param, shape variable, parameter, or a shared array,
// mbarrier, named barrier or role declared in the kernel body); other locals may be shadowed in nested
// blocks; operation namespaces, clause names, intrinsic and type
// names and builtins are reserved.  resolve() looks a name up through the scope chain, falling back to
// the builtin table (lane, warp, num_sms, inf and the namespaces tid, block, block_dim, grid_dim,
// cluster); a miss is E0301 with a "did you mean" hint and fix-it chosen by edit distance over every
// visible name.
#include "frontend/SemaImpl.h"

#include <algorithm>

namespace cake {


std::string quote(std::string_view s) { return "'" + std::string(s) + "'"; }

std::string Sema::closestName(std::string_view name, const std::vector<std::string> &candidates) const {
  return cake::closestName(name, candidates);   // close typos only (support/EditDistance.h)
}

std::string Sema::describeDecl(const Decl &d) const {
  switch (d.declKind) {
  case DeclKind::ShapeVar: return "shape variable " + quote(d.name);
  case DeclKind::CtParam: return "compile-time parameter " + quote(d.name);
  case DeclKind::Param: return "parameter " + quote(d.name);
  case DeclKind::Let: return "let binding " + quote(d.name);
  case DeclKind::Var: return "variable " + quote(d.name);
  case DeclKind::LoopVar: return "loop variable " + quote(d.name);
  case DeclKind::Shared: return "shared array " + quote(d.name);
  case DeclKind::TensorMemory: return "tmem array " + quote(d.name);
  case DeclKind::MBarrier: return "mbarrier " + quote(d.name);
  case DeclKind::Barrier: return "named barrier " + quote(d.name);
  case DeclKind::Role: return "role " + quote(d.name);
  case DeclKind::Builtin: return "builtin " + quote(d.name);
  }
  return quote(d.name);
}

bool Sema::isReservedName(std::string_view name, std::string *why) const {
  if (builtins_.find(name)) { *why = quote(name) + " is a builtin name"; return true; }
  if (isClauseName(name)) { *why = quote(name) + " is a clause name"; return true; }
  if (isOpNamespace(name)) { *why = quote(name) + " names an operation"; return true; }
  if (lookupIntrinsic(name)) { *why = quote(name) + " is an intrinsic function"; return true; }
  if (types_.scalarOrVectorByName(name) || isTf32TypeName(name) || name == "frag") { *why = quote(name) + " is a type name"; return true; }
  return false;
}

bool Sema::declare(Decl &d) {
  std::string why;
  if (d.declKind != DeclKind::Builtin && isReservedName(d.name, &why)) {
    diags_.report(DiagKind::Redefinition, d.nameRange, d.name).hint(why + "; choose another name");
    scope_->declare(d);   // uses still resolve to it: no "undeclared" cascade
    return false;
  }
  if (Decl *prev = scope_->lookupLocal(d.name)) {
    diags_.report(DiagKind::Redefinition, d.nameRange, d.name)
        .note(prev->nameRange, "previous declaration of " + describeDecl(*prev) + " is here");
    return false;
  }
  // Locals may shadow outer locals, but never a kernel-level name.
  const Scope *owner = scope_->parent() ? scope_->parent()->findDeclaringScope(d.name) : nullptr;
  Decl *prev = owner ? owner->lookupLocal(d.name) : nullptr;
  bool kernelLevel = prev && (owner->kind() == ScopeKind::Kernel ||
                              (owner->kind() == ScopeKind::KernelBody &&
                               (prev->declKind == DeclKind::Shared || prev->declKind == DeclKind::TensorMemory ||
                                prev->declKind == DeclKind::MBarrier ||
                                prev->declKind == DeclKind::Barrier || prev->declKind == DeclKind::Role)));
  if (kernelLevel) {
    diags_.report(DiagKind::Redefinition, d.nameRange, d.name)
        .note(prev->nameRange, describeDecl(*prev) + " is declared here; locals may not shadow kernel-level names");
    return false;
  }
  scope_->declare(d);
  return true;
}

Decl *Sema::lookup(const std::string &name) const {
  if (scope_)
    if (Decl *d = scope_->lookup(name)) return d;
  if (const BuiltinDecl *b = builtins_.find(name)) return const_cast<BuiltinDecl *>(b);
  return nullptr;
}

Decl *Sema::resolve(NameExpr &n) {
  if (Decl *d = lookup(n.name)) {
    n.decl = d;
    referenced_.insert(d);
    return d;
  }
  std::vector<std::string> candidates = scope_ ? scope_->visibleNames() : std::vector<std::string>{};
  for (const auto &b : builtins_.all()) candidates.push_back(b->name);
  auto diag = diags_.report(DiagKind::UndefinedName, n.range, n.name);
  std::string best = types_.scalarOrVectorByName(n.name) ? std::string() : closestName(n.name, candidates);
  if (!best.empty()) {
    diag.hint("did you mean " + quote(best) + "?");
    diag.fixit(n.range, best);
  } else if (types_.scalarOrVectorByName(n.name)) {
    diag.hint(quote(n.name) + " is a type; convert a value with " + n.name + "(x)");
  } else if (n.name == "threadIdx" || n.name == "blockIdx") {
    diag.hint(std::string("CAKE spells it ") + (n.name == "threadIdx" ? "tid.x / tid.y / tid.z" : "block.x / block.y / block.z"));
  }
  return nullptr;
}

} // namespace cake

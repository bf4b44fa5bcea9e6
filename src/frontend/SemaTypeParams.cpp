// Sema, type parameters: <T: type = bf16>, -D T=f16 and sizeof(TYPE).
//
// A type parameter is resolved first, in declaration order with the kernel's other compile-time
// parameters: its default names a scalar type or an earlier type parameter (E0372), and -D NAME=TYPE
// overrides it (E0370 for an integer or a name that is not a scalar type; an identifier given to an integer
// parameter is E0371).  Then, before anything of the kernel is typed, every use is *substituted*: a type
// expression's base or fragment dtype written T, and a conversion T(x), are rewritten to the resolved type
// name, and sizeof(TYPE) (TYPE a scalar or vector type name or a type parameter) is replaced by an integer
// literal of its size in bytes (keeping the call's source range, so diagnostics quote what was written).
// The rest of sema, the verifier, the cost model and codegen therefore only ever see concrete types.
// Locals cannot shadow a kernel-level name (SemaNames.cpp) and an fn's own names are renamed when it is
// inlined, so every T in a type position of the kernel means the type parameter.  A type parameter used as
// a value is E0373 (SemaTypes.cpp); a sizeof left after substitution has a bad argument: E0374.
#include "frontend/SemaImpl.h"
#include "frontend/StmtSlots.h"

#include <set>

namespace cake {

namespace {

const std::vector<std::string> &scalarTypeNames() {
  static const std::vector<std::string> names = {"pred", "i32", "u32", "i64", "f16", "bf16", "f32", "f8e4m3", "f8e5m2"};
  return names;
}

std::string scalarTypeList() {
  std::string out;
  for (const std::string &n : scalarTypeNames()) out += (out.empty() ? "" : " ") + n;
  return out;
}

// Rewrites the uses of type parameters in one kernel (see the file comment).
class Substituter {
public:
  Substituter(const std::map<std::string, std::string> &params, TypeContext &types, std::set<const Stmt *> &visited)
      : params_(params), types_(types), visited_(visited) {}

  // The resolved name for a type name as written (itself when it is not a type parameter).  A type
  // parameter that failed to resolve stays as written: sema then skips it silently (already reported).
  const std::string &resolved(const std::string &name) const {
    auto it = params_.find(name);
    return it == params_.end() || it->second.empty() ? name : it->second;
  }

  void expr(Ptr<Expr> &e) {
    if (!e) return;
    switch (e->kind) {
    case ExprKind::Unary: expr(cast<UnaryExpr>(e.get())->operand); return;
    case ExprKind::Binary: {
      auto &b = *cast<BinaryExpr>(e.get());
      expr(b.lhs);
      expr(b.rhs);
      return;
    }
    case ExprKind::Member: expr(cast<MemberExpr>(e.get())->base); return;
    case ExprKind::Index: {
      auto &x = *cast<IndexExpr>(e.get());
      expr(x.base);
      for (auto &item : x.items) {
        expr(item.start);
        expr(item.length);
      }
      return;
    }
    case ExprKind::Call: {
      auto &c = *cast<CallExpr>(e.get());
      if (c.callee == "sizeof") {
        if (auto bytes = sizeofValue(c)) {
          e = std::make_unique<IntLitExpr>(c.range, static_cast<uint64_t>(*bytes), false);
          return;
        }
      } else {
        c.callee = resolved(c.callee);
      }
      for (auto &a : c.args) expr(a);
      return;
    }
    case ExprKind::List:
      for (auto &a : cast<ListExpr>(e.get())->elements) expr(a);
      return;
    default: return;
    }
  }

  void type(Ptr<TypeExpr> &t) {
    if (!t) return;
    if (t->isFrag()) t->fragDtype = resolved(t->fragDtype);
    else t->baseName = resolved(t->baseName);
    expr(t->fragM);
    expr(t->fragN);
    expr(t->fragK);
    for (auto &group : t->dimGroups)
      for (auto &d : group) expr(d);
  }

  void attrs(std::vector<Attr> &list) {
    for (Attr &a : list)
      for (AttrArg &arg : a.args) expr(arg.value);
  }

  void block(BlockStmt &b) {
    for (auto &s : b.stmts)
      if (s) stmt(*s);
  }

  void stmt(Stmt &s) {
    visited_.insert(&s);
    switch (s.kind) {
    case StmtKind::Let: type(cast<LetStmt>(&s)->declaredType); break;
    case StmtKind::Var: type(cast<VarStmt>(&s)->declaredType); break;
    case StmtKind::Shared: {
      auto &d = *cast<SharedStmt>(&s);
      type(d.declaredType);
      attrs(d.attrs);
      break;
    }
    case StmtKind::MBarrier: attrs(cast<MBarrierStmt>(&s)->attrs); break;
    case StmtKind::Barrier: attrs(cast<BarrierStmt>(&s)->attrs); break;
    case StmtKind::Role: attrs(cast<RoleStmt>(&s)->attrs); break;
    default: break;
    }
    forEachExprSlot(s, [&](Ptr<Expr> &e) { expr(e); });
    forEachNestedStmt(s, [&](Stmt &nested) { stmt(nested); });
  }

private:
  // sizeof(NAME) for a scalar (not pred) or vector type name, or a resolved type parameter.
  std::optional<int64_t> sizeofValue(const CallExpr &c) const {
    if (c.args.size() != 1) return std::nullopt;
    const auto *n = dynCast<NameExpr>(c.args[0].get());
    if (!n) return std::nullopt;
    auto it = params_.find(n->name);
    if (it != params_.end() && it->second.empty()) return std::nullopt;   // a broken type parameter
    const Type *t = types_.scalarOrVectorByName(resolved(n->name));
    if (!t || (t->isScalar() && t->scalar == ScalarKind::Pred)) return std::nullopt;
    return t->sizeInBytes();
  }

  const std::map<std::string, std::string> &params_;
  TypeContext &types_;
  std::set<const Stmt *> &visited_;
};

} // namespace

// The scalar type a type parameter's value names, or a reason why `name` is not one.
std::optional<std::string> Sema::typeParamValue(const std::string &name, bool allowParams, std::string *why) {
  if (allowParams) {
    auto it = typeParams_.find(name);
    if (it != typeParams_.end()) {
      if (it->second.empty()) *why = "";   // itself broken: already reported
      else return it->second;
      return std::nullopt;
    }
  }
  if (const Type *t = types_.scalarOrVectorByName(name)) {
    if (t->isScalar()) return name;
    *why = quote(name) + " is a vector type; a type parameter names a scalar type";
    return std::nullopt;
  }
  if (Decl *d = lookup(name); d && d->declKind == DeclKind::CtParam) {
    *why = quote(name) + " is an integer compile-time parameter";
    return std::nullopt;
  }
  *why = quote(name) + " is not a type";
  return std::nullopt;
}

void Sema::analyzeTypeParam(CtParam &ct) {
  std::string value, why;
  auto *dflt = dynCast<NameExpr>(ct.defaultValue.get());
  if (dflt) {
    if (auto v = typeParamValue(dflt->name, /*allowParams=*/true, &why)) {
      value = *v;
    } else if (!why.empty()) {
      auto d = diags_.report(DiagKind::BadTypeParamDefault, dflt->range, ct.name, why);
      std::vector<std::string> names = scalarTypeNames();
      for (const auto &[n, v] : typeParams_) names.push_back(n);
      std::string best = closestName(dflt->name, names);
      if (!best.empty()) d.hint("did you mean " + quote(best) + "?").fixit(dflt->range, best);
      else d.hint("scalar types: " + scalarTypeList());
    }
  }
  // -D NAME=TYPE overrides the default; an integer is E0370.  The last -D for a name wins (the driver keeps
  // at most one of the two maps' entries per name).
  std::string kernelName = kernel_ ? kernel_->name : std::string();
  if (auto def = opts_.defines.find(ct.name); def != opts_.defines.end()) {
    diags_.report(DiagKind::TypeDefineNotAType, ct.nameRange, ct.name, std::to_string(def->second), kernelName,
                  "an integer is not a type")
        .hint("give a scalar type, e.g. -D " + ct.name + "=f16 (" + scalarTypeList() + ")");
    value.clear();
  } else if (auto tdef = opts_.typeDefines.find(ct.name); tdef != opts_.typeDefines.end()) {
    if (auto v = typeParamValue(tdef->second, /*allowParams=*/false, &why)) {
      value = *v;
    } else {
      auto d = diags_.report(DiagKind::TypeDefineNotAType, ct.nameRange, ct.name, tdef->second, kernelName, why);
      std::string best = closestName(tdef->second, scalarTypeNames());
      if (!best.empty()) d.hint("did you mean -D " + ct.name + "=" + best + "?");
      else d.hint("scalar types: " + scalarTypeList());
      value.clear();
    }
  }
  ct.typeValue = value;
  ct.type = value.empty() ? types_.error() : types_.scalarOrVectorByName(value);
  typeParams_[ct.name] = value;
  if (!value.empty()) info_->ctTypes[ct.name] = value;
}

void Sema::substituteTypeParams(Ptr<Expr> &e) {
  std::set<const Stmt *> visited;
  Substituter(typeParams_, types_, visited).expr(e);
}

void Sema::substituteTypeParams(Kernel &k) {
  std::set<const Stmt *> visited;
  Substituter sub(typeParams_, types_, visited);
  for (auto &p : k.params) {
    if (!p) continue;
    sub.type(p->declaredType);
    sub.attrs(p->attrs);
  }
  sub.attrs(k.attrs);
  if (k.body) sub.block(*k.body);
  // The var/shared arguments of inlined calls are checked against their parameter's type at the call site.
  for (InlineArgCheck &check : module_.inlineArgChecks) {
    if (!visited.count(check.before)) continue;
    sub.expr(check.argument);
    sub.type(check.paramType);
  }
}

bool Sema::isBrokenTypeParam(const std::string &name) const {
  auto it = typeParams_.find(name);
  return it != typeParams_.end() && it->second.empty();
}

// sizeof(...) that substitution left in place: its argument is not a type with a size.
const Type *Sema::badSizeof(CallExpr &c) {
  std::string why;
  const auto *n = c.args.size() == 1 ? dynCast<NameExpr>(c.args[0].get()) : nullptr;
  if (c.args.size() != 1) {
    why = "sizeof has one argument, a type name: sizeof(bf16)";
  } else if (n && isBrokenTypeParam(n->name)) {
    return types_.error();   // the type parameter's own error is reported
  } else if (n && n->name == "pred") {
    why = "pred has no size in memory";
  } else if (n) {
    Decl *d = lookup(n->name);
    why = (d ? describeDecl(*d) : quote(n->name)) + " is not a type";
  } else {
    why = quote(text(*c.args[0])) + " is an expression, not a type";
  }
  diags_.report(DiagKind::SizeofNotAType, c.range, why)
      .hint("write sizeof(TYPE) with a scalar or vector type or a type parameter, e.g. sizeof(T) or sizeof(f32)");
  return types_.error();
}

} // namespace cake

// Sema, types: type expressions, constants and the adaptation of untyped constants.
//
// resolveType() turns a TypeExpr into a Type: scalar/vector names, fragments (validated against the MMA
// shapes of docs/frontend-contract.md), and bracket groups of dims (constant for shared and register
// arrays; symbolic for kernel parameters, where an unknown bare name declares a shape variable).
//
// Integer literals and compile-time parameters are untyped integer constants, float literals and `inf`
// untyped float constants; they adapt to the typed operand they meet (adaptUntyped, which also checks that
// the value fits) and default to i32 (i64 if too large) / f32 (concretize).  Expression typing (checkExpr)
// is SemaExprs.cpp.
#include "frontend/SemaImpl.h"

#include <algorithm>

namespace cake {


namespace {

// The scalar an untyped constant becomes when it meets `t` (vectors and fragments broadcast it).
std::optional<ScalarKind> adaptTarget(const Type *t) {
  if (t->isScalar() || t->isVector() || t->isFragment()) return t->scalar;
  return std::nullopt;
}

} // namespace

bool untypedFits(const Type *u, const Type *t) {
  auto k = adaptTarget(t);
  if (!k || *k == ScalarKind::Pred) return false;
  if (u->kind == TypeKind::UntypedFloat) return isFloatScalar(*k);
  return true;   // integer constants convert to integer and float types
}

std::string Sema::text(SourceRange r) const {
  if (!r.valid()) return "<expr>";
  std::string_view t = diags_.sources().text(r.begin.file);
  if (r.end < r.begin.offset || r.end > t.size()) return "<expr>";
  return std::string(t.substr(r.begin.offset, r.end - r.begin.offset));
}
std::string Sema::text(const Expr &e) const { return text(e.range); }

void Sema::checkArch(ArchSet archs, std::string_view feature, SourceRange r) {
  if (arch_ && !archIn(*arch_, archs))
    diags_.report(DiagKind::ArchFeatureUnavailable, r, feature, describeArchSet(archs), archName(*arch_));
}

void Sema::checkScalarArch(ScalarKind k, SourceRange r) {
  if (isF8Scalar(k)) checkArch(archsFrom(Arch::SM89), quote(scalarName(k)), r);
}

// ---------------------------------------------------------------- type expressions

namespace {
// Empty when valid, else why not.
// Accumulator layouts (mma_c, wgmma_acc) and row vectors hold any non-f8 element type as values; the
// mma.sync / wgmma operations check their accumulators' f32 / f16 themselves.
std::string validateFragment(FragKind kind, ScalarKind dt, int64_t m, int64_t n, int64_t k) {
  std::string shape = "m" + std::to_string(m) + "n" + std::to_string(n) + "k" + std::to_string(k);
  bool b16 = dt == ScalarKind::BF16 || dt == ScalarKind::F16;
  bool accLayout = kind == FragKind::MmaC || kind == FragKind::WgmmaAcc || kind == FragKind::MmaRow || kind == FragKind::WgmmaRow ||
                   kind == FragKind::MmaCol || kind == FragKind::WgmmaCol || kind == FragKind::TmemAcc;
  if (dt == ScalarKind::TF32 && kind != FragKind::MmaA && kind != FragKind::MmaB && kind != FragKind::MmaC)
    return std::string(fragKindName(kind)) + " fragments do not hold tf32 (the element type of mma.sync A and B fragments only)";
  if (accLayout && isF8Scalar(dt))
    return std::string(fragKindName(kind)) + " fragments hold f32, f16, bf16, integer or pred elements, not " +
           std::string(scalarName(dt));
  switch (kind) {
  case FragKind::MmaRow:
    if (m != 16) return "mma_row vectors have M = 16 (the rows of an mma_c tile), not " + std::to_string(m);
    return {};
  case FragKind::WgmmaRow:
    if (m != 64) return "wgmma_row vectors have M = 64 (the rows of a wgmma accumulator), not " + std::to_string(m);
    return {};
  case FragKind::MmaCol:
    if (n != 8) return "mma_col vectors have N = 8 (the columns of an mma_c tile), not " + std::to_string(n);
    return {};
  case FragKind::WgmmaCol:
    if (n < 8 || n > 256 || n % 8 != 0)
      return "wgmma_col vectors have N, the columns of a wgmma accumulator, a multiple of 8 in 8..256, not " + std::to_string(n);
    return {};
  case FragKind::TmemAcc:
    // tcgen05.ld / st 32x32b.xN by a warpgroup: 128 rows (one per thread), N 32-bit columns per thread.
    if (m != 128) return "tmem_acc fragments have M = 128 (one tensor-memory lane per thread of a warpgroup), not " + std::to_string(m);
    if (n < 2 || n > 128 || (n & (n - 1)) != 0)
      return "tmem_acc N (the columns each thread holds, tcgen05.ld 32x32b.xN) is a power of two in 2..128, not " + std::to_string(n);
    if (k != 16) return "tmem_acc K is 16 (the K of a kind::f16 tcgen05.mma), not " + std::to_string(k);
    if (scalarBits(dt) != 32)
      return "tmem_acc fragments hold 32-bit elements (f32, i32, u32: one tensor-memory column each), not " + std::string(scalarName(dt));
    return {};
  case FragKind::MmaA:
  case FragKind::MmaB:
  case FragKind::MmaC:
    if (!(m == 16 && n == 8 && (k == 16 || k == 8)))
      return "mma.sync fragments have shape m16n8k16 or m16n8k8, not " + shape;
    if (kind == FragKind::MmaC && dt == ScalarKind::TF32)
      return "mma_c accumulates tf32 products in f32: frag<mma_c, f32, 16, 8, 8>, not tf32";
    if (dt == ScalarKind::TF32 && k != 8) return "mma.sync with tf32 inputs has shape m16n8k8, not " + shape;
    if (kind != FragKind::MmaC && !b16 && dt != ScalarKind::TF32)
      return "mma.sync inputs (" + std::string(fragKindName(kind)) + ") are bf16, f16 or tf32 (m16n8k8), not " +
             std::string(scalarName(dt));
    return {};
  case FragKind::WgmmaA:
  case FragKind::WgmmaAcc:
    if (m != 64) return "wgmma fragments have M = 64, not " + std::to_string(m);
    if (n < 8 || n > 256 || n % 8 != 0) return "wgmma N must be a multiple of 8 in 8..256, not " + std::to_string(n);
    if (kind == FragKind::WgmmaAcc) {
      if (k != 16 && k != 32) return "wgmma K is 16 (bf16/f16 inputs) or 32 (f8 inputs), not " + std::to_string(k);
      return {};
    }
    if (b16 && k != 16) return "wgmma with " + std::string(scalarName(dt)) + " inputs has K = 16, not " + std::to_string(k);
    if (isF8Scalar(dt) && k != 32) return "wgmma with f8 inputs has K = 32, not " + std::to_string(k);
    if (!b16 && !isF8Scalar(dt))
      return "wgmma inputs are bf16, f16, f8e4m3 or f8e5m2, not " + std::string(scalarName(dt));
    return {};
  }
  return {};
}
} // namespace

const Type *Sema::resolveType(TypeExpr &te, TypeUse use) {
  const Type *elem = nullptr;
  if (te.isFrag()) {
    auto kind = parseFragKind(te.fragKind);
    auto dtype = parseScalarName(te.fragDtype);
    if (!dtype && isBrokenTypeParam(te.fragDtype)) return types_.error();
    if (!kind)
      diags_.report(DiagKind::BadFragment, te.fragKindRange,
                    "unknown fragment kind " + quote(te.fragKind) +
                        "; expected mma_a, mma_b, mma_c, wgmma_a, wgmma_acc, mma_row, wgmma_row, mma_col, wgmma_col or tmem_acc");
    if (!dtype) {
      auto d = diags_.report(DiagKind::UnknownType, te.fragDtypeRange, te.fragDtype);
      std::vector<std::string> names = {"pred", "i32", "u32", "i64", "f16", "bf16", "f32", "f8e4m3", "f8e5m2", "tf32"};
      std::string best = closestName(te.fragDtype, names);
      if (!best.empty()) d.hint("did you mean " + quote(best) + "?").fixit(te.fragDtypeRange, best);
    } else {
      checkScalarArch(*dtype, te.fragDtypeRange);
    }
    std::optional<int64_t> m, n, k;
    if (te.fragM) m = constInt(*te.fragM, "a fragment's M");
    if (te.fragN) n = constInt(*te.fragN, "a fragment's N");
    if (te.fragK) k = constInt(*te.fragK, "a fragment's K");
    bool rowKind = kind && (*kind == FragKind::MmaRow || *kind == FragKind::WgmmaRow);
    bool colKind = kind && (*kind == FragKind::MmaCol || *kind == FragKind::WgmmaCol);
    if (kind && (rowKind || colKind) != !te.fragN) {
      diags_.report(DiagKind::BadFragment, te.range,
                    rowKind   ? "a row vector is written with M only: frag<" + te.fragKind + ", " + te.fragDtype + ", " +
                                    std::string(*kind == FragKind::MmaRow ? "16" : "64") + ">"
                    : colKind ? "a column vector is written with N only: frag<" + te.fragKind + ", " + te.fragDtype + ", " +
                                    std::string(*kind == FragKind::MmaCol ? "8" : "N") + ">"
                              : "frag<" + te.fragKind + ", ...> needs M, N and K");
      return types_.error();
    }
    if (rowKind) n = k = 0;
    if (colKind) {   // the one dim written is N; M is the accumulator family's
      n = m;
      m = *kind == FragKind::MmaCol ? 16 : 64;
      k = 0;
    }
    if (!kind || !dtype || !m || !n || !k) return types_.error();
    std::string why = validateFragment(*kind, *dtype, *m, *n, *k);
    if (!why.empty()) {
      auto d = diags_.report(DiagKind::BadFragment, te.range, why);
      if (*dtype == ScalarKind::TF32)
        d.hint("tf32 fragments are frag<mma_a, tf32, 16, 8, 8> and frag<mma_b, tf32, 16, 8, 8>, accumulated in "
               "frag<mma_c, f32, 16, 8, 8>");
      else if (*dtype == ScalarKind::F32 && (*kind == FragKind::MmaA || *kind == FragKind::MmaB))
        d.hint("for f32 data use tf32 inputs: frag<" + std::string(fragKindName(*kind)) +
               ", tf32, 16, 8, 8> (each element write rounds to tf32)");
      return types_.error();
    }
    if (use != TypeUse::Register) {
      diags_.report(DiagKind::BadFragment, te.range,
                    std::string("fragments live in registers; ") +
                        (use == TypeUse::Param ? "a kernel parameter" : "a shared array") + " cannot hold one");
      return types_.error();
    }
    elem = types_.fragment(*kind, *dtype, *m, *n, *k);
  } else {
    elem = types_.scalarOrVectorByName(te.baseName);
    // A type parameter in error (already reported) or tf32 outside a fragment: the dims are still analysed (a
    // parameter's dims declare its shape variables), and the type is the error type.
    if (!elem && isBrokenTypeParam(te.baseName)) elem = types_.error();
    if (isTf32TypeName(te.baseName)) {
      diags_.report(DiagKind::Tf32OutsideMmaFragment, te.baseRange, te.baseName)
          .hint("declare the data as f32 and the operand as frag<mma_a, tf32, 16, 8, 8> (or mma_b); writing an element "
                "rounds it to tf32");
      elem = types_.error();
    }
    if (!elem) {
      auto d = diags_.report(DiagKind::UnknownType, te.baseRange, te.baseName);
      std::vector<std::string> names = {"pred", "i32", "u32", "i64", "f16", "bf16", "f32", "f8e4m3", "f8e5m2",
                                        "f16x2", "bf16x2", "f16x8", "bf16x8", "f32x2", "f32x4", "i32x2", "i32x4", "u32x4"};
      std::string best = closestName(te.baseName, names);
      if (!best.empty()) d.hint("did you mean " + quote(best) + "?").fixit(te.baseRange, best);
      else if (te.baseName == "float" || te.baseName == "int" || te.baseName == "half" || te.baseName == "bool")
        d.hint("CAKE types are pred i32 u32 i64 f16 bf16 f32 f8e4m3 f8e5m2 and vectors such as f32x4");
      // Dims still resolve their names so later uses do not cascade.
      for (auto &g : te.dimGroups)
        for (auto &dim : g)
          if (dim) checkExpr(*dim);
      return types_.error();
    }
    if (!elem->isError()) checkScalarArch(elem->scalar, te.baseRange);
  }
  if (te.dimGroups.empty()) return elem;

  bool ok = true;
  std::vector<DimGroup> groups;
  for (auto &g : te.dimGroups) {
    DimGroup group;
    for (auto &dimPtr : g) {
      if (!dimPtr) { ok = false; continue; }
      Expr &dim = *dimPtr;
      TensorDim td{text(dim), &dim, std::nullopt};
      if (use == TypeUse::Param) {
        // A bare unknown name in a parameter's shape declares a shape variable (an implicit i32 param).
        if (auto *name = dynCast<NameExpr>(&dim); name && !lookup(name->name)) {
          auto sv = std::make_unique<ShapeVar>(name->name, name->range);
          sv->type = types_.i32();
          std::string why;
          if (isReservedName(sv->name, &why)) {
            diags_.report(DiagKind::Redefinition, name->range, name->name).hint(why + "; choose another name");
          } else {
            kernelScope_->declare(*sv);
          }
          kernel_->shapeVars.push_back(std::move(sv));
        }
        const Type *t = checkExpr(dim);
        if (t->isError() || !checkInteger(dim, "a tensor dimension")) { ok = false; group.push_back(td); continue; }
        adaptUntyped(dim, types_.i32());
        ConstResult r = constEval_.evaluate(dim);
        if (r.ok()) td.value = r.value;
        else if (r.status != ConstResult::NotConstant) evalConst(dim, "a tensor dimension");   // reports
      } else {
        td.value = constInt(dim, use == TypeUse::Shared ? "a shared array dimension" : "a register array dimension");
        if (!td.value) { ok = false; group.push_back(td); continue; }
        if (dim.type && dim.type->isUntyped()) adaptUntyped(dim, types_.i32());
      }
      if (td.value && *td.value <= 0) {
        diags_.report(DiagKind::BadDimension, dim.range, td.text,
                      "it is " + std::to_string(*td.value) + "; dimensions must be positive");
        ok = false;
      }
      group.push_back(std::move(td));
    }
    groups.push_back(std::move(group));
  }
  if (!ok || elem->isError()) return types_.error();
  AddressSpace space = use == TypeUse::Param ? AddressSpace::Global : use == TypeUse::Shared ? AddressSpace::Shared : AddressSpace::Register;
  const Type *t = types_.tensor(elem, space, std::move(groups));
  if (use != TypeUse::Param) {
    auto bytes = t->sizeInBytes();
    if (!bytes || *bytes > (int64_t(1) << 31))
      diags_.report(DiagKind::BadDimension, te.range, text(te.range), "the array is too large");
  }
  return t;
}

// ---------------------------------------------------------------- constants and adaptation

bool Sema::checkInteger(Expr &e, std::string_view what) {
  if (!e.type || e.type->isError()) return false;
  if (e.type->isInteger()) return true;
  diags_.report(DiagKind::ExpectedInteger, e.range, what, typeToString(e.type));
  return false;
}

bool Sema::checkPred(Expr &e, std::string_view what) {
  if (!e.type || e.type->isError()) return false;
  if (e.type->isPred()) return true;
  auto d = diags_.report(DiagKind::ExpectedPred, e.range, what, typeToString(e.type));
  if (e.type->isInteger()) d.hint("compare explicitly, e.g. '" + text(e) + " != 0'");
  return false;
}

std::optional<int64_t> Sema::evalConst(Expr &e, std::string_view what) {
  ConstResult r = constEval_.evaluate(e);
  switch (r.status) {
  case ConstResult::Ok: return r.value;
  case ConstResult::NotConstant: {
    const Expr *c = r.culprit ? r.culprit : &e;
    // A compile-time parameter without a value already had its own error.
    if (auto *n = dynCast<NameExpr>(c); n && n->decl && n->decl->declKind == DeclKind::CtParam) return std::nullopt;
    std::string sub = text(*c);
    auto d = diags_.report(DiagKind::NotConstant, c->range, what);
    if (auto *n = dynCast<NameExpr>(c); n && n->decl)
      d.hint(describeDecl(*n->decl) + " is not a compile-time constant; only integer literals, compile-time "
                                      "parameters and arithmetic on them are");
    else if (c != &e)
      d.hint("'" + sub + "' is not a compile-time constant");
    return std::nullopt;
  }
  case ConstResult::DivisionByZero: {
    const Expr *c = r.culprit ? r.culprit : &e;
    diags_.report(DiagKind::ConstantDivisionByZero, c->range).hint("in '" + text(*c) + "'");
    return std::nullopt;
  }
  case ConstResult::Overflow: {
    const Expr *c = r.culprit ? r.culprit : &e;
    diags_.report(DiagKind::ConstantOverflow, c->range, "'" + text(*c) + "' does not fit in 64-bit signed arithmetic");
    return std::nullopt;
  }
  }
  return std::nullopt;
}

std::optional<int64_t> Sema::constInt(Expr &e, std::string_view what) {
  const Type *t = checkExpr(e);
  if (t->isError() || !checkInteger(e, what)) return std::nullopt;
  return evalConst(e, what);
}

void Sema::adaptUntyped(Expr &e, const Type *to) {
  if (!e.type || !e.type->isUntyped() || !to || to->isError()) return;
  auto k = adaptTarget(to);
  if (!k) return;
  const Type *scalar = types_.scalar(*k);
  if (e.type->kind == TypeKind::UntypedInt && isIntegerScalar(*k)) {
    ConstResult r = constEval_.evaluate(e);
    if (r.ok()) {
      int64_t lo = *k == ScalarKind::I64 ? INT64_MIN : *k == ScalarKind::I32 ? INT32_MIN : INT32_MIN;
      int64_t hi = *k == ScalarKind::I64 ? INT64_MAX : *k == ScalarKind::I32 ? INT32_MAX : int64_t(UINT32_MAX);
      if (r.value < lo || r.value > hi) {
        diags_.report(DiagKind::ConstantOverflow, e.range,
                      "the constant " + std::to_string(r.value) + " does not fit in " + std::string(scalarName(*k)));
        e.type = scalar;
        return;
      }
    }
  }
  // Push the type down through the constant's structure so every node is concrete for codegen.
  struct Walker {
    const Type *t;
    void operator()(Expr &x) const {
      if (!x.type || !x.type->isUntyped()) return;
      x.type = t;
      switch (x.kind) {
      case ExprKind::Unary: (*this)(*cast<UnaryExpr>(&x)->operand); break;
      case ExprKind::Binary: {
        auto *b = cast<BinaryExpr>(&x);
        (*this)(*b->lhs);
        (*this)(*b->rhs);
        break;
      }
      case ExprKind::Call:
        for (auto &a : cast<CallExpr>(&x)->args)
          if (a) (*this)(*a);
        break;
      default: break;
      }
    }
  };
  Walker{scalar}(e);
}

const Type *Sema::concretize(Expr &e) {
  if (!e.type) return types_.error();
  if (e.type->kind == TypeKind::UntypedFloat) {
    adaptUntyped(e, types_.scalar(ScalarKind::F32));
  } else if (e.type->kind == TypeKind::UntypedInt) {
    ConstResult r = constEval_.evaluate(e);
    bool small = !r.ok() || (r.value >= INT32_MIN && r.value <= INT32_MAX);
    adaptUntyped(e, types_.scalar(small ? ScalarKind::I32 : ScalarKind::I64));
  }
  return e.type;
}

bool Sema::checkExprAs(Expr &e, const Type *expected, std::string_view context) {
  const Type *t = checkExpr(e);
  if (t->isError() || expected->isError()) return false;
  if (sameType(t, expected)) return true;
  if (t->isUntyped() && untypedFits(t, expected)) {
    adaptUntyped(e, expected);
    return true;
  }
  auto d = diags_.report(DiagKind::TypeMismatch, e.range, typeToString(expected), typeToString(t), context);
  if ((expected->isScalar() || expected->isVector()) && (t->isScalar() || t->isVector()) && !expected->isPred() &&
      !t->isPred() && expected->vectorWidth() == t->vectorWidth()) {
    std::string conv(typeToString(expected));
    d.hint("convert explicitly: " + conv + "(" + text(e) + ")");
    d.fixit(SourceRange{e.range.begin, e.range.begin.offset}, conv + "(");
    d.fixit(SourceRange{{e.range.begin.file, e.range.end}, e.range.end}, ")");
  }
  return false;
}

} // namespace cake

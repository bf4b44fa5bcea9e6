// Sema, expressions: checkExpr() types an expression bottom-up and stores the result in Expr::type.  Rules:
//   - untyped constants adapt to the typed operand (SemaTypes.cpp);
//   - binary operators need operands of one type (fragments may also meet a scalar of their dtype);
//     comparisons yield pred; no implicit conversions - conversions are calls named by a type;
//   - intrinsic calls are typed by the rule in Intrinsics.def;
//   - indexing: a[s] drops the outer bracket group, a[s][r, c] loads an element, a[s][r, c +: 8] a vector,
//     ':' and outer slices form tiles (only where an operation expects one);
//   - a sub-expression that failed has the error type, which every rule accepts silently, so one mistake
//     is reported once.
#include "frontend/SemaImpl.h"

#include <algorithm>

namespace cake {

namespace {
// tf32 fragments are mma.sync operands only: written and read element by element, never computed on whole.
bool isTf32Fragment(const Type *t) { return t->isFragment() && t->scalar == ScalarKind::TF32; }
bool isValueType(const Type *t) { return t->isNumeric() || t->isPred() || (t->isFragment() && !isTf32Fragment(t)); }
} // namespace

// ---------------------------------------------------------------- expressions

namespace {
struct CommonTypeResult {
  const Type *type;
  bool ok;
};
} // namespace

// The type two operands share (untyped constants adapt); reports E0304 when they have none.
static CommonTypeResult commonType(Sema &S, Expr &a, Expr &b, std::string_view spelling, SourceRange r) {
  const Type *at = a.type, *bt = b.type;
  if (at->isUntyped() && bt->isUntyped()) {
    bool isFloat = at->kind == TypeKind::UntypedFloat || bt->kind == TypeKind::UntypedFloat;
    return {isFloat ? S.types_.untypedFloat() : S.types_.untypedInt(), true};
  }
  if (at->isUntyped() || bt->isUntyped()) {
    Expr &u = at->isUntyped() ? a : b;
    const Type *typed = at->isUntyped() ? bt : at;
    if (untypedFits(u.type, typed)) {
      S.adaptUntyped(u, typed);
      return {typed, true};
    }
  } else if (sameType(at, bt)) {
    return {at, true};
  }
  auto d = S.diags_.report(DiagKind::TypeMismatch, r, typeToString(at), typeToString(bt), spelling);
  if ((at->isScalar() || at->isVector()) && (bt->isScalar() || bt->isVector()) && !at->isPred() && !bt->isPred() &&
      at->vectorWidth() == bt->vectorWidth() && !bt->isUntyped()) {
    std::string conv = typeToString(at);
    d.hint("convert explicitly, e.g. " + conv + "(" + S.text(b) + ")");
    d.fixit(SourceRange{b.range.begin, b.range.begin.offset}, conv + "(");
    d.fixit(SourceRange{{b.range.begin.file, b.range.end}, b.range.end}, ")");
  }
  return {S.types_.error(), false};
}

const Type *Sema::binaryResultType(BinaryOp op, const Type *lt, const Type *rt, Expr *lhs, Expr *rhs, SourceRange r,
                                   std::string_view spelling) {
  if (lt->isError() || rt->isError()) return types_.error();
  for (auto [t, e] : {std::pair{lt, lhs}, std::pair{rt, rhs}}) {
    if (!isValueType(t)) {
      auto d = diags_.report(DiagKind::InvalidOperator, e->range, spelling, typeToString(t));
      if (isTf32Fragment(t)) d.hint("a tf32 fragment is an mma.sync operand only; compute on its f32 elements, " + text(*e) + "[i]");
      return types_.error();
    }
  }
  if (lt->isFragment() || rt->isFragment()) return fragmentBinary(op, lt, rt, lhs, rhs, r, spelling);
  bool shift = op == BinaryOp::Shl || op == BinaryOp::Shr;
  // Shift amounts may have any integer type.
  if (shift && !lt->isUntyped() && !rt->isUntyped()) {
    if (!lt->isInteger()) { diags_.report(DiagKind::InvalidOperator, lhs->range, spelling, typeToString(lt)); return types_.error(); }
    if (!rt->isInteger()) { diags_.report(DiagKind::InvalidOperator, rhs->range, spelling, typeToString(rt)); return types_.error(); }
    return lt;
  }
  CommonTypeResult c = commonType(*this, *lhs, *rhs, spelling, r);
  if (!c.ok) return types_.error();
  const Type *t = c.type;
  auto bad = [&]() {
    diags_.report(DiagKind::InvalidOperator, r, spelling, typeToString(t));
    return types_.error();
  };
  switch (op) {
  case BinaryOp::Add: case BinaryOp::Sub: case BinaryOp::Mul: case BinaryOp::Div:
    if (t->isPred()) return bad();
    return t;
  case BinaryOp::Rem:
    if (!t->isInteger()) return bad();
    return t;
  case BinaryOp::Shl: case BinaryOp::Shr:
    if (!t->isInteger()) return bad();
    return t;
  case BinaryOp::BitAnd: case BinaryOp::BitOr: case BinaryOp::BitXor:
    if (!t->isInteger() && !t->isPred()) return bad();
    return t;
  case BinaryOp::LogAnd: case BinaryOp::LogOr:
    if (!t->isPred()) return bad();
    return t;
  case BinaryOp::Eq: case BinaryOp::Ne:
    if (!(t->isScalar() || t->isUntyped())) return bad();
    return types_.pred();
  case BinaryOp::Lt: case BinaryOp::Le: case BinaryOp::Gt: case BinaryOp::Ge:
    if (!((t->isScalar() && !t->isPred()) || t->isUntyped())) return bad();
    return types_.pred();
  }
  return types_.error();
}

namespace {
const Type *typeUnary(Sema &S, UnaryExpr &u) {
  const Type *t = S.checkExpr(*u.operand);
  if (t->isError()) return t;
  std::string_view spelling = u.op == UnaryOp::Neg ? "-" : u.op == UnaryOp::Not ? "!" : "~";
  bool ok = false;
  switch (u.op) {
  case UnaryOp::Neg: ok = t->isNumeric() || (t->isFragment() && t->scalar != ScalarKind::Pred && !isTf32Fragment(t)); break;
  case UnaryOp::Not: ok = t->isPred() || (t->isFragment() && t->scalar == ScalarKind::Pred); break;
  case UnaryOp::BitNot: ok = t->isInteger() || (t->isFragment() && isIntegerScalar(t->scalar)); break;
  }
  if (!ok) {
    auto d = S.diags_.report(DiagKind::InvalidOperator, u.range, spelling, typeToString(t));
    if (u.op == UnaryOp::Not && t->isInteger()) d.hint("compare instead: " + S.text(*u.operand) + " == 0");
    return S.types_.error();
  }
  return t;
}
} // namespace

static const Type *typeMember(Sema &S, MemberExpr &m) {
  auto &types = S.types_;
  if (auto *base = dynCast<NameExpr>(m.base.get())) {
    Decl *d = S.lookup(base->name);
    if (d && d->declKind == DeclKind::Builtin && static_cast<BuiltinDecl *>(d)->isNamespace) {
      base->decl = d;
      base->type = types.builtinNamespace();
      if (builtinMember(d->name, m.member)) {
        if (d->name == "cluster") S.checkArch(archsFrom(Arch::SM90), quote(d->name + "." + m.member), m.range);
        return types.scalar(ScalarKind::U32);
      }
      std::vector<std::string> members;
      for (auto mem : builtinMembers(d->name)) members.emplace_back(mem);
      auto diag = S.diags_.report(DiagKind::UnknownMember, m.memberRange, "builtin " + quote(d->name), m.member);
      std::string best = S.closestName(m.member, members);
      if (!best.empty()) diag.hint("did you mean " + quote(d->name + "." + best) + "?").fixit(m.memberRange, best);
      else {
        std::string list;
        for (auto &mem : members) list += (list.empty() ? "" : ", ") + d->name + "." + mem;
        diag.hint(quote(d->name) + " has " + list);
      }
      return types.error();
    }
    if (d && d->declKind == DeclKind::Role) {
      base->decl = d;
      base->type = types.role();
      if (m.member == "index" || m.member == "warp" || m.member == "thread") {
        if (S.currentRole_ != static_cast<const RoleStmt *>(d)) {
          S.diags_.report(DiagKind::BarrierUnderRole, m.range,
                          quote(base->name + "." + m.member) + " is defined only inside role " + quote(base->name))
              .note(d->nameRange, "role " + quote(base->name) + " is declared here");
          return types.error();
        }
        return types.i32();
      }
      auto diag = S.diags_.report(DiagKind::UnknownMember, m.memberRange, "role " + quote(base->name), m.member);
      std::string best = S.closestName(m.member, {"index", "warp", "thread"});
      if (!best.empty()) diag.hint("did you mean " + quote(base->name + "." + best) + "?").fixit(m.memberRange, best);
      else diag.hint("a role has index, warp and thread");
      return types.error();
    }
  }
  const Type *bt = S.checkExpr(*m.base, ExprMode::Operand);
  if (bt->isError()) return bt;
  if (m.member == "T") {
    bool tile2d = bt->isTensor() && bt->groups.size() == 1 && bt->groups[0].size() == 2 && bt->space == AddressSpace::Shared;
    if (tile2d && S.allowTranspose_) {
      DimGroup g = {bt->groups[0][1], bt->groups[0][0]};
      return types.tensor(bt->element, bt->space, {g}, !bt->transposed);
    }
    auto diag = S.diags_.report(DiagKind::UnknownMember, m.memberRange, typeToString(bt), m.member);
    if (tile2d) diag.hint("'.T' (transpose) is allowed only on wgmma operands");
    else diag.hint("only 2-D shared tiles can be transposed with '.T'");
    return types.error();
  }
  if (bt->isFragment()) return S.fragmentCoordinate(m, bt);
  S.diags_.report(DiagKind::UnknownMember, m.memberRange, typeToString(bt), m.member);
  return types.error();
}

static const Type *typeIndex(Sema &S, IndexExpr &ix) {
  auto &types = S.types_;
  const Type *bt = S.checkExpr(*ix.base, ExprMode::Operand);
  std::vector<std::optional<int64_t>> lengths(ix.items.size());
  bool itemsOk = true;
  const Type *gatherCarrier = nullptr;   // integer fragment indices: a gather at their layout
  for (size_t i = 0; i < ix.items.size(); ++i) {
    IndexItem &item = ix.items[i];
    if (item.start) {
      const Type *st = S.checkExpr(*item.start);
      if (st->isFragment() && isIntegerScalar(st->scalar) && item.kind == IndexItem::Point) {
        gatherCarrier = gatherCarrier ? S.layoutCarrier(gatherCarrier, st, item.range, "[]") : st;
        if (!gatherCarrier) itemsOk = false;
        continue;
      }
      if (st->isError() || !S.checkInteger(*item.start, "an index")) itemsOk = false;
      else S.concretize(*item.start);
    }
    if (item.kind == IndexItem::Slice && item.length) {
      lengths[i] = S.constInt(*item.length, "a slice length");
      if (!lengths[i]) itemsOk = false;
      else {
        S.adaptUntyped(*item.length, types.i32());
        if (*lengths[i] <= 0) {
          S.diags_.report(DiagKind::BadSlice, item.range, S.text(item.range),
                          "the length is " + std::to_string(*lengths[i]) + "; it must be positive");
          itemsOk = false;
        }
      }
    }
  }
  if (bt->isError()) return bt;
  if (gatherCarrier) return itemsOk ? S.fragmentGather(ix, bt, gatherCarrier) : types.error();
  std::string name = S.text(*ix.base);
  bool allPoints = std::all_of(ix.items.begin(), ix.items.end(), [](const IndexItem &it) { return it.kind == IndexItem::Point; });
  auto single = [&](const Type *result) -> const Type * {
    if (ix.items.size() != 1) {
      S.diags_.report(DiagKind::WrongIndexCount, ix.range, name, 1, ix.items.size());
      return types.error();
    }
    if (!allPoints) {
      S.diags_.report(DiagKind::BadSlice, ix.items[0].range, S.text(ix.items[0].range),
                      typeToString(bt) + " is indexed one element at a time");
      return types.error();
    }
    return itemsOk ? result : types.error();
  };
  switch (bt->kind) {
  case TypeKind::MBarrierArray: return single(types.mbarrier());
  case TypeKind::NamedBarrier:
    if (bt->count) return single(types.namedBarrier());
    S.diags_.report(DiagKind::NotIndexable, ix.range, typeToString(bt));
    return types.error();
  case TypeKind::Vector: return single(types.scalar(bt->scalar));
  case TypeKind::Fragment: return itemsOk ? S.fragmentElement(ix, bt) : types.error();
  case TypeKind::Tensor: break;
  default:
    S.diags_.report(DiagKind::NotIndexable, ix.range, typeToString(bt));
    return types.error();
  }
  if (bt->groups.empty() || bt->transposed) {
    S.diags_.report(DiagKind::NotIndexable, ix.range, typeToString(bt));
    return types.error();
  }
  const DimGroup &g0 = bt->groups.front();
  if (ix.items.size() != g0.size()) {
    auto d = S.diags_.report(DiagKind::WrongIndexCount, ix.range, name, g0.size(), ix.items.size());
    if (bt->groups.size() > 1) d.hint(quote(name) + " has type " + typeToString(bt) + "; index one bracket group at a time");
    return types.error();
  }
  if (!itemsOk) return types.error();
  if (bt->groups.size() > 1) {
    if (!allPoints) {
      for (const IndexItem &it : ix.items)
        if (it.kind != IndexItem::Point) {
          S.diags_.report(DiagKind::BadSlice, it.range, S.text(it.range),
                          "slices and ':' are allowed only in the last bracket group of " + typeToString(bt));
          break;
        }
      return types.error();
    }
    std::vector<DimGroup> rest(bt->groups.begin() + 1, bt->groups.end());
    return types.tensor(bt->element, bt->space, std::move(rest));
  }
  if (allPoints) return bt->element;
  const IndexItem &firstNonPoint = *std::find_if(ix.items.begin(), ix.items.end(), [](const IndexItem &it) { return it.kind != IndexItem::Point; });
  if (bt->space == AddressSpace::Register) {
    S.diags_.report(DiagKind::BadSlice, firstNonPoint.range, S.text(firstNonPoint.range),
                    "register arrays are indexed element by element");
    return types.error();
  }
  size_t last = ix.items.size() - 1;
  bool onlyInnermostSlice = ix.items[last].kind == IndexItem::Slice;
  for (size_t i = 0; i < last; ++i)
    if (ix.items[i].kind != IndexItem::Point) onlyInnermostSlice = false;
  if (onlyInnermostSlice && bt->element->isScalar() && !bt->element->isPred()) {
    int64_t len = *lengths[last];
    if (len == 2 || len == 4 || len == 8 || len == 16) return types.vector(bt->element->scalar, static_cast<unsigned>(len));
    if (!S.allowTiles_) {
      S.diags_.report(DiagKind::BadSlice, ix.items[last].range, S.text(ix.items[last].range),
                      "a vector slice takes 2, 4, 8 or 16 elements, not " + std::to_string(len));
      return types.error();
    }
  }
  if (!S.allowTiles_) {
    S.diags_.report(DiagKind::BadSlice, firstNonPoint.range, S.text(firstNonPoint.range),
                    "':' and slices of outer dimensions select a tile, which only operations (tma, wgmma, "
                    "ldmatrix, stmatrix, store) accept");
    return types.error();
  }
  DimGroup tile;
  for (size_t i = 0; i < ix.items.size(); ++i) {
    const IndexItem &it = ix.items[i];
    if (it.kind == IndexItem::Full) tile.push_back(g0[i]);
    else if (it.kind == IndexItem::Slice) tile.push_back(TensorDim{S.text(*it.length), it.length.get(), lengths[i]});
  }
  return types.tensor(bt->element, bt->space, {tile});
}

static const Type *typeConversion(Sema &S, CallExpr &c, const Type *target) {
  auto &types = S.types_;
  S.checkScalarArch(target->scalar, c.calleeRange);
  std::vector<const Type *> argTypes;
  bool anyError = false;
  for (auto &a : c.args) {
    argTypes.push_back(a ? S.checkExpr(*a) : types.error());
    if (argTypes.back()->isError()) anyError = true;
  }
  size_t n = c.args.size();
  auto badConv = [&](const Type *from, std::string hint) {
    auto d = S.diags_.report(DiagKind::BadConversion, c.range, typeToString(from), typeToString(target));
    if (!hint.empty()) d.hint(hint);
    return types.error();
  };
  if (target->isScalar()) {
    if (n != 1) {
      S.diags_.report(DiagKind::WrongArgumentCount, c.range, c.callee, 1, n);
      return types.error();
    }
    if (anyError) return target;
    const Type *from = argTypes[0];
    if (from->isUntyped()) {
      if (target->isPred()) return badConv(from, "compare instead, e.g. x != 0");
      if (untypedFits(from, target)) S.adaptUntyped(*c.args[0], target);
      else S.concretize(*c.args[0]);
      return target;
    }
    if (from->isScalar()) {
      if (target->isPred() && !from->isPred()) return badConv(from, "compare instead: " + S.text(*c.args[0]) + " != 0");
      if (from->isPred() && target->isFloat()) return badConv(from, "convert to an integer first, or use select(p, 1.0, 0.0)");
      return target;
    }
    if (from->isFragment()) {
      if (isTf32Fragment(from)) return badConv(from, "read a tf32 fragment element by element: " + S.text(*c.args[0]) + "[i] is f32");
      if (target->isPred()) return badConv(from, "compare instead, e.g. " + S.text(*c.args[0]) + " != 0");
      if (isF8Scalar(target->scalar)) return badConv(from, "fragments convert between f32, f16, bf16 and integer types");
      if (from->isAccLayout() || from->isRowOrColVector()) return types.withElement(from, target->scalar);
      if (!target->isFloat()) return badConv(from, "operand fragments convert between float types");
      return types.withElement(from, target->scalar);
    }
    if (from->isVector())
      return badConv(from, "convert vectors to a vector type of the same length, e.g. " + std::string(scalarName(target->scalar)) +
                               "x" + std::to_string(from->width) + "(...)");
    return badConv(from, "");
  }
  // Vector target: one vector of the same length, or one scalar per lane (packing).
  if (n == 1) {
    if (anyError) return target;
    const Type *from = argTypes[0];
    if (from->isVector() && from->width == target->width) return target;
    if (from->isScalar() || from->isUntyped())
      return badConv(from, "pack " + std::to_string(target->width) + " scalars: " + c.callee + "(a, b" +
                               (target->width > 2 ? ", ..." : "") + ")");
    return badConv(from, "");
  }
  if (n == target->width) {
    if (anyError) return target;
    const Type *lane = types.scalar(target->scalar);
    for (size_t i = 0; i < n; ++i) {
      const Type *from = argTypes[i];
      if (from->isUntyped()) {
        if (untypedFits(from, lane)) S.adaptUntyped(*c.args[i], lane);
        else S.concretize(*c.args[i]);
      } else if (!from->isScalar() || from->isPred()) {
        S.diags_.report(DiagKind::BadConversion, c.args[i]->range, typeToString(from), typeToString(lane))
            .hint("each argument of " + c.callee + "(...) is one lane");
        return types.error();
      }
    }
    return target;
  }
  S.diags_.report(DiagKind::WrongArgumentCount, c.range, c.callee, "1 or " + std::to_string(target->width), n);
  return types.error();
}

static const Type *typeCall(Sema &S, CallExpr &c) {
  auto &types = S.types_;
  if (const Type *target = types.scalarOrVectorByName(c.callee)) return typeConversion(S, c, target);
  if (c.callee == "sizeof") return S.badSizeof(c);   // a valid sizeof(TYPE) is a literal by now
  if (S.isBrokenTypeParam(c.callee)) {
    for (auto &a : c.args)
      if (a) S.checkExpr(*a);
    return types.error();
  }
  const IntrinsicInfo *intr = lookupIntrinsic(c.callee);
  if (!intr) {
    for (auto &a : c.args)
      if (a) S.checkExpr(*a);
    std::vector<std::string> names;
    for (const IntrinsicInfo &i : kIntrinsics) names.emplace_back(i.spelling);
    for (auto n : {"i32", "u32", "i64", "f16", "bf16", "f32", "f16x2", "bf16x2", "f32x4", "bf16x8", "f16x8"}) names.emplace_back(n);
    auto d = S.diags_.report(DiagKind::UnknownFunction, c.calleeRange, c.callee);
    std::string best = S.closestName(c.callee, names);
    if (!best.empty()) d.hint("did you mean " + quote(best) + "?").fixit(c.calleeRange, best);
    else if (c.callee == "exp" || c.callee == "log" || c.callee == "exp2" || c.callee == "log2")
      d.hint("use ex2 / lg2 (base 2) with a scale by log2(e)");
    return types.error();
  }
  std::vector<const Type *> at;
  bool anyError = false;
  for (auto &a : c.args) {
    at.push_back(a ? S.checkExpr(*a) : types.error());
    if (at.back()->isError()) anyError = true;
  }
  if (c.args.size() != intr->argCount) {
    S.diags_.report(DiagKind::WrongArgumentCount, c.range, c.callee, intr->argCount, c.args.size());
    return types.error();
  }
  S.checkArch(intr->archs, quote(c.callee), c.calleeRange);
  if (anyError) return types.error();
  if (intr->rule == IntrinsicRule::RowReduce || intr->rule == IntrinsicRule::ColReduce)
    return S.fragmentReduction(c, at[0], intr->rule == IntrinsicRule::ColReduce);
  for (const Type *t : at)
    if (t->isFragment()) return S.liftedIntrinsic(c, *intr);
  return S.typeIntrinsicRule(c, *intr);
}

const Type *Sema::typeIntrinsicRule(CallExpr &c, const IntrinsicInfo &intrInfo) {
  Sema &S = *this;
  auto &types = types_;
  const IntrinsicInfo *intr = &intrInfo;
  std::vector<const Type *> at;
  for (auto &a : c.args) at.push_back(a->type);
  auto badArg = [&](size_t i, std::string hint) {
    auto d = S.diags_.report(DiagKind::InvalidOperator, c.args[i]->range, c.callee, typeToString(c.args[i]->type));
    if (!hint.empty()) d.hint(hint);
    return types.error();
  };
  // Common type of args [from, to), as for a binary operator.
  auto unify = [&](size_t from, size_t to) -> const Type * {
    const Type *t = c.args[from]->type;
    for (size_t i = from + 1; i < to; ++i) {
      CommonTypeResult r = commonType(S, *c.args[from], *c.args[i], c.callee, c.range);
      if (!r.ok) return types.error();
      t = r.type;
    }
    // Re-adapt earlier untyped args to the final type.
    if (!t->isUntyped())
      for (size_t i = from; i < to; ++i) S.adaptUntyped(*c.args[i], t);
    return t;
  };
  switch (intr->rule) {
  case IntrinsicRule::FloatUnary: {
    const Type *t = at[0];
    if (t->isUntyped()) { S.adaptUntyped(*c.args[0], types.scalar(ScalarKind::F32)); return types.scalar(ScalarKind::F32); }
    if (!t->isScalar() || !(t->scalar == ScalarKind::F32 || t->scalar == ScalarKind::F16 || t->scalar == ScalarKind::BF16))
      return badArg(0, c.callee + " takes f32, f16 or bf16; convert first, e.g. " + c.callee + "(f32(x))");
    return t;
  }
  case IntrinsicRule::NumericUnary: {
    if (at[0]->isUntyped()) return S.concretize(*c.args[0]);
    if (!at[0]->isScalar() || at[0]->isPred()) return badArg(0, "");
    return at[0];
  }
  case IntrinsicRule::SameType2: {
    const Type *t = unify(0, 2);
    if (t->isError()) return t;
    if (!(t->isUntyped() || (t->isScalar() && !t->isPred()) || (t->isVector() && scalarBits(t->scalar) == 16 && t->width == 2)))
      return badArg(0, "");
    return t;
  }
  case IntrinsicRule::Fma: {
    const Type *t = unify(0, 3);
    if (t->isError()) return t;
    if (t->isUntyped()) { for (auto &a : c.args) S.adaptUntyped(*a, types.scalar(ScalarKind::F32)); return types.scalar(ScalarKind::F32); }
    if (!t->isFloat() && !(t->isVector() && isFloatScalar(t->scalar))) return badArg(0, "fma takes float operands");
    return t;
  }
  case IntrinsicRule::Select: {
    if (!S.checkPred(*c.args[0], "the condition of select")) return types.error();
    const Type *t = unify(1, 3);
    if (t->isError()) return t;
    if (t->isUntyped()) {
      const Type *to = types.scalar(t->kind == TypeKind::UntypedFloat ? ScalarKind::F32 : ScalarKind::I32);
      S.adaptUntyped(*c.args[1], to);
      S.adaptUntyped(*c.args[2], to);
      return to;
    }
    if (!(t->isScalar() || t->isVector())) return badArg(1, "");
    return t;
  }
  case IntrinsicRule::IntBinary: {
    const Type *t = unify(0, 2);
    if (t->isError()) return t;
    if (!t->isInteger()) return badArg(0, c.callee + " takes integers");
    return t;
  }
  case IntrinsicRule::Shuffle: {
    const Type *v = at[0]->isUntyped() ? S.concretize(*c.args[0]) : at[0];
    bool ok32 = v->isScalar() && (v->scalar == ScalarKind::I32 || v->scalar == ScalarKind::U32 || v->scalar == ScalarKind::F32);
    bool okPair = v->isVector() && v->width == 2 && scalarBits(v->scalar) == 16;
    if (!ok32 && !okPair) return badArg(0, "shuffles move 32-bit values: i32, u32, f32, f16x2 or bf16x2");
    if (!S.checkInteger(*c.args[1], "the lane argument of " + c.callee)) return types.error();
    S.concretize(*c.args[1]);
    return v;
  }
  case IntrinsicRule::Atomic: return S.typeAtomicCall(c, *intr);
  case IntrinsicRule::OrderedEncode: {
    if (at[0]->isUntyped()) S.adaptUntyped(*c.args[0], types.scalar(ScalarKind::F32));
    else if (!(at[0]->isScalar() && at[0]->scalar == ScalarKind::F32))
      return badArg(0, "ordered(x) encodes an f32; convert first: ordered(f32(x))");
    return types.scalar(ScalarKind::U32);
  }
  case IntrinsicRule::Tf32Round: {
    if (at[0]->isUntyped()) S.adaptUntyped(*c.args[0], types.scalar(ScalarKind::F32));
    else if (!(at[0]->isScalar() && at[0]->scalar == ScalarKind::F32))
      return badArg(0, "tf32.rz(x) rounds an f32; convert first: tf32.rz(f32(x))");
    return types.scalar(ScalarKind::F32);
  }
  case IntrinsicRule::OrderedDecode: {
    if (at[0]->isUntyped()) S.adaptUntyped(*c.args[0], types.scalar(ScalarKind::U32));
    else if (!(at[0]->isScalar() && at[0]->scalar == ScalarKind::U32))
      return badArg(0, "unordered(u) decodes the u32 that ordered(x) made");
    return types.scalar(ScalarKind::F32);
  }
  case IntrinsicRule::WarpReduce: {
    const Type *v = at[0]->isUntyped() ? S.concretize(*c.args[0]) : at[0];
    if (!(v->isScalar() && (v->scalar == ScalarKind::I32 || v->scalar == ScalarKind::U32 || v->scalar == ScalarKind::F32)))
      return badArg(0, "warp reductions take i32, u32 or f32");
    return v;
  }
  case IntrinsicRule::WarpVote: {
    if (!at[0]->isPred()) return badArg(0, "warp.any / warp.all take a pred (a comparison): warp.any(x < bound)");
    return types.pred();
  }
  case IntrinsicRule::RowReduce: return fragmentReduction(c, at[0], false);
  case IntrinsicRule::ColReduce: return fragmentReduction(c, at[0], true);
  }
  return types.error();
}

const Type *Sema::checkExpr(Expr &e, ExprMode mode) {
  const Type *t = types_.error();
  switch (e.kind) {
  case ExprKind::IntLit: t = types_.untypedInt(); break;
  case ExprKind::FloatLit: t = types_.untypedFloat(); break;
  case ExprKind::BoolLit: t = types_.pred(); break;
  case ExprKind::Name: {
    auto &n = *cast<NameExpr>(&e);
    Decl *d = resolve(n);
    if (!d) break;
    switch (d->declKind) {
    case DeclKind::Builtin: {
      auto *b = static_cast<BuiltinDecl *>(d);
      if (b->isNamespace) t = types_.builtinNamespace();
      else if (b->value == BuiltinValue::Inf) t = types_.untypedFloat();
      else t = types_.i32();
      break;
    }
    case DeclKind::CtParam:
      if (!static_cast<CtParam *>(d)->isType) {
        t = types_.untypedInt();
      } else if (!isBrokenTypeParam(d->name)) {
        diags_.report(DiagKind::TypeParamAsValue, n.range, n.name)
            .note(d->nameRange, "type parameter " + quote(d->name) + " is declared here")
            .hint("convert a value with " + n.name + "(x), or take the size in bytes with sizeof(" + n.name + ")");
      }
      break;
    case DeclKind::ShapeVar: t = types_.i32(); break;
    case DeclKind::Role: t = types_.role(); break;
    case DeclKind::Shared:
      t = d->type ? d->type : types_.error();
      if (t->isTensor() && t->groups.empty()) t = t->element;   // a dimensionless shared value
      break;
    default: t = d->type ? d->type : types_.error(); break;
    }
    break;
  }
  case ExprKind::Unary: t = typeUnary(*this, *cast<UnaryExpr>(&e)); break;
  case ExprKind::Binary: {
    auto &b = *cast<BinaryExpr>(&e);
    const Type *lt = checkExpr(*b.lhs);
    const Type *rt = checkExpr(*b.rhs);
    t = binaryResultType(b.op, lt, rt, b.lhs.get(), b.rhs.get(), b.range, binaryOpSpelling(b.op));
    break;
  }
  case ExprKind::Member: t = typeMember(*this, *cast<MemberExpr>(&e)); break;
  case ExprKind::Index: {
    auto &ix = *cast<IndexExpr>(&e);
    t = typeIndex(*this, ix);
    // Tensor memory is reached only by tcgen05 operations: its tiles are operands, its elements no values.
    if (!t->isError() && !t->isTensor() && ix.base->type && ix.base->type->isTensor() &&
        ix.base->type->space == AddressSpace::TensorMemory) {
      Decl *root = rootDecl(e);
      diags_.report(DiagKind::TmemNotAddressable, e.range, root ? root->name : text(e), "loaded or stored by indexing")
          .hint("read it with tcgen05.ld into a frag<tmem_acc, ..>, write it with tcgen05.st");
      t = types_.error();
    }
    break;
  }
  case ExprKind::Call: t = typeCall(*this, *cast<CallExpr>(&e)); break;
  case ExprKind::List:
    for (auto &el : cast<ListExpr>(&e)->elements)
      if (el) checkExpr(*el);
    diags_.report(DiagKind::NotAValue, e.range, "a list");
    break;
  }
  if (mode == ExprMode::Value) {
    switch (t->kind) {
    case TypeKind::MBarrier: case TypeKind::MBarrierArray: case TypeKind::NamedBarrier: case TypeKind::Role:
    case TypeKind::BuiltinNamespace: {
      std::string what = text(e);
      auto d = diags_.report(DiagKind::NotAValue, e.range, typeToString(t) + " " + quote(what));
      if (t->kind == TypeKind::BuiltinNamespace) {
        std::string list;
        for (auto m : builtinMembers(what)) list += (list.empty() ? "" : ", ") + what + "." + std::string(m);
        d.hint("use " + list);
      } else if (t->kind == TypeKind::Role) {
        d.hint("use " + what + ".index, " + what + ".warp or " + what + ".thread");
      }
      t = types_.error();
      break;
    }
    default: break;
    }
  }
  e.type = t;
  return t;
}

} // namespace cake
